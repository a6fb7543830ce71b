// CUDA only, joined after the neutral device library (codegen/dialect: DialectTable::tail_files):
// warp-level helpers of grouped aggregation that build on base.h's 128-bit sums and group_by.h.
// Expects: warp.cuh, base.h, group_by.h; HQC_HAS_SIMD 1.
// Guarantees: as each section says; every lane of the warp calls the warp functions.

// ---- Runs of one group in neighbouring lanes: one aggregate update per run ----
// Sorted input (lineitem by l_orderkey) puts a group's tuples side by side, and a GROUP BY with
// global atomics per tuple (C2) then makes several lanes of a warp update the same words one after
// another. Combined first, the run's last lane makes one lookup and one update per aggregate with
// the run's total. A run is described by the mask of lanes that continue the run of the lane below
// (`runs`; 0: every qualifying lane is a run of its own, the plain per-tuple C2). Every lane of the
// warp calls these (the sink runs in the tile loop's uniform control flow), and the masks are the
// same in every lane, so tests on them are warp-uniform:
//   hqc_warp_pairs(flag): lanes that qualify together with the lane below; where none do, nothing
//     else needs to run (a selective filter or unsorted input pays one ballot per tile).
//   hqc_warp_same_below_i64(k): lanes whose key equals the lane below's; a group of several keys
//     ANDs one mask per key, `runs = pairs & same(k0) & same(k1)...`.
//   hqc_warp_run_first(runs): this lane's run's first lane; hqc_warp_run_last(runs): 1 where this
//     lane ends its run.
//   hqc_warp_run_<op>_<type>(v, first): inclusive scan of v within the run (segmented by `first`): in
//     the run's last lane, the run's total (128-bit sums: of the widened 64-bit inputs).
HQC_FN hqc_u32 hqc_warp_pairs(hqc_i32 flag) {
  const hqc_u32 qualifying = HQC_BALLOT(flag);
  return qualifying & (qualifying << 1);
}
HQC_FN hqc_u32 hqc_warp_same_below_i64(hqc_i64 key) {
  const hqc_i64 below = HQC_SHFL_UP(key, 1);
  return HQC_BALLOT(below == key) & ~1u;  // lane 0 has no lane below
}
HQC_FN hqc_i32 hqc_warp_run_first(hqc_u32 runs) {
  const hqc_u32 starts_at_or_below = ~runs & (0xffffffffu >> (HQC_SIMD_WIDTH - 1 - hqc_lane()));
  return HQC_SIMD_WIDTH - 1 - __clz((int)starts_at_or_below);  // lane 0 always starts a run
}
HQC_FN hqc_i32 hqc_warp_run_last(hqc_u32 runs) {
  const hqc_i32 lane = hqc_lane();
  return lane == HQC_SIMD_WIDTH - 1 || ((runs >> (lane + 1)) & 1u) == 0u;
}

#define HQC_WARP_RUN_SCAN(NAME, T, COMBINE)                        \
  HQC_FN T NAME(T v, hqc_i32 first) {                              \
    const hqc_i32 lane = hqc_lane();                               \
    for (hqc_i32 d = 1; d < HQC_SIMD_WIDTH; d <<= 1) {             \
      const T y = HQC_SHFL_UP(v, d);                               \
      if (lane - d >= first) v = COMBINE;                          \
    }                                                              \
    return v;                                                      \
  }
HQC_WARP_RUN_SCAN(hqc_warp_run_sum_i64, hqc_i64, v + y)
HQC_WARP_RUN_SCAN(hqc_warp_run_sum_f64, hqc_f64, v + y)
HQC_WARP_RUN_SCAN(hqc_warp_run_min_i64, hqc_i64, y < v ? y : v)
HQC_WARP_RUN_SCAN(hqc_warp_run_max_i64, hqc_i64, y > v ? y : v)
#undef HQC_WARP_RUN_SCAN

// A run's total of inputs whose 32 sum within int32 (the caller knows their bound): the scan in
// 32 bits, one shuffle a step instead of two.
HQC_FN hqc_i64 hqc_warp_run_sum_small(hqc_i64 v, hqc_i32 first) {
  const hqc_i32 lane = hqc_lane();
  hqc_i32 s = (hqc_i32)v;
  for (hqc_i32 d = 1; d < HQC_SIMD_WIDTH; d <<= 1) {
    const hqc_i32 y = HQC_SHFL_UP(s, d);
    if (lane - d >= first) s += y;
  }
  return s;
}

HQC_FN hqc_i128 hqc_warp_run_sum_i128(hqc_i128 s, hqc_i32 first) {
  const hqc_i32 lane = hqc_lane();
  for (hqc_i32 d = 1; d < HQC_SIMD_WIDTH; d <<= 1) {
    hqc_i128 y;
    y.lo = HQC_SHFL_UP(s.lo, d);
    y.hi = HQC_SHFL_UP(s.hi, d);
    if (lane - d >= first) s = hqc_i128_add(s, y);
  }
  return s;
}

// A run's 128-bit total into group g of a C2 table (group_by.h's hqc_gb_global_sum_i128 adds one
// 64-bit input).
HQC_FN void hqc_gb_global_sum_run_i128(HQC_GLOBAL hqc_i64* out, hqc_i64 g, hqc_i128 v) { hqc_atomic_add_i128_g(&out[2 * g], v); }

// ---- Few groups in a warp: one update of the CTA's table per group and warp ----
// A C3 table of a handful of slots (TPC-H Q1: 6) takes every lane's tuple into the same few
// scratchpad words, and shared atomics on one word serialise the warp (~8 lanes per word there).
// Instead the warp's qualifying lanes are taken one group at a time: the group of the lowest pending
// lane (hqc_warp_group_of), the lanes in it (hqc_warp_group_lanes), each accumulator over those
// lanes by a shuffle tree (hqc_warp_group_<op>_<type>: valid in lane 0; a lane outside the group
// gives the identity), and lane 0 updates the table once. The loop runs once per distinct group among
// the warp's qualifying lanes; its masks are the same in every lane.
HQC_FN hqc_i64 hqc_warp_group_of(hqc_u32 pending, hqc_i64 g) { return HQC_SHFL_IDX(g, __ffs((int)pending) - 1); }
HQC_FN hqc_u32 hqc_warp_group_lanes(hqc_i32 flag, hqc_i64 g, hqc_i64 group) { return HQC_BALLOT(flag && g == group); }
HQC_FN hqc_i32 hqc_warp_in(hqc_u32 lanes) { return (hqc_i32)((lanes >> hqc_lane()) & 1u); }
// A COUNT's total over the group: its lanes, counted (every lane holds it, no shuffle).
HQC_FN hqc_i64 hqc_warp_group_count(hqc_u32 lanes) { return (hqc_i64)__popc(lanes); }
// The same over several tiles per iteration: each lane's rows in the group (`hits`, one bit per
// tile), counted over the warp. An unsigned reduction of its own: written as
// hqc_warp_group_sum_small's signed one, ptxas gave TPC-H Q1's aggregate 64 registers instead of 56.
HQC_FN hqc_i64 hqc_warp_group_count_rows(hqc_u32 hits) {
#if __CUDA_ARCH__ >= 800
  return (hqc_i64)__reduce_add_sync(0xffffffffu, (hqc_u32)__popc(hits));
#else
  return hqc_warp_sum_i64((hqc_i64)__popc(hits));
#endif
}
HQC_FN hqc_i64 hqc_warp_group_sum_i64(hqc_i64 v, hqc_u32 lanes) { return hqc_warp_sum_i64(hqc_warp_in(lanes) ? v : 0); }
// The same for inputs whose 32 sum within int32 (the caller knows their bound): one warp reduction
// instruction where the architecture has it (sm_80 on), else the 64-bit tree.
HQC_FN hqc_i64 hqc_warp_group_sum_small(hqc_i64 v, hqc_u32 lanes) {
#if __CUDA_ARCH__ >= 800
  return (hqc_i64)__reduce_add_sync(0xffffffffu, hqc_warp_in(lanes) ? (hqc_i32)v : 0);
#else
  return hqc_warp_sum_i64(hqc_warp_in(lanes) ? v : 0);
#endif
}
// Inputs up to ~2^42 in magnitude (the caller knows their bound): each is high x 2^16 + low, low
// the unsigned 16 bits (32 of them sum below 2^21) and high the signed rest, whose 32 sum within
// int32 — two reductions instead of the 64-bit tree (sm_80 on).
HQC_FN hqc_i64 hqc_warp_group_sum_split(hqc_i64 v, hqc_u32 lanes) {
#if __CUDA_ARCH__ >= 800
  const hqc_i64 x = hqc_warp_in(lanes) ? v : 0;
  const hqc_i64 low = (hqc_i64)__reduce_add_sync(0xffffffffu, (hqc_u32)(x & 0xffff));
  const hqc_i64 high = (hqc_i64)__reduce_add_sync(0xffffffffu, (hqc_i32)(x >> 16));
  return high * 65536 + low;
#else
  return hqc_warp_sum_i64(hqc_warp_in(lanes) ? v : 0);
#endif
}
HQC_FN hqc_f64 hqc_warp_group_sum_f64(hqc_f64 v, hqc_u32 lanes) { return hqc_warp_sum_f64(hqc_warp_in(lanes) ? v : 0.0); }
HQC_FN hqc_i64 hqc_warp_group_min_i64(hqc_i64 v, hqc_u32 lanes) { return hqc_warp_min_i64(hqc_warp_in(lanes) ? v : HQC_I64_MAX); }
HQC_FN hqc_i64 hqc_warp_group_max_i64(hqc_i64 v, hqc_u32 lanes) { return hqc_warp_max_i64(hqc_warp_in(lanes) ? v : HQC_I64_MIN); }
// The exact sum of 32 int64 inputs: their low 32 bits (unsigned) and high 32 bits (signed) summed
// apart (|sums| < 2^37), then low + high x 2^32 in 128 bits.
HQC_FN hqc_i128 hqc_warp_group_sum_i128(hqc_i64 v, hqc_u32 lanes) {
  const hqc_i64 x = hqc_warp_in(lanes) ? v : 0;
  const hqc_i64 low = hqc_warp_sum_i64(x & (hqc_i64)0xffffffff);
  const hqc_i64 high = hqc_warp_sum_i64(x >> 32);
  hqc_i128 shifted;
  shifted.lo = (hqc_u64)high << 32;
  shifted.hi = high >> 32;
  return hqc_i128_add(hqc_i128_from_i64(low), shifted);
}
// A group's 128-bit total into slot g of the CTA's table (group_by.h's hqc_gb_local_sum_i128 adds one
// 64-bit input).
HQC_FN void hqc_gb_local_sum_group_i128(HQC_LOCAL hqc_i64* s, hqc_i64 g, hqc_i128 v) { hqc_atomic_add_i128_l(&s[2 * g], v); }

// ---- Few groups, one table per warp: the group totals added without atomics ----
// Lane 0 of every warp updating the CTA's table makes each update of a 64-bit word a shared-memory
// compare-and-swap loop (there is no 64-bit shared atomic add), retried while the CTA's other warps
// update the same few words (TPC-H Q1: four groups, six words each). Where the statistics give the
// table's slots (at most 16), each warp keeps its own copy of them in the scratchpad instead: lane 0
// adds a group's totals to its warp's copy with plain loads and stores, and after the tile loop the
// warp merges its copy into the CTA's table, one atomic per slot it touched. A slot past the copy's
// (data beyond the statistics the kernel was compiled with) goes to the CTA's table as before.
//   hqc_gb_warp_fill_i64(t, slots, identity): the warp's copy of one accumulator, `slots` <= 32 words.
//   hqc_gb_warp_<op>_i64(t, g, v): called by one lane of the warp (lane 0) for slot g < slots.
//   hqc_gb_warp_merge_<op>_i64(s, t, slots, identity): every lane of the warp, after its last update.
HQC_FN void hqc_gb_warp_fill_i64(HQC_LOCAL hqc_i64* t, hqc_i32 slots, hqc_i64 identity) {
  if (hqc_lane() < slots) t[hqc_lane()] = identity;
}
HQC_FN void hqc_gb_warp_sum_i64(HQC_LOCAL hqc_i64* t, hqc_i64 g, hqc_i64 v) { t[g] += v; }
HQC_FN void hqc_gb_warp_min_i64(HQC_LOCAL hqc_i64* t, hqc_i64 g, hqc_i64 v) { t[g] = v < t[g] ? v : t[g]; }
HQC_FN void hqc_gb_warp_max_i64(HQC_LOCAL hqc_i64* t, hqc_i64 g, hqc_i64 v) { t[g] = v > t[g] ? v : t[g]; }
#define HQC_GB_WARP_MERGE(OP)                                                                               \
  HQC_FN void hqc_gb_warp_merge_##OP##_i64(HQC_LOCAL hqc_i64* s, HQC_LOCAL const hqc_i64* t, hqc_i32 slots, \
                                           hqc_i64 identity) {                                             \
    __syncwarp(); /* lane 0's stores, seen by the warp's other lanes */                                    \
    const hqc_i32 lane = hqc_lane();                                                                       \
    if (lane < slots && t[lane] != identity) hqc_gb_local_##OP##_i64(s, lane, t[lane]);                    \
  }
HQC_GB_WARP_MERGE(sum)
HQC_GB_WARP_MERGE(min)
HQC_GB_WARP_MERGE(max)
#undef HQC_GB_WARP_MERGE

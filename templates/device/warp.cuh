// CUDA only (joined by codegen/dialect when the table says has_simd): the SIMD level of local
// resolution — warp-wide scans and reductions through register shuffles, no scratchpad, no barrier.
// Expects: the dialect prelude with HQC_HAS_SIMD 1 (HQC_SHFL_*, HQC_SIMD_WIDTH == 32), all 32 lanes
//   of the warp active (generated kernels call these with uniform control flow; inactive tuples
//   contribute the identity instead of branching around the call).
// Guarantees: exact results for every lane; lane = HQC_LID() % 32.

HQC_FN hqc_i32 hqc_lane(void) { return HQC_LID() & (HQC_SIMD_WIDTH - 1); }
HQC_FN hqc_i32 hqc_warp(void) { return HQC_LID() / HQC_SIMD_WIDTH; }

// Inclusive scan (Sengupta et al.'s intra-warp scan, with shuffles instead of scratchpad).
HQC_FN hqc_u32 hqc_warp_inclusive_scan_u32(hqc_u32 x) {
  const hqc_i32 lane = hqc_lane();
  for (hqc_i32 d = 1; d < HQC_SIMD_WIDTH; d <<= 1) {
    hqc_u32 y = HQC_SHFL_UP(x, d);
    if (lane >= d) x += y;
  }
  return x;
}

// Butterfly-free tree reductions: the result is valid in lane 0.
HQC_FN hqc_i64 hqc_warp_sum_i64(hqc_i64 x) {
  for (hqc_i32 d = HQC_SIMD_WIDTH / 2; d > 0; d >>= 1) x += HQC_SHFL_DOWN(x, d);
  return x;
}
HQC_FN hqc_f64 hqc_warp_sum_f64(hqc_f64 x) {
  for (hqc_i32 d = HQC_SIMD_WIDTH / 2; d > 0; d >>= 1) x += HQC_SHFL_DOWN(x, d);
  return x;
}
HQC_FN hqc_i64 hqc_warp_min_i64(hqc_i64 x) {
  for (hqc_i32 d = HQC_SIMD_WIDTH / 2; d > 0; d >>= 1) {
    hqc_i64 y = HQC_SHFL_DOWN(x, d);
    x = y < x ? y : x;
  }
  return x;
}
HQC_FN hqc_i64 hqc_warp_max_i64(hqc_i64 x) {
  for (hqc_i32 d = HQC_SIMD_WIDTH / 2; d > 0; d >>= 1) {
    hqc_i64 y = HQC_SHFL_DOWN(x, d);
    x = y > x ? y : x;
  }
  return x;
}

// A3 by warp votes (the SIMD mechanism of a materialization's write positions): `count` is 0 or 1 per
// work-item. One counting barrier gives the CTA's total, and a tile without output ends there — no
// scan, no atomic, so a selective filter costs resolution what it costs the pipelined model. Else the
// warps' vote counts are scanned in scratchpad (words 0..15 as u32) and one atomic per CTA reserves
// the CTA's positions (the base in word HQC_SCAN_SIMD_WORDS - 1). Scratchpad: HQC_SCAN_SIMD_WORDS
// words, used by this function only: the next call's counting barrier orders its writes after this
// call's reads.
HQC_FN hqc_u64 hqc_cta_reserve_ballot(hqc_u32 count, HQC_GLOBAL hqc_u64* counter, HQC_LOCAL hqc_u64* scratch) {
  const hqc_i32 total = HQC_BARRIER_COUNT(count != 0u);
  if (total == 0) return 0;
  HQC_LOCAL hqc_u32* warp_offset = (HQC_LOCAL hqc_u32*)scratch;
  HQC_LOCAL hqc_u64* s_base = scratch + 17;  // HQC_SCAN_SIMD_WORDS - 1
  const hqc_u32 votes = HQC_BALLOT(count != 0u);
  if (hqc_lane() == 0) warp_offset[hqc_warp()] = HQC_POPC(votes);
  HQC_BARRIER();
  if (HQC_LID() == 0) {
    hqc_u32 sum = 0;
    for (hqc_i32 w = 0; w < HQC_BDIM() / HQC_SIMD_WIDTH; ++w) {
      const hqc_u32 c = warp_offset[w];
      warp_offset[w] = sum;
      sum += c;
    }
    *s_base = HQC_ATOMIC_ADD_U64(counter, (hqc_u64)total);
  }
  HQC_BARRIER();
  const hqc_u32 below = votes & ((1u << hqc_lane()) - 1u);
  return *s_base + warp_offset[hqc_warp()] + (hqc_u64)HQC_POPC(below);
}

// A chained hash table's link (device/hash_table.h, hqc_ch_link) with one exchange per run of
// neighbouring lanes whose entries go to the same slot (`slot` from hqc_oa_find_or_claim_*, -1 for a
// lane that inserts nothing): sorted build input (lineitem by l_orderkey) puts a key's rows side by
// side, and their exchanges on one list head would otherwise serialise. The run's last lane
// exchanges the head for its entry; every other entry links to the entry of the lane below it, and
// the run's first to the head the exchange replaced. The lists equal those of one exchange per lane
// in lane order. Returns the entry, or -1 where slot < 0.
HQC_FN hqc_i64 hqc_warp_ch_link(HQC_GLOBAL hqc_i64* heads, HQC_GLOBAL hqc_i64* next, hqc_i64 slot, hqc_i64 entry) {
  const hqc_i32 lane = hqc_lane();
  const hqc_i64 slot_below = HQC_SHFL_UP(slot, 1);
  const hqc_i64 slot_above = HQC_SHFL_DOWN(slot, 1);
  const hqc_i64 entry_below = HQC_SHFL_UP(entry, 1);
  const hqc_i32 first = lane == 0 || slot_below != slot;
  const hqc_i32 last = lane == HQC_SIMD_WIDTH - 1 || slot_above != slot;
  hqc_i64 replaced = -1;
  if (last && slot >= 0) replaced = HQC_ATOMIC_XCHG_I64(&heads[slot], entry);
  // The run's last lane: the lowest lane at or above this one that ends a run.
  const hqc_u32 ends_above = HQC_BALLOT(last) & (0xffffffffu << lane);
  const hqc_i32 tail = (hqc_i32)HQC_POPC((ends_above & (0u - ends_above)) - 1u);
  replaced = HQC_SHFL_IDX(replaced, tail);
  if (slot < 0) return -1;
  next[entry] = first ? replaced : entry_below;
  return entry;
}

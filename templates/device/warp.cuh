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

// A3 by warp votes (the SIMD mechanism of a materialization's write positions; local resolution in
// the warp, Table 4's 32-element end): `count` is 0 or 1 per lane, all 32 lanes call it. The warp's
// ballot gives each lane its offset among the warp's outputs and lane 0 reserves them with one atomic
// (none when the warp has no output), shuffled to the others. No scratchpad, no barrier: a selective
// filter costs resolution what it costs the pipelined model.
HQC_FN hqc_u64 hqc_warp_reserve_ballot(hqc_u32 count, HQC_GLOBAL hqc_u64* counter) {
  const hqc_u32 votes = HQC_BALLOT(count != 0u);
  if (votes == 0u) return 0;
  hqc_u64 base = 0;
  if (hqc_lane() == 0) base = HQC_ATOMIC_ADD_U64(counter, (hqc_u64)HQC_POPC(votes));
  base = HQC_SHFL_IDX(base, 0);
  return base + (hqc_u64)HQC_POPC(votes & ((1u << hqc_lane()) - 1u));
}

// Dialect-neutral device library, layer 2: CTA prefix sums and write positions (techniques A2, A3).
// Expects: base.h; warp.cuh when HQC_HAS_SIMD. Every work-item of the CTA calls each hqc_cta_*
//   function (uniform control flow; a tuple that is filtered out passes count 0), HQC_BDIM() is a
//   power of two <= 1024, and for the SIMD mechanism also a multiple of HQC_SIMD_WIDTH.
// Guarantees:
//   - hqc_cta_scan_*: exclusive prefix sum of `x` over the CTA in work-item order, and the CTA total.
//     Two interchangeable local-resolution mechanisms (HorseQC §6.1): work-efficient (Blelloch tree
//     in scratchpad, barriers) everywhere, SIMD (warp shuffles, one scratchpad word per warp) where
//     the dialect has warps.
//   - hqc_cta_reserve_*: A3 — local resolution, then ONE atomic per CTA on the global counter
//     (global propagation); returns this work-item's first write position. Positions are unique and
//     dense; their order across CTAs is undefined (a bag), within a CTA it is work-item order.
//   - hqc_reserve_atomic: A2 — one atomic per tuple that produces output.
//   - All functions end with a barrier, so the same scratch may be reused by the next call.
// Scratchpad, in 8-byte words: hqc_scan_we_words(HQC_BDIM()) or HQC_SCAN_SIMD_WORDS.

HQC_FN hqc_i32 hqc_scan_we_words(hqc_i32 block) { return (block + 1) / 2 + 2; }
#define HQC_SCAN_SIMD_WORDS 18

HQC_FN hqc_u32 hqc_cta_scan_we_u32(hqc_u32 x, HQC_LOCAL hqc_u64* scratch, hqc_u32* total) {
  HQC_LOCAL hqc_u32* s = (HQC_LOCAL hqc_u32*)scratch;
  HQC_LOCAL hqc_u64* s_total = scratch + (HQC_BDIM() + 1) / 2;
  const hqc_i32 n = HQC_BDIM();
  const hqc_i32 lid = HQC_LID();
  s[lid] = x;
  // Up-sweep: after step d, s[k*2d - 1] holds the sum of its 2d-element subtree.
  for (hqc_i32 d = 1; d < n; d <<= 1) {
    HQC_BARRIER();
    hqc_i32 i = (lid + 1) * 2 * d - 1;
    if (i < n) s[i] += s[i - d];
  }
  HQC_BARRIER();
  if (lid == 0) {
    *s_total = s[n - 1];
    s[n - 1] = 0u;
  }
  // Down-sweep: pushes exclusive prefixes back down the tree.
  for (hqc_i32 d = n >> 1; d >= 1; d >>= 1) {
    HQC_BARRIER();
    hqc_i32 i = (lid + 1) * 2 * d - 1;
    if (i < n) {
      hqc_u32 left = s[i - d];
      s[i - d] = s[i];
      s[i] += left;
    }
  }
  HQC_BARRIER();
  hqc_u32 prefix = s[lid];
  *total = (hqc_u32)*s_total;
  HQC_BARRIER();
  return prefix;
}

HQC_FN hqc_u64 hqc_cta_reserve_we(hqc_u32 count, HQC_GLOBAL hqc_u64* counter, HQC_LOCAL hqc_u64* scratch) {
  hqc_u32 total;
  hqc_u32 in_cta = hqc_cta_scan_we_u32(count, scratch, &total);
  HQC_LOCAL hqc_u64* s_base = scratch + hqc_scan_we_words(HQC_BDIM()) - 1;
  if (HQC_LID() == 0) *s_base = total != 0u ? HQC_ATOMIC_ADD_U64(counter, (hqc_u64)total) : (hqc_u64)0;
  HQC_BARRIER();
  hqc_u64 position = *s_base + in_cta;
  HQC_BARRIER();
  return position;
}

#if HQC_HAS_SIMD
HQC_FN hqc_u32 hqc_cta_scan_simd_u32(hqc_u32 x, HQC_LOCAL hqc_u64* scratch, hqc_u32* total) {
  HQC_LOCAL hqc_u32* warp_prefix = (HQC_LOCAL hqc_u32*)scratch;  // 32 u32 = words 0..15
  HQC_LOCAL hqc_u64* s_total = scratch + 16;
  const hqc_i32 warps = HQC_BDIM() / HQC_SIMD_WIDTH;
  hqc_u32 inclusive = hqc_warp_inclusive_scan_u32(x);
  if (hqc_lane() == HQC_SIMD_WIDTH - 1) warp_prefix[hqc_warp()] = inclusive;
  HQC_BARRIER();
  if (hqc_warp() == 0) {
    hqc_u32 t = hqc_lane() < warps ? warp_prefix[hqc_lane()] : 0u;
    hqc_u32 t_inclusive = hqc_warp_inclusive_scan_u32(t);
    if (hqc_lane() < warps) warp_prefix[hqc_lane()] = t_inclusive - t;
    if (hqc_lane() == HQC_SIMD_WIDTH - 1) *s_total = t_inclusive;
  }
  HQC_BARRIER();
  hqc_u32 prefix = warp_prefix[hqc_warp()] + inclusive - x;
  *total = (hqc_u32)*s_total;
  HQC_BARRIER();
  return prefix;
}

HQC_FN hqc_u64 hqc_cta_reserve_simd(hqc_u32 count, HQC_GLOBAL hqc_u64* counter, HQC_LOCAL hqc_u64* scratch) {
  hqc_u32 total;
  hqc_u32 in_cta = hqc_cta_scan_simd_u32(count, scratch, &total);
  HQC_LOCAL hqc_u64* s_base = scratch + HQC_SCAN_SIMD_WORDS - 1;
  if (HQC_LID() == 0) *s_base = total != 0u ? HQC_ATOMIC_ADD_U64(counter, (hqc_u64)total) : (hqc_u64)0;
  HQC_BARRIER();
  hqc_u64 position = *s_base + in_cta;
  HQC_BARRIER();
  return position;
}
#endif

HQC_FN hqc_u64 hqc_reserve_atomic(hqc_u32 count, HQC_GLOBAL hqc_u64* counter) {
  return count != 0u ? HQC_ATOMIC_ADD_U64(counter, (hqc_u64)count) : (hqc_u64)0;
}

// A reserved position past the output's capacity raises HQC_FLAG_FULL (the host re-runs with a
// larger output) instead of writing out of bounds.
HQC_FN hqc_i32 hqc_output_fits(hqc_u64 position, hqc_i64 capacity, HQC_GLOBAL hqc_u32* flags) {
  if (position < (hqc_u64)capacity) return 1;
  hqc_set_flag(flags, HQC_FLAG_FULL);
  return 0;
}

// Dialect-neutral device library, layer 6: compaction of an aggregation table's occupied slots into
// dense rows, so that the host copies back and reads as many rows as there are groups, not slots.
// Expects: base.h, scan.h, reduce.h (CTA scan and sum: work-efficient, or SIMD where HQC_HAS_SIMD;
//   power-of-two HQC_BDIM() <= 1024, a multiple of the warp where HQC_HAS_SIMD; every work-item calls
//   each function: uniform control flow).
// Guarantees:
//   - The slots are cut into hqc_compact_chunk_count(slots) <= HQC_COMPACT_CHUNKS consecutive chunks
//     of 2^hqc_compact_chunk_shift(slots) slots: the least power of two of at least
//     2^HQC_COMPACT_MIN_SHIFT slots (a small table is one chunk, not a thousand chunks of one slot)
//     that needs no more chunks. Powers of two, so that no kernel divides 64-bit integers (ptxas
//     expands each such division into a long routine: ~20 ms of a module's compile). Both launches
//     take ANY grid and block size (they need not agree on either): the partition depends on
//     `slots` alone.
//   - Launch 1 (hqc_compact_count): counts[c] = occupied slots (occupancy != 0) of chunk c; CTAs
//     stride over the chunks.
//   - Launch 2 (the generated gather kernel): CTA b takes the consecutive chunks
//     [hqc_compact_cta_chunk(b), hqc_compact_cta_chunk(b + 1)); hqc_compact_chunk_base gives the occupied
//     slots before its first chunk, once. A chunk whose count is 0 is skipped whole; in the others a
//     tile of HQC_BDIM() slots takes its dense rows from a CTA exclusive prefix sum of the occupied
//     flags (hqc_compact_scan), the kernel copies every word of an occupied slot to its row, and the
//     chunk ends as soon as its count of rows is written (a sparse chunk reads only up to its last
//     group). Rows are in slot order: deterministic, and ORDER BY ties come out as they did from the
//     sparse table. hqc_compact_total writes the row count (once, by the CTA holding the last chunk).
// Scratchpad, in 8-byte words: HQC_BDIM() (the CTA sum; the scan needs fewer).
#define HQC_COMPACT_CHUNKS 16384
#define HQC_COMPACT_MIN_SHIFT 10

#if HQC_HAS_SIMD
HQC_FN hqc_u32 hqc_compact_scan(hqc_u32 x, HQC_LOCAL hqc_u64* scratch, hqc_u32* total) {
  return hqc_cta_scan_simd_u32(x, scratch, total);
}
HQC_FN hqc_i64 hqc_compact_sum(hqc_i64 x, HQC_LOCAL hqc_u64* scratch) { return hqc_cta_sum_i64_simd(x, scratch); }
#else
HQC_FN hqc_u32 hqc_compact_scan(hqc_u32 x, HQC_LOCAL hqc_u64* scratch, hqc_u32* total) {
  return hqc_cta_scan_we_u32(x, scratch, total);
}
HQC_FN hqc_i64 hqc_compact_sum(hqc_i64 x, HQC_LOCAL hqc_u64* scratch) { return hqc_cta_sum_i64_we(x, scratch); }
#endif

HQC_FN hqc_i32 hqc_compact_chunk_shift(hqc_i64 slots) {
  hqc_i32 shift = HQC_COMPACT_MIN_SHIFT;
  while (((slots - 1) >> shift) >= HQC_COMPACT_CHUNKS) ++shift;
  return shift;
}
HQC_FN hqc_i64 hqc_compact_chunk_count(hqc_i64 slots) {
  const hqc_i32 shift = hqc_compact_chunk_shift(slots);
  return (slots + ((hqc_i64)1 << shift) - 1) >> shift;
}
HQC_FN hqc_i64 hqc_compact_chunk_begin(hqc_i64 chunk, hqc_i64 slots) {
  const hqc_i64 b = chunk << hqc_compact_chunk_shift(slots);
  return b < slots ? b : slots;
}
HQC_FN hqc_i64 hqc_compact_chunk_end(hqc_i64 chunk, hqc_i64 slots) { return hqc_compact_chunk_begin(chunk + 1, slots); }

HQC_FN void hqc_compact_count(HQC_GLOBAL const hqc_i64* occupancy, hqc_i64 slots, HQC_GLOBAL hqc_u64* counts,
                              HQC_LOCAL hqc_u64* scratch) {
  const hqc_i64 chunks = hqc_compact_chunk_count(slots);
  for (hqc_i64 chunk = HQC_BID(); chunk < chunks; chunk += HQC_GDIM()) {
    const hqc_i64 end = hqc_compact_chunk_end(chunk, slots);
    hqc_i64 mine = 0;
    for (hqc_i64 s = hqc_compact_chunk_begin(chunk, slots) + HQC_LID(); s < end; s += HQC_BDIM())
      mine += occupancy[s] != 0 ? 1 : 0;
    const hqc_i64 total = hqc_compact_sum(mine, scratch);
    if (HQC_LID() == 0) counts[chunk] = (hqc_u64)total;
  }
}

// The gather's chunks: CTA b takes [hqc_compact_cta_chunk(b), hqc_compact_cta_chunk(b + 1)),
// consecutive, so that it sums the counts before them once and then adds each chunk's count
// (chunks <= HQC_COMPACT_CHUNKS: a 32-bit division).
HQC_FN hqc_i64 hqc_compact_cta_chunk(hqc_i64 chunks, hqc_i64 cta) {
  const hqc_u32 grid = (hqc_u32)HQC_GDIM();
  const hqc_i64 per_cta = (hqc_i64)(((hqc_u32)chunks + grid - 1) / grid);
  const hqc_i64 first = cta * per_cta;
  return first < chunks ? first : chunks;
}

// Occupied slots of the chunks before `chunk` (its first dense row).
HQC_FN hqc_u64 hqc_compact_chunk_base(HQC_GLOBAL const hqc_u64* counts, hqc_i64 chunk, HQC_LOCAL hqc_u64* scratch) {
  hqc_i64 mine = 0;
  for (hqc_i64 c = HQC_LID(); c < chunk; c += HQC_BDIM()) mine += (hqc_i64)counts[c];
  return (hqc_u64)hqc_compact_sum(mine, scratch);
}

// `after`: the occupied slots up to the end of `chunk`.
HQC_FN void hqc_compact_total(hqc_i64 chunk, hqc_i64 chunks, hqc_u64 after, HQC_GLOBAL hqc_u64* rows) {
  if (chunk == chunks - 1 && HQC_LID() == 0) *rows = after;
}

// Dialect-neutral device library, layer 6: compaction of an aggregation table's occupied slots into
// dense rows, so that the host copies back and reads as many rows as there are groups, not slots.
// Expects: base.h, scan.h, reduce.h (work-efficient CTA scan and sum; power-of-two HQC_BDIM() <= 1024;
//   every work-item calls each function: uniform control flow).
// Guarantees:
//   - The slots are cut into HQC_COMPACT_CHUNKS consecutive chunks (hqc_compact_chunk_begin/end);
//     CTAs stride over chunks, so ANY grid and block size is correct and the two launches below
//     need not agree on either.
//   - Launch 1 (hqc_compact_count): counts[c] = occupied slots (occupancy != 0) of chunk c.
//   - Launch 2 (the generated gather kernel): per chunk, hqc_compact_chunk_base(c) is the number of
//     occupied slots before it (sum of counts[0..c)); a tile of HQC_BDIM() slots takes its dense rows
//     from a CTA exclusive prefix sum of the occupied flags (hqc_cta_scan_we_u32), and the kernel
//     copies every word of an occupied slot to its row. Rows are in slot order: deterministic, and
//     ORDER BY ties come out as they did from the sparse table. hqc_compact_total writes the row
//     count (once, by the CTA holding the last chunk).
// Scratchpad, in 8-byte words: HQC_BDIM() (the CTA sum; the scan needs fewer).
#define HQC_COMPACT_CHUNKS 1024

HQC_FN hqc_i64 hqc_compact_chunk_begin(hqc_i64 chunk, hqc_i64 slots) {
  const hqc_i64 size = (slots + HQC_COMPACT_CHUNKS - 1) / HQC_COMPACT_CHUNKS;
  const hqc_i64 b = chunk * size;
  return b < slots ? b : slots;
}
HQC_FN hqc_i64 hqc_compact_chunk_end(hqc_i64 chunk, hqc_i64 slots) { return hqc_compact_chunk_begin(chunk + 1, slots); }

HQC_FN void hqc_compact_count(HQC_GLOBAL const hqc_i64* occupancy, hqc_i64 slots, HQC_GLOBAL hqc_u64* counts,
                              HQC_LOCAL hqc_u64* scratch) {
  for (hqc_i64 chunk = HQC_BID(); chunk < HQC_COMPACT_CHUNKS; chunk += HQC_GDIM()) {
    const hqc_i64 end = hqc_compact_chunk_end(chunk, slots);
    hqc_i64 mine = 0;
    for (hqc_i64 s = hqc_compact_chunk_begin(chunk, slots) + HQC_LID(); s < end; s += HQC_BDIM())
      mine += occupancy[s] != 0 ? 1 : 0;
    const hqc_i64 total = hqc_cta_sum_i64_we(mine, scratch);
    if (HQC_LID() == 0) counts[chunk] = (hqc_u64)total;
  }
}

// Occupied slots of the chunks before `chunk` (its first dense row).
HQC_FN hqc_u64 hqc_compact_chunk_base(HQC_GLOBAL const hqc_u64* counts, hqc_i64 chunk, HQC_LOCAL hqc_u64* scratch) {
  hqc_i64 mine = 0;
  for (hqc_i64 c = HQC_LID(); c < chunk; c += HQC_BDIM()) mine += (hqc_i64)counts[c];
  return (hqc_u64)hqc_cta_sum_i64_we(mine, scratch);
}

HQC_FN void hqc_compact_total(HQC_GLOBAL const hqc_u64* counts, hqc_i64 chunk, hqc_u64 base, HQC_GLOBAL hqc_u64* rows) {
  if (chunk == HQC_COMPACT_CHUNKS - 1 && HQC_LID() == 0) *rows = base + counts[chunk];
}

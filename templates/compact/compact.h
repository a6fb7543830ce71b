// The compaction module: an aggregation table's occupied slots copied into dense rows, so that the
// host copies back and reads as many rows as there are groups, not slots. Not part of the device
// library: its own module (codegen::compaction_module: the prelude and the whole device library, then
// this file), the same for every query of a dialect, so it is compiled once per kernel cache and no
// query's module carries it (it was ~40 % of a grouped query's NVRTC time).
// Expects: base.h, scan.h, reduce.h (CTA scan and sum: work-efficient, or SIMD where HQC_HAS_SIMD;
//   power-of-two HQC_BDIM() <= 1024, a multiple of the warp where HQC_HAS_SIMD; every work-item calls
//   each function: uniform control flow).
// Guarantees:
//   - The slots are cut into hqc_compact_chunk_count(slots) <= HQC_COMPACT_CHUNKS consecutive chunks
//     of 2^hqc_compact_chunk_shift(slots) slots: the least power of two of at least
//     2^HQC_COMPACT_MIN_SHIFT slots (a small table is one chunk, not a thousand chunks of one slot)
//     that needs no more chunks. Powers of two, so that no kernel divides 64-bit integers. Both
//     launches take ANY grid and block size (they need not agree on either): the partition depends
//     on `slots` alone.
//   - Launch 1 (kernel hqc_compact_count, hqc_compact_count_chunks): counts[c] = occupied slots (occupancy != 0) of chunk c;
//     CTAs stride over the chunks.
//   - Launch 2 (kernel hqc_compact_gather, or hqc_compact_gather_slots, which also writes each dense
//     row's slot index: a direct-indexed table's keys), once per group of at most
//     HQC_COMPACT_COLUMNS columns: CTA b takes the consecutive chunks [hqc_compact_cta_chunk(b),
//     hqc_compact_cta_chunk(b + 1)); hqc_compact_chunk_base gives the occupied slots before its first
//     chunk, once. A chunk whose count is 0 is skipped whole; in the others a tile of HQC_BDIM() slots
//     takes its dense rows from a CTA exclusive prefix sum of the occupied flags (hqc_compact_scan),
//     the kernel copies every word of an occupied slot to its row, and the chunk ends as soon as its
//     count of rows is written (a sparse chunk reads only up to its last group). Rows are in slot
//     order: deterministic, and ORDER BY ties come out as they did from the sparse table.
//     hqc_compact_total writes the row count (once, by the CTA holding the last chunk; every gather
//     launch writes the same count).
//   - The gather's columns: column i (0 <= i < HQC_COMPACT_COLUMNS) is `from_i` (the table's buffer)
//     copied to `to_i` (its dense buffer) with (shape >> 8 i) & 255 32-bit words per slot; 0: the
//     column is unused (its pointers are never read). An even count is copied as 64-bit words (a
//     dense buffer's rows are then 8-byte aligned), an odd one as 32-bit words.
// Scratchpad, in 8-byte words: HQC_BDIM() (the CTA sum; the scan needs fewer).
#define HQC_COMPACT_CHUNKS 16384
#define HQC_COMPACT_MIN_SHIFT 10
#define HQC_COMPACT_COLUMNS 8

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

HQC_FN void hqc_compact_count_chunks(HQC_GLOBAL const hqc_i64* occupancy, hqc_i64 slots, HQC_GLOBAL hqc_u64* counts,
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

// One column of the gather: `words` 32-bit words of slot `slot` to dense row `row`. Called for
// each of the HQC_COMPACT_COLUMNS columns, its loops rolled (HQC_CTA_FN: compiled once and called on
// CUDA, inlined on OpenCL): inlined and unrolled 16 times over it made this module's NVRTC compile
// take 0.6-1.3 s.
HQC_CTA_FN void hqc_compact_copy(HQC_GLOBAL const hqc_u32* from, HQC_GLOBAL hqc_u32* to, hqc_u32 words, hqc_i64 slot, hqc_u64 row) {
  if (words == 0u) return;
  if ((words & 1u) == 0u) {
    const hqc_u32 n = words >> 1;
    HQC_GLOBAL const hqc_u64* f = (HQC_GLOBAL const hqc_u64*)from + (hqc_u64)slot * n;
    HQC_GLOBAL hqc_u64* t = (HQC_GLOBAL hqc_u64*)to + row * n;
    HQC_NO_UNROLL for (hqc_u32 w = 0; w < n; ++w) t[w] = f[w];
  } else {
    HQC_NO_UNROLL for (hqc_u32 w = 0; w < words; ++w) to[row * words + w] = from[(hqc_u64)slot * words + w];
  }
}

#define HQC_COMPACT_COLUMN_PARAMS                                                                           \
  HQC_GLOBAL const hqc_u32 *from0, HQC_GLOBAL hqc_u32 *to0, HQC_GLOBAL const hqc_u32 *from1, HQC_GLOBAL hqc_u32 *to1, \
      HQC_GLOBAL const hqc_u32 *from2, HQC_GLOBAL hqc_u32 *to2, HQC_GLOBAL const hqc_u32 *from3,                 \
      HQC_GLOBAL hqc_u32 *to3, HQC_GLOBAL const hqc_u32 *from4, HQC_GLOBAL hqc_u32 *to4,                         \
      HQC_GLOBAL const hqc_u32 *from5, HQC_GLOBAL hqc_u32 *to5, HQC_GLOBAL const hqc_u32 *from6,                 \
      HQC_GLOBAL hqc_u32 *to6, HQC_GLOBAL const hqc_u32 *from7, HQC_GLOBAL hqc_u32 *to7

// The gather's body (see the contract); slot_index: null, or the slot of each dense row.
#define HQC_COMPACT_GATHER_BODY(SLOT_INDEX)                                                               \
  const hqc_i64 chunks = hqc_compact_chunk_count(slots);                                                  \
  const hqc_i64 last = hqc_compact_cta_chunk(chunks, (hqc_i64)HQC_BID() + 1);                             \
  hqc_i64 chunk = hqc_compact_cta_chunk(chunks, (hqc_i64)HQC_BID());                                      \
  hqc_u64 row = hqc_compact_chunk_base(counts, chunk, hqc_scratch);                                       \
  for (; chunk < last; ++chunk) {                                                                         \
    const hqc_u64 after = row + counts[chunk];                                                            \
    const hqc_i64 end = hqc_compact_chunk_end(chunk, slots);                                              \
    /* `row` is the same in every work-item: an empty chunk is skipped, a sparse one left early */        \
    for (hqc_i64 tile = hqc_compact_chunk_begin(chunk, slots); tile < end && row < after; tile += HQC_BDIM()) { \
      const hqc_i64 slot = tile + HQC_LID();                                                              \
      const hqc_u32 occupied = slot < end && occupancy[slot] != 0 ? 1u : 0u;                              \
      hqc_u32 occupied_in_tile;                                                                           \
      const hqc_u64 r = row + hqc_compact_scan(occupied, hqc_scratch, &occupied_in_tile);                 \
      if (occupied) {                                                                                     \
        SLOT_INDEX                                                                                        \
        hqc_compact_copy(from0, to0, (hqc_u32)(shape & 255), slot, r);                                    \
        hqc_compact_copy(from1, to1, (hqc_u32)((shape >> 8) & 255), slot, r);                             \
        hqc_compact_copy(from2, to2, (hqc_u32)((shape >> 16) & 255), slot, r);                            \
        hqc_compact_copy(from3, to3, (hqc_u32)((shape >> 24) & 255), slot, r);                            \
        hqc_compact_copy(from4, to4, (hqc_u32)((shape >> 32) & 255), slot, r);                            \
        hqc_compact_copy(from5, to5, (hqc_u32)((shape >> 40) & 255), slot, r);                            \
        hqc_compact_copy(from6, to6, (hqc_u32)((shape >> 48) & 255), slot, r);                            \
        hqc_compact_copy(from7, to7, (hqc_u32)((shape >> 56) & 255), slot, r);                            \
      }                                                                                                   \
      row += occupied_in_tile;                                                                            \
    }                                                                                                     \
    hqc_compact_total(chunk, chunks, after, rows);                                                        \
  }

// ---- the module's kernels (any grid; block size: a power of two, a multiple of the warp) ----

HQC_KERNEL void hqc_compact_count(HQC_GLOBAL const hqc_i64* occupancy, HQC_GLOBAL hqc_u64* counts,
                                  hqc_i64 slots HQC_SCRATCH_PARAMS) {
  HQC_SCRATCH_BEGIN
  hqc_compact_count_chunks(occupancy, slots, counts, hqc_scratch);
}

HQC_KERNEL void hqc_compact_gather(HQC_GLOBAL const hqc_i64* occupancy, HQC_GLOBAL const hqc_u64* counts,
                                   HQC_GLOBAL hqc_u64* rows, hqc_i64 slots, hqc_i64 shape,
                                   HQC_COMPACT_COLUMN_PARAMS HQC_SCRATCH_PARAMS) {
  HQC_SCRATCH_BEGIN
  HQC_COMPACT_GATHER_BODY()
}

HQC_KERNEL void hqc_compact_gather_slots(HQC_GLOBAL const hqc_i64* occupancy, HQC_GLOBAL const hqc_u64* counts,
                                         HQC_GLOBAL hqc_u64* rows, HQC_GLOBAL hqc_i64* slot_index, hqc_i64 slots,
                                         hqc_i64 shape, HQC_COMPACT_COLUMN_PARAMS HQC_SCRATCH_PARAMS) {
  HQC_SCRATCH_BEGIN
  HQC_COMPACT_GATHER_BODY(slot_index[r] = slot;)
}

// ---- ORDER BY ... LIMIT k of a compacted table on the device (runtime/execution/device_top_k.h) ----
// hqc_order_words: for each of the `rows` dense rows, words[i] = an unsigned word whose ascending
// order follows the row's first ORDER BY key, and index[i] = i, for a device sort of (word, row).
// The mapping is monotone: a row with a smaller word comes strictly before in that key; equal words
// may hold different keys (128-bit values beyond int64 saturate), which the host then compares.
// `values`: the key's dense buffer, element `lane` of `stride` per row. `mode` bits:
// 1 descending; 2 the elements are doubles (bit patterns; -0.0 as +0.0); 4 a 128-bit integer (low
// word, then high word, per row: stride 2, lane 0); 8 the elements are 32-bit integers.
HQC_KERNEL void hqc_order_words(HQC_GLOBAL const hqc_i64* values, hqc_i64 rows, hqc_i64 stride, hqc_i64 lane, hqc_i64 mode,
                                HQC_GLOBAL hqc_u64* words, HQC_GLOBAL hqc_u32* index) {
  const hqc_u64 sign = (hqc_u64)1 << 63;
  for (hqc_i64 i = HQC_BID() * (hqc_i64)HQC_BDIM() + HQC_LID(); i < rows; i += HQC_GDIM() * (hqc_i64)HQC_BDIM()) {
    hqc_u64 w;
    if ((mode & 8) != 0) {
      w = (hqc_u64)(hqc_i64)((HQC_GLOBAL const hqc_i32*)values)[i * stride + lane] ^ sign;
    } else if ((mode & 4) != 0) {
      const hqc_i64 lo = values[2 * i];
      const hqc_i64 hi = values[2 * i + 1];
      w = hi == (lo < 0 ? (hqc_i64)-1 : (hqc_i64)0) ? ((hqc_u64)lo ^ sign) : hi < 0 ? (hqc_u64)0 : ~(hqc_u64)0;
    } else if ((mode & 2) != 0) {
      hqc_u64 bits = (hqc_u64)values[i * stride + lane];
      if (bits == sign) bits = 0;
      w = (bits & sign) != 0 ? ~bits : (bits | sign);
    } else {
      w = (hqc_u64)values[i * stride + lane] ^ sign;
    }
    words[i] = (mode & 1) != 0 ? ~w : w;
    index[i] = (hqc_u32)i;
  }
}

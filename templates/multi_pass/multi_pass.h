// Dialect-neutral device library for the multi-pass model (codegen/multi_pass_emitter.cpp): what its
// count, write and finish kernels share. Appended after the device library only to multi-pass
// modules (codegen::generate), so the other models' modules are unchanged.
// Expects: base.h, tile.h. The prefix sums, sorts and reductions between the kernels are library
// calls on the host side (runtime/device/device_primitives.h), never code here.
// Guarantees:
//   - offsets are the inclusive prefix sum of the per-row output counts (the count kernel wrote
//     them, the library scanned them in place): row r writes from offsets[r - 1] on (row 0 from 0).
//   - positions start at `base`: the rows earlier writers appended to the same output (a UNION ALL's
//     arms; the host reads the output's counter into the write kernel's base parameter), 0 for lanes.
//   - hqc_mp_store_total: the work-item holding the last row stores base + the scan's total (a counter
//     the host reads: the output's rows, or the lanes' capacity a re-run needs); nobody when n_rows
//     is 0 (the counter keeps base: its fill, or what earlier writers stored).
//   - hqc_mp_low_key / hqc_mp_high_key: a 128-bit value's words as sort keys whose unsigned order,
//     low words first then (stably) high words, is the values' order (scalar 128-bit MIN/MAX).
//   - hqc_mp_i128_from_halves: a 128-bit SUM materialized as two int64 lanes, v >> 32 (arithmetic)
//     and v & (2^32 - 1), is hi_sum * 2^32 + lo_sum exactly (each half's sum fits int64 below 2^31
//     rows).

// This work-item's first write position after `base` (the rows earlier writers of the same output
// appended; 0 for lanes): base without a row.
HQC_FN hqc_u64 hqc_mp_first_position(HQC_GLOBAL const hqc_i64* offsets, hqc_i64 base, hqc_i64 tile, hqc_i32 tile_items) {
  const hqc_i64 row = tile + HQC_LID();
  return (hqc_u64)base + (HQC_LID() < tile_items && row > 0 ? (hqc_u64)offsets[row - 1] : (hqc_u64)0);
}

// The count kernel's store: this row's outputs (accumulated over a match loop when `add`).
HQC_FN void hqc_mp_count(HQC_GLOBAL hqc_i64* offsets, hqc_i64 tile, hqc_i32 tile_items, hqc_i32 flag, hqc_i32 add) {
  if (HQC_LID() >= tile_items) return;
  const hqc_i64 row = tile + HQC_LID();
  offsets[row] = add ? offsets[row] + (flag ? 1 : 0) : (flag ? 1 : 0);
}

HQC_FN void hqc_mp_store_total(HQC_GLOBAL const hqc_i64* offsets, hqc_i64 base, hqc_i64 tile, hqc_i32 tile_items, hqc_i64 n_rows,
                               HQC_GLOBAL hqc_u64* total) {
  if (HQC_LID() < tile_items && tile + HQC_LID() == n_rows - 1) total[0] = (hqc_u64)base + (hqc_u64)offsets[n_rows - 1];
}

// A lane's position past the lanes' capacity (an estimate) raises the flag instead of writing.
HQC_FN hqc_i32 hqc_mp_fits(hqc_u64 position, hqc_i64 capacity, HQC_GLOBAL hqc_u32* flags) {
  if (position < (hqc_u64)capacity) return 1;
  hqc_set_flag(flags, HQC_FLAG_FULL);
  return 0;
}

HQC_FN hqc_i64 hqc_mp_high_half(hqc_i64 v) { return v >> 32; }
HQC_FN hqc_i64 hqc_mp_low_half(hqc_i64 v) { return v & (hqc_i64)0xffffffff; }

// A 128-bit MIN/MAX (scalar) is found by sorting: the low words as unsigned keys, then, stably, the
// high words with the sign bit flipped (unsigned order = signed order) — the extremes end first/last.
HQC_FN hqc_u64 hqc_mp_low_key(hqc_i128 v) { return v.lo; }
HQC_FN hqc_u64 hqc_mp_high_key(hqc_i128 v) { return (hqc_u64)v.hi ^ ((hqc_u64)1 << 63); }

HQC_FN hqc_i128 hqc_mp_i128_from_halves(hqc_i64 hi, hqc_i64 lo) {
  // hi * 2^32 as two words: low = hi << 32, high = hi >> 32 (sign-extended); then + lo (>= 0).
  const hqc_i128 shifted = hqc_i128_from_words((hqc_i64)((hqc_u64)hi << 32), hi >> 32);
  return hqc_i128_add_i64(shifted, lo);
}

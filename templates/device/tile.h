// Dialect-neutral device library, layer 1: the kernel frame — how a compound kernel walks its input.
// Expects: base.h. Launch geometry: 1-D grid of CTAs of HQC_BDIM() work-items, any grid size.
// Guarantees:
//   - Tiles: a CTA processes tiles of HQC_BDIM() consecutive rows, starting at hqc_tile_first() and
//     striding by hqc_tile_stride() (grid-stride over tiles), so one launch covers any row count and
//     per-CTA state (pre-aggregates, register accumulators) spans all tiles of the CTA. The loop
//     condition is uniform across the CTA, so barriers inside the tile loop are legal.
//   - hqc_tile_items() (the first call of every tile) reconverges the warp (HQC_WARP_RECONVERGE():
//     __syncwarp() on CUDA, nothing on OpenCL): a warp split by a probe's divergent loop in one
//     tile starts the next one whole. Left to ptxas, a warp could stay split for the rest of the
//     loop — each piece issuing the whole pipeline with a few lanes (TPC-H q7 2.4x slower, 11 of 32
//     lanes active: bench/results/2026-11-28-h200-compaction-module).
//   - Every load has a full-tile path (no bounds check: all HQC_BDIM() rows exist) and a
//     partial-tile path (rows past the end read as 0 and are marked invalid by hqc_tile_valid()).
//   - Row indices are 64-bit (no 2^31 row limit).
//
// Shape of a generated compound kernel (see codegen/kernel_emitter.cpp):
//   for (hqc_i64 tile = hqc_tile_first(); tile < n_rows; tile += hqc_tile_stride()) {
//     const hqc_i32 tile_items = hqc_tile_items(tile, n_rows);
//     hqc_i32 flag = hqc_tile_valid(tile_items);
//     hqc_i32 x = hqc_load_i32(col, tile, tile_items);   // loads
//     flag = flag && (x < 25);                            // predicates, probes
//     ...                                                 // reductions / writes (all threads)
//   }

HQC_FN hqc_i64 hqc_tile_first(void) { return HQC_BID() * (hqc_i64)HQC_BDIM(); }
HQC_FN hqc_i64 hqc_tile_stride(void) { return HQC_GDIM() * (hqc_i64)HQC_BDIM(); }

// Rows of this tile: HQC_BDIM() for a full tile, fewer for the last one.
HQC_FN hqc_i32 hqc_tile_items(hqc_i64 tile, hqc_i64 n_rows) {
  HQC_WARP_RECONVERGE();  // every lane of the CTA reaches the top of each tile (see the contract)
  hqc_i64 rest = n_rows - tile;
  return rest < (hqc_i64)HQC_BDIM() ? (hqc_i32)rest : HQC_BDIM();
}

// 1 when this work-item holds a row of the tile.
HQC_FN hqc_i32 hqc_tile_valid(hqc_i32 tile_items) { return HQC_LID() < tile_items ? 1 : 0; }

// The row this work-item holds (meaningful only where hqc_tile_valid()).
HQC_FN hqc_i64 hqc_tile_row(hqc_i64 tile) { return tile + HQC_LID(); }

HQC_FN hqc_i32 hqc_load_i32(HQC_GLOBAL const hqc_i32* HQC_RESTRICT col, hqc_i64 tile, hqc_i32 tile_items) {
  if (tile_items == HQC_BDIM()) return col[tile + HQC_LID()];
  return HQC_LID() < tile_items ? col[tile + HQC_LID()] : 0;
}

// A narrowed column (ir pass narrow_columns: values stored in 1 or 2 bytes), widened as it loads.
HQC_FN hqc_i32 hqc_load_i8(HQC_GLOBAL const hqc_i8* HQC_RESTRICT col, hqc_i64 tile, hqc_i32 tile_items) {
  if (tile_items == HQC_BDIM()) return col[tile + HQC_LID()];
  return HQC_LID() < tile_items ? col[tile + HQC_LID()] : 0;
}

HQC_FN hqc_i32 hqc_load_i16(HQC_GLOBAL const hqc_i16* HQC_RESTRICT col, hqc_i64 tile, hqc_i32 tile_items) {
  if (tile_items == HQC_BDIM()) return col[tile + HQC_LID()];
  return HQC_LID() < tile_items ? col[tile + HQC_LID()] : 0;
}

HQC_FN hqc_i64 hqc_load_i64(HQC_GLOBAL const hqc_i64* HQC_RESTRICT col, hqc_i64 tile, hqc_i32 tile_items) {
  if (tile_items == HQC_BDIM()) return col[tile + HQC_LID()];
  return HQC_LID() < tile_items ? col[tile + HQC_LID()] : 0;
}

HQC_FN hqc_u64 hqc_load_u64(HQC_GLOBAL const hqc_u64* HQC_RESTRICT col, hqc_i64 tile, hqc_i32 tile_items) {
  if (tile_items == HQC_BDIM()) return col[tile + HQC_LID()];
  return HQC_LID() < tile_items ? col[tile + HQC_LID()] : 0u;
}

HQC_FN hqc_f64 hqc_load_f64(HQC_GLOBAL const hqc_f64* HQC_RESTRICT col, hqc_i64 tile, hqc_i32 tile_items) {
  if (tile_items == HQC_BDIM()) return col[tile + HQC_LID()];
  return HQC_LID() < tile_items ? col[tile + HQC_LID()] : 0.0;
}

// A column of 128-bit values (base.h's hqc_i128): two words per row, low then high.
HQC_FN hqc_i128 hqc_load_i128(HQC_GLOBAL const hqc_i64* HQC_RESTRICT col, hqc_i64 tile, hqc_i32 tile_items) {
  if (HQC_LID() >= tile_items) return hqc_i128_zero();
  const hqc_i64 row = tile + HQC_LID();
  return hqc_i128_from_words(col[2 * row], col[2 * row + 1]);
}

// Predicated loads: only rows whose flag is still set touch memory (Crystal's BlockPredLoad), so a
// column first needed after a selective filter or probe costs bandwidth only for qualifying rows.
// `flag` already implies the row is inside the tile.
HQC_FN hqc_i32 hqc_pred_load_i32(HQC_GLOBAL const hqc_i32* HQC_RESTRICT col, hqc_i64 tile, hqc_i32 flag) {
  return flag ? col[tile + HQC_LID()] : 0;
}
HQC_FN hqc_i32 hqc_pred_load_i8(HQC_GLOBAL const hqc_i8* HQC_RESTRICT col, hqc_i64 tile, hqc_i32 flag) {
  return flag ? col[tile + HQC_LID()] : 0;
}
HQC_FN hqc_i32 hqc_pred_load_i16(HQC_GLOBAL const hqc_i16* HQC_RESTRICT col, hqc_i64 tile, hqc_i32 flag) {
  return flag ? col[tile + HQC_LID()] : 0;
}
HQC_FN hqc_i64 hqc_pred_load_i64(HQC_GLOBAL const hqc_i64* HQC_RESTRICT col, hqc_i64 tile, hqc_i32 flag) {
  return flag ? col[tile + HQC_LID()] : 0;
}
HQC_FN hqc_f64 hqc_pred_load_f64(HQC_GLOBAL const hqc_f64* HQC_RESTRICT col, hqc_i64 tile, hqc_i32 flag) {
  return flag ? col[tile + HQC_LID()] : 0.0;
}
HQC_FN hqc_i128 hqc_pred_load_i128(HQC_GLOBAL const hqc_i64* HQC_RESTRICT col, hqc_i64 tile, hqc_i32 flag) {
  if (!flag) return hqc_i128_zero();
  const hqc_i64 row = tile + HQC_LID();
  return hqc_i128_from_words(col[2 * row], col[2 * row + 1]);
}

// Dialect-neutral device library, layer 1: the kernel frame — how a compound kernel walks its input.
// Expects: base.h. Launch geometry: 1-D grid of CTAs of HQC_BDIM() work-items, any grid size.
// Guarantees:
//   - Tiles: a CTA processes tiles of HQC_BDIM() consecutive rows, starting at hqc_tile_first() and
//     striding by hqc_tile_stride() (grid-stride over tiles), so one launch covers any row count and
//     per-CTA state (pre-aggregates, register accumulators) spans all tiles of the CTA. The loop
//     condition is uniform across the CTA, so barriers inside the tile loop are legal.
//   - Several tiles per iteration (codegen's SinkEmitter::tiles_per_iteration): the iteration
//     reconverges once at its top (hqc_tile_block_begin()) and its tiles take hqc_tile_rows(), so
//     that nothing orders one tile's loads after another's: a reconvergence is a barrier to code
//     motion, and with one per tile each tile's chain of dependent loads (a filter's column, then
//     the columns its qualifying rows read) waited for the last tile's.
//   - hqc_tile_items() (the first call of every tile) reconverges the warp (HQC_WARP_RECONVERGE():
//     __syncwarp() on CUDA, nothing on OpenCL): a warp split by a probe's divergent loop in one
//     tile starts the next one whole. Left to ptxas, a warp could stay split for the rest of the
//     loop — each piece issuing the whole pipeline with a few lanes (TPC-H q7 2.4x slower, 11 of 32
//     lanes active: bench/results/2026-11-28-h200-compaction-module).
//   - Every load has a full-tile path (no bounds check: all HQC_BDIM() rows exist) and a
//     partial-tile path (rows past the end read as 0 and are marked invalid by hqc_tile_valid());
//     the flat loads (below: several tiles per iteration) are one predicated load instead.
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
// The top of an iteration over several tiles: every lane of the warp reaches it together.
HQC_FN void hqc_tile_block_begin(void) { HQC_WARP_RECONVERGE(); }

// Rows of this tile: HQC_BDIM() for a full tile, fewer for the last one (0 or less past the end).
HQC_FN hqc_i32 hqc_tile_rows(hqc_i64 tile, hqc_i64 n_rows) {
  hqc_i64 rest = n_rows - tile;
  return rest < (hqc_i64)HQC_BDIM() ? (hqc_i32)rest : HQC_BDIM();
}
HQC_FN hqc_i32 hqc_tile_items(hqc_i64 tile, hqc_i64 n_rows) {
  HQC_WARP_RECONVERGE();  // every lane of the CTA reaches the top of each tile (see the contract)
  return hqc_tile_rows(tile, n_rows);
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

// Flat loads: the same two families (hqc_flat_load_<t>, hqc_flat_pred_load_<t>) through the
// dialect's hqc_load_if_<t> (device/loads.cuh, device/loads.cl), without a full-tile path. On CUDA
// each is one predicated instruction, no branch, so the tiles of an iteration over several tiles
// are one basic block and the next tile's loads issue before this tile's values are used.
// codegen uses them only there: in a kernel of one tile per iteration a branch around loads that
// no lane of the warp needs skips them outright, and predicated loads were slower (H200, SSB q3.2-q3.4
// and q4.3 1.15-1.19x, TPC-H q9 1.08x: bench/results/2026-12-02-h200-tiles).
#define HQC_FLAT_LOAD(name, type, elem)                                                                          \
  HQC_FN type hqc_flat_load_##name(HQC_GLOBAL const elem* HQC_RESTRICT col, hqc_i64 tile, hqc_i32 tile_items) { \
    return hqc_load_if_##name(col + tile + HQC_LID(), HQC_LID() < tile_items);                                  \
  }                                                                                                             \
  HQC_FN type hqc_flat_pred_load_##name(HQC_GLOBAL const elem* HQC_RESTRICT col, hqc_i64 tile, hqc_i32 flag) {  \
    return hqc_load_if_##name(col + tile + HQC_LID(), flag);                                                    \
  }
HQC_FLAT_LOAD(i32, hqc_i32, hqc_i32)
HQC_FLAT_LOAD(i8, hqc_i32, hqc_i8)
HQC_FLAT_LOAD(i16, hqc_i32, hqc_i16)
HQC_FLAT_LOAD(i64, hqc_i64, hqc_i64)
HQC_FLAT_LOAD(u64, hqc_u64, hqc_u64)
HQC_FLAT_LOAD(f64, hqc_f64, hqc_f64)
#undef HQC_FLAT_LOAD
HQC_FN hqc_i128 hqc_flat_load_i128(HQC_GLOBAL const hqc_i64* HQC_RESTRICT col, hqc_i64 tile, hqc_i32 tile_items) {
  const hqc_i64 row = tile + HQC_LID();
  const hqc_i32 in = HQC_LID() < tile_items;
  return hqc_i128_from_words(hqc_load_if_i64(col + 2 * row, in), hqc_load_if_i64(col + 2 * row + 1, in));
}
HQC_FN hqc_i128 hqc_flat_pred_load_i128(HQC_GLOBAL const hqc_i64* HQC_RESTRICT col, hqc_i64 tile, hqc_i32 flag) {
  const hqc_i64 row = tile + HQC_LID();
  return hqc_i128_from_words(hqc_load_if_i64(col + 2 * row, flag), hqc_load_if_i64(col + 2 * row + 1, flag));
}

// The device primitives run on the OpenCL device (PoCL here) through small test kernels and are
// checked against host computations: CTA write positions across many CTAs (A2, A3), CTA reductions
// (B2, B3), hash-table build + probe with the overflow flag (perfect and open addressing, 32/64-bit),
// and direct-indexed group-by (C2, C3) and hashed group-by (C2); 128-bit arithmetic (hqc_i128) against
// the host's __int128, and 128-bit MIN/MAX under contention (the locked update of base.h from many
// work-groups at once: one offer per CTA, per tuple, per tuple into a few groups).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <cstring>
#include <random>
#include <set>

#include "codegen/dialect.h"
#include "codegen/generate.h"
#include "tests/templates/device_harness.h"

using hqc::test::OpenClDevice;

namespace {

// The host's 128-bit integers, the oracle of the hqc_i128_* device operations (GCC/Clang;
// __extension__ keeps -Wpedantic quiet).
__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

constexpr const char* kTestKernels = R"CL(
// A3 / A2: each selected row (value % 3 == 0) writes its row id at its reserved position.
// Two kernels, not one with a run-time switch: a barrier under a run-time condition (even a uniform
// one) is miscompiled by PoCL, so the technique is always a compile-time choice (as in codegen).
#define COMPACT_KERNEL(NAME, RESERVE)                                                                 \
  HQC_KERNEL void NAME(HQC_GLOBAL const hqc_i32* values, hqc_i64 n_rows, HQC_GLOBAL hqc_u64* counter,  \
                       HQC_GLOBAL hqc_i64* out HQC_SCRATCH_PARAMS) {                                  \
    HQC_SCRATCH_BEGIN                                                                                 \
    for (hqc_i64 tile = hqc_tile_first(); tile < n_rows; tile += hqc_tile_stride()) {                 \
      const hqc_i32 tile_items = hqc_tile_items(tile, n_rows);                                        \
      hqc_i32 flag = hqc_tile_valid(tile_items);                                                      \
      hqc_i32 v = hqc_load_i32(values, tile, tile_items);                                             \
      flag = flag && (v % 3 == 0);                                                                    \
      hqc_u64 pos = RESERVE;                                                                          \
      if (flag) out[pos] = hqc_tile_row(tile);                                                        \
    }                                                                                                 \
  }
COMPACT_KERNEL(compact_cta, hqc_cta_reserve_we((hqc_u32)flag, counter, hqc_scratch))
COMPACT_KERNEL(compact_atomic, hqc_reserve_atomic((hqc_u32)flag, counter))

// Exclusive scan of one tile per CTA, written out per row (checks order within a CTA).
HQC_KERNEL void scan_tiles(HQC_GLOBAL const hqc_i32* values, hqc_i64 n_rows, HQC_GLOBAL hqc_i64* prefix,
                           HQC_GLOBAL hqc_i64* totals HQC_SCRATCH_PARAMS) {
  HQC_SCRATCH_BEGIN
  hqc_i64 tile = hqc_tile_first();
  const hqc_i32 tile_items = hqc_tile_items(tile, n_rows);
  hqc_i32 v = hqc_load_i32(values, tile, tile_items);
  hqc_u32 total;
  hqc_u32 p = hqc_cta_scan_we_u32((hqc_u32)v, hqc_scratch, &total);
  if (hqc_tile_valid(tile_items)) prefix[hqc_tile_row(tile)] = p;
  if (HQC_LID() == 0) totals[HQC_BID()] = total;
}

// B3 (USE_CTA) or B2: sum, min, max of int64 values and the sum of doubles.
#define REDUCE_KERNEL(NAME, USE_CTA) \
HQC_KERNEL void NAME(HQC_GLOBAL const hqc_i64* values, hqc_i64 n_rows,                               \
                           HQC_GLOBAL hqc_i64* out, HQC_GLOBAL hqc_f64* out_f HQC_SCRATCH_PARAMS) {  \
  HQC_SCRATCH_BEGIN                                                                                  \
  hqc_i64 acc_sum = 0, acc_min = HQC_I64_MAX, acc_max = HQC_I64_MIN;                                 \
  hqc_f64 acc_f = 0.0;                                                                               \
  for (hqc_i64 tile = hqc_tile_first(); tile < n_rows; tile += hqc_tile_stride()) {                  \
    const hqc_i32 tile_items = hqc_tile_items(tile, n_rows);                                         \
    hqc_i32 flag = hqc_tile_valid(tile_items);                                                       \
    hqc_i64 v = hqc_load_i64(values, tile, tile_items);                                              \
    if ((USE_CTA)) {                                                                                 \
      acc_sum += flag ? v : 0;                                                                       \
      acc_min = flag ? hqc_min_i64(acc_min, v) : acc_min;                                            \
      acc_max = flag ? hqc_max_i64(acc_max, v) : acc_max;                                            \
      acc_f += flag ? (hqc_f64)v * 0.5 : 0.0;                                                        \
    } else {                                                                                         \
      hqc_tuple_sum_i64(&out[0], flag, v);                                                           \
      hqc_tuple_min_i64(&out[1], flag, v);                                                           \
      hqc_tuple_max_i64(&out[2], flag, v);                                                           \
      hqc_tuple_sum_f64(&out_f[0], flag, (hqc_f64)v * 0.5);                                          \
    }                                                                                                \
  }                                                                                                  \
  if ((USE_CTA)) {                                                                                   \
    hqc_cta_sum_i64_we_to(&out[0], acc_sum, hqc_scratch);                                            \
    hqc_cta_min_i64_we_to(&out[1], acc_min, hqc_scratch);                                            \
    hqc_cta_max_i64_we_to(&out[2], acc_max, hqc_scratch);                                            \
    hqc_cta_sum_f64_we_to(&out_f[0], acc_f, hqc_scratch);                                            \
  }                                                                                                  \
}
REDUCE_KERNEL(reduce_all_cta, 1)
REDUCE_KERNEL(reduce_all_atomic, 0)

// Join build: kind 0 = perfect hash, 1 = open addressing (32-bit keys); payload = key * 10.
HQC_KERNEL void build32(HQC_GLOBAL const hqc_i32* keys_in, hqc_i64 n_rows, hqc_i32 kind,
                        HQC_GLOBAL hqc_i32* keys, HQC_GLOBAL hqc_i64* vals, hqc_i64 capacity, hqc_i64 key_min,
                        HQC_GLOBAL hqc_u32* flags) {
  for (hqc_i64 tile = hqc_tile_first(); tile < n_rows; tile += hqc_tile_stride()) {
    const hqc_i32 tile_items = hqc_tile_items(tile, n_rows);
    hqc_i32 k = hqc_load_i32(keys_in, tile, tile_items);
    if (!hqc_tile_valid(tile_items)) continue;
    hqc_i64 slot = kind == 0 ? hqc_ph_build_i32(keys, capacity, key_min, k, flags)
                             : hqc_oa_build_i32(keys, capacity, k, flags);
    hqc_ht_put_i64(vals, slot, (hqc_i64)k * 10);
  }
}

HQC_KERNEL void probe32(HQC_GLOBAL const hqc_i32* probes, hqc_i64 n_rows, hqc_i32 kind,
                        HQC_GLOBAL const hqc_i32* keys, HQC_GLOBAL const hqc_i64* vals, hqc_i64 capacity,
                        hqc_i64 key_min, HQC_GLOBAL hqc_i64* out) {
  for (hqc_i64 tile = hqc_tile_first(); tile < n_rows; tile += hqc_tile_stride()) {
    const hqc_i32 tile_items = hqc_tile_items(tile, n_rows);
    hqc_i32 k = hqc_load_i32(probes, tile, tile_items);
    if (!hqc_tile_valid(tile_items)) continue;
    hqc_i64 slot = kind == 0 ? hqc_ph_probe_i32(keys, capacity, key_min, k) : hqc_oa_probe_i32(keys, capacity, k);
    out[hqc_tile_row(tile)] = slot >= 0 ? hqc_ht_get_i64(vals, slot) : -1;
  }
}

// Key bits (a perfect-hash table without payload): one bit per slot set by the build (the word read
// first for odd slots, so both ways run), tested by the probe.
HQC_KERNEL void build_bits(HQC_GLOBAL const hqc_i32* keys_in, hqc_i64 n_rows, HQC_GLOBAL hqc_u32* bits, hqc_i64 capacity,
                           hqc_i64 key_min, HQC_GLOBAL hqc_u32* flags) {
  for (hqc_i64 tile = hqc_tile_first(); tile < n_rows; tile += hqc_tile_stride()) {
    const hqc_i32 tile_items = hqc_tile_items(tile, n_rows);
    hqc_i32 k = hqc_load_i32(keys_in, tile, tile_items);
    const hqc_i64 slot = hqc_tile_valid(tile_items) ? hqc_ph_bits_slot(capacity, key_min, (hqc_i64)k, flags) : -1;
    if (slot >= 0) hqc_bits_set(bits + (slot >> 5), 1u << (hqc_u32)(slot & 31), (hqc_i32)(slot & 1));
  }
}

HQC_KERNEL void probe_bits(HQC_GLOBAL const hqc_i32* probes, hqc_i64 n_rows, HQC_GLOBAL const hqc_u32* bits, hqc_i64 capacity,
                           hqc_i64 key_min, HQC_GLOBAL hqc_i64* out) {
  for (hqc_i64 tile = hqc_tile_first(); tile < n_rows; tile += hqc_tile_stride()) {
    const hqc_i32 tile_items = hqc_tile_items(tile, n_rows);
    hqc_i32 k = hqc_load_i32(probes, tile, tile_items);
    if (!hqc_tile_valid(tile_items)) continue;
    out[hqc_tile_row(tile)] = hqc_ph_probe_bits(bits, capacity, key_min, (hqc_i64)k);
  }
}

HQC_KERNEL void build_probe64(HQC_GLOBAL const hqc_i64* keys_in, hqc_i64 n_rows, hqc_i32 build,
                              HQC_GLOBAL hqc_i64* keys, hqc_i64 capacity, HQC_GLOBAL hqc_u32* flags,
                              HQC_GLOBAL hqc_i64* found) {
  for (hqc_i64 tile = hqc_tile_first(); tile < n_rows; tile += hqc_tile_stride()) {
    const hqc_i32 tile_items = hqc_tile_items(tile, n_rows);
    hqc_i64 k = hqc_load_i64(keys_in, tile, tile_items);
    if (!hqc_tile_valid(tile_items)) continue;
    if (build) hqc_oa_build_i64(keys, capacity, k, flags);
    else found[hqc_tile_row(tile)] = hqc_oa_probe_i64(keys, capacity, k) >= 0 ? 1 : 0;
  }
}

// Chained table (non-unique keys): rows [0, n_rows) of keys_in insert entry base + row, the slot
// found or claimed by open addressing (perfect == 0) or by perfect hash over [key_min, key_min +
// capacity) (perfect == 1); a probe row walks its key's list and writes how many entries it holds
// and the sum of their payloads.
HQC_KERNEL void chain_build32(HQC_GLOBAL const hqc_i32* keys_in, hqc_i64 n_rows, hqc_i64 base, hqc_i32 perfect,
                              HQC_GLOBAL hqc_i32* keys, HQC_GLOBAL hqc_i64* heads, HQC_GLOBAL hqc_i64* next,
                              HQC_GLOBAL hqc_i64* payload, hqc_i64 capacity, hqc_i64 key_min, HQC_GLOBAL hqc_u32* flags) {
  for (hqc_i64 tile = hqc_tile_first(); tile < n_rows; tile += hqc_tile_stride()) {
    const hqc_i32 tile_items = hqc_tile_items(tile, n_rows);
    hqc_i32 k = hqc_load_i32(keys_in, tile, tile_items);
    if (!hqc_tile_valid(tile_items)) continue;
    const hqc_i64 entry = base + hqc_tile_row(tile);
    const hqc_i64 slot = perfect ? hqc_ph_build_i32(keys, capacity, key_min, k, flags)
                                 : hqc_oa_find_or_claim_i32(keys, capacity, hqc_oa_home(hqc_key_hash_i32(k), capacity), k, flags);
    hqc_ht_put_i64(payload, hqc_ch_link(heads, next, slot, entry), entry * 10);
  }
}

HQC_KERNEL void chain_probe32(HQC_GLOBAL const hqc_i32* keys_in, hqc_i64 n_rows, hqc_i32 perfect, HQC_GLOBAL const hqc_i32* keys,
                              HQC_GLOBAL const hqc_i64* heads, HQC_GLOBAL const hqc_i64* next,
                              HQC_GLOBAL const hqc_i64* payload, hqc_i64 capacity, hqc_i64 key_min, HQC_GLOBAL hqc_i64* count,
                              HQC_GLOBAL hqc_i64* sum) {
  for (hqc_i64 tile = hqc_tile_first(); tile < n_rows; tile += hqc_tile_stride()) {
    const hqc_i32 tile_items = hqc_tile_items(tile, n_rows);
    hqc_i32 k = hqc_load_i32(keys_in, tile, tile_items);
    if (!hqc_tile_valid(tile_items)) continue;
    hqc_i64 n = 0, total = 0;
    hqc_i64 e = perfect ? hqc_ch_head(heads, hqc_ph_probe_i32(keys, capacity, key_min, k))
                        : hqc_ch_first_i32(keys, heads, capacity, hqc_oa_home(hqc_key_hash_i32(k), capacity), k);
    for (; e >= 0; e = hqc_ch_next(next, e)) {
      ++n;
      total += hqc_ht_get_i64(payload, e);
    }
    count[hqc_tile_row(tile)] = n;
    sum[hqc_tile_row(tile)] = total;
  }
}

// Direct-indexed group-by: group = key (0..groups-1); sum, min, max of value and the count.
// USE_CTA: C3 (scratchpad pre-aggregation, flush per CTA), else C2 (global atomics per tuple).
#define GROUP_DIRECT_KERNEL(NAME, USE_CTA) \
HQC_KERNEL void NAME(HQC_GLOBAL const hqc_i32* group_key, HQC_GLOBAL const hqc_i64* value, hqc_i64 n_rows,  \
                             hqc_i64 groups, HQC_GLOBAL hqc_i64* g_sum, HQC_GLOBAL hqc_i64* g_min,          \
                             HQC_GLOBAL hqc_i64* g_max, HQC_GLOBAL hqc_i64* g_count,                        \
                             HQC_GLOBAL hqc_u32* flags HQC_SCRATCH_PARAMS) {                                \
  HQC_SCRATCH_BEGIN                                                                                         \
  HQC_LOCAL hqc_i64* s_sum = (HQC_LOCAL hqc_i64*)hqc_scratch;                                               \
  HQC_LOCAL hqc_i64* s_min = s_sum + groups;                                                                \
  HQC_LOCAL hqc_i64* s_max = s_min + groups;                                                                \
  HQC_LOCAL hqc_i64* s_count = s_max + groups;                                                              \
  if ((USE_CTA)) {                                                                                          \
    hqc_gb_local_fill_i64(s_sum, groups, 0);                                                                \
    hqc_gb_local_fill_i64(s_min, groups, HQC_I64_MAX);                                                      \
    hqc_gb_local_fill_i64(s_max, groups, HQC_I64_MIN);                                                      \
    hqc_gb_local_fill_i64(s_count, groups, 0);                                                              \
    HQC_BARRIER();                                                                                          \
  }                                                                                                         \
  for (hqc_i64 tile = hqc_tile_first(); tile < n_rows; tile += hqc_tile_stride()) {                         \
    const hqc_i32 tile_items = hqc_tile_items(tile, n_rows);                                                \
    hqc_i32 flag = hqc_tile_valid(tile_items);                                                              \
    hqc_i64 g = hqc_load_i32(group_key, tile, tile_items);                                                  \
    hqc_i64 v = hqc_load_i64(value, tile, tile_items);                                                      \
    flag = flag && hqc_gb_index_ok(g, groups, flags);                                                       \
    if (flag && (USE_CTA)) {                                                                                \
      hqc_gb_local_sum_i64(s_sum, g, v);                                                                    \
      hqc_gb_local_min_i64(s_min, g, v);                                                                    \
      hqc_gb_local_max_i64(s_max, g, v);                                                                    \
      hqc_gb_local_sum_i64(s_count, g, 1);                                                                  \
    } else if (flag) {                                                                                      \
      hqc_gb_global_sum_i64(g_sum, g, v);                                                                   \
      hqc_gb_global_min_i64(g_min, g, v);                                                                   \
      hqc_gb_global_max_i64(g_max, g, v);                                                                   \
      hqc_gb_global_sum_i64(g_count, g, 1);                                                                 \
    }                                                                                                       \
  }                                                                                                         \
  if ((USE_CTA)) {                                                                                          \
    HQC_BARRIER();                                                                                          \
    hqc_gb_flush_sum_i64(g_sum, s_sum, s_count, groups);                                                    \
    hqc_gb_flush_min_i64(g_min, s_min, s_count, groups);                                                    \
    hqc_gb_flush_max_i64(g_max, s_max, s_count, groups);                                                    \
    hqc_gb_flush_sum_i64(g_count, s_count, s_count, groups);                                                \
  }                                                                                                         \
}
GROUP_DIRECT_KERNEL(group_direct_cta, 1)
GROUP_DIRECT_KERNEL(group_direct_atomic, 0)

// Hashed group-by (C2): sums of value per 64-bit key.
HQC_KERNEL void group_hashed(HQC_GLOBAL const hqc_i64* key, HQC_GLOBAL const hqc_i64* value, hqc_i64 n_rows,
                             HQC_GLOBAL hqc_i64* keys, hqc_i64 capacity, HQC_GLOBAL hqc_i64* g_sum,
                             HQC_GLOBAL hqc_i64* g_count, HQC_GLOBAL hqc_u32* flags) {
  for (hqc_i64 tile = hqc_tile_first(); tile < n_rows; tile += hqc_tile_stride()) {
    const hqc_i32 tile_items = hqc_tile_items(tile, n_rows);
    hqc_i64 k = hqc_load_i64(key, tile, tile_items);
    hqc_i64 v = hqc_load_i64(value, tile, tile_items);
    if (!hqc_tile_valid(tile_items)) continue;
    hqc_i64 slot = hqc_gb_hash_slot_i64(keys, capacity, k, flags);
    if (slot < 0) continue;
    hqc_gb_global_sum_i64(g_sum, slot, v);
    hqc_gb_global_sum_i64(g_count, slot, 1);
  }
}

// 128-bit arithmetic of base.h (what later stages compute from 128-bit sums): per row, a (words
// a_lo, a_hi) and an int64 b; out gets 8 words per row: a + b, a - b, a * b (two words each),
// cmp(a, b); products gets a * b through hqc_i128_store; out_f gets hqc_i128_to_f64(a).
HQC_KERNEL void i128_ops(HQC_GLOBAL const hqc_i64* a_lo, HQC_GLOBAL const hqc_i64* a_hi, HQC_GLOBAL const hqc_i64* b,
                         hqc_i64 n_rows, HQC_GLOBAL hqc_i64* out, HQC_GLOBAL hqc_i64* products, HQC_GLOBAL hqc_f64* out_f) {
  for (hqc_i64 tile = hqc_tile_first(); tile < n_rows; tile += hqc_tile_stride()) {
    const hqc_i32 tile_items = hqc_tile_items(tile, n_rows);
    if (!hqc_tile_valid(tile_items)) continue;
    const hqc_i64 row = hqc_tile_row(tile);
    const hqc_i128 a = hqc_i128_from_words(a_lo[row], a_hi[row]);
    const hqc_i128 w = hqc_i128_from_i64(b[row]);
    const hqc_i128 sum = hqc_i128_add(a, w), diff = hqc_i128_sub(a, w), product = hqc_i128_mul_i64(a, b[row]);
    out[8 * row + 0] = (hqc_i64)sum.lo;
    out[8 * row + 1] = sum.hi;
    out[8 * row + 2] = (hqc_i64)diff.lo;
    out[8 * row + 3] = diff.hi;
    out[8 * row + 4] = (hqc_i64)product.lo;
    out[8 * row + 5] = product.hi;
    out[8 * row + 6] = hqc_i128_cmp(a, w);
    hqc_i128_store(products, (hqc_u64)row, product);
    out_f[row] = hqc_i128_to_f64(a);
  }
}
// Loads back what i128_ops stored: reloaded gets, per row, the words of hqc_load_i128 then those of
// hqc_pred_load_i128.
HQC_KERNEL void i128_reload(HQC_GLOBAL const hqc_i64* products, hqc_i64 n_rows, HQC_GLOBAL hqc_i64* reloaded) {
  for (hqc_i64 tile = hqc_tile_first(); tile < n_rows; tile += hqc_tile_stride()) {
    const hqc_i32 tile_items = hqc_tile_items(tile, n_rows);
    const hqc_i128 full = hqc_load_i128(products, tile, tile_items);
    const hqc_i128 pred = hqc_pred_load_i128(products, tile, hqc_tile_valid(tile_items));
    if (!hqc_tile_valid(tile_items)) continue;
    const hqc_i64 row = hqc_tile_row(tile);
    reloaded[4 * row + 0] = (hqc_i64)full.lo;
    reloaded[4 * row + 1] = full.hi;
    reloaded[4 * row + 2] = (hqc_i64)pred.lo;
    reloaded[4 * row + 3] = pred.hi;
  }
}

// 128-bit MIN/MAX of values (words v[2 row], v[2 row + 1]). cta: per-work-item registers over the
// grid-stride tiles, then one locked update per CTA (B3); tuple: one locked update per row (B2),
// and per row into group row % groups (C2). out words: max (lo, hi), min (lo, hi); state: their
// state words; g_out / g_state: 4 words / 2 state words per group.
HQC_KERNEL void i128_extremes_cta(HQC_GLOBAL const hqc_i64* v, hqc_i64 n_rows, HQC_GLOBAL hqc_i64* out,
                                  HQC_GLOBAL hqc_u32* state HQC_SCRATCH_PARAMS) {
  HQC_SCRATCH_BEGIN
  hqc_i128 acc_max = hqc_i128_min_value(), acc_min = hqc_i128_max_value();
  for (hqc_i64 tile = hqc_tile_first(); tile < n_rows; tile += hqc_tile_stride()) {
    const hqc_i32 tile_items = hqc_tile_items(tile, n_rows);
    const hqc_i32 flag = hqc_tile_valid(tile_items);
    const hqc_i128 x = hqc_load_i128(v, tile, tile_items);
    acc_max = flag ? hqc_i128_max(acc_max, x) : acc_max;
    acc_min = flag ? hqc_i128_min(acc_min, x) : acc_min;
  }
  hqc_cta_max_i128_we_to(&out[0], &state[0], acc_max, hqc_scratch);
  hqc_cta_min_i128_we_to(&out[2], &state[1], acc_min, hqc_scratch);
}
HQC_KERNEL void i128_extremes_tuple(HQC_GLOBAL const hqc_i64* v, hqc_i64 n_rows, HQC_GLOBAL hqc_i64* out,
                                    HQC_GLOBAL hqc_u32* state, hqc_i64 groups, HQC_GLOBAL hqc_i64* g_max,
                                    HQC_GLOBAL hqc_u32* g_max_state, HQC_GLOBAL hqc_i64* g_min, HQC_GLOBAL hqc_u32* g_min_state) {
  for (hqc_i64 tile = hqc_tile_first(); tile < n_rows; tile += hqc_tile_stride()) {
    const hqc_i32 tile_items = hqc_tile_items(tile, n_rows);
    const hqc_i32 flag = hqc_tile_valid(tile_items);
    const hqc_i128 x = hqc_pred_load_i128(v, tile, flag);
    hqc_tuple_max_i128(&out[0], &state[0], flag, x);
    hqc_tuple_min_i128(&out[2], &state[1], flag, x);
    if (!flag) continue;
    const hqc_i64 g = hqc_tile_row(tile) % groups;
    hqc_gb_global_max_i128(g_max, g_max_state, g, x);
    hqc_gb_global_min_i128(g_min, g_min_state, g, x);
  }
}

// The compaction's partition of a table of slots[i] slots: chunk shift and count, the last chunk's
// begin and end, and the chunk range of every CTA of this launch (CTA b's first chunk).
HQC_KERNEL void compact_partition(HQC_GLOBAL const hqc_i64* slots, hqc_i64 n, HQC_GLOBAL hqc_i64* out,
                                  HQC_GLOBAL hqc_i64* cta_first) {
  const hqc_i64 i = (hqc_i64)HQC_LID();
  if (i < n) {
    const hqc_i64 chunks = hqc_compact_chunk_count(slots[i]);
    out[i * 4] = hqc_compact_chunk_shift(slots[i]);
    out[i * 4 + 1] = chunks;
    out[i * 4 + 2] = hqc_compact_chunk_begin(chunks - 1, slots[i]);
    out[i * 4 + 3] = hqc_compact_chunk_end(chunks - 1, slots[i]);
    cta_first[i * (HQC_GDIM() + 1) + HQC_BID()] = hqc_compact_cta_chunk(chunks, (hqc_i64)HQC_BID());
    if (HQC_BID() == 0) cta_first[i * (HQC_GDIM() + 1) + HQC_GDIM()] = hqc_compact_cta_chunk(chunks, (hqc_i64)HQC_GDIM());
  }
}
)CL";

std::string program_source() {
  // The compaction module: the device library, then templates/compact/compact.h (the partition).
  return hqc::codegen::compaction_module(hqc::codegen::Dialect::OpenCL).source + kTestKernels;
}

OpenClDevice& device() {
  static OpenClDevice d;
  static bool built = false;
  if (!built) {
    d.build(program_source());
    built = true;
  }
  return d;
}

std::vector<int32_t> random_i32(size_t n, int32_t lo, int32_t hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int32_t> dist(lo, hi);
  std::vector<int32_t> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

}  // namespace

TEST_CASE("test kernels also compile with NVRTC") {
  std::string cuda = hqc::codegen::compaction_module(hqc::codegen::Dialect::Cuda).source + kTestKernels;
  CHECK(hqc::test::nvrtc_compile_log(cuda, "sm_90") == "");
}

TEST_CASE("CTA scan: exclusive prefix per tile equals the host scan, for several block sizes") {
  auto& d = device();
  for (size_t block : {1u, 2u, 64u, 256u}) {
    CAPTURE(block);
    const int64_t n = static_cast<int64_t>(block) * 5 - 1;  // last tile partial
    auto values = random_i32(static_cast<size_t>(n), 0, 9, 7);
    size_t groups = (static_cast<size_t>(n) + block - 1) / block;
    cl_mem in = d.buffer(values);
    cl_mem prefix = d.buffer(std::vector<int64_t>(static_cast<size_t>(n), -1));
    cl_mem totals = d.buffer(std::vector<int64_t>(groups, -1));
    size_t words = (block + 1) / 2 + 2;
    d.run("scan_tiles", {OpenClDevice::mem(in), OpenClDevice::i64(n), OpenClDevice::mem(prefix),
                         OpenClDevice::mem(totals), OpenClDevice::local(words * 8)},
          groups, block);
    auto got = d.read<int64_t>(prefix, static_cast<size_t>(n));
    auto got_totals = d.read<int64_t>(totals, groups);
    for (size_t t = 0; t < groups; ++t) {
      int64_t running = 0;
      for (size_t i = t * block; i < std::min((t + 1) * block, static_cast<size_t>(n)); ++i) {
        REQUIRE(got[i] == running);
        running += values[i];
      }
      CHECK(got_totals[t] == running);
    }
  }
}

TEST_CASE("write positions across many CTAs are unique and dense (A3 and A2)") {
  auto& d = device();
  const int64_t n = 100003;
  auto values = random_i32(static_cast<size_t>(n), 0, 1000, 11);
  std::set<int64_t> expected;
  for (int64_t i = 0; i < n; ++i)
    if (values[static_cast<size_t>(i)] % 3 == 0) expected.insert(i);
  for (int use_cta : {1, 0}) {
    for (size_t groups : {size_t{7}, size_t{400}}) {  // 7: grid-stride over many tiles per CTA
      CAPTURE(use_cta);
      CAPTURE(groups);
      const size_t block = 128;
      cl_mem in = d.buffer(values);
      cl_mem counter = d.buffer(std::vector<uint64_t>{0});
      cl_mem out = d.buffer(std::vector<int64_t>(static_cast<size_t>(n), -1));
      d.run(use_cta ? "compact_cta" : "compact_atomic", {OpenClDevice::mem(in), OpenClDevice::i64(n),
                        OpenClDevice::mem(counter), OpenClDevice::mem(out), OpenClDevice::local(((block + 1) / 2 + 2) * 8)},
            groups, block);
      uint64_t count = d.read<uint64_t>(counter, 1)[0];
      REQUIRE(count == expected.size());
      auto rows = d.read<int64_t>(out, static_cast<size_t>(count));
      std::set<int64_t> got(rows.begin(), rows.end());
      CHECK(got == expected);  // dense (count slots), unique (set size), exactly the selected rows
      CHECK(got.size() == count);
    }
  }
}

// Every CTA of the launch computes the partition of every size, so each size is checked for the
// launch's whole grid: the chunks are powers of two of at least 1024 slots, at most 16384 of them and
// no larger than needed, they cover [0, slots) exactly, and the CTAs' ranges are consecutive and end
// at the last chunk. Sizes up to 2^40 slots: no table of that size is allocated.
TEST_CASE("compaction partition: power-of-two chunks, at most 16384, covering the slots; CTA ranges consecutive") {
  auto& d = device();
  std::vector<int64_t> sizes = {1, 2, 1023, 1024, 1025, 16384 * 1024 - 1, 16384 * 1024, 16384 * 1024 + 1,
                                int64_t{1} << 28, (int64_t{1} << 28) + 3, 33554431, 60006895, int64_t{1} << 40};
  const int64_t n = static_cast<int64_t>(sizes.size());
  for (size_t grid : {size_t{1}, size_t{3}, size_t{1024}}) {
    CAPTURE(grid);
    cl_mem in = d.buffer(sizes);
    cl_mem out = d.buffer(std::vector<int64_t>(sizes.size() * 4, -1));
    cl_mem first = d.buffer(std::vector<int64_t>(sizes.size() * (grid + 1), -1));
    // One work-item per size in every CTA (block = the sizes, rounded up to a power of two).
    d.run("compact_partition", {OpenClDevice::mem(in), OpenClDevice::i64(n), OpenClDevice::mem(out), OpenClDevice::mem(first)},
          grid, 16);
    auto got = d.read<int64_t>(out, sizes.size() * 4);
    auto ctas = d.read<int64_t>(first, sizes.size() * (grid + 1));
    for (size_t i = 0; i < sizes.size(); ++i) {
      CAPTURE(sizes[i]);
      const int64_t shift = got[i * 4], chunks = got[i * 4 + 1], size = int64_t{1} << shift;
      CHECK(shift >= 10);
      CHECK(chunks <= 16384);
      CHECK((chunks - 1) * size < sizes[i]);  // no empty chunk
      CHECK(chunks * size >= sizes[i]);       // every slot in a chunk
      if (shift > 10) CHECK((sizes[i] + size / 2 - 1) / (size / 2) > 16384);  // the least such power
      CHECK(got[i * 4 + 2] == (chunks - 1) * size);
      CHECK(got[i * 4 + 3] == sizes[i]);
      const int64_t* f = &ctas[i * (grid + 1)];
      CHECK(f[0] == 0);
      CHECK(f[grid] == chunks);
      for (size_t b = 0; b < grid; ++b) CHECK(f[b] <= f[b + 1]);
      CHECK(f[1] - f[0] == (chunks + static_cast<int64_t>(grid) - 1) / static_cast<int64_t>(grid));
    }
  }
}

// The compaction module's kernels themselves (templates/compact/compact.h): a table of `slots` slots
// with groups at random slots (dense runs and long empty stretches), ten columns of 1, 2, 3 and 4
// 32-bit words per slot in two gather launches (8 + 2 columns, the first writing the slot index),
// against the host's filter of the occupied slots in slot order — for a one-chunk table and one of
// several chunks, with grids of 1, 3 and 64 CTAs.
TEST_CASE("compaction module: count + gather launches copy every column's words of the occupied slots, in slot order") {
  auto& d = device();
  const std::vector<uint32_t> words = {1, 2, 3, 4, 2, 1, 2, 2, 3, 1};  // per column, in 32-bit words
  for (int64_t slots : {int64_t{700}, int64_t{70001}}) {
    for (size_t grid : {size_t{1}, size_t{3}, size_t{64}}) {
      CAPTURE(slots);
      CAPTURE(grid);
      std::mt19937_64 rng(static_cast<uint64_t>(slots) + grid);
      std::vector<int64_t> occupancy(static_cast<size_t>(slots), 0);
      for (int64_t s = 0; s < slots; ++s) {
        const bool dense_stretch = (s / 5000) % 3 == 0;
        occupancy[static_cast<size_t>(s)] = rng() % (dense_stretch ? 2 : 50) == 0 ? static_cast<int64_t>(rng() % 9 + 1) : 0;
      }
      std::vector<std::vector<uint32_t>> tables;
      for (uint32_t w : words) {
        std::vector<uint32_t> t(static_cast<size_t>(slots) * w);
        for (auto& x : t) x = static_cast<uint32_t>(rng());
        tables.push_back(std::move(t));
      }
      std::vector<int64_t> expected_slots;
      for (int64_t s = 0; s < slots; ++s)
        if (occupancy[static_cast<size_t>(s)] != 0) expected_slots.push_back(s);
      REQUIRE(expected_slots.size() > 10);

      cl_mem occ = d.buffer(occupancy);
      cl_mem counts = d.buffer(std::vector<uint64_t>(16384, 7));
      cl_mem rows = d.buffer(std::vector<uint64_t>{0});
      cl_mem slot_index = d.buffer(std::vector<int64_t>(static_cast<size_t>(slots), -1));
      std::vector<cl_mem> from, to;
      for (size_t c = 0; c < words.size(); ++c) {
        from.push_back(d.buffer(tables[c]));
        to.push_back(d.buffer(std::vector<uint32_t>(tables[c].size(), 0xdeadbeefu)));
      }
      const size_t block = 256;
      d.run("hqc_compact_count", {OpenClDevice::mem(occ), OpenClDevice::mem(counts), OpenClDevice::i64(slots), OpenClDevice::local(block * 8)},
            grid, block);
      for (size_t first : {size_t{0}, size_t{8}}) {
        int64_t shape = 0;
        std::vector<OpenClDevice::Arg> columns;
        for (size_t i = 0; i < 8; ++i) {
          const size_t c = first + i;
          if (c < words.size()) {
            shape |= static_cast<int64_t>(words[c]) << (8 * i);
            columns.push_back(OpenClDevice::mem(from[c]));
            columns.push_back(OpenClDevice::mem(to[c]));
          } else {  // unused: never read
            columns.push_back(OpenClDevice::mem(occ));
            columns.push_back(OpenClDevice::mem(rows));
          }
        }
        std::vector<OpenClDevice::Arg> args = {OpenClDevice::mem(occ), OpenClDevice::mem(counts), OpenClDevice::mem(rows)};
        if (first == 0) args.push_back(OpenClDevice::mem(slot_index));
        args.push_back(OpenClDevice::i64(slots));
        args.push_back(OpenClDevice::i64(shape));
        args.insert(args.end(), columns.begin(), columns.end());
        args.push_back(OpenClDevice::local(block * 8));
        d.run(first == 0 ? "hqc_compact_gather_slots" : "hqc_compact_gather", args, grid, block);
      }
      const size_t n = expected_slots.size();
      CHECK(d.read<uint64_t>(rows, 1)[0] == n);
      const auto got_slots = d.read<int64_t>(slot_index, n + 1);
      CHECK(std::vector<int64_t>(got_slots.begin(), got_slots.begin() + static_cast<long>(n)) == expected_slots);
      CHECK(got_slots[n] == -1);  // nothing past the rows
      for (size_t c = 0; c < words.size(); ++c) {
        CAPTURE(c);
        const auto got = d.read<uint32_t>(to[c], (n + 1) * words[c]);
        size_t wrong = 0;
        for (size_t r = 0; r < n; ++r)
          for (uint32_t w = 0; w < words[c]; ++w)
            wrong += got[r * words[c] + w] != tables[c][static_cast<size_t>(expected_slots[r]) * words[c] + w] ? 1 : 0;
        CHECK(wrong == 0);
        CHECK(got[n * words[c]] == 0xdeadbeefu);
      }
    }
  }
}

// hqc_order_words (device ORDER BY ... LIMIT k): for every pair of rows, a smaller word means the
// row comes strictly first; equal keys give equal words (except where 128-bit values saturate).
TEST_CASE("compaction module: ORDER BY words are monotone in the key for every mode, ascending and descending") {
  auto& d = device();
  std::mt19937_64 rng(42);
  const int64_t rows = 3001;
  constexpr int64_t kDescending = 1, kDoubles = 2, kWide = 4, kNarrow = 8;
  // Each case: the buffer's 64-bit elements, stride, lane, mode, and the key of row i as a long double
  // (exact for the integers used here; saturated 128-bit values compare as their sign).
  struct Case {
    const char* what;
    std::vector<int64_t> elements;
    int64_t stride, lane, mode;
    std::vector<long double> keys;
    bool saturating = false;
  };
  std::vector<Case> cases;
  {
    Case c{"int64 lane 1 of 3", std::vector<int64_t>(static_cast<size_t>(rows * 3)), 3, 1, 0, {}};
    for (int64_t i = 0; i < rows; ++i) {
      const int64_t v = i % 7 == 0 ? INT64_MIN + static_cast<int64_t>(rng() % 3) : i % 11 == 0 ? INT64_MAX - static_cast<int64_t>(rng() % 3)
                                                                                  : static_cast<int64_t>(rng() % 2001) - 1000;
      c.elements[static_cast<size_t>(i * 3 + 1)] = v;
      c.elements[static_cast<size_t>(i * 3)] = static_cast<int64_t>(rng());  // other lanes: never read
      c.keys.push_back(static_cast<long double>(v));
    }
    cases.push_back(c);
  }
  {
    Case c{"int32", std::vector<int64_t>(static_cast<size_t>(rows + 1) / 2 + 1), 1, 0, kNarrow, {}};
    auto* narrow = reinterpret_cast<int32_t*>(c.elements.data());
    for (int64_t i = 0; i < rows; ++i) {
      narrow[i] = static_cast<int32_t>(rng() % 201) - 100 + (i % 13 == 0 ? INT32_MIN / 2 : 0);
      c.keys.push_back(static_cast<long double>(narrow[i]));
    }
    cases.push_back(c);
  }
  {
    Case c{"128-bit", {}, 2, 0, kWide, {}, true};
    for (int64_t i = 0; i < rows; ++i) {
      const int64_t lo = static_cast<int64_t>(rng() % 2001) - 1000;
      const int64_t hi = i % 17 == 0 ? 5 : i % 19 == 0 ? -3 : lo < 0 ? -1 : 0;  // beyond int64 now and then
      c.elements.push_back(lo);
      c.elements.push_back(hi);
      c.keys.push_back(hi == (lo < 0 ? -1 : 0) ? static_cast<long double>(lo) : hi < 0 ? -1e30L : 1e30L);
    }
    cases.push_back(c);
  }
  {
    Case c{"doubles", {}, 1, 0, kDoubles, {}};
    for (int64_t i = 0; i < rows; ++i) {
      const double v = i % 23 == 0 ? -0.0 : i % 29 == 0 ? 0.0 : static_cast<double>(static_cast<int64_t>(rng() % 4001) - 2000) / 8.0;
      int64_t bits;
      std::memcpy(&bits, &v, 8);
      c.elements.push_back(bits);
      c.keys.push_back(static_cast<long double>(v));
    }
    cases.push_back(c);
  }
  for (const Case& c : cases) {
    for (bool descending : {false, true}) {
      CAPTURE(c.what);
      CAPTURE(descending);
      cl_mem values = d.buffer(c.elements);
      cl_mem words = d.buffer(std::vector<uint64_t>(static_cast<size_t>(rows), 0));
      cl_mem index = d.buffer(std::vector<uint32_t>(static_cast<size_t>(rows), 0xffffffffu));
      d.run("hqc_order_words", {OpenClDevice::mem(values), OpenClDevice::i64(rows), OpenClDevice::i64(c.stride), OpenClDevice::i64(c.lane),
                                OpenClDevice::i64(c.mode | (descending ? kDescending : 0)), OpenClDevice::mem(words), OpenClDevice::mem(index)},
            5, 64);
      const auto w = d.read<uint64_t>(words, static_cast<size_t>(rows));
      const auto ix = d.read<uint32_t>(index, static_cast<size_t>(rows));
      size_t wrong = 0, wrong_index = 0;
      for (int64_t i = 0; i < rows; ++i) {
        wrong_index += ix[static_cast<size_t>(i)] != static_cast<uint32_t>(i) ? 1 : 0;
        for (int64_t j = 0; j < rows; j += 7) {
          const long double a = c.keys[static_cast<size_t>(i)], b = c.keys[static_cast<size_t>(j)];
          const bool first = descending ? a > b : a < b;
          const uint64_t wa = w[static_cast<size_t>(i)], wb = w[static_cast<size_t>(j)];
          if (wa < wb && !first) ++wrong;       // a smaller word must mean strictly first
          if (a == b && wa != wb) ++wrong;      // equal keys, equal words
          if (first && wa > wb) ++wrong;        // and the order never inverts
        }
      }
      CHECK(wrong == 0);
      CHECK(wrong_index == 0);
    }
  }
}

TEST_CASE("CTA reductions with one atomic per CTA (B3) and per tuple (B2) match the host") {
  auto& d = device();
  const int64_t n = 54321;
  std::vector<int64_t> values(static_cast<size_t>(n));
  std::mt19937_64 rng(5);
  for (auto& v : values) v = static_cast<int64_t>(rng() % 2000001) - 1000000;
  int64_t sum = std::accumulate(values.begin(), values.end(), int64_t{0});
  int64_t mn = *std::min_element(values.begin(), values.end());
  int64_t mx = *std::max_element(values.begin(), values.end());
  for (int use_cta : {1, 0}) {
    CAPTURE(use_cta);
    const size_t block = 256;
    cl_mem in = d.buffer(values);
    cl_mem out = d.buffer(std::vector<int64_t>{0, INT64_MAX, INT64_MIN});
    cl_mem out_f = d.buffer(std::vector<double>{0.0});
    d.run(use_cta ? "reduce_all_cta" : "reduce_all_atomic", {OpenClDevice::mem(in), OpenClDevice::i64(n), OpenClDevice::mem(out),
                         OpenClDevice::mem(out_f), OpenClDevice::local(block * 8)},
          37, block);
    auto got = d.read<int64_t>(out, 3);
    CHECK(got[0] == sum);
    CHECK(got[1] == mn);
    CHECK(got[2] == mx);
    CHECK(d.read<double>(out_f, 1)[0] == doctest::Approx(static_cast<double>(sum) * 0.5));
  }
}

TEST_CASE("join hash tables: build + probe, perfect hash and open addressing, overflow flag") {
  auto& d = device();
  // Unique build keys 1000..1999 step 2 (dense enough for the perfect hash), probes 900..2099.
  std::vector<int32_t> build;
  for (int32_t k = 1000; k < 2000; k += 2) build.push_back(k);
  std::shuffle(build.begin(), build.end(), std::mt19937(3));
  std::vector<int32_t> probes;
  for (int32_t k = 900; k < 2100; ++k) probes.push_back(k);
  const int32_t empty = INT32_MIN;
  for (int kind : {0, 1}) {
    CAPTURE(kind);
    const int64_t capacity = kind == 0 ? 1000 : 1024;
    cl_mem keys_in = d.buffer(build);
    cl_mem keys = d.buffer(std::vector<int32_t>(static_cast<size_t>(capacity), empty));
    cl_mem vals = d.buffer(std::vector<int64_t>(static_cast<size_t>(capacity), 0));
    cl_mem flags = d.buffer(std::vector<uint32_t>{0});
    d.run("build32", {OpenClDevice::mem(keys_in), OpenClDevice::i64(static_cast<int64_t>(build.size())), OpenClDevice::i32(kind),
                      OpenClDevice::mem(keys), OpenClDevice::mem(vals), OpenClDevice::i64(capacity), OpenClDevice::i64(1000),
                      OpenClDevice::mem(flags)},
          3, 64);
    CHECK(d.read<uint32_t>(flags, 1)[0] == 0u);
    cl_mem probe_in = d.buffer(probes);
    cl_mem out = d.buffer(std::vector<int64_t>(probes.size(), -7));
    d.run("probe32", {OpenClDevice::mem(probe_in), OpenClDevice::i64(static_cast<int64_t>(probes.size())), OpenClDevice::i32(kind),
                      OpenClDevice::mem(keys), OpenClDevice::mem(vals), OpenClDevice::i64(capacity), OpenClDevice::i64(1000),
                      OpenClDevice::mem(out)},
          5, 64);
    auto got = d.read<int64_t>(out, probes.size());
    for (size_t i = 0; i < probes.size(); ++i) {
      int32_t k = probes[i];
      int64_t expected = (k >= 1000 && k < 2000 && k % 2 == 0) ? int64_t{k} * 10 : -1;
      REQUIRE_MESSAGE(got[i] == expected, "probe key " << k);
    }
  }
  SUBCASE("open addressing: a table too small raises the full flag") {
    cl_mem keys_in = d.buffer(build);
    cl_mem keys = d.buffer(std::vector<int32_t>(100, empty));
    cl_mem vals = d.buffer(std::vector<int64_t>(100, 0));
    cl_mem flags = d.buffer(std::vector<uint32_t>{0});
    d.run("build32", {OpenClDevice::mem(keys_in), OpenClDevice::i64(static_cast<int64_t>(build.size())), OpenClDevice::i32(1),
                      OpenClDevice::mem(keys), OpenClDevice::mem(vals), OpenClDevice::i64(100), OpenClDevice::i64(0),
                      OpenClDevice::mem(flags)},
          4, 64);
    CHECK((d.read<uint32_t>(flags, 1)[0] & 1u) != 0u);
  }
  SUBCASE("perfect hash: a key outside the domain raises the out-of-range flag") {
    std::vector<int32_t> bad = {1000, 1500, 2500};
    cl_mem keys_in = d.buffer(bad);
    cl_mem keys = d.buffer(std::vector<int32_t>(1000, empty));
    cl_mem vals = d.buffer(std::vector<int64_t>(1000, 0));
    cl_mem flags = d.buffer(std::vector<uint32_t>{0});
    d.run("build32", {OpenClDevice::mem(keys_in), OpenClDevice::i64(3), OpenClDevice::i32(0), OpenClDevice::mem(keys),
                      OpenClDevice::mem(vals), OpenClDevice::i64(1000), OpenClDevice::i64(1000), OpenClDevice::mem(flags)},
          1, 64);
    CHECK(d.read<uint32_t>(flags, 1)[0] == 4u);
  }
}

TEST_CASE("key bits: duplicate keys, sorted or shuffled, build one bit each; probes find exactly the built keys") {
  auto& d = device();
  // Keys 1000..1999 step 3, each four times; probes 900..2099; a domain of 1000 slots from 1000.
  std::vector<int32_t> build;
  for (int32_t k = 1000; k < 2000; k += 3)
    for (int i = 0; i < 4; ++i) build.push_back(k);
  std::vector<int32_t> probes;
  for (int32_t k = 900; k < 2100; ++k) probes.push_back(k);
  for (bool shuffled : {false, true}) {
    CAPTURE(shuffled);
    if (shuffled) std::shuffle(build.begin(), build.end(), std::mt19937(5));
    cl_mem keys_in = d.buffer(build);
    cl_mem bits = d.buffer(std::vector<uint32_t>((1000 + 31) / 32, 0u));
    cl_mem flags = d.buffer(std::vector<uint32_t>{0});
    d.run("build_bits", {OpenClDevice::mem(keys_in), OpenClDevice::i64(static_cast<int64_t>(build.size())), OpenClDevice::mem(bits),
                         OpenClDevice::i64(1000), OpenClDevice::i64(1000), OpenClDevice::mem(flags)},
          3, 64);
    CHECK(d.read<uint32_t>(flags, 1)[0] == 0u);
    size_t set = 0;
    for (uint32_t w : d.read<uint32_t>(bits, (1000 + 31) / 32)) set += static_cast<size_t>(__builtin_popcount(w));
    CHECK(set == build.size() / 4);
    cl_mem probe_in = d.buffer(probes);
    cl_mem out = d.buffer(std::vector<int64_t>(probes.size(), -7));
    d.run("probe_bits", {OpenClDevice::mem(probe_in), OpenClDevice::i64(static_cast<int64_t>(probes.size())), OpenClDevice::mem(bits),
                         OpenClDevice::i64(1000), OpenClDevice::i64(1000), OpenClDevice::mem(out)},
          5, 64);
    auto got = d.read<int64_t>(out, probes.size());
    for (size_t i = 0; i < probes.size(); ++i) {
      const int32_t k = probes[i];
      const int64_t expected = (k >= 1000 && k < 2000 && (k - 1000) % 3 == 0) ? int64_t{k} - 1000 : -1;
      REQUIRE_MESSAGE(got[i] == expected, "probe key " << k);
    }
  }
  SUBCASE("a key outside the domain raises the out-of-range flag and sets no bit") {
    std::vector<int32_t> bad = {999, 2000, 1500};
    cl_mem keys_in = d.buffer(bad);
    cl_mem bits = d.buffer(std::vector<uint32_t>((1000 + 31) / 32, 0u));
    cl_mem flags = d.buffer(std::vector<uint32_t>{0});
    d.run("build_bits", {OpenClDevice::mem(keys_in), OpenClDevice::i64(3), OpenClDevice::mem(bits), OpenClDevice::i64(1000),
                         OpenClDevice::i64(1000), OpenClDevice::mem(flags)},
          1, 64);
    CHECK(d.read<uint32_t>(flags, 1)[0] == 4u);
    size_t set = 0;
    for (uint32_t w : d.read<uint32_t>(bits, (1000 + 31) / 32)) set += static_cast<size_t>(__builtin_popcount(w));
    CHECK(set == 1u);
  }
}

TEST_CASE("64-bit open addressing: build + probe, reserved key flagged") {
  auto& d = device();
  std::vector<int64_t> build;
  for (int64_t i = 0; i < 3000; ++i) build.push_back(i * 1000003LL + (int64_t{1} << 40));
  const int64_t capacity = 4096;
  cl_mem in = d.buffer(build);
  cl_mem keys = d.buffer(std::vector<int64_t>(capacity, INT64_MIN));
  cl_mem flags = d.buffer(std::vector<uint32_t>{0});
  cl_mem found = d.buffer(std::vector<int64_t>(build.size(), 0));
  d.run("build_probe64", {OpenClDevice::mem(in), OpenClDevice::i64(3000), OpenClDevice::i32(1), OpenClDevice::mem(keys),
                          OpenClDevice::i64(capacity), OpenClDevice::mem(flags), OpenClDevice::mem(found)},
        8, 64);
  CHECK(d.read<uint32_t>(flags, 1)[0] == 0u);
  std::vector<int64_t> probes = build;
  for (auto& k : probes) k += 1;  // none of these were inserted
  probes.insert(probes.end(), build.begin(), build.end());
  cl_mem probe_in = d.buffer(probes);
  cl_mem found2 = d.buffer(std::vector<int64_t>(probes.size(), -1));
  d.run("build_probe64", {OpenClDevice::mem(probe_in), OpenClDevice::i64(static_cast<int64_t>(probes.size())), OpenClDevice::i32(0),
                          OpenClDevice::mem(keys), OpenClDevice::i64(capacity), OpenClDevice::mem(flags), OpenClDevice::mem(found2)},
        8, 64);
  auto got = d.read<int64_t>(found2, probes.size());
  CHECK(std::accumulate(got.begin(), got.begin() + 3000, int64_t{0}) == 0);
  CHECK(std::accumulate(got.begin() + 3000, got.end(), int64_t{0}) == 3000);

  std::vector<int64_t> reserved = {INT64_MIN};
  cl_mem rin = d.buffer(reserved);
  d.run("build_probe64", {OpenClDevice::mem(rin), OpenClDevice::i64(1), OpenClDevice::i32(1), OpenClDevice::mem(keys),
                          OpenClDevice::i64(capacity), OpenClDevice::mem(flags), OpenClDevice::mem(found)},
        1, 64);
  CHECK(d.read<uint32_t>(flags, 1)[0] == 2u);
}

TEST_CASE("chained table: every entry of a key listed once, entries from a base; open addressing and perfect-hash slots") {
  auto& d = device();
  for (int perfect : {0, 1}) {
    CAPTURE(perfect);
    // 3000 rows over 97 keys (31 or 30 rows each; with open addressing one of them 2^31 - 5), built
    // in two launches as two chunks would be: rows [0, 1200) then [1200, 3000) with entry base 1200.
    std::vector<int32_t> build;
    for (int32_t i = 0; i < 3000; ++i) build.push_back(i % 97 == 96 && !perfect ? INT32_MAX - 4 : 5 + (i % 97) * 7);
    const int64_t capacity = perfect ? 96 * 7 + 1 : 256, key_min = 5;
    std::vector<int32_t> first(build.begin(), build.begin() + 1200), second(build.begin() + 1200, build.end());
    cl_mem keys = d.buffer(std::vector<int32_t>(static_cast<size_t>(capacity), INT32_MIN));
    cl_mem heads = d.buffer(std::vector<int64_t>(static_cast<size_t>(capacity), -1));
    cl_mem next = d.buffer(std::vector<int64_t>(build.size(), -7));
    cl_mem payload = d.buffer(std::vector<int64_t>(build.size(), 0));
    cl_mem flags = d.buffer(std::vector<uint32_t>{0});
    for (auto [part, base] : {std::pair{&first, int64_t{0}}, std::pair{&second, int64_t{1200}}}) {
      cl_mem in = d.buffer(*part);
      d.run("chain_build32", {OpenClDevice::mem(in), OpenClDevice::i64(static_cast<int64_t>(part->size())), OpenClDevice::i64(base),
                              OpenClDevice::i32(perfect), OpenClDevice::mem(keys), OpenClDevice::mem(heads), OpenClDevice::mem(next),
                              OpenClDevice::mem(payload), OpenClDevice::i64(capacity), OpenClDevice::i64(key_min), OpenClDevice::mem(flags)},
            5, 64);
    }
    CHECK(d.read<uint32_t>(flags, 1)[0] == 0u);
    // Each distinct key holds one slot: 97 slots used.
    auto slots = d.read<int32_t>(keys, static_cast<size_t>(capacity));
    CHECK(std::count_if(slots.begin(), slots.end(), [](int32_t k) { return k != INT32_MIN; }) == 97);
    std::vector<int32_t> probes;
    for (int32_t k = -7; k < 100 * 7; ++k) probes.push_back(k);
    probes.push_back(INT32_MAX - 4);
    cl_mem probe_in = d.buffer(probes);
    cl_mem count = d.buffer(std::vector<int64_t>(probes.size(), -1));
    cl_mem sum = d.buffer(std::vector<int64_t>(probes.size(), -1));
    d.run("chain_probe32", {OpenClDevice::mem(probe_in), OpenClDevice::i64(static_cast<int64_t>(probes.size())), OpenClDevice::i32(perfect),
                            OpenClDevice::mem(keys), OpenClDevice::mem(heads), OpenClDevice::mem(next), OpenClDevice::mem(payload),
                            OpenClDevice::i64(capacity), OpenClDevice::i64(key_min), OpenClDevice::mem(count), OpenClDevice::mem(sum)},
          3, 64);
    auto got_count = d.read<int64_t>(count, probes.size());
    auto got_sum = d.read<int64_t>(sum, probes.size());
    std::map<int32_t, std::pair<int64_t, int64_t>> expected;  // key -> (rows, sum of row * 10)
    for (size_t i = 0; i < build.size(); ++i) {
      expected[build[i]].first += 1;
      expected[build[i]].second += static_cast<int64_t>(i) * 10;
    }
    for (size_t i = 0; i < probes.size(); ++i) {
      auto it = expected.find(probes[i]);
      const std::pair<int64_t, int64_t> want = it == expected.end() ? std::pair<int64_t, int64_t>{0, 0} : it->second;
      REQUIRE_MESSAGE(got_count[i] == want.first, "entries of key " << probes[i]);
      REQUIRE_MESSAGE(got_sum[i] == want.second, "payload sum of key " << probes[i]);
    }
  }
  SUBCASE("fewer slots than distinct keys raise the full flag; a key outside a perfect hash's domain the out-of-range flag") {
    std::vector<int32_t> build;
    for (int32_t i = 0; i < 3000; ++i) build.push_back(i % 97);
    cl_mem in = d.buffer(build);
    cl_mem next = d.buffer(std::vector<int64_t>(build.size(), -7));
    cl_mem payload = d.buffer(std::vector<int64_t>(build.size(), 0));
    for (int perfect : {0, 1}) {
      cl_mem keys = d.buffer(std::vector<int32_t>(64, INT32_MIN));
      cl_mem heads = d.buffer(std::vector<int64_t>(64, -1));
      cl_mem flags = d.buffer(std::vector<uint32_t>{0});
      d.run("chain_build32", {OpenClDevice::mem(in), OpenClDevice::i64(static_cast<int64_t>(build.size())), OpenClDevice::i64(0),
                              OpenClDevice::i32(perfect), OpenClDevice::mem(keys), OpenClDevice::mem(heads), OpenClDevice::mem(next),
                              OpenClDevice::mem(payload), OpenClDevice::i64(64), OpenClDevice::i64(0), OpenClDevice::mem(flags)},
            5, 64);
      CHECK(d.read<uint32_t>(flags, 1)[0] == (perfect ? 4u : 1u));
    }
  }
}

TEST_CASE("direct-indexed group-by: C3 (scratchpad + flush per CTA) and C2 match the host") {
  auto& d = device();
  const int64_t n = 77777;
  const int64_t groups = 50;
  auto keys = random_i32(static_cast<size_t>(n), 0, static_cast<int32_t>(groups - 1), 21);
  for (size_t i = 0; i < keys.size(); ++i)
    if (keys[i] == 17) keys[i] = 18;  // group 17 stays empty: must not appear
  std::vector<int64_t> values(static_cast<size_t>(n));
  std::mt19937_64 rng(9);
  for (auto& v : values) v = static_cast<int64_t>(rng() % 100001) - 50000;
  std::vector<int64_t> sum(groups, 0), mn(groups, INT64_MAX), mx(groups, INT64_MIN), cnt(groups, 0);
  for (size_t i = 0; i < keys.size(); ++i) {
    auto g = static_cast<size_t>(keys[i]);
    sum[g] += values[i];
    mn[g] = std::min(mn[g], values[i]);
    mx[g] = std::max(mx[g], values[i]);
    cnt[g] += 1;
  }
  for (int use_cta : {1, 0}) {
    CAPTURE(use_cta);
    cl_mem k = d.buffer(keys);
    cl_mem v = d.buffer(values);
    cl_mem g_sum = d.buffer(std::vector<int64_t>(groups, 0));
    cl_mem g_min = d.buffer(std::vector<int64_t>(groups, INT64_MAX));
    cl_mem g_max = d.buffer(std::vector<int64_t>(groups, INT64_MIN));
    cl_mem g_cnt = d.buffer(std::vector<int64_t>(groups, 0));
    cl_mem flags = d.buffer(std::vector<uint32_t>{0});
    d.run(use_cta ? "group_direct_cta" : "group_direct_atomic",
          {OpenClDevice::mem(k), OpenClDevice::mem(v), OpenClDevice::i64(n), OpenClDevice::i64(groups),
                           OpenClDevice::mem(g_sum), OpenClDevice::mem(g_min),
                           OpenClDevice::mem(g_max), OpenClDevice::mem(g_cnt), OpenClDevice::mem(flags),
                           OpenClDevice::local(static_cast<size_t>(groups) * 4 * 8)},
          23, 128);
    CHECK(d.read<uint32_t>(flags, 1)[0] == 0u);
    CHECK(d.read<int64_t>(g_sum, groups) == sum);
    CHECK(d.read<int64_t>(g_min, groups) == mn);
    CHECK(d.read<int64_t>(g_max, groups) == mx);
    CHECK(d.read<int64_t>(g_cnt, groups) == cnt);
  }
}

TEST_CASE("hashed group-by (C2) matches the host and flags a full table") {
  auto& d = device();
  const int64_t n = 40000;
  std::vector<int64_t> keys(static_cast<size_t>(n)), values(static_cast<size_t>(n));
  std::mt19937_64 rng(13);
  std::map<int64_t, std::pair<int64_t, int64_t>> expected;  // key -> (sum, count)
  for (size_t i = 0; i < keys.size(); ++i) {
    keys[i] = static_cast<int64_t>(rng() % 700) * 0x100000001LL;
    values[i] = static_cast<int64_t>(rng() % 1000);
    expected[keys[i]].first += values[i];
    expected[keys[i]].second += 1;
  }
  for (int64_t capacity : {int64_t{2048}, int64_t{256}}) {
    CAPTURE(capacity);
    cl_mem k = d.buffer(keys);
    cl_mem v = d.buffer(values);
    cl_mem table = d.buffer(std::vector<int64_t>(static_cast<size_t>(capacity), INT64_MIN));
    cl_mem g_sum = d.buffer(std::vector<int64_t>(static_cast<size_t>(capacity), 0));
    cl_mem g_cnt = d.buffer(std::vector<int64_t>(static_cast<size_t>(capacity), 0));
    cl_mem flags = d.buffer(std::vector<uint32_t>{0});
    d.run("group_hashed", {OpenClDevice::mem(k), OpenClDevice::mem(v), OpenClDevice::i64(n), OpenClDevice::mem(table),
                           OpenClDevice::i64(capacity), OpenClDevice::mem(g_sum), OpenClDevice::mem(g_cnt),
                           OpenClDevice::mem(flags)},
          16, 128);
    uint32_t flag = d.read<uint32_t>(flags, 1)[0];
    if (capacity < 700) {
      CHECK(flag == 1u);
      continue;
    }
    REQUIRE(flag == 0u);
    auto tk = d.read<int64_t>(table, static_cast<size_t>(capacity));
    auto ts = d.read<int64_t>(g_sum, static_cast<size_t>(capacity));
    auto tc = d.read<int64_t>(g_cnt, static_cast<size_t>(capacity));
    std::map<int64_t, std::pair<int64_t, int64_t>> got;
    for (size_t s = 0; s < tk.size(); ++s)
      if (tk[s] != INT64_MIN) got[tk[s]] = {ts[s], tc[s]};
    CHECK(got == expected);
  }
}

TEST_CASE("128-bit integers: add, sub, product with an int64, comparison, to double, store and load match __int128") {
  auto& d = device();
  std::mt19937_64 rng(17);
  std::vector<i128> as;
  std::vector<int64_t> bs;
  // Edge values: zero, +-1, around 2^63 and 2^64, large magnitudes of both signs.
  const i128 two63 = static_cast<i128>(1) << 63, two64 = static_cast<i128>(1) << 64;
  const i128 edges[] = {0, 1, -1, two63 - 1, two63, -two63, -two63 - 1, two64 - 1, two64, -two64, -two64 + 1,
                        two64 * 1000003 + 17, -(two64 * 999983) - 5, static_cast<i128>(9000000000000000000LL) * 4};
  const int64_t b_edges[] = {0, 1, -1, 10, -10, 10000, INT64_MAX, INT64_MIN + 1, 123456789};
  for (i128 a : edges)
    for (int64_t b : b_edges) {
      as.push_back(a);
      bs.push_back(b);
    }
  for (int i = 0; i < 500; ++i) {  // random values up to about 2^100, random int64 up to 2^20
    i128 a = static_cast<i128>(static_cast<int64_t>(rng() >> 28)) * static_cast<i128>(rng()) + static_cast<i128>(rng() % 1000);
    as.push_back(i % 2 ? a : -a);
    bs.push_back(static_cast<int64_t>(rng() % 2000001) - 1000000);
  }
  const size_t n = as.size();
  std::vector<int64_t> lo(n), hi(n);
  for (size_t i = 0; i < n; ++i) {
    lo[i] = static_cast<int64_t>(static_cast<uint64_t>(as[i]));
    hi[i] = static_cast<int64_t>(as[i] >> 64);
  }
  cl_mem a_lo = d.buffer(lo), a_hi = d.buffer(hi), b = d.buffer(bs);
  cl_mem out = d.buffer(std::vector<int64_t>(8 * n, 0)), products = d.buffer(std::vector<int64_t>(2 * n, 0));
  cl_mem out_f = d.buffer(std::vector<double>(n, 0.0));
  const int64_t rows = static_cast<int64_t>(n);
  d.run("i128_ops", {OpenClDevice::mem(a_lo), OpenClDevice::mem(a_hi), OpenClDevice::mem(b), OpenClDevice::i64(rows),
                     OpenClDevice::mem(out), OpenClDevice::mem(products), OpenClDevice::mem(out_f)},
        3, 64);
  cl_mem reloaded = d.buffer(std::vector<int64_t>(4 * n, 0));
  d.run("i128_reload", {OpenClDevice::mem(products), OpenClDevice::i64(rows), OpenClDevice::mem(reloaded)}, 3, 64);
  auto got = d.read<int64_t>(out, 8 * n);
  auto back = d.read<int64_t>(reloaded, 4 * n);
  auto got_f = d.read<double>(out_f, n);
  auto value = [&](size_t at) {
    return static_cast<i128>((static_cast<u128>(static_cast<uint64_t>(got[at + 1])) << 64) | static_cast<uint64_t>(got[at]));
  };
  for (size_t i = 0; i < n; ++i) {
    CAPTURE(i);
    const i128 a = as[i], w = bs[i];
    // Two's complement: host and device both wrap modulo 2^128.
    CHECK(value(8 * i) == static_cast<i128>(static_cast<u128>(a) + static_cast<u128>(w)));
    CHECK(value(8 * i + 2) == static_cast<i128>(static_cast<u128>(a) - static_cast<u128>(w)));
    CHECK(value(8 * i + 4) == static_cast<i128>(static_cast<u128>(a) * static_cast<u128>(w)));
    CHECK(got[8 * i + 6] == (a < w ? -1 : a > w ? 1 : 0));
    for (size_t k = 0; k < 4; ++k) CHECK(back[4 * i + k] == got[8 * i + 4 + k % 2]);  // loads return what the store wrote
    const double expected = static_cast<double>(a);
    CHECK(got_f[i] == doctest::Approx(expected).epsilon(1e-15));
    if (a >= INT64_MIN && a <= INT64_MAX) CHECK(got_f[i] == expected);
  }
}

TEST_CASE("128-bit MIN/MAX under contention: one locked update per CTA (B3), per tuple (B2), per tuple into groups (C2)") {
  auto& d = device();
  std::mt19937_64 rng(29);
  // High words from -3 .. 3 (values up to about +-2^66, beyond 64 bits of either sign): about 2,900
  // values share the extreme high word of each end, so the low word decides, compared unsigned
  // (half of the low words have the top bit set).
  std::vector<i128> vs;
  for (int i = 0; i < 20000; ++i) {
    const int64_t hi = static_cast<int64_t>(rng() % 7) - 3;
    vs.push_back(static_cast<i128>(static_cast<u128>(static_cast<uint64_t>(hi)) << 64 | rng()));
  }
  const size_t n = vs.size();
  constexpr int64_t kGroups = 7;
  std::vector<int64_t> words(2 * n);
  for (size_t i = 0; i < n; ++i) {
    words[2 * i] = static_cast<int64_t>(static_cast<uint64_t>(vs[i]));
    words[2 * i + 1] = static_cast<int64_t>(vs[i] >> 64);
  }
  const i128 max = *std::max_element(vs.begin(), vs.end()), min = *std::min_element(vs.begin(), vs.end());
  REQUIRE(static_cast<int64_t>(max >> 64) == 3);
  REQUIRE(static_cast<int64_t>(min >> 64) == -3);
  std::vector<i128> g_max(kGroups), g_min(kGroups);
  for (size_t i = 0; i < n; ++i) {
    const size_t g = i % kGroups;
    g_max[g] = i < kGroups ? vs[i] : std::max(g_max[g], vs[i]);
    g_min[g] = i < kGroups ? vs[i] : std::min(g_min[g], vs[i]);
  }
  auto value = [](const std::vector<int64_t>& w, size_t at) {
    return static_cast<i128>((static_cast<u128>(static_cast<uint64_t>(w[at + 1])) << 64) | static_cast<uint64_t>(w[at]));
  };
  cl_mem v = d.buffer(words);
  const int64_t rows = static_cast<int64_t>(n);
  for (size_t block : {64u, 256u}) {
    CAPTURE(block);
    cl_mem out = d.buffer(std::vector<int64_t>(4, 0));
    cl_mem state = d.buffer(std::vector<uint32_t>(2, 0));
    d.run("i128_extremes_cta", {OpenClDevice::mem(v), OpenClDevice::i64(rows), OpenClDevice::mem(out), OpenClDevice::mem(state),
                                OpenClDevice::local(block * 8)},
          37, block);
    auto got = d.read<int64_t>(out, 4);
    CHECK(value(got, 0) == max);
    CHECK(value(got, 2) == min);
    CHECK(d.read<uint32_t>(state, 2) == std::vector<uint32_t>{2u, 2u});  // HQC_I128_FULL, released
  }
  cl_mem out = d.buffer(std::vector<int64_t>(4, 0));
  cl_mem state = d.buffer(std::vector<uint32_t>(2, 0));
  cl_mem gmax = d.buffer(std::vector<int64_t>(2 * kGroups, 0)), gmin = d.buffer(std::vector<int64_t>(2 * kGroups, 0));
  cl_mem gmax_state = d.buffer(std::vector<uint32_t>(kGroups, 0)), gmin_state = d.buffer(std::vector<uint32_t>(kGroups, 0));
  d.run("i128_extremes_tuple", {OpenClDevice::mem(v), OpenClDevice::i64(rows), OpenClDevice::mem(out), OpenClDevice::mem(state),
                                OpenClDevice::i64(kGroups), OpenClDevice::mem(gmax), OpenClDevice::mem(gmax_state),
                                OpenClDevice::mem(gmin), OpenClDevice::mem(gmin_state)},
        41, 128);
  auto got = d.read<int64_t>(out, 4);
  CHECK(value(got, 0) == max);
  CHECK(value(got, 2) == min);
  auto got_max = d.read<int64_t>(gmax, 2 * kGroups), got_min = d.read<int64_t>(gmin, 2 * kGroups);
  for (size_t g = 0; g < static_cast<size_t>(kGroups); ++g) {
    CAPTURE(g);
    CHECK(value(got_max, 2 * g) == g_max[g]);
    CHECK(value(got_min, 2 * g) == g_min[g]);
  }
}

// ---- horseqc dialect prelude: opencl (generated from codegen/dialect.cpp) ----
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef int hqc_i32;
typedef uint hqc_u32;
typedef long hqc_i64;
typedef ulong hqc_u64;
typedef double hqc_f64;
typedef uchar hqc_u8;
typedef char hqc_i8;
typedef short hqc_i16;
#define HQC_KERNEL __kernel
#define HQC_FN
#define HQC_CTA_FN
#define HQC_NO_UNROLL
#define HQC_GLOBAL __global
#define HQC_LOCAL __local
#define HQC_LOCAL_DECL __local
#define HQC_RESTRICT restrict
#define HQC_CONST_STR __constant char*
#define HQC_LID() ((hqc_i32)get_local_id(0))
#define HQC_BID() ((hqc_i64)get_group_id(0))
#define HQC_BDIM() ((hqc_i32)get_local_size(0))
#define HQC_GDIM() ((hqc_i64)get_num_groups(0))
#define HQC_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#define HQC_FENCE_GLOBAL() mem_fence(CLK_GLOBAL_MEM_FENCE)
#define HQC_FENCE_LOCAL() mem_fence(CLK_LOCAL_MEM_FENCE)
#define HQC_ATOMIC_ADD_I32(p, v) atomic_add((p), (v))
#define HQC_ATOMIC_ADD_U32(p, v) atomic_add((p), (v))
#define HQC_ATOMIC_ADD_I64(p, v) atom_add((p), (v))
#define HQC_ATOMIC_ADD_U64(p, v) atom_add((p), (v))
#define HQC_ATOMIC_CAS_I32(p, c, v) atomic_cmpxchg((p), (c), (v))
#define HQC_ATOMIC_CAS_U32(p, c, v) atomic_cmpxchg((p), (c), (v))
#define HQC_ATOMIC_CAS_I64(p, c, v) atom_cmpxchg((p), (c), (v))
#define HQC_ATOMIC_CAS_U64(p, c, v) atom_cmpxchg((p), (c), (v))
#define HQC_ATOMIC_XCHG_I64(p, v) atom_xchg((p), (v))
#define HQC_ATOMIC_MIN_I32(p, v) atomic_min((p), (v))
#define HQC_ATOMIC_MAX_I32(p, v) atomic_max((p), (v))
#define HQC_ATOMIC_OR_U32(p, v) atomic_or((p), (v))
#define HQC_F64_AS_I64(x) as_long(x)
#define HQC_I64_AS_F64(x) as_double(x)
#define HQC_MUL_HI_U64(a, b) mul_hi((hqc_u64)(a), (hqc_u64)(b))
#define HQC_HAS_SIMD 0
#define HQC_SIMD_WIDTH 0
#define HQC_WARP_RECONVERGE()
#define HQC_SCRATCH_PARAMS , __local hqc_u64* hqc_scratch
#define HQC_SCRATCH_BEGIN

// ==== horseqc query t_grouped: 2 compound kernel(s), resolution model ====
// p1 grouped_aggregate into agg0: C3, table privatised in scratchpad, merged with global atomics per CTA

// p0 build ht0 on dim
// work-items: one per row of rows_dim; block size: any
HQC_KERNEL void t_grouped_p0_build(
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_d_key,
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_d_year,
    HQC_GLOBAL hqc_i32* ht0_d_year,
    HQC_GLOBAL hqc_i32* ht0_keys,
    HQC_GLOBAL hqc_u32* ht0_overflow,
    hqc_i64 ht0_capacity,
    hqc_i64 ht0_key_min,
    hqc_i64 rows_dim) {
  for (hqc_i64 tile = hqc_tile_first(); tile < rows_dim; tile += hqc_tile_stride()) {
    const hqc_i32 tile_items = hqc_tile_items(tile, rows_dim);
    hqc_i32 flag = hqc_tile_valid(tile_items);

    // ---- scan dim (for the sink) ----
    const hqc_i32 d_key = hqc_load_i32(col_d_key, tile, tile_items);
    const hqc_i32 d_year = hqc_load_i32(col_d_year, tile, tile_items);

    // ---- build ht0 (perfect_hash, sink) ----
    const hqc_i64 slot_ht0 = flag ? hqc_ph_build_i32(ht0_keys, ht0_capacity, ht0_key_min, (hqc_i32)d_key, ht0_overflow) : -1;
    hqc_ht_put_i32(ht0_d_year, slot_ht0, d_year);
  }
}

// p1 aggregate agg0 over fact
// work-items: one per row of rows_fact; block size: any
HQC_KERNEL void t_grouped_p1_aggregate(
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_f_brand,
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_f_key,
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_f_price,
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_f_qty,
    HQC_GLOBAL hqc_u64* agg0_count,
    HQC_GLOBAL hqc_i64* agg0_max,
    HQC_GLOBAL hqc_i64* agg0_min,
    HQC_GLOBAL hqc_u32* agg0_overflow,
    HQC_GLOBAL hqc_i64* agg0_sum,
    HQC_GLOBAL const hqc_i32* ht0_d_year,
    HQC_GLOBAL const hqc_i32* ht0_keys,
    hqc_i64 ht0_capacity,
    hqc_i64 ht0_key_min,
    hqc_i64 agg0_brand_domain,
    hqc_i64 agg0_brand_min,
    hqc_i64 agg0_slots,
    hqc_i64 agg0_year_domain,
    hqc_i64 agg0_year_min,
    hqc_i64 rows_fact HQC_SCRATCH_PARAMS) {
  HQC_SCRATCH_BEGIN
  HQC_LOCAL hqc_i64* s_agg0_sum_price = (HQC_LOCAL hqc_i64*)(hqc_scratch + 0);
  HQC_LOCAL hqc_i64* s_agg0_min_price = (HQC_LOCAL hqc_i64*)(hqc_scratch + agg0_slots);
  HQC_LOCAL hqc_i64* s_agg0_max_price = (HQC_LOCAL hqc_i64*)(hqc_scratch + agg0_slots + agg0_slots);
  HQC_LOCAL hqc_i64* s_agg0_count = (HQC_LOCAL hqc_i64*)(hqc_scratch + agg0_slots + agg0_slots + agg0_slots);

  // ---- aggregate agg0: privatise the group table in scratchpad (C3) ----
  hqc_gb_local_fill_i64(s_agg0_sum_price, agg0_slots, 0);
  hqc_gb_local_fill_i64(s_agg0_min_price, agg0_slots, HQC_I64_MAX);
  hqc_gb_local_fill_i64(s_agg0_max_price, agg0_slots, HQC_I64_MIN);
  hqc_gb_local_fill_i64(s_agg0_count, agg0_slots, 0);
  HQC_BARRIER();

  for (hqc_i64 tile = hqc_tile_first(); tile < rows_fact; tile += hqc_tile_stride()) {
    const hqc_i32 tile_items = hqc_tile_items(tile, rows_fact);
    hqc_i32 flag = hqc_tile_valid(tile_items);

    // ---- scan fact (for op 2) ----
    const hqc_i32 f_qty = hqc_load_i32(col_f_qty, tile, tile_items);

    // ---- filter (op 2) ----
    flag = flag && (f_qty < 40);

    // ---- scan fact (for op 3) ----
    const hqc_i32 f_key = hqc_pred_load_i32(col_f_key, tile, flag);

    // ---- probe ht0 (op 3) ----
    const hqc_i64 slot_op3 = flag ? hqc_ph_probe_i32(ht0_keys, ht0_capacity, ht0_key_min, (hqc_i32)f_key) : -1;
    flag = flag && slot_op3 >= 0;
    const hqc_i32 d_year = hqc_ht_get_i32(ht0_d_year, slot_op3);

    // ---- scan fact (for the sink) ----
    const hqc_i32 f_price = hqc_pred_load_i32(col_f_price, tile, flag);
    const hqc_i32 f_brand = hqc_pred_load_i32(col_f_brand, tile, flag);

    // ---- aggregate agg0 (C3, sink) ----
    const hqc_i64 g_agg0_k0 = (hqc_i64)d_year - agg0_year_min;
    flag = flag && hqc_gb_index_ok(g_agg0_k0, agg0_year_domain, agg0_overflow);
    const hqc_i64 g_agg0_k1 = (hqc_i64)f_brand - agg0_brand_min;
    flag = flag && hqc_gb_index_ok(g_agg0_k1, agg0_brand_domain, agg0_overflow);
    const hqc_i64 g_agg0 = (g_agg0_k0) * agg0_brand_domain + g_agg0_k1;
    if (flag) {
      hqc_gb_local_sum_i64(s_agg0_sum_price, g_agg0, (hqc_i64)f_price);
      hqc_gb_local_min_i64(s_agg0_min_price, g_agg0, (hqc_i64)f_price);
      hqc_gb_local_max_i64(s_agg0_max_price, g_agg0, (hqc_i64)f_price);
      hqc_gb_local_sum_i64(s_agg0_count, g_agg0, 1);
    }
  }

  // ---- aggregate agg0: one atomic per group per CTA (C3) ----
  HQC_BARRIER();
  hqc_gb_flush_sum_i64(agg0_sum, s_agg0_sum_price, s_agg0_count, agg0_slots);
  hqc_gb_flush_min_i64(agg0_min, s_agg0_min_price, s_agg0_count, agg0_slots);
  hqc_gb_flush_max_i64(agg0_max, s_agg0_max_price, s_agg0_count, agg0_slots);
  hqc_gb_flush_sum_i64((HQC_GLOBAL hqc_i64*)agg0_count, s_agg0_count, s_agg0_count, agg0_slots);
}

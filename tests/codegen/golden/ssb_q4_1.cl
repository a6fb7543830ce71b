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

// ==== horseqc query q4_1: 5 compound kernel(s), resolution model ====
// p4 grouped_aggregate into agg0: C2, global atomics per tuple (no statistics bound its slots: one atomic per tuple)

// p0 hash_build ht0 from date
// work-items: one per row of rows_date; block size: any
HQC_KERNEL void q4_1_p0_build(
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_d_datekey,
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_d_year,
    HQC_GLOBAL hqc_i32* ht0_keys,
    HQC_GLOBAL hqc_i32* ht0_d_year,
    HQC_GLOBAL hqc_u32* ht0_overflow,
    hqc_i64 rows_date,
    hqc_i64 ht0_slots,
    hqc_i32 ht0_key_min) {
  for (hqc_i64 tile = hqc_tile_first(); tile < rows_date; tile += hqc_tile_stride()) {
    const hqc_i32 tile_items = hqc_tile_items(tile, rows_date);
    hqc_i32 flag = hqc_tile_valid(tile_items);

    // ---- scan date (for the sink) ----
    const hqc_i32 d_datekey = hqc_load_i32(col_d_datekey, tile, tile_items);
    const hqc_i32 d_year = hqc_load_i32(col_d_year, tile, tile_items);

    // ---- build ht0 (perfect_hash, sink) ----
    const hqc_i64 slot_ht0 = flag ? hqc_ph_build_i32(ht0_keys, ht0_slots, ht0_key_min, (hqc_i32)d_datekey, ht0_overflow) : -1;
    hqc_ht_put_i32(ht0_d_year, slot_ht0, d_year);
  }
}

// p1 hash_build ht1 from part
// work-items: one per row of rows_part; block size: any
HQC_KERNEL void q4_1_p1_build(
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_p_partkey,
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_p_mfgr,
    HQC_GLOBAL hqc_u32* ht1_key_bits,
    HQC_GLOBAL hqc_u32* ht1_overflow,
    hqc_i64 rows_part,
    hqc_i64 ht1_slots,
    hqc_i32 ht1_key_min,
    hqc_i32 dict_p_mfgr_eq_0,
    hqc_i32 dict_p_mfgr_eq_1) {
  for (hqc_i64 tile = hqc_tile_first(); tile < rows_part; tile += hqc_tile_stride()) {
    const hqc_i32 tile_items = hqc_tile_items(tile, rows_part);
    hqc_i32 flag = hqc_tile_valid(tile_items);

    // ---- scan part (for op 0) ----
    const hqc_i32 p_mfgr = hqc_load_i32(col_p_mfgr, tile, tile_items);

    // ---- filter (op 0) ----
    flag = flag && ((p_mfgr == dict_p_mfgr_eq_0) || (p_mfgr == dict_p_mfgr_eq_1));

    // ---- scan part (for the sink) ----
    const hqc_i32 p_partkey = hqc_pred_load_i32(col_p_partkey, tile, flag);

    // ---- build ht1 (perfect_hash, sink) ----
    const hqc_i64 slot_ht1 = flag ? hqc_ph_bits_slot(ht1_slots, ht1_key_min, (hqc_i64)p_partkey, ht1_overflow) : -1;
    if (slot_ht1 >= 0) hqc_bits_set(ht1_key_bits + (slot_ht1 >> 5), 1u << (hqc_u32)(slot_ht1 & 31), 0);
  }
}

// p2 hash_build ht2 from supplier
// work-items: one per row of rows_supplier; block size: any
HQC_KERNEL void q4_1_p2_build(
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_s_suppkey,
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_s_region,
    HQC_GLOBAL hqc_u32* ht2_key_bits,
    HQC_GLOBAL hqc_u32* ht2_overflow,
    hqc_i64 rows_supplier,
    hqc_i64 ht2_slots,
    hqc_i32 ht2_key_min,
    hqc_i32 dict_s_region_eq_2) {
  for (hqc_i64 tile = hqc_tile_first(); tile < rows_supplier; tile += hqc_tile_stride()) {
    const hqc_i32 tile_items = hqc_tile_items(tile, rows_supplier);
    hqc_i32 flag = hqc_tile_valid(tile_items);

    // ---- scan supplier (for op 1) ----
    const hqc_i32 s_region = hqc_load_i32(col_s_region, tile, tile_items);

    // ---- filter (op 1) ----
    flag = flag && (s_region == dict_s_region_eq_2);

    // ---- scan supplier (for the sink) ----
    const hqc_i32 s_suppkey = hqc_pred_load_i32(col_s_suppkey, tile, flag);

    // ---- build ht2 (perfect_hash, sink) ----
    const hqc_i64 slot_ht2 = flag ? hqc_ph_bits_slot(ht2_slots, ht2_key_min, (hqc_i64)s_suppkey, ht2_overflow) : -1;
    if (slot_ht2 >= 0) hqc_bits_set(ht2_key_bits + (slot_ht2 >> 5), 1u << (hqc_u32)(slot_ht2 & 31), 0);
  }
}

// p3 hash_build ht3 from customer
// work-items: one per row of rows_customer; block size: any
HQC_KERNEL void q4_1_p3_build(
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_c_custkey,
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_c_nation,
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_c_region,
    HQC_GLOBAL hqc_i32* ht3_keys,
    HQC_GLOBAL hqc_i32* ht3_c_nation,
    HQC_GLOBAL hqc_u32* ht3_overflow,
    hqc_i64 rows_customer,
    hqc_i64 ht3_slots,
    hqc_i32 ht3_key_min,
    hqc_i32 dict_c_region_eq_3) {
  for (hqc_i64 tile = hqc_tile_first(); tile < rows_customer; tile += hqc_tile_stride()) {
    const hqc_i32 tile_items = hqc_tile_items(tile, rows_customer);
    hqc_i32 flag = hqc_tile_valid(tile_items);

    // ---- scan customer (for op 2) ----
    const hqc_i32 c_region = hqc_load_i32(col_c_region, tile, tile_items);

    // ---- filter (op 2) ----
    flag = flag && (c_region == dict_c_region_eq_3);

    // ---- scan customer (for the sink) ----
    const hqc_i32 c_custkey = hqc_pred_load_i32(col_c_custkey, tile, flag);
    const hqc_i32 c_nation = hqc_pred_load_i32(col_c_nation, tile, flag);

    // ---- build ht3 (perfect_hash, sink) ----
    const hqc_i64 slot_ht3 = flag ? hqc_ph_build_i32(ht3_keys, ht3_slots, ht3_key_min, (hqc_i32)c_custkey, ht3_overflow) : -1;
    hqc_ht_put_i32(ht3_c_nation, slot_ht3, c_nation);
  }
}

// p4 aggregate agg0 from lineorder
// work-items: one per row of rows_lineorder; block size: any
HQC_KERNEL void q4_1_p4_aggregate(
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_lo_custkey,
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_lo_partkey,
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_lo_suppkey,
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_lo_orderdate,
    HQC_GLOBAL const hqc_i64* HQC_RESTRICT col_lo_revenue,
    HQC_GLOBAL const hqc_i64* HQC_RESTRICT col_lo_supplycost,
    HQC_GLOBAL const hqc_i32* ht3_keys,
    HQC_GLOBAL const hqc_i32* ht3_c_nation,
    HQC_GLOBAL const hqc_u32* ht2_key_bits,
    HQC_GLOBAL const hqc_u32* ht1_key_bits,
    HQC_GLOBAL const hqc_i32* ht0_keys,
    HQC_GLOBAL const hqc_i32* ht0_d_year,
    HQC_GLOBAL hqc_u32* p4_arith_overflow,
    HQC_GLOBAL hqc_i64* agg0_tuples,
    HQC_GLOBAL hqc_i64* agg0_profit,
    HQC_GLOBAL hqc_u32* agg0_overflow,
    hqc_i64 rows_lineorder,
    hqc_i64 ht3_slots,
    hqc_i32 ht3_key_min,
    hqc_i64 ht2_slots,
    hqc_i32 ht2_key_min,
    hqc_i64 ht1_slots,
    hqc_i32 ht1_key_min,
    hqc_i64 ht0_slots,
    hqc_i32 ht0_key_min,
    hqc_i32 agg0_d_year_min,
    hqc_i64 agg0_d_year_domain,
    hqc_i32 agg0_c_nation_min,
    hqc_i64 agg0_c_nation_domain,
    hqc_i64 agg0_slots) {
  for (hqc_i64 tile = hqc_tile_first(); tile < rows_lineorder; tile += hqc_tile_stride()) {
    const hqc_i32 tile_items = hqc_tile_items(tile, rows_lineorder);
    hqc_i32 flag = hqc_tile_valid(tile_items);

    // ---- scan lineorder (for op 3) ----
    const hqc_i32 lo_custkey = hqc_load_i32(col_lo_custkey, tile, tile_items);

    // ---- probe ht3 (op 3) ----
    const hqc_i64 slot_op3 = flag ? hqc_ph_probe_i32(ht3_keys, ht3_slots, ht3_key_min, (hqc_i32)lo_custkey) : -1;
    flag = flag && slot_op3 >= 0;
    const hqc_i32 c_nation = hqc_ht_get_i32(ht3_c_nation, slot_op3);

    // ---- scan lineorder (for op 4) ----
    const hqc_i32 lo_suppkey = hqc_pred_load_i32(col_lo_suppkey, tile, flag);

    // ---- probe ht2 (op 4) ----
    const hqc_i64 slot_op4 = flag ? hqc_ph_probe_bits(ht2_key_bits, ht2_slots, ht2_key_min, (hqc_i64)lo_suppkey) : -1;
    flag = flag && slot_op4 >= 0;

    // ---- scan lineorder (for op 5) ----
    const hqc_i32 lo_partkey = hqc_pred_load_i32(col_lo_partkey, tile, flag);

    // ---- probe ht1 (op 5) ----
    const hqc_i64 slot_op5 = flag ? hqc_ph_probe_bits(ht1_key_bits, ht1_slots, ht1_key_min, (hqc_i64)lo_partkey) : -1;
    flag = flag && slot_op5 >= 0;

    // ---- scan lineorder (for op 6) ----
    const hqc_i32 lo_orderdate = hqc_pred_load_i32(col_lo_orderdate, tile, flag);

    // ---- probe ht0 (op 6) ----
    const hqc_i64 slot_op6 = flag ? hqc_ph_probe_i32(ht0_keys, ht0_slots, ht0_key_min, (hqc_i32)lo_orderdate) : -1;
    flag = flag && slot_op6 >= 0;
    const hqc_i32 d_year = hqc_ht_get_i32(ht0_d_year, slot_op6);

    // ---- scan lineorder (for the sink) ----
    const hqc_i64 lo_revenue = hqc_pred_load_i64(col_lo_revenue, tile, flag);
    const hqc_i64 lo_supplycost = hqc_pred_load_i64(col_lo_supplycost, tile, flag);

    // ---- aggregate agg0 (C2, sink) ----
    const hqc_i64 g_agg0_k0 = (hqc_i64)d_year - agg0_d_year_min;
    flag = flag && hqc_gb_index_ok(g_agg0_k0, agg0_d_year_domain, agg0_overflow);
    const hqc_i64 g_agg0_k1 = (hqc_i64)c_nation - agg0_c_nation_min;
    flag = flag && hqc_gb_index_ok(g_agg0_k1, agg0_c_nation_domain, agg0_overflow);
    const hqc_i64 g_agg0 = (g_agg0_k0) * agg0_c_nation_domain + g_agg0_k1;
    if (flag) {
      hqc_gb_global_sum_i128(agg0_profit, g_agg0, (hqc_i64)hqc_sub_chk_i64((hqc_i64)lo_revenue, (hqc_i64)lo_supplycost, flag, p4_arith_overflow));
      hqc_gb_global_sum_i64(agg0_tuples, g_agg0, 1);
    }
  }
}

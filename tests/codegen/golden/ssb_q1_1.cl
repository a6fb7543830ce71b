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

// ==== horseqc query q1_1: 2 compound kernel(s), resolution model ====
// p1 single_aggregate into agg0: B3, reduction in the CTA (work-efficient), one global atomic per CTA

// p0 hash_build ht0 from date
// work-items: one per row of rows_date; block size: any
HQC_KERNEL void q1_1_p0_build(
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_d_datekey,
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_d_year,
    HQC_GLOBAL hqc_u32* ht0_key_bits,
    HQC_GLOBAL hqc_u32* ht0_overflow,
    hqc_i64 rows_date,
    hqc_i64 ht0_slots,
    hqc_i32 ht0_key_min) {
  for (hqc_i64 tile = hqc_tile_first(); tile < rows_date; tile += hqc_tile_stride()) {
    const hqc_i32 tile_items = hqc_tile_items(tile, rows_date);
    hqc_i32 flag = hqc_tile_valid(tile_items);

    // ---- scan date (for op 0) ----
    const hqc_i32 d_year = hqc_load_i32(col_d_year, tile, tile_items);

    // ---- filter (op 0) ----
    flag = flag && (d_year == 1993);

    // ---- scan date (for the sink) ----
    const hqc_i32 d_datekey = hqc_pred_load_i32(col_d_datekey, tile, flag);

    // ---- build ht0 (perfect_hash, sink) ----
    const hqc_i64 slot_ht0 = flag ? hqc_ph_bits_slot(ht0_slots, ht0_key_min, (hqc_i64)d_datekey, ht0_overflow) : -1;
    if (slot_ht0 >= 0) hqc_bits_set(ht0_key_bits + (slot_ht0 >> 5), 1u << (hqc_u32)(slot_ht0 & 31), 0);
  }
}

// p1 aggregate agg0 from lineorder
// work-items: one per row of rows_lineorder; block size: power of two
HQC_KERNEL void q1_1_p1_aggregate(
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_lo_orderdate,
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_lo_quantity,
    HQC_GLOBAL const hqc_i64* HQC_RESTRICT col_lo_extendedprice,
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_lo_discount,
    HQC_GLOBAL const hqc_u32* ht0_key_bits,
    HQC_GLOBAL hqc_u32* p1_arith_overflow,
    HQC_GLOBAL hqc_i64* agg0_tuples,
    HQC_GLOBAL hqc_i64* agg0_revenue,
    hqc_i64 rows_lineorder,
    hqc_i64 ht0_slots,
    hqc_i32 ht0_key_min HQC_SCRATCH_PARAMS) {
  HQC_SCRATCH_BEGIN
  HQC_LOCAL hqc_u64* s_agg0_reduce = hqc_scratch + 0;

  // ---- aggregate agg0: per-thread accumulators over all tiles (B3) ----
  hqc_i128 acc_agg0_revenue = hqc_i128_zero();
  hqc_i64 acc_agg0_count = 0;

  for (hqc_i64 tile = hqc_tile_first(); tile < rows_lineorder; tile += hqc_tile_stride()) {
    const hqc_i32 tile_items = hqc_tile_items(tile, rows_lineorder);
    hqc_i32 flag = hqc_tile_valid(tile_items);

    // ---- scan lineorder (for op 1) ----
    const hqc_i32 lo_quantity = hqc_load_i32(col_lo_quantity, tile, tile_items);
    const hqc_i32 lo_discount = hqc_load_i32(col_lo_discount, tile, tile_items);

    // ---- filter (op 1) ----
    flag = flag && (((lo_discount >= 1) && (lo_discount <= 3)) && (lo_quantity < 25));

    // ---- scan lineorder (for op 2) ----
    const hqc_i32 lo_orderdate = hqc_pred_load_i32(col_lo_orderdate, tile, flag);

    // ---- probe ht0 (op 2) ----
    const hqc_i64 slot_op2 = flag ? hqc_ph_probe_bits(ht0_key_bits, ht0_slots, ht0_key_min, (hqc_i64)lo_orderdate) : -1;
    flag = flag && slot_op2 >= 0;

    // ---- scan lineorder (for the sink) ----
    const hqc_i64 lo_extendedprice = hqc_pred_load_i64(col_lo_extendedprice, tile, flag);

    // ---- aggregate agg0 (B3, sink) ----
    acc_agg0_revenue = hqc_i128_add_i64(acc_agg0_revenue, flag ? (hqc_i64)hqc_mul_chk_i64((hqc_i64)lo_extendedprice, (hqc_i64)((hqc_i64)lo_discount), flag, p1_arith_overflow) : 0);
    acc_agg0_count += flag ? 1 : 0;
  }

  // ---- aggregate agg0: CTA reduction + one atomic per CTA (B3) ----
  hqc_cta_sum_i128_we_to(agg0_revenue, acc_agg0_revenue, s_agg0_reduce);
  hqc_cta_sum_i64_we_to(agg0_tuples, acc_agg0_count, s_agg0_reduce);
}

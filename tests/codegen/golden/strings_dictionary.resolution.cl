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

// ==== horseqc query strings_dictionary: 1 compound kernel(s), resolution model ====
// p0 single_aggregate into agg0: B3, reduction in the CTA (work-efficient), one global atomic per CTA

// p0 aggregate agg0 from part
// work-items: one per row of rows_part; block size: power of two
HQC_KERNEL void strings_dictionary_p0_aggregate(
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_p_type,
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_p_container,
    HQC_GLOBAL const hqc_i64* HQC_RESTRICT col_p_retailprice,
    HQC_GLOBAL hqc_i64* agg0_tuples,
    HQC_GLOBAL hqc_i64* agg0_promo,
    HQC_GLOBAL hqc_i64* agg0_n,
    HQC_GLOBAL const hqc_i32* codes_p_type_0,
    hqc_i64 rows_part,
    hqc_i32 dict_p_container_eq_0,
    hqc_i32 dict_p_container_eq_1,
    hqc_i32 dict_p_type_lb_2,
    hqc_i32 dict_p_type_pe_3 HQC_SCRATCH_PARAMS) {
  HQC_SCRATCH_BEGIN
  HQC_LOCAL hqc_u64* s_agg0_reduce = hqc_scratch + 0;

  // ---- aggregate agg0: per-thread accumulators over all tiles (B3) ----
  hqc_i128 acc_agg0_promo = hqc_i128_zero();
  hqc_i64 acc_agg0_n = 0;
  hqc_i64 acc_agg0_count = 0;

  for (hqc_i64 tile = hqc_tile_first(); tile < rows_part; tile += hqc_tile_stride()) {
    const hqc_i32 tile_items = hqc_tile_items(tile, rows_part);
    hqc_i32 flag = hqc_tile_valid(tile_items);

    // ---- scan part (for op 0) ----
    const hqc_i32 p_type = hqc_load_i32(col_p_type, tile, tile_items);
    const hqc_i32 p_container = hqc_load_i32(col_p_container, tile, tile_items);

    // ---- filter (op 0) ----
    flag = flag && (hqc_code_in_set(codes_p_type_0, p_type) && (!((p_container == dict_p_container_eq_0) || (p_container == dict_p_container_eq_1))));

    // ---- scan part (for the sink) ----
    const hqc_i64 p_retailprice = hqc_pred_load_i64(col_p_retailprice, tile, flag);

    // ---- aggregate agg0 (B3, sink) ----
    acc_agg0_promo = hqc_i128_add_i64(acc_agg0_promo, flag ? (hqc_i64)(((p_type >= dict_p_type_lb_2) && (p_type < dict_p_type_pe_3)) ? p_retailprice : ((hqc_i64)0)) : 0);
    acc_agg0_n += flag ? 1 : 0;
    acc_agg0_count += flag ? 1 : 0;
  }

  // ---- aggregate agg0: CTA reduction + one atomic per CTA (B3) ----
  hqc_cta_sum_i128_we_to(agg0_promo, acc_agg0_promo, s_agg0_reduce);
  hqc_cta_sum_i64_we_to(agg0_n, acc_agg0_n, s_agg0_reduce);
  hqc_cta_sum_i64_we_to(agg0_tuples, acc_agg0_count, s_agg0_reduce);
}

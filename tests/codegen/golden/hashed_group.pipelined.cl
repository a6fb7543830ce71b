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

// ==== horseqc query t_hashed: 1 compound kernel(s), pipelined model ====
// p0 grouped_aggregate into agg0: C2, global atomics per tuple

// p0 aggregate agg0 over fact
// work-items: one per row of rows_fact; block size: any
HQC_KERNEL void t_hashed_p0_aggregate(
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_f_key,
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_f_price,
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_f_qty,
    HQC_GLOBAL hqc_u64* agg0_count,
    HQC_GLOBAL hqc_i64* agg0_keys,
    HQC_GLOBAL hqc_u32* agg0_overflow,
    HQC_GLOBAL hqc_i64* agg0_sum,
    hqc_i64 agg0_capacity,
    hqc_i64 rows_fact) {
  for (hqc_i64 tile = hqc_tile_first(); tile < rows_fact; tile += hqc_tile_stride()) {
    const hqc_i32 tile_items = hqc_tile_items(tile, rows_fact);
    hqc_i32 flag = hqc_tile_valid(tile_items);

    // ---- scan fact (for op 1) ----
    const hqc_i32 f_qty = hqc_load_i32(col_f_qty, tile, tile_items);

    // ---- filter (op 1) ----
    flag = flag && (f_qty >= 5);

    // ---- scan fact (for the sink) ----
    const hqc_i32 f_key = hqc_pred_load_i32(col_f_key, tile, flag);
    const hqc_i32 f_price = hqc_pred_load_i32(col_f_price, tile, flag);

    // ---- aggregate agg0 (C2, sink) ----
    const hqc_i64 gkey_agg0 = (hqc_i64)f_key;
    const hqc_i64 g_agg0 = flag ? hqc_gb_hash_slot_i64(agg0_keys, agg0_capacity, gkey_agg0, agg0_overflow) : -1;
    flag = flag && g_agg0 >= 0;
    if (flag) {
      hqc_gb_global_sum_i64(agg0_sum, g_agg0, (hqc_i64)f_price);
      hqc_gb_global_sum_i64((HQC_GLOBAL hqc_i64*)agg0_count, g_agg0, 1);
    }
  }
}

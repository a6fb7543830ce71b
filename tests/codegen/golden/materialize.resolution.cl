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

// ==== horseqc query t_materialize: 1 compound kernel(s), resolution model ====
// p0 write_position into out0: A3, prefix sum in the CTA (work-efficient), one global atomic per CTA (no SIMD level in this dialect: work-efficient scan)

// p0 materialize out0 from fact
// work-items: one per row of rows_fact; block size: power of two
HQC_KERNEL void t_materialize_p0_materialize(
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_f_key,
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_f_price,
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_f_qty,
    HQC_GLOBAL hqc_u64* out0_counter,
    HQC_GLOBAL hqc_i64* out0_double_price,
    HQC_GLOBAL hqc_i32* out0_f_key,
    hqc_i64 rows_fact HQC_SCRATCH_PARAMS) {
  HQC_SCRATCH_BEGIN
  HQC_LOCAL hqc_u64* s_out0_scan = hqc_scratch + 0;

  for (hqc_i64 tile = hqc_tile_first(); tile < rows_fact; tile += hqc_tile_stride()) {
    const hqc_i32 tile_items = hqc_tile_items(tile, rows_fact);
    hqc_i32 flag = hqc_tile_valid(tile_items);

    // ---- scan fact (for op 1) ----
    const hqc_i32 f_qty = hqc_load_i32(col_f_qty, tile, tile_items);

    // ---- filter (op 1) ----
    flag = flag && (f_qty < 10);

    // ---- scan fact (for the sink) ----
    const hqc_i32 f_key = hqc_pred_load_i32(col_f_key, tile, flag);
    const hqc_i32 f_price = hqc_pred_load_i32(col_f_price, tile, flag);

    // ---- materialize out0: CTA prefix sum + one atomic per CTA (A3, sink) ----
    const hqc_u64 pos_out0 = hqc_cta_reserve_we((hqc_u32)flag, out0_counter, s_out0_scan);
    if (flag && pos_out0 < (hqc_u64)rows_fact) {
      out0_f_key[pos_out0] = (hqc_i32)f_key;
      out0_double_price[pos_out0] = (hqc_i64)(((hqc_i64)f_price) * ((hqc_i64)2));
    }
  }
}

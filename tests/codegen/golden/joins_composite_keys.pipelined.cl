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

// ==== horseqc query joins_composite_keys: 2 compound kernel(s), pipelined model ====
// p1 single_aggregate into agg0: B2, one global atomic per tuple

// p0 hash_build ht0 from ps
// work-items: one per row of rows_ps; block size: any
HQC_KERNEL void joins_composite_keys_p0_build(
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_ps_a,
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_ps_b,
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_ps_w,
    HQC_GLOBAL hqc_i32* ht0_keys0,
    HQC_GLOBAL hqc_i32* ht0_keys1,
    HQC_GLOBAL hqc_i32* ht0_ps_w,
    HQC_GLOBAL hqc_u32* ht0_overflow,
    hqc_i64 rows_ps,
    hqc_i64 ht0_capacity) {
  for (hqc_i64 tile = hqc_tile_first(); tile < rows_ps; tile += hqc_tile_stride()) {
    const hqc_i32 tile_items = hqc_tile_items(tile, rows_ps);
    hqc_i32 flag = hqc_tile_valid(tile_items);

    // ---- scan ps (for the sink) ----
    const hqc_i32 ps_a = hqc_load_i32(col_ps_a, tile, tile_items);
    const hqc_i32 ps_b = hqc_load_i32(col_ps_b, tile, tile_items);
    const hqc_i32 ps_w = hqc_load_i32(col_ps_w, tile, tile_items);

    // ---- build ht0 (linear_probing, sink) ----
    const hqc_i32 bk_ht0_0 = (hqc_i32)ps_a;
    const hqc_i32 bk_ht0_1 = (hqc_i32)ps_b;
    const hqc_i64 slot_ht0 = flag ? hqc_oa_claim_i32(ht0_keys0, ht0_capacity, hqc_oa_home(hqc_hash_combine(hqc_key_hash_i32(bk_ht0_0), hqc_key_hash_i32(bk_ht0_1)), ht0_capacity), bk_ht0_0, ht0_overflow) : -1;
    hqc_ht_put_i32(ht0_keys1, slot_ht0, bk_ht0_1);
    hqc_ht_put_i32(ht0_ps_w, slot_ht0, ps_w);
  }
}

// p1 aggregate agg0 from f
// work-items: one per row of rows_f; block size: any
HQC_KERNEL void joins_composite_keys_p1_aggregate(
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_f_k,
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_f_g,
    HQC_GLOBAL const hqc_i32* ht0_keys0,
    HQC_GLOBAL const hqc_i32* ht0_keys1,
    HQC_GLOBAL const hqc_i32* ht0_ps_w,
    HQC_GLOBAL hqc_i64* agg0_tuples,
    HQC_GLOBAL hqc_i64* agg0_n,
    HQC_GLOBAL hqc_i64* agg0_s,
    hqc_i64 rows_f,
    hqc_i64 ht0_capacity) {
  for (hqc_i64 tile = hqc_tile_first(); tile < rows_f; tile += hqc_tile_stride()) {
    const hqc_i32 tile_items = hqc_tile_items(tile, rows_f);
    hqc_i32 flag = hqc_tile_valid(tile_items);

    // ---- scan f (for op 0) ----
    const hqc_i32 f_k = hqc_load_i32(col_f_k, tile, tile_items);
    const hqc_i32 f_g = hqc_load_i32(col_f_g, tile, tile_items);

    // ---- probe ht0 (op 0) ----
    const hqc_i32 pk_op0_0 = (hqc_i32)f_k;
    const hqc_i32 pk_op0_1 = (hqc_i32)f_g;
    const hqc_i64 home_op0 = hqc_oa_home(hqc_hash_combine(hqc_key_hash_i32(pk_op0_0), hqc_key_hash_i32(pk_op0_1)), ht0_capacity);
    hqc_i64 slot_op0 = flag ? hqc_oa_first_i32(ht0_keys0, ht0_capacity, home_op0, pk_op0_0) : -1;
    while (slot_op0 >= 0 && !(ht0_keys1[slot_op0] == pk_op0_1)) slot_op0 = hqc_oa_next_i32(ht0_keys0, ht0_capacity, home_op0, slot_op0, pk_op0_0);
    flag = flag && slot_op0 >= 0;
    const hqc_i32 ps_w = hqc_ht_get_i32(ht0_ps_w, slot_op0);

    // ---- aggregate agg0 (B2, sink) ----
    hqc_tuple_sum_i64(agg0_n, flag, 1);
    hqc_tuple_sum_i128(agg0_s, flag, (hqc_i64)ps_w);
    hqc_tuple_sum_i64(agg0_tuples, flag, 1);
  }
}

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

// ==== horseqc query joins_nested_match_loops: 3 compound kernel(s), pipelined model ====
// p2 single_aggregate into agg0: B2, one global atomic per tuple

// p0 hash_build ht0 from d
// work-items: one per row of rows_d; block size: any
HQC_KERNEL void joins_nested_match_loops_p0_build(
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_d_k,
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_d_w,
    HQC_GLOBAL hqc_i32* ht0_keys,
    HQC_GLOBAL hqc_i32* ht0_d_w,
    HQC_GLOBAL hqc_i64* ht0_heads,
    HQC_GLOBAL hqc_i64* ht0_next,
    HQC_GLOBAL hqc_u32* ht0_overflow,
    hqc_i64 rows_d,
    hqc_i64 ht0_capacity,
    hqc_i64 ht0_entry_base) {
  for (hqc_i64 tile = hqc_tile_first(); tile < rows_d; tile += hqc_tile_stride()) {
    const hqc_i32 tile_items = hqc_tile_items(tile, rows_d);
    hqc_i32 flag = hqc_tile_valid(tile_items);

    // ---- scan d (for op 0) ----
    const hqc_i32 d_w = hqc_load_i32(col_d_w, tile, tile_items);

    // ---- filter (op 0) ----
    flag = flag && (d_w != 2);

    // ---- scan d (for the sink) ----
    const hqc_i32 d_k = hqc_pred_load_i32(col_d_k, tile, flag);

    // ---- build ht0 (chained, sink) ----
    const hqc_i32 bk_ht0_0 = (hqc_i32)d_k;
    const hqc_i64 entry_ht0 = ht0_entry_base + hqc_tile_row(tile);
    const hqc_i64 kslot_ht0 = flag ? hqc_oa_find_or_claim_i32(ht0_keys, ht0_capacity, hqc_oa_home(hqc_key_hash_i32(bk_ht0_0), ht0_capacity), bk_ht0_0, ht0_overflow) : -1;
    const hqc_i64 slot_ht0 = hqc_ch_link(ht0_heads, ht0_next, kslot_ht0, entry_ht0);
    hqc_ht_put_i32(ht0_d_w, slot_ht0, d_w);
  }
}

// p1 hash_build ht1 from e
// work-items: one per row of rows_e; block size: any
HQC_KERNEL void joins_nested_match_loops_p1_build(
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_e_k,
    HQC_GLOBAL const hqc_i64* HQC_RESTRICT col_e_w,
    HQC_GLOBAL hqc_i32* ht1_keys,
    HQC_GLOBAL hqc_i64* ht1_e_w,
    HQC_GLOBAL hqc_i64* ht1_heads,
    HQC_GLOBAL hqc_i64* ht1_next,
    HQC_GLOBAL hqc_u32* ht1_overflow,
    hqc_i64 rows_e,
    hqc_i64 ht1_capacity,
    hqc_i64 ht1_entry_base) {
  for (hqc_i64 tile = hqc_tile_first(); tile < rows_e; tile += hqc_tile_stride()) {
    const hqc_i32 tile_items = hqc_tile_items(tile, rows_e);
    hqc_i32 flag = hqc_tile_valid(tile_items);

    // ---- scan e (for the sink) ----
    const hqc_i32 e_k = hqc_load_i32(col_e_k, tile, tile_items);
    const hqc_i64 e_w = hqc_load_i64(col_e_w, tile, tile_items);

    // ---- build ht1 (chained, sink) ----
    const hqc_i32 bk_ht1_0 = (hqc_i32)e_k;
    const hqc_i64 entry_ht1 = ht1_entry_base + hqc_tile_row(tile);
    const hqc_i64 kslot_ht1 = flag ? hqc_oa_find_or_claim_i32(ht1_keys, ht1_capacity, hqc_oa_home(hqc_key_hash_i32(bk_ht1_0), ht1_capacity), bk_ht1_0, ht1_overflow) : -1;
    const hqc_i64 slot_ht1 = hqc_ch_link(ht1_heads, ht1_next, kslot_ht1, entry_ht1);
    hqc_ht_put_i64(ht1_e_w, slot_ht1, e_w);
  }
}

// p2 aggregate agg0 from f
// work-items: one per row of rows_f; block size: any
HQC_KERNEL void joins_nested_match_loops_p2_aggregate(
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_f_k,
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_f_g,
    HQC_GLOBAL const hqc_i32* ht1_keys,
    HQC_GLOBAL const hqc_i64* ht1_e_w,
    HQC_GLOBAL const hqc_i64* ht1_heads,
    HQC_GLOBAL const hqc_i64* ht1_next,
    HQC_GLOBAL const hqc_i32* ht0_keys,
    HQC_GLOBAL const hqc_i32* ht0_d_w,
    HQC_GLOBAL const hqc_i64* ht0_heads,
    HQC_GLOBAL const hqc_i64* ht0_next,
    HQC_GLOBAL hqc_u32* p2_arith_overflow,
    HQC_GLOBAL hqc_i64* agg0_tuples,
    HQC_GLOBAL hqc_i64* agg0_n,
    HQC_GLOBAL hqc_i64* agg0_s,
    hqc_i64 rows_f,
    hqc_i64 ht1_capacity,
    hqc_i64 ht0_capacity) {
  for (hqc_i64 tile = hqc_tile_first(); tile < rows_f; tile += hqc_tile_stride()) {
    const hqc_i32 tile_items = hqc_tile_items(tile, rows_f);
    hqc_i32 flag = hqc_tile_valid(tile_items);

    // ---- scan f (for op 1) ----
    const hqc_i32 f_g = hqc_load_i32(col_f_g, tile, tile_items);

    // ---- probe ht1: every match (op 1) ----
    const hqc_i32 pk_op1_0 = (hqc_i32)f_g;
    const hqc_i64 home_op1 = hqc_oa_home(hqc_key_hash_i32(pk_op1_0), ht1_capacity);
    hqc_i64 slot_op1 = flag ? hqc_ch_first_i32(ht1_keys, ht1_heads, ht1_capacity, home_op1, pk_op1_0) : -1;

    // ---- scan f (before the match loop of op 1) ----
    const hqc_i32 f_k = hqc_pred_load_i32(col_f_k, tile, flag);
    const hqc_i32 flag_op1 = flag;
    do {
      flag = flag_op1 && slot_op1 >= 0;
      const hqc_i64 e_w = hqc_ht_get_i64(ht1_e_w, slot_op1);

      // ---- probe ht0: every match (op 2) ----
      const hqc_i32 pk_op2_0 = (hqc_i32)f_k;
      const hqc_i64 home_op2 = hqc_oa_home(hqc_key_hash_i32(pk_op2_0), ht0_capacity);
      hqc_i64 slot_op2 = flag ? hqc_ch_first_i32(ht0_keys, ht0_heads, ht0_capacity, home_op2, pk_op2_0) : -1;
      const hqc_i32 flag_op2 = flag;
      do {
        flag = flag_op2 && slot_op2 >= 0;
        const hqc_i32 d_w = hqc_ht_get_i32(ht0_d_w, slot_op2);

        // ---- aggregate agg0 (B2, sink) ----
        hqc_tuple_sum_i64(agg0_n, flag, 1);
        hqc_tuple_sum_i128(agg0_s, flag, (hqc_i64)hqc_add_chk_i64((hqc_i64)e_w, (hqc_i64)((hqc_i64)d_w), flag, p2_arith_overflow));
        hqc_tuple_sum_i64(agg0_tuples, flag, 1);
        slot_op2 = hqc_ch_next(ht0_next, slot_op2);
      } while (slot_op2 >= 0);
      slot_op1 = hqc_ch_next(ht1_next, slot_op1);
    } while (slot_op1 >= 0);
  }
}

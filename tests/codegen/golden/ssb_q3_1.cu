// ---- horseqc dialect prelude: cuda (generated from codegen/dialect.cpp) ----
typedef int hqc_i32;
typedef unsigned int hqc_u32;
typedef long long hqc_i64;
typedef unsigned long long hqc_u64;
typedef double hqc_f64;
typedef unsigned char hqc_u8;
typedef signed char hqc_i8;
typedef short hqc_i16;
#define HQC_KERNEL extern "C" __global__
#define HQC_FN __device__ __forceinline__
#define HQC_CTA_FN static __device__ __noinline__
#define HQC_NO_UNROLL _Pragma("unroll 1")
#define HQC_GLOBAL
#define HQC_LOCAL
#define HQC_LOCAL_DECL __shared__
#define HQC_RESTRICT __restrict__
#define HQC_CONST_STR const char*
#define HQC_LID() ((hqc_i32)threadIdx.x)
#define HQC_BID() ((hqc_i64)blockIdx.x)
#define HQC_BDIM() ((hqc_i32)blockDim.x)
#define HQC_GDIM() ((hqc_i64)gridDim.x)
#define HQC_BARRIER() __syncthreads()
#define HQC_FENCE_GLOBAL() __threadfence()
#define HQC_FENCE_LOCAL() __threadfence_block()
#define HQC_ATOMIC_ADD_I32(p, v) atomicAdd((p), (v))
#define HQC_ATOMIC_ADD_U32(p, v) atomicAdd((p), (v))
#define HQC_ATOMIC_ADD_I64(p, v) ((hqc_i64)atomicAdd((hqc_u64*)(p), (hqc_u64)(v)))
#define HQC_ATOMIC_ADD_U64(p, v) atomicAdd((p), (v))
#define HQC_ATOMIC_CAS_I32(p, c, v) atomicCAS((p), (c), (v))
#define HQC_ATOMIC_CAS_U32(p, c, v) atomicCAS((p), (c), (v))
#define HQC_ATOMIC_CAS_I64(p, c, v) ((hqc_i64)atomicCAS((hqc_u64*)(p), (hqc_u64)(c), (hqc_u64)(v)))
#define HQC_ATOMIC_CAS_U64(p, c, v) atomicCAS((p), (c), (v))
#define HQC_ATOMIC_XCHG_I64(p, v) ((hqc_i64)atomicExch((hqc_u64*)(p), (hqc_u64)(v)))
#define HQC_ATOMIC_MIN_I32(p, v) atomicMin((p), (v))
#define HQC_ATOMIC_MAX_I32(p, v) atomicMax((p), (v))
#define HQC_ATOMIC_OR_U32(p, v) atomicOr((p), (v))
#define HQC_ATOMIC_MIN_I64_G(p, v) atomicMin((p), (v))
#define HQC_ATOMIC_MIN_I64_L(p, v) atomicMin((p), (v))
#define HQC_ATOMIC_MAX_I64_G(p, v) atomicMax((p), (v))
#define HQC_ATOMIC_MAX_I64_L(p, v) atomicMax((p), (v))
#define HQC_ATOMIC_ADD_F64_G(p, v) atomicAdd((p), (v))
#define HQC_ATOMIC_ADD_F64_L(p, v) atomicAdd((p), (v))
#define HQC_F64_AS_I64(x) __double_as_longlong(x)
#define HQC_I64_AS_F64(x) __longlong_as_double(x)
#define HQC_MUL_HI_U64(a, b) __umul64hi((hqc_u64)(a), (hqc_u64)(b))
#define HQC_HAS_SIMD 1
#define HQC_SIMD_WIDTH 32
#define HQC_SHFL_UP(v, d) __shfl_up_sync(0xffffffffu, (v), (d))
#define HQC_SHFL_DOWN(v, d) __shfl_down_sync(0xffffffffu, (v), (d))
#define HQC_SHFL_IDX(v, l) __shfl_sync(0xffffffffu, (v), (l))
#define HQC_BALLOT(pred) __ballot_sync(0xffffffffu, (pred))
#define HQC_POPC(x) __popc(x)
#define HQC_BARRIER_COUNT(pred) __syncthreads_count(pred)
#define HQC_WARP_RECONVERGE() __syncwarp()
#define HQC_SCRATCH_PARAMS
#define HQC_SCRATCH_BEGIN extern __shared__ __attribute__((aligned(16))) hqc_u64 hqc_scratch[];

// ==== horseqc query q3_1: 4 compound kernel(s), resolution model ====
// p3 grouped_aggregate into agg0: C2, global atomics per tuple (no statistics bound its slots: one atomic per tuple)

// p0 hash_build ht0 from date
// work-items: one per row of rows_date; block size: any
HQC_KERNEL void q3_1_p0_build(
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

    // ---- scan date (for op 0) ----
    const hqc_i32 d_year = hqc_load_i32(col_d_year, tile, tile_items);

    // ---- filter (op 0) ----
    flag = flag && ((d_year >= 1992) && (d_year <= 1997));

    // ---- scan date (for the sink) ----
    const hqc_i32 d_datekey = hqc_pred_load_i32(col_d_datekey, tile, flag);

    // ---- build ht0 (perfect_hash, sink) ----
    const hqc_i64 slot_ht0 = flag ? hqc_ph_build_i32(ht0_keys, ht0_slots, ht0_key_min, (hqc_i32)d_datekey, ht0_overflow) : -1;
    hqc_ht_put_i32(ht0_d_year, slot_ht0, d_year);
  }
}

// p1 hash_build ht1 from supplier
// work-items: one per row of rows_supplier; block size: any
HQC_KERNEL void q3_1_p1_build(
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_s_suppkey,
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_s_nation,
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_s_region,
    HQC_GLOBAL hqc_i32* ht1_keys,
    HQC_GLOBAL hqc_i32* ht1_s_nation,
    HQC_GLOBAL hqc_u32* ht1_overflow,
    hqc_i64 rows_supplier,
    hqc_i64 ht1_slots,
    hqc_i32 ht1_key_min,
    hqc_i32 dict_s_region_eq_0) {
  for (hqc_i64 tile = hqc_tile_first(); tile < rows_supplier; tile += hqc_tile_stride()) {
    const hqc_i32 tile_items = hqc_tile_items(tile, rows_supplier);
    hqc_i32 flag = hqc_tile_valid(tile_items);

    // ---- scan supplier (for op 1) ----
    const hqc_i32 s_region = hqc_load_i32(col_s_region, tile, tile_items);

    // ---- filter (op 1) ----
    flag = flag && (s_region == dict_s_region_eq_0);

    // ---- scan supplier (for the sink) ----
    const hqc_i32 s_suppkey = hqc_pred_load_i32(col_s_suppkey, tile, flag);
    const hqc_i32 s_nation = hqc_pred_load_i32(col_s_nation, tile, flag);

    // ---- build ht1 (perfect_hash, sink) ----
    const hqc_i64 slot_ht1 = flag ? hqc_ph_build_i32(ht1_keys, ht1_slots, ht1_key_min, (hqc_i32)s_suppkey, ht1_overflow) : -1;
    hqc_ht_put_i32(ht1_s_nation, slot_ht1, s_nation);
  }
}

// p2 hash_build ht2 from customer
// work-items: one per row of rows_customer; block size: any
HQC_KERNEL void q3_1_p2_build(
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_c_custkey,
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_c_nation,
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_c_region,
    HQC_GLOBAL hqc_i32* ht2_keys,
    HQC_GLOBAL hqc_i32* ht2_c_nation,
    HQC_GLOBAL hqc_u32* ht2_overflow,
    hqc_i64 rows_customer,
    hqc_i64 ht2_slots,
    hqc_i32 ht2_key_min,
    hqc_i32 dict_c_region_eq_1) {
  for (hqc_i64 tile = hqc_tile_first(); tile < rows_customer; tile += hqc_tile_stride()) {
    const hqc_i32 tile_items = hqc_tile_items(tile, rows_customer);
    hqc_i32 flag = hqc_tile_valid(tile_items);

    // ---- scan customer (for op 2) ----
    const hqc_i32 c_region = hqc_load_i32(col_c_region, tile, tile_items);

    // ---- filter (op 2) ----
    flag = flag && (c_region == dict_c_region_eq_1);

    // ---- scan customer (for the sink) ----
    const hqc_i32 c_custkey = hqc_pred_load_i32(col_c_custkey, tile, flag);
    const hqc_i32 c_nation = hqc_pred_load_i32(col_c_nation, tile, flag);

    // ---- build ht2 (perfect_hash, sink) ----
    const hqc_i64 slot_ht2 = flag ? hqc_ph_build_i32(ht2_keys, ht2_slots, ht2_key_min, (hqc_i32)c_custkey, ht2_overflow) : -1;
    hqc_ht_put_i32(ht2_c_nation, slot_ht2, c_nation);
  }
}

// p3 aggregate agg0 from lineorder
// work-items: one per row of rows_lineorder; block size: any
HQC_KERNEL void q3_1_p3_aggregate(
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_lo_custkey,
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_lo_suppkey,
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_lo_orderdate,
    HQC_GLOBAL const hqc_i64* HQC_RESTRICT col_lo_revenue,
    HQC_GLOBAL const hqc_i32* ht2_keys,
    HQC_GLOBAL const hqc_i32* ht2_c_nation,
    HQC_GLOBAL const hqc_i32* ht1_keys,
    HQC_GLOBAL const hqc_i32* ht1_s_nation,
    HQC_GLOBAL const hqc_i32* ht0_keys,
    HQC_GLOBAL const hqc_i32* ht0_d_year,
    HQC_GLOBAL hqc_i64* agg0_tuples,
    HQC_GLOBAL hqc_i64* agg0_revenue,
    HQC_GLOBAL hqc_u32* agg0_overflow,
    hqc_i64 rows_lineorder,
    hqc_i64 ht2_slots,
    hqc_i32 ht2_key_min,
    hqc_i64 ht1_slots,
    hqc_i32 ht1_key_min,
    hqc_i64 ht0_slots,
    hqc_i32 ht0_key_min,
    hqc_i32 agg0_c_nation_min,
    hqc_i64 agg0_c_nation_domain,
    hqc_i32 agg0_s_nation_min,
    hqc_i64 agg0_s_nation_domain,
    hqc_i32 agg0_d_year_min,
    hqc_i64 agg0_d_year_domain,
    hqc_i64 agg0_slots) {
  for (hqc_i64 tile = hqc_tile_first(); tile < rows_lineorder; tile += hqc_tile_stride()) {
    const hqc_i32 tile_items = hqc_tile_items(tile, rows_lineorder);
    hqc_i32 flag = hqc_tile_valid(tile_items);

    // ---- scan lineorder (for op 3) ----
    const hqc_i32 lo_custkey = hqc_load_i32(col_lo_custkey, tile, tile_items);

    // ---- probe ht2 (op 3) ----
    const hqc_i64 slot_op3 = flag ? hqc_ph_probe_i32(ht2_keys, ht2_slots, ht2_key_min, (hqc_i32)lo_custkey) : -1;
    flag = flag && slot_op3 >= 0;
    const hqc_i32 c_nation = hqc_ht_get_i32(ht2_c_nation, slot_op3);

    // ---- scan lineorder (for op 4) ----
    const hqc_i32 lo_suppkey = hqc_pred_load_i32(col_lo_suppkey, tile, flag);

    // ---- probe ht1 (op 4) ----
    const hqc_i64 slot_op4 = flag ? hqc_ph_probe_i32(ht1_keys, ht1_slots, ht1_key_min, (hqc_i32)lo_suppkey) : -1;
    flag = flag && slot_op4 >= 0;
    const hqc_i32 s_nation = hqc_ht_get_i32(ht1_s_nation, slot_op4);

    // ---- scan lineorder (for op 5) ----
    const hqc_i32 lo_orderdate = hqc_pred_load_i32(col_lo_orderdate, tile, flag);

    // ---- probe ht0 (op 5) ----
    const hqc_i64 slot_op5 = flag ? hqc_ph_probe_i32(ht0_keys, ht0_slots, ht0_key_min, (hqc_i32)lo_orderdate) : -1;
    flag = flag && slot_op5 >= 0;
    const hqc_i32 d_year = hqc_ht_get_i32(ht0_d_year, slot_op5);

    // ---- scan lineorder (for the sink) ----
    const hqc_i64 lo_revenue = hqc_pred_load_i64(col_lo_revenue, tile, flag);

    // ---- aggregate agg0 (C2, sink) ----
    const hqc_i64 g_agg0_k0 = (hqc_i64)c_nation - agg0_c_nation_min;
    flag = flag && hqc_gb_index_ok(g_agg0_k0, agg0_c_nation_domain, agg0_overflow);
    const hqc_i64 g_agg0_k1 = (hqc_i64)s_nation - agg0_s_nation_min;
    flag = flag && hqc_gb_index_ok(g_agg0_k1, agg0_s_nation_domain, agg0_overflow);
    const hqc_i64 g_agg0_k2 = (hqc_i64)d_year - agg0_d_year_min;
    flag = flag && hqc_gb_index_ok(g_agg0_k2, agg0_d_year_domain, agg0_overflow);
    const hqc_i64 g_agg0 = ((g_agg0_k0) * agg0_s_nation_domain + g_agg0_k1) * agg0_d_year_domain + g_agg0_k2;
    if (flag) {
      hqc_gb_global_sum_i128(agg0_revenue, g_agg0, (hqc_i64)lo_revenue);
      hqc_gb_global_sum_i64(agg0_tuples, g_agg0, 1);
    }
  }
}

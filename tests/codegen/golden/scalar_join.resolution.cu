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

// ==== horseqc query t_scalar: 2 compound kernel(s), resolution model ====
// p1 single_aggregate into agg0: B3, reduction in the CTA (SIMD), one global atomic per CTA

// p0 build ht0 on dim
// work-items: one per row of rows_dim; block size: any
HQC_KERNEL void t_scalar_p0_build(
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

    // ---- scan dim (for op 1) ----
    const hqc_i32 d_year = hqc_load_i32(col_d_year, tile, tile_items);

    // ---- filter (op 1) ----
    flag = flag && (d_year == 1993);

    // ---- scan dim (for the sink) ----
    const hqc_i32 d_key = hqc_pred_load_i32(col_d_key, tile, flag);

    // ---- build ht0 (perfect_hash, sink) ----
    const hqc_i64 slot_ht0 = flag ? hqc_ph_build_i32(ht0_keys, ht0_capacity, ht0_key_min, (hqc_i32)d_key, ht0_overflow) : -1;
    hqc_ht_put_i32(ht0_d_year, slot_ht0, d_year);
  }
}

// p1 aggregate agg0 over fact
// work-items: one per row of rows_fact; block size: power of two, multiple of 32
HQC_KERNEL void t_scalar_p1_aggregate(
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_f_key,
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_f_price,
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_f_qty,
    HQC_GLOBAL hqc_u64* agg0_count,
    HQC_GLOBAL hqc_i64* agg0_revenue,
    HQC_GLOBAL const hqc_i32* ht0_d_year,
    HQC_GLOBAL const hqc_i32* ht0_keys,
    hqc_i64 ht0_capacity,
    hqc_i64 ht0_key_min,
    hqc_i64 rows_fact HQC_SCRATCH_PARAMS) {
  HQC_SCRATCH_BEGIN
  HQC_LOCAL hqc_u64* s_agg0_reduce = hqc_scratch + 0;

  // ---- aggregate agg0: per-thread accumulators over all tiles (B3) ----
  hqc_i64 acc_agg0_revenue = 0;
  hqc_i64 acc_agg0_count = 0;

  for (hqc_i64 tile_block = hqc_tile_first() * 4; tile_block < rows_fact; tile_block += hqc_tile_stride() * 4) {
    hqc_tile_block_begin();
    #pragma unroll
    for (hqc_i32 tile_step = 0; tile_step < 4; ++tile_step) {
      const hqc_i64 tile = tile_block + tile_step * (hqc_i64)HQC_BDIM();
      const hqc_i32 tile_items = hqc_tile_rows(tile, rows_fact);
      hqc_i32 flag = hqc_tile_valid(tile_items);

      // ---- scan fact (for op 2) ----
      const hqc_i32 f_qty = hqc_flat_load_i32(col_f_qty, tile, tile_items);

      // ---- filter (op 2) ----
      flag = flag && ((f_qty >= 1) && (f_qty < 25));

      // ---- scan fact (for op 3) ----
      const hqc_i32 f_key = hqc_flat_pred_load_i32(col_f_key, tile, flag);

      // ---- probe ht0 (op 3) ----
      const hqc_i64 slot_op3 = flag ? hqc_ph_probe_i32(ht0_keys, ht0_capacity, ht0_key_min, (hqc_i32)f_key) : -1;
      flag = flag && slot_op3 >= 0;
      const hqc_i32 d_year = hqc_ht_get_i32(ht0_d_year, slot_op3);

      // ---- scan fact (for op 4) ----
      const hqc_i32 f_price = hqc_flat_pred_load_i32(col_f_price, tile, flag);

      // ---- map (op 4) ----
      const hqc_i64 revenue = (((hqc_i64)f_price) * ((hqc_i64)f_qty));

      // ---- aggregate agg0 (B3, sink) ----
      acc_agg0_revenue += flag ? (hqc_i64)revenue : 0;
      acc_agg0_count += flag ? 1 : 0;
    }
  }

  // ---- aggregate agg0: CTA reduction + one atomic per CTA (B3) ----
  hqc_cta_sum_i64_simd_to(agg0_revenue, acc_agg0_revenue, s_agg0_reduce);
  hqc_cta_sum_i64_simd_to((HQC_GLOBAL hqc_i64*)agg0_count, acc_agg0_count, s_agg0_reduce);
}

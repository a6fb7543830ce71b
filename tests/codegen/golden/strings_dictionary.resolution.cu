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

  for (hqc_i64 tile_block = hqc_tile_first() * 4; tile_block < rows_part; tile_block += hqc_tile_stride() * 4) {
    hqc_tile_block_begin();
    #pragma unroll
    for (hqc_i32 tile_step = 0; tile_step < 4; ++tile_step) {
      const hqc_i64 tile = tile_block + tile_step * (hqc_i64)HQC_BDIM();
      const hqc_i32 tile_items = hqc_tile_rows(tile, rows_part);
      hqc_i32 flag = hqc_tile_valid(tile_items);

      // ---- scan part (for op 0) ----
      const hqc_i32 p_type = hqc_flat_load_i32(col_p_type, tile, tile_items);
      const hqc_i32 p_container = hqc_flat_load_i32(col_p_container, tile, tile_items);

      // ---- filter (op 0) ----
      flag = flag && (hqc_code_in_set(codes_p_type_0, p_type) && (!((p_container == dict_p_container_eq_0) || (p_container == dict_p_container_eq_1))));

      // ---- scan part (for the sink) ----
      const hqc_i64 p_retailprice = hqc_flat_pred_load_i64(col_p_retailprice, tile, flag);

      // ---- aggregate agg0 (B3, sink) ----
      acc_agg0_promo = hqc_i128_add_i64(acc_agg0_promo, flag ? (hqc_i64)(((p_type >= dict_p_type_lb_2) && (p_type < dict_p_type_pe_3)) ? p_retailprice : ((hqc_i64)0)) : 0);
      acc_agg0_n += flag ? 1 : 0;
      acc_agg0_count += flag ? 1 : 0;
    }
  }

  // ---- aggregate agg0: CTA reduction + one atomic per CTA (B3) ----
  hqc_cta_sum_i128_we_to(agg0_promo, acc_agg0_promo, s_agg0_reduce);
  hqc_cta_sum_i64_we_to(agg0_n, acc_agg0_n, s_agg0_reduce);
  hqc_cta_sum_i64_we_to(agg0_tuples, acc_agg0_count, s_agg0_reduce);
}

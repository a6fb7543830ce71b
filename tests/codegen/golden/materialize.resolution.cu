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

// ==== horseqc query t_materialize: 1 compound kernel(s), resolution model ====
// p0 write_position into out0: A3, prefix sum in the CTA (SIMD), one global atomic per CTA

// p0 materialize out0 from fact
// work-items: one per row of rows_fact; block size: power of two, multiple of 32
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
    const hqc_u64 pos_out0 = hqc_cta_reserve_ballot((hqc_u32)flag, out0_counter, s_out0_scan);
    if (flag && pos_out0 < (hqc_u64)rows_fact) {
      out0_f_key[pos_out0] = (hqc_i32)f_key;
      out0_double_price[pos_out0] = (hqc_i64)(((hqc_i64)f_price) * ((hqc_i64)2));
    }
  }
}

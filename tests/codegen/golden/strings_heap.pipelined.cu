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

// ==== horseqc query strings_heap: 1 compound kernel(s), pipelined model ====
// p0 grouped_aggregate into agg0: C2, global atomics per tuple

// p0 aggregate agg0 from orders
// work-items: one per row of rows_orders; block size: any
HQC_KERNEL void strings_heap_p0_aggregate(
    HQC_GLOBAL const hqc_i32* HQC_RESTRICT col_o_orderdate,
    HQC_GLOBAL const hqc_u64* HQC_RESTRICT col_o_clerk,
    HQC_GLOBAL const hqc_u8* HQC_RESTRICT col_o_clerk_bytes,
    HQC_GLOBAL const hqc_u64* HQC_RESTRICT col_o_comment,
    HQC_GLOBAL const hqc_u8* HQC_RESTRICT col_o_comment_bytes,
    HQC_GLOBAL hqc_i64* agg0_key_o_year,
    HQC_GLOBAL hqc_i64* agg0_tuples,
    HQC_GLOBAL hqc_i64* agg0_n,
    HQC_GLOBAL hqc_u32* agg0_overflow,
    hqc_i64 rows_orders,
    hqc_i64 row_base_orders,
    hqc_i64 heap_base_orders_o_clerk,
    hqc_i64 heap_base_orders_o_comment,
    hqc_i64 agg0_capacity) {
  for (hqc_i64 tile = hqc_tile_first(); tile < rows_orders; tile += hqc_tile_stride()) {
    const hqc_i32 tile_items = hqc_tile_items(tile, rows_orders);
    hqc_i32 flag = hqc_tile_valid(tile_items);

    // ---- scan orders (for op 0) ----
    const hqc_i32 o_clerk = (hqc_i32)(row_base_orders + hqc_tile_row(tile));  // row of orders.o_clerk
    const hqc_u64 begin_o_clerk = hqc_load_str_begin(col_o_clerk, heap_base_orders_o_clerk, tile, tile_items);
    const hqc_u64 end_o_clerk = hqc_load_str_end(col_o_clerk, heap_base_orders_o_clerk, tile, tile_items);
    const hqc_i32 o_comment = (hqc_i32)(row_base_orders + hqc_tile_row(tile));  // row of orders.o_comment
    const hqc_u64 begin_o_comment = hqc_load_str_begin(col_o_comment, heap_base_orders_o_comment, tile, tile_items);
    const hqc_u64 end_o_comment = hqc_load_str_end(col_o_comment, heap_base_orders_o_comment, tile, tile_items);

    // ---- filter (op 0) ----
    flag = flag && ((!hqc_like(col_o_comment_bytes, begin_o_comment, end_o_comment, "%special%requests%", 18)) && (hqc_str_eq_lit(col_o_clerk_bytes, hqc_substr_begin(begin_o_clerk, end_o_clerk, 7), hqc_substr_end(begin_o_clerk, end_o_clerk, 7, 3), "000", 3) || hqc_str_eq_lit(col_o_clerk_bytes, hqc_substr_begin(begin_o_clerk, end_o_clerk, 7), hqc_substr_end(begin_o_clerk, end_o_clerk, 7, 3), "001", 3)) && (hqc_str_cmp_lit(col_o_clerk_bytes, begin_o_clerk, end_o_clerk, "Clerk#000000500", 15) >= 0));

    // ---- scan orders (for the sink) ----
    const hqc_i32 o_orderdate = hqc_pred_load_i32(col_o_orderdate, tile, flag);

    // ---- aggregate agg0 (C2, sink) ----
    const hqc_i64 gkey_agg0 = (hqc_i64)hqc_year_of_days(o_orderdate);
    const hqc_i64 g_agg0 = flag ? hqc_gb_hash_slot_i64(agg0_key_o_year, agg0_capacity, gkey_agg0, agg0_overflow) : -1;
    flag = flag && g_agg0 >= 0;
    if (flag) {
      hqc_gb_global_sum_i64(agg0_n, g_agg0, 1);
      hqc_gb_global_sum_i64(agg0_tuples, g_agg0, 1);
    }
  }
}

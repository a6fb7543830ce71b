// The CUDA built-ins the dialect prelude (codegen/dialect.cpp) names, declared for Clang's parser.
// NVRTC declares these itself; clang 14 would take them from the toolkit's headers through its
// CUDA wrapper, which cannot read CUDA 12+ headers (texture references were removed). Declarations
// only: the inspector needs their types, never their code. The thread-index variables come from
// Clang's own __clang_cuda_builtin_vars.h. A built-in codegen starts using that is missing here
// shows up as a parse error naming it (inspect/parse.h).
#include "inspect/parse.h"

namespace hqc::inspect {

const char* cuda_builtin_declarations() {
  return R"(#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#include <__clang_cuda_builtin_vars.h>
__device__ int atomicAdd(int*, int);
__device__ unsigned atomicAdd(unsigned*, unsigned);
__device__ unsigned long long atomicAdd(unsigned long long*, unsigned long long);
__device__ double atomicAdd(double*, double);
__device__ int atomicCAS(int*, int, int);
__device__ unsigned atomicCAS(unsigned*, unsigned, unsigned);
__device__ unsigned long long atomicCAS(unsigned long long*, unsigned long long, unsigned long long);
__device__ int atomicExch(int*, int);
__device__ unsigned atomicExch(unsigned*, unsigned);
__device__ unsigned long long atomicExch(unsigned long long*, unsigned long long);
__device__ int atomicMin(int*, int);
__device__ long long atomicMin(long long*, long long);
__device__ int atomicMax(int*, int);
__device__ long long atomicMax(long long*, long long);
__device__ unsigned atomicOr(unsigned*, unsigned);
__device__ void __syncthreads(void);
__device__ int __syncthreads_count(int);
__device__ void __syncwarp(unsigned = 0xffffffffu);
__device__ void __threadfence(void);
__device__ void __threadfence_block(void);
__device__ long long __double_as_longlong(double);
__device__ double __longlong_as_double(long long);
__device__ unsigned long long __umul64hi(unsigned long long, unsigned long long);
template <class T> __device__ T __shfl_up_sync(unsigned, T, unsigned, int = 32);
template <class T> __device__ T __shfl_down_sync(unsigned, T, unsigned, int = 32);
template <class T> __device__ T __shfl_sync(unsigned, T, int, int = 32);
__device__ unsigned __ballot_sync(unsigned, int);
__device__ int __reduce_add_sync(unsigned, int);
__device__ unsigned __reduce_add_sync(unsigned, unsigned);
__device__ int __popc(unsigned);
__device__ int __popcll(unsigned long long);
__device__ int __clz(int);
__device__ int __clzll(long long);
__device__ int __ffs(int);
__device__ int __ffsll(long long);
__device__ double round(double);
__device__ double floor(double);
__device__ double ceil(double);
__device__ double trunc(double);
__device__ double fabs(double);
__device__ double sqrt(double);
__device__ double pow(double, double);
__device__ double exp(double);
__device__ double log(double);
__device__ double fmod(double, double);
)";
}

}  // namespace hqc::inspect

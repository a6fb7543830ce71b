// The CUB/Thrust side of the CUDA backend's DevicePrimitives (cuda_device_primitives.cpp wraps it):
// functions on raw device pointers, defined in cuda_primitives.cu and compiled by nvcc into the
// static library hqc_cuda_primitives (SASS for sm_90 and PTX for compute_90, cudart_static). This
// header is plain C++: the rest of runtime/ never sees CUDA runtime types.
//
// Contract: the CUDA runtime works on the device's primary context, the one the driver-API backend
// retains, so CUdeviceptr values are valid pointers here. Every function runs on the legacy default
// stream (which the backend also uses), waits for its work to finish, and returns "" on success or
// the failing call and the library's message (cudaGetErrorString, thrust::system_error). n is at
// most kMaxPrimitiveElements (device_primitives.h) and at least 1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "runtime/device/device_primitives.h"

namespace hqc::runtime::cuda_primitives {

// Device memory for a call's temporaries: at least `bytes` bytes, aligned for any element type,
// valid until the call returns (the caller frees it afterwards). May throw.
using ScratchAllocator = std::function<void*(size_t bytes)>;

// "CUB 3.0.1 (CCCL 3.0.1)", from the headers the library was compiled with.
std::string library_version();

// Makes `ordinal` the runtime's current device (cudaSetDevice: its primary context).
std::string use_device(int ordinal);

// What a process's first library call would pay, paid ahead (on a thread the CUDA backend starts):
// the runtime's start on device `ordinal` and the loading of the radix sort's kernels (the runtime
// loads a kernel at its first launch), by sorting kWarmUpSortPairs pairs in device memory of its own.
// A process's first device top-k (device_top_k.h) is then as fast as its later ones (TPC-H q3 at
// SF 30 on an H200: select 4.29 ms before, 0.6-1.0 ms after; bench/results/2026-11-29-h200-session-2).
inline constexpr uint64_t kWarmUpSortPairs = 1u << 16;
std::string warm_up(int ordinal);

std::string stable_sort_by_key(uint64_t* keys, uint32_t* values, uint64_t n, const ScratchAllocator& scratch);
std::string gather(const uint32_t* map, const uint64_t* in, uint64_t* out, uint64_t n);
std::string inclusive_scan(const int64_t* in, int64_t* out, uint64_t n, ScanOp op, const ScratchAllocator& scratch);
std::string segmented_inclusive_scan(const uint32_t* heads, const int64_t* in, int64_t* out, uint64_t n, ScanOp op,
                                     const ScratchAllocator& scratch);
std::string exclusive_scan(const int64_t* in, int64_t* out, uint64_t n, const ScratchAllocator& scratch);
// `in`, `out`, `values` and `out_values` point to elements of `type` (int64 or double).
std::string reduce(const void* in, void* out, uint64_t n, ScanOp op, ValueType type, const ScratchAllocator& scratch);
// Sets *runs to the number of runs, copied back from the device.
std::string reduce_by_key(const uint64_t* keys, const void* values, uint64_t* out_keys, void* out_values, uint64_t n,
                          ScanOp op, ValueType type, uint64_t* runs, const ScratchAllocator& scratch);

}  // namespace hqc::runtime::cuda_primitives

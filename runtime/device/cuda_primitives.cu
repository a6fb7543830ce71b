// CUB and Thrust (CCCL, shipped with the CUDA toolkit) behind cuda_primitives.h:
//   - stable_sort_by_key: cub::DeviceRadixSort::SortPairs over DoubleBuffers (an LSD radix sort,
//     stable), the alternate halves taken from scratch; the result is copied back when it ends in
//     the alternate half.
//   - gather: thrust::gather.
//   - inclusive_scan: cub::DeviceScan::InclusiveScan, Sum on the unsigned bit pattern (wraps
//     modulo 2^64 without signed overflow), Min/Max with the functors below.
//   - segmented_inclusive_scan: segment ids = cub::DeviceScan::InclusiveSum of (heads[i] != 0),
//     then cub::DeviceScan::InclusiveScanByKey keyed by those ids (row 0 starts the first segment
//     whatever heads[0] says, since a segment is a run of equal ids).
//   - exclusive_scan: cub::DeviceScan::ExclusiveSum on the unsigned bit pattern (in place when
//     in == out, which CUB supports).
//   - reduce: cub::DeviceReduce::Reduce with the operator's identity as the initial value (0; for
//     Min/Max the largest / smallest int64, or +/-infinity for doubles, so that an input of
//     infinities reduces to itself).
//   - reduce_by_key: cub::DeviceReduce::ReduceByKey (runs of equal keys by ==); its run count,
//     written to device memory, is copied back with cudaMemcpy.
// Item counts are passed as int (n <= kMaxPrimitiveElements): CUB then uses 32-bit offsets.
#include "runtime/device/cuda_primitives.h"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/version.cuh>
#include <cuda/std/functional>
#include <thrust/execution_policy.h>
#include <thrust/gather.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/sequence.h>
#include <thrust/system/system_error.h>

#include <limits>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace hqc::runtime::cuda_primitives {

namespace {

template <typename T>
struct MinOp {
  __host__ __device__ T operator()(T a, T b) const { return b < a ? b : a; }
};

template <typename T>
struct MaxOp {
  __host__ __device__ T operator()(T a, T b) const { return b > a ? b : a; }
};

// The identity of each operator: the initial value cub::DeviceReduce::Reduce combines with the
// input (for doubles the infinities, which any non-NaN value leaves unchanged).
template <typename T>
T identity(::cuda::std::plus<T>) {
  return T(0);
}
template <typename T>
T identity(MinOp<T>) {
  return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
}
template <typename T>
T identity(MaxOp<T>) {
  return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest();
}

struct IsHead {
  __host__ __device__ uint32_t operator()(uint32_t head) const { return head != 0 ? 1u : 0u; }
};

std::string describe(cudaError_t status, const char* call) {
  return std::string(call) + ": " + cudaGetErrorString(status) + " (" + cudaGetErrorName(status) + ")";
}

// Every CUB call is made twice: first with no storage to learn how much it needs, then for real.
template <typename Call>
std::string run_cub(const char* name, const ScratchAllocator& scratch, Call&& call) {
  size_t bytes = 0;
  cudaError_t status = call(nullptr, bytes);
  if (status != cudaSuccess) return describe(status, name);
  void* storage = scratch(bytes > 0 ? bytes : 1);
  status = call(storage, bytes);
  return status == cudaSuccess ? std::string() : describe(status, name);
}

// Waits for the default stream and reports an asynchronous failure of the kernels before it.
std::string finish(const char* operation) {
  const cudaError_t status = cudaStreamSynchronize(nullptr);
  return status == cudaSuccess ? std::string() : describe(status, operation);
}

int items(uint64_t n) { return static_cast<int>(n); }  // n <= kMaxPrimitiveElements

// Calls body(in, out, operator) with the element pointers and the functor of `op`; the int64 Sum
// works on the unsigned bit pattern.
template <typename T, typename Body>
std::string with_operator(ScanOp op, const T* in, T* out, Body&& body) {
  switch (op) {
    case ScanOp::Sum:
      if constexpr (std::is_integral_v<T>) {
        return body(reinterpret_cast<const unsigned long long*>(in), reinterpret_cast<unsigned long long*>(out),
                    ::cuda::std::plus<unsigned long long>());
      } else {
        return body(in, out, ::cuda::std::plus<T>());
      }
    case ScanOp::Min: return body(in, out, MinOp<T>());
    case ScanOp::Max: return body(in, out, MaxOp<T>());
  }
  return "unknown scan operator";
}

// with_operator over elements of `type`.
template <typename Body>
std::string with_values(ScanOp op, ValueType type, const void* in, void* out, Body&& body) {
  if (type == ValueType::F64) return with_operator(op, static_cast<const double*>(in), static_cast<double*>(out), body);
  return with_operator(op, static_cast<const int64_t*>(in), static_cast<int64_t*>(out), body);
}

// Copies a count CUB wrote to device memory back to the host.
std::string copy_back(const int* device_count, uint64_t* count) {
  int host_count = 0;
  const cudaError_t status = cudaMemcpy(&host_count, device_count, sizeof(int), cudaMemcpyDeviceToHost);
  *count = static_cast<uint64_t>(host_count);
  return status == cudaSuccess ? std::string() : describe(status, "cudaMemcpy (run count)");
}

}  // namespace

std::string library_version() {
  return "CUB " + std::to_string(CUB_MAJOR_VERSION) + "." + std::to_string(CUB_MINOR_VERSION) + "." +
         std::to_string(CUB_SUBMINOR_VERSION) + " (CCCL " + std::to_string(CCCL_MAJOR_VERSION) + "." +
         std::to_string(CCCL_MINOR_VERSION) + "." + std::to_string(CCCL_PATCH_VERSION) + ")";
}

std::string use_device(int ordinal) {
  const cudaError_t status = cudaSetDevice(ordinal);
  return status == cudaSuccess ? std::string() : describe(status, "cudaSetDevice");
}

std::string warm_up(int ordinal) {
  std::string error = use_device(ordinal);
  if (!error.empty()) return error;
  std::vector<void*> allocations;
  const ScratchAllocator scratch = [&](size_t bytes) -> void* {
    void* p = nullptr;
    const cudaError_t status = cudaMalloc(&p, bytes);
    if (status != cudaSuccess) throw std::runtime_error(describe(status, "cudaMalloc (warm-up)"));
    allocations.push_back(p);
    return p;
  };
  try {
    auto* keys = static_cast<uint64_t*>(scratch(kWarmUpSortPairs * sizeof(uint64_t)));
    auto* values = static_cast<uint32_t*>(scratch(kWarmUpSortPairs * sizeof(uint32_t)));
    // Keys whose every byte varies (multiples of a 64-bit odd constant), so that no pass is skipped.
    thrust::sequence(thrust::device, keys, keys + kWarmUpSortPairs, uint64_t{0}, uint64_t{0x9E3779B97F4A7C15});
    thrust::sequence(thrust::device, values, values + kWarmUpSortPairs);
    error = stable_sort_by_key(keys, values, kWarmUpSortPairs, scratch);
  } catch (const std::runtime_error& e) {  // also thrust::system_error
    error = e.what();
  }
  for (void* p : allocations) cudaFree(p);
  return error;
}

std::string stable_sort_by_key(uint64_t* keys, uint32_t* values, uint64_t n, const ScratchAllocator& scratch) {
  auto* alternate_keys = static_cast<uint64_t*>(scratch(n * sizeof(uint64_t)));
  auto* alternate_values = static_cast<uint32_t*>(scratch(n * sizeof(uint32_t)));
  cub::DoubleBuffer<uint64_t> key_buffers(keys, alternate_keys);
  cub::DoubleBuffer<uint32_t> value_buffers(values, alternate_values);
  std::string error = run_cub("cub::DeviceRadixSort::SortPairs", scratch, [&](void* storage, size_t& bytes) {
    return cub::DeviceRadixSort::SortPairs(storage, bytes, key_buffers, value_buffers, items(n));
  });
  if (error.empty() && key_buffers.Current() != keys) {
    const cudaError_t status =
        cudaMemcpyAsync(keys, key_buffers.Current(), n * sizeof(uint64_t), cudaMemcpyDeviceToDevice, nullptr);
    if (status != cudaSuccess) error = describe(status, "cudaMemcpyAsync (sorted keys)");
  }
  if (error.empty() && value_buffers.Current() != values) {
    const cudaError_t status =
        cudaMemcpyAsync(values, value_buffers.Current(), n * sizeof(uint32_t), cudaMemcpyDeviceToDevice, nullptr);
    if (status != cudaSuccess) error = describe(status, "cudaMemcpyAsync (sorted values)");
  }
  const std::string finished = finish("cub::DeviceRadixSort::SortPairs");
  return error.empty() ? finished : error;
}

std::string gather(const uint32_t* map, const uint64_t* in, uint64_t* out, uint64_t n) {
  try {
    thrust::gather(thrust::cuda::par_nosync.on(nullptr), map, map + n, in, out);
  } catch (const thrust::system_error& e) {
    return std::string("thrust::gather: ") + e.what();
  }
  return finish("thrust::gather");
}

std::string inclusive_scan(const int64_t* in, int64_t* out, uint64_t n, ScanOp op, const ScratchAllocator& scratch) {
  const char* name = "cub::DeviceScan::InclusiveScan";
  const std::string error = with_operator(op, in, out, [&](auto values_in, auto values_out, auto scan_op) {
    return run_cub(name, scratch, [&](void* storage, size_t& bytes) {
      return cub::DeviceScan::InclusiveScan(storage, bytes, values_in, values_out, scan_op, items(n));
    });
  });
  const std::string finished = finish(name);
  return error.empty() ? finished : error;
}

std::string segmented_inclusive_scan(const uint32_t* heads, const int64_t* in, int64_t* out, uint64_t n, ScanOp op,
                                     const ScratchAllocator& scratch) {
  const char* name = "cub::DeviceScan::InclusiveScanByKey";
  auto* ids = static_cast<uint32_t*>(scratch(n * sizeof(uint32_t)));
  auto starts = thrust::make_transform_iterator(heads, IsHead());
  std::string error = run_cub("cub::DeviceScan::InclusiveSum (segment ids)", scratch, [&](void* storage, size_t& bytes) {
    return cub::DeviceScan::InclusiveSum(storage, bytes, starts, ids, items(n));
  });
  if (error.empty()) {
    error = with_operator(op, in, out, [&](auto values_in, auto values_out, auto scan_op) {
      return run_cub(name, scratch, [&](void* storage, size_t& bytes) {
        return cub::DeviceScan::InclusiveScanByKey(storage, bytes, ids, values_in, values_out, scan_op, items(n));
      });
    });
  }
  const std::string finished = finish(name);
  return error.empty() ? finished : error;
}

std::string exclusive_scan(const int64_t* in, int64_t* out, uint64_t n, const ScratchAllocator& scratch) {
  const char* name = "cub::DeviceScan::ExclusiveSum";
  const auto* values_in = reinterpret_cast<const unsigned long long*>(in);
  auto* values_out = reinterpret_cast<unsigned long long*>(out);
  const std::string error = run_cub(name, scratch, [&](void* storage, size_t& bytes) {
    return cub::DeviceScan::ExclusiveSum(storage, bytes, values_in, values_out, items(n));
  });
  const std::string finished = finish(name);
  return error.empty() ? finished : error;
}

std::string reduce(const void* in, void* out, uint64_t n, ScanOp op, ValueType type, const ScratchAllocator& scratch) {
  const char* name = "cub::DeviceReduce::Reduce";
  const std::string error = with_values(op, type, in, out, [&](auto values_in, auto values_out, auto reduce_op) {
    return run_cub(name, scratch, [&](void* storage, size_t& bytes) {
      return cub::DeviceReduce::Reduce(storage, bytes, values_in, values_out, items(n), reduce_op, identity(reduce_op));
    });
  });
  const std::string finished = finish(name);
  return error.empty() ? finished : error;
}

std::string reduce_by_key(const uint64_t* keys, const void* values, uint64_t* out_keys, void* out_values, uint64_t n,
                          ScanOp op, ValueType type, uint64_t* runs, const ScratchAllocator& scratch) {
  const char* name = "cub::DeviceReduce::ReduceByKey";
  auto* device_runs = static_cast<int*>(scratch(sizeof(int)));
  std::string error = with_values(op, type, values, out_values, [&](auto values_in, auto values_out, auto reduce_op) {
    return run_cub(name, scratch, [&](void* storage, size_t& bytes) {
      return cub::DeviceReduce::ReduceByKey(storage, bytes, keys, out_keys, values_in, values_out, device_runs,
                                            reduce_op, items(n));
    });
  });
  if (error.empty()) error = copy_back(device_runs, runs);  // cudaMemcpy waits for the default stream
  const std::string finished = finish(name);
  return error.empty() ? finished : error;
}

}  // namespace hqc::runtime::cuda_primitives

// Device-wide primitives — sort, gather, scans, reductions — taken from libraries, not written here:
// Boost.Compute on the OpenCL backend (opencl_primitives.cpp), CUB/Thrust from CCCL on the CUDA
// backend (cuda_primitives.cu, built by nvcc into hqc_cuda_primitives). First users: SQL window
// functions; later the operator-at-a-time execution model.
//
// Contract (both implementations):
//   - Obtained from Backend::primitives() (created on first use, lives as long as the backend); the
//     buffers are the backend's DeviceBuffers (cl_mem / CUdeviceptr), read as the element types below.
//   - Ordering: a call starts after all work issued before it on the backend's default queue/stream
//     and has completed when it returns (OpenCL: the backend's own in-order queue, clFinish at the
//     end; CUDA: the device is synchronised before and after). Work on other streams is not waited
//     for before the call: synchronise them first.
//   - n == 0 does nothing (reduce_by_key returns 0). n larger than a buffer holds throws
//     Error(Internal) naming the operation, the buffer, its size and the bytes needed; n above
//     kMaxPrimitiveElements throws Error(Unsupported) (rows are addressed by uint32 values and maps,
//     and Boost.Compute indexes with 32-bit integers). Library failures (OpenCL build errors,
//     cudaError_t, thrust/Boost exceptions) throw Error(Device) carrying the library's message.
//   - Scanned and reduced elements are int64 unless the call takes a ValueType. Sum of int64 wraps
//     modulo 2^64 (computed on the unsigned bit pattern); Min/Max are signed. reduce and
//     reduce_by_key also take doubles (ValueType::F64): a Sum adds in the library's order, not left
//     to right, so it may differ in the last bits from a sequential sum (it is exact when every
//     partial sum is representable); Min/Max are defined for non-NaN values, infinities included
//     (of -0.0 and +0.0, either may come back). F64 on an OpenCL device without cl_khr_fp64 throws
//     Error(Unsupported).
//   - reduce_by_key's run count is on the host when it returns (copied back from the device).
//   - Temporary device memory the libraries need: OpenCL, Boost.Compute's temporaries and vectors,
//     allocated per call and freed before it returns; CUDA, the backend's scratch
//     (Backend::acquire_scratch: counted in allocated_bytes(), kept between calls up to
//     Backend::kScratchCacheBytes). Compiled programs are cached too (Boost.Compute's per-context
//     program cache; CUB's kernels are compiled ahead).
//   - Boost.Compute builds a sort's programs at its first call (Backend::library_sort_builds_at_first_use);
//     prepare_sort() builds them ahead, on another thread if the caller does nothing else with the
//     primitives meanwhile. Executor::run does so beside a module's compile when the finalize may
//     narrow a top-k on the device (result_assembly.h: may_narrow_top_k_on_device).
//   - Not thread-safe: one host thread per backend, as for launches.
#pragma once

#include <cstdint>
#include <string>

namespace hqc::runtime {

class DeviceBuffer;

enum class ScanOp { Sum, Min, Max };

// "sum", "min", "max" (for messages).
const char* scan_op_name(ScanOp op);

// The element type of reduce / reduce_by_key values: int64 (Sum wraps modulo 2^64, Min/Max signed)
// or double (IEEE sums in the library's order; Min/Max of non-NaN values).
enum class ValueType { I64, F64 };
const char* value_type_name(ValueType t);  // "i64", "f64"

// The most elements one call may process.
inline constexpr uint64_t kMaxPrimitiveElements = (uint64_t{1} << 31) - 1;

class DevicePrimitives {
 public:
  virtual ~DevicePrimitives() = default;

  // The library and its version from its headers, e.g. "Boost.Compute 1.74" / "CUB 3.0.1 (CCCL)".
  virtual std::string library() const = 0;

  // Sorts n (uint64 key, uint32 value) pairs by key ascending, in place; stable (equal keys keep
  // their order).
  virtual void stable_sort_by_key(DeviceBuffer& keys, DeviceBuffer& values, uint64_t n) = 0;
  // A sort of pairs of its own that builds what stable_sort_by_key builds at its first call, where
  // it does (Backend::library_sort_builds_at_first_use; Boost.Compute: ~0.4 s on a fresh NVIDIA
  // OpenCL cache); else nothing. May run on another thread while the caller does no other work with
  // these primitives.
  virtual void prepare_sort() {}

  // out[i] = in[map[i]] for i < n; map uint32 (each < in's element count, not checked), in and out
  // 64-bit elements; out must not overlap in or map.
  virtual void gather(const DeviceBuffer& map, const DeviceBuffer& in, DeviceBuffer& out, uint64_t n) = 0;

  // out[i] = in[0] op ... op in[i] over int64 elements; out may be the same buffer as in.
  virtual void inclusive_scan(const DeviceBuffer& in, DeviceBuffer& out, uint64_t n, ScanOp op) = 0;

  // Like inclusive_scan but restarting at every i where heads[i] != 0 (heads uint32; row 0 always
  // starts a segment, whatever heads[0] says); out may be the same buffer as in.
  virtual void segmented_inclusive_scan(const DeviceBuffer& heads, const DeviceBuffer& in, DeviceBuffer& out,
                                        uint64_t n, ScanOp op) = 0;

  // out[i] = in[0] + ... + in[i - 1] (out[0] = 0) over int64 elements, wrapping; out may be in.
  virtual void exclusive_scan(const DeviceBuffer& in, DeviceBuffer& out, uint64_t n) = 0;

  // out[0] = in[0] op ... op in[n - 1] over n values of `type`; only element 0 of out is written
  // (n == 0 writes nothing). out must not overlap in.
  virtual void reduce(const DeviceBuffer& in, DeviceBuffer& out, uint64_t n, ScanOp op, ValueType type) = 0;

  // keys: n uint64 keys in which equal keys are adjacent (e.g. sorted); values: n values of `type`.
  // For each run g of equal keys, in order: out_keys[g] = the run's key, out_values[g] = op over the
  // run's values. Returns the number of runs (0 when n == 0). Outputs must not overlap the inputs
  // and hold at least n elements (the runs are at most n).
  virtual uint64_t reduce_by_key(const DeviceBuffer& keys, const DeviceBuffer& values, DeviceBuffer& out_keys,
                                 DeviceBuffer& out_values, uint64_t n, ScanOp op, ValueType type) = 0;
};

// The argument checks of each operation, shared by the implementations (see the contract on top):
// they throw for a count above kMaxPrimitiveElements or a buffer too small, and return false when
// n == 0 (nothing to do).
bool check_sort_arguments(const DeviceBuffer& keys, const DeviceBuffer& values, uint64_t n);
bool check_gather_arguments(const DeviceBuffer& map, const DeviceBuffer& in, const DeviceBuffer& out, uint64_t n);
bool check_scan_arguments(const DeviceBuffer& in, const DeviceBuffer& out, uint64_t n);
bool check_segmented_scan_arguments(const DeviceBuffer& heads, const DeviceBuffer& in, const DeviceBuffer& out,
                                    uint64_t n);
bool check_exclusive_scan_arguments(const DeviceBuffer& in, const DeviceBuffer& out, uint64_t n);
bool check_reduce_arguments(const DeviceBuffer& in, const DeviceBuffer& out, uint64_t n);
bool check_reduce_by_key_arguments(const DeviceBuffer& keys, const DeviceBuffer& values, const DeviceBuffer& out_keys,
                                   const DeviceBuffer& out_values, uint64_t n);

}  // namespace hqc::runtime

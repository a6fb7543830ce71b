// CUB behind DevicePrimitives (see cuda_device_primitives.h): argument checks, ordering against the
// backend's earlier work (Backend::synchronize() before each call; the library functions wait for
// their own work before returning), temporaries taken from the backend's scratch and given back
// when the call returns (Backend::acquire_scratch), library messages turned into Error(Device).
#include "runtime/device/cuda_device_primitives.h"

#include <vector>

#include "runtime/device/backend.h"
#include "runtime/device/cuda_primitives.h"
#include "storage/error.h"

namespace hqc::runtime {

namespace {

template <typename T>
T* pointer(const DeviceBuffer& buffer) {
  return reinterpret_cast<T*>(static_cast<uintptr_t>(buffer.handle()));
}

class CubPrimitives final : public DevicePrimitives {
 public:
  CubPrimitives(Backend& backend, int ordinal) : backend_(backend) {
    check("cudaSetDevice", cuda_primitives::use_device(ordinal));
  }

  std::string library() const override { return cuda_primitives::library_version(); }

  void stable_sort_by_key(DeviceBuffer& keys, DeviceBuffer& values, uint64_t n) override {
    if (!check_sort_arguments(keys, values, n)) return;
    run("stable_sort_by_key", [&](const cuda_primitives::ScratchAllocator& scratch) {
      return cuda_primitives::stable_sort_by_key(pointer<uint64_t>(keys), pointer<uint32_t>(values), n, scratch);
    });
  }

  void gather(const DeviceBuffer& map, const DeviceBuffer& in, DeviceBuffer& out, uint64_t n) override {
    if (!check_gather_arguments(map, in, out, n)) return;
    run("gather", [&](const cuda_primitives::ScratchAllocator&) {
      return cuda_primitives::gather(pointer<const uint32_t>(map), pointer<const uint64_t>(in), pointer<uint64_t>(out),
                                     n);
    });
  }

  void inclusive_scan(const DeviceBuffer& in, DeviceBuffer& out, uint64_t n, ScanOp op) override {
    if (!check_scan_arguments(in, out, n)) return;
    run("inclusive_scan", [&](const cuda_primitives::ScratchAllocator& scratch) {
      return cuda_primitives::inclusive_scan(pointer<const int64_t>(in), pointer<int64_t>(out), n, op, scratch);
    });
  }

  void segmented_inclusive_scan(const DeviceBuffer& heads, const DeviceBuffer& in, DeviceBuffer& out, uint64_t n,
                                ScanOp op) override {
    if (!check_segmented_scan_arguments(heads, in, out, n)) return;
    run("segmented_inclusive_scan", [&](const cuda_primitives::ScratchAllocator& scratch) {
      return cuda_primitives::segmented_inclusive_scan(pointer<const uint32_t>(heads), pointer<const int64_t>(in),
                                                       pointer<int64_t>(out), n, op, scratch);
    });
  }

  void exclusive_scan(const DeviceBuffer& in, DeviceBuffer& out, uint64_t n) override {
    if (!check_exclusive_scan_arguments(in, out, n)) return;
    run("exclusive_scan", [&](const cuda_primitives::ScratchAllocator& scratch) {
      return cuda_primitives::exclusive_scan(pointer<const int64_t>(in), pointer<int64_t>(out), n, scratch);
    });
  }

  void reduce(const DeviceBuffer& in, DeviceBuffer& out, uint64_t n, ScanOp op, ValueType type) override {
    if (!check_reduce_arguments(in, out, n)) return;
    run("reduce", [&](const cuda_primitives::ScratchAllocator& scratch) {
      return cuda_primitives::reduce(pointer<const void>(in), pointer<void>(out), n, op, type, scratch);
    });
  }

  uint64_t reduce_by_key(const DeviceBuffer& keys, const DeviceBuffer& values, DeviceBuffer& out_keys,
                         DeviceBuffer& out_values, uint64_t n, ScanOp op, ValueType type) override {
    if (!check_reduce_by_key_arguments(keys, values, out_keys, out_values, n)) return 0;
    uint64_t runs = 0;
    run("reduce_by_key", [&](const cuda_primitives::ScratchAllocator& scratch) {
      return cuda_primitives::reduce_by_key(pointer<const uint64_t>(keys), pointer<const void>(values),
                                            pointer<uint64_t>(out_keys), pointer<void>(out_values), n, op, type, &runs,
                                            scratch);
    });
    return runs;
  }

 private:
  // Runs one library call after the backend's earlier work, with temporaries that live until it
  // returned (the library waited for its kernels), and reports its failure.
  template <typename Call>
  void run(const char* operation, Call&& call) {
    backend_.synchronize();
    std::vector<DeviceBuffer> temporaries;
    const cuda_primitives::ScratchAllocator scratch = [&](size_t bytes) {
      temporaries.push_back(backend_.acquire_scratch(bytes));  // cuMemAlloc: 256-byte aligned at least
      return reinterpret_cast<void*>(static_cast<uintptr_t>(temporaries.back().handle()));
    };
    const std::string error = call(scratch);
    for (DeviceBuffer& t : temporaries) backend_.release_scratch(std::move(t));  // the library waited for its kernels
    check(operation, error);
  }

  static void check(const char* operation, const std::string& error) {
    if (!error.empty()) throw Error(ErrorKind::Device, std::string("CUB ") + operation + " failed: " + error);
  }

  Backend& backend_;
};

}  // namespace

std::unique_ptr<DevicePrimitives> make_cub_primitives(Backend& backend, int ordinal) {
  return std::make_unique<CubPrimitives>(backend, ordinal);
}

}  // namespace hqc::runtime

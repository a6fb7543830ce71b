// Boost.Compute behind DevicePrimitives (see opencl_primitives.h and the contract of
// device_primitives.h). How each operation is built from the library's algorithms:
//   - stable_sort_by_key: boost::compute::stable_sort_by_key on (ulong, uint). Boost.Compute picks
//     the algorithm by device type: a radix sort on GPUs (stable), a merge sort of insertion-sorted
//     blocks on CPUs such as PoCL (stable; its last merge passes run on few work-items).
//     GpuVariants calls the GPU dispatch (detail::dispatch_gpu_ssort_by_key) on any device; likewise
//     detail::scan_on_gpu for the scans below (Boost.Compute's internals of Boost 1.74).
//   - gather: boost::compute::gather (out[i] = in[map[i]]).
//   - inclusive_scan: boost::compute::inclusive_scan with plus<ulong> for Sum (unsigned, so that it
//     wraps modulo 2^64 without signed overflow in OpenCL C) and BOOST_COMPUTE_FUNCTION min/max on
//     long.
//   - segmented_inclusive_scan: segment ids = inclusive sum-scan of (heads[i] != 0 || i == 0), then
//     an inclusive scan over long2 pairs (segment id, value) whose operator keeps the pair of the
//     larger id and combines the values of equal ids. The operator is commutative on purpose:
//     Boost.Compute's GPU scan (scan_on_gpu.hpp) applies op(later, earlier) while its CPU scan
//     applies op(earlier, later), so an order-sensitive operator (the textbook (flag, value) one)
//     would be wrong on GPUs. Ids start at 1 and the GPU scan pads partial work-groups with 0, which
//     this operator ignores. Finally a transform takes the values out of the pairs.
// Boost.Compute compiles its kernels at first use and keeps them in its global program cache
// (program_cache::get_global_cache: 64 programs for each of the 8 contexts used last), so repeated
// calls do not rebuild. The cached programs keep their context alive after the backend released it,
// until the cache drops them or the process exits; emptying the entry in a destructor is not safe,
// since a backend held in a static may outlive the cache (a function-local static made later).
// BOOST_COMPUTE_USE_OFFLINE_CACHE is left off: it writes files under $HOME (~/.boost_compute), and
// PoCL and NVIDIA keep their own on-disk caches of built programs.
#define CL_TARGET_OPENCL_VERSION 120
#include "runtime/device/opencl_primitives.h"

#include <boost/compute/algorithm/detail/scan_on_gpu.hpp>
#include <boost/compute/algorithm/gather.hpp>
#include <boost/compute/algorithm/inclusive_scan.hpp>
#include <boost/compute/algorithm/stable_sort_by_key.hpp>
#include <boost/compute/algorithm/transform.hpp>
#include <boost/compute/command_queue.hpp>
#include <boost/compute/container/vector.hpp>
#include <boost/compute/context.hpp>
#include <boost/compute/exception.hpp>
#include <boost/compute/function.hpp>
#include <boost/compute/functional.hpp>
#include <boost/compute/iterator/buffer_iterator.hpp>
#include <boost/compute/iterator/counting_iterator.hpp>
#include <boost/compute/utility/program_cache.hpp>
#include <boost/version.hpp>

#include <cstdlib>
#include <iterator>

#include "runtime/device/backend.h"
#include "storage/error.h"

namespace hqc::runtime {

namespace {

namespace compute = boost::compute;

// Scan operators as OpenCL C functions. The segmented ones combine (segment id, value) pairs.
BOOST_COMPUTE_FUNCTION(compute::long_, hqc_min_long, (compute::long_ a, compute::long_ b), { return min(a, b); });
BOOST_COMPUTE_FUNCTION(compute::long_, hqc_max_long, (compute::long_ a, compute::long_ b), { return max(a, b); });
BOOST_COMPUTE_FUNCTION(compute::long2_, hqc_segmented_sum, (compute::long2_ a, compute::long2_ b), {
  if (a.x != b.x) return a.x > b.x ? a : b;
  return (long2)(a.x, as_long(as_ulong(a.y) + as_ulong(b.y)));
});
BOOST_COMPUTE_FUNCTION(compute::long2_, hqc_segmented_min, (compute::long2_ a, compute::long2_ b), {
  if (a.x != b.x) return a.x > b.x ? a : b;
  return (long2)(a.x, min(a.y, b.y));
});
BOOST_COMPUTE_FUNCTION(compute::long2_, hqc_segmented_max, (compute::long2_ a, compute::long2_ b), {
  if (a.x != b.x) return a.x > b.x ? a : b;
  return (long2)(a.x, max(a.y, b.y));
});
// heads[i] != 0, and row 0 always: the increments whose inclusive sum numbers the segments from 1.
BOOST_COMPUTE_FUNCTION(compute::ulong_, hqc_segment_start, (compute::uint_ head, compute::uint_ row), {
  return (head != 0 || row == 0) ? 1 : 0;
});
BOOST_COMPUTE_FUNCTION(compute::long2_, hqc_make_pair, (compute::ulong_ id, compute::long_ value), {
  return (long2)((long)id, value);
});
BOOST_COMPUTE_FUNCTION(compute::long_, hqc_pair_value, (compute::long2_ pair), { return pair.y; });

template <typename T>
compute::buffer_iterator<T> begin_of(const compute::buffer& buffer) {
  return compute::make_buffer_iterator<T>(buffer, 0);
}

class BoostComputePrimitives final : public DevicePrimitives {
 public:
  BoostComputePrimitives(cl_context context, cl_device_id device, cl_command_queue queue,
                         BoostComputeVariants variants)
      : context_(context, /*retain=*/true),
        device_(device, /*retain=*/true),
        queue_(queue, /*retain=*/true),
        gpu_variants_(variants == BoostComputeVariants::GpuVariants) {}

  // TEMPORARY (replaced by the prims branch)
  void exclusive_scan(const DeviceBuffer&, DeviceBuffer&, uint64_t) override { throw Error(ErrorKind::Internal, "pending"); }
  void reduce(const DeviceBuffer&, DeviceBuffer&, uint64_t, ScanOp, ValueType) override { throw Error(ErrorKind::Internal, "pending"); }
  uint64_t reduce_by_key(const DeviceBuffer&, const DeviceBuffer&, DeviceBuffer&, DeviceBuffer&, uint64_t, ScanOp, ValueType) override {
    throw Error(ErrorKind::Internal, "pending");
  }
  std::string library() const override {
    return "Boost.Compute " + std::to_string(BOOST_COMPUTE_VERSION_MAJOR) + "." +
           std::to_string(BOOST_COMPUTE_VERSION_MINOR) + "." + std::to_string(BOOST_COMPUTE_VERSION_PATCH) +
           " (Boost " + std::to_string(BOOST_VERSION / 100000) + "." + std::to_string(BOOST_VERSION / 100 % 1000) +
           ")" + (gpu_variants_ ? ", GPU algorithms on any device" : "");
  }

  void stable_sort_by_key(DeviceBuffer& keys, DeviceBuffer& values, uint64_t n) override {
    if (!check_sort_arguments(keys, values, n)) return;
    run("stable_sort_by_key", [&] {
      const compute::buffer k = wrap(keys);
      const compute::buffer v = wrap(values);
      auto first = begin_of<compute::ulong_>(k);
      if (gpu_variants_) {
        compute::detail::dispatch_gpu_ssort_by_key(first, first + n, begin_of<compute::uint_>(v),
                                                   compute::less<compute::ulong_>(), queue_);
      } else {
        compute::stable_sort_by_key(first, first + n, begin_of<compute::uint_>(v), queue_);
      }
    });
  }

  void gather(const DeviceBuffer& map, const DeviceBuffer& in, DeviceBuffer& out, uint64_t n) override {
    if (!check_gather_arguments(map, in, out, n)) return;
    run("gather", [&] {
      const compute::buffer m = wrap(map);
      auto first = begin_of<compute::uint_>(m);
      compute::gather(first, first + n, begin_of<compute::ulong_>(wrap(in)), begin_of<compute::ulong_>(wrap(out)),
                      queue_);
    });
  }

  void inclusive_scan(const DeviceBuffer& in, DeviceBuffer& out, uint64_t n, ScanOp op) override {
    if (!check_scan_arguments(in, out, n)) return;
    run("inclusive_scan", [&] {
      const compute::buffer i = wrap(in);
      const compute::buffer o = wrap(out);
      if (op == ScanOp::Sum) {
        auto first = begin_of<compute::ulong_>(i);
        scan(first, first + n, begin_of<compute::ulong_>(o), compute::plus<compute::ulong_>());
        return;
      }
      auto first = begin_of<compute::long_>(i);
      if (op == ScanOp::Min) {
        scan(first, first + n, begin_of<compute::long_>(o), hqc_min_long);
      } else {
        scan(first, first + n, begin_of<compute::long_>(o), hqc_max_long);
      }
    });
  }

  void segmented_inclusive_scan(const DeviceBuffer& heads, const DeviceBuffer& in, DeviceBuffer& out, uint64_t n,
                                ScanOp op) override {
    if (!check_segmented_scan_arguments(heads, in, out, n)) return;
    run("segmented_inclusive_scan", [&] {
      const compute::buffer h = wrap(heads);
      compute::vector<compute::ulong_> ids(n, context_);
      auto heads_first = begin_of<compute::uint_>(h);
      compute::transform(heads_first, heads_first + n, compute::make_counting_iterator<compute::uint_>(0), ids.begin(),
                         hqc_segment_start, queue_);
      scan(ids.begin(), ids.end(), ids.begin(), compute::plus<compute::ulong_>());

      compute::vector<compute::long2_> pairs(n, context_);
      compute::vector<compute::long2_> scanned(n, context_);
      compute::transform(ids.begin(), ids.end(), begin_of<compute::long_>(wrap(in)), pairs.begin(), hqc_make_pair,
                         queue_);
      switch (op) {
        case ScanOp::Sum:
          scan(pairs.begin(), pairs.end(), scanned.begin(), hqc_segmented_sum);
          break;
        case ScanOp::Min:
          scan(pairs.begin(), pairs.end(), scanned.begin(), hqc_segmented_min);
          break;
        case ScanOp::Max:
          scan(pairs.begin(), pairs.end(), scanned.begin(), hqc_segmented_max);
          break;
      }
      compute::transform(scanned.begin(), scanned.end(), begin_of<compute::long_>(wrap(out)), hqc_pair_value, queue_);
    });
  }

 private:
  // An inclusive scan, by device type or (gpu_variants_) with the GPU algorithm.
  template <typename In, typename Out, typename Op>
  void scan(In first, In last, Out result, Op op) {
    using T = typename std::iterator_traits<Out>::value_type;
    if (gpu_variants_) {
      compute::detail::scan_on_gpu(first, last, result, /*exclusive=*/false, T(0), op, queue_);
    } else {
      compute::inclusive_scan(first, last, result, op, queue_);
    }
  }

  // A Boost.Compute view of a backend buffer (retains the cl_mem for the view's lifetime).
  static compute::buffer wrap(const DeviceBuffer& buffer) {
    return compute::buffer(reinterpret_cast<cl_mem>(buffer.handle()), /*retain=*/true);
  }

  // Runs one operation to completion on the backend's queue; Boost.Compute's exceptions become
  // Error(Device) naming the operation and the device.
  template <typename Body>
  void run(const char* operation, Body&& body) {
    try {
      body();
      queue_.finish();
    } catch (const compute::program_build_failure& e) {
      throw Error(ErrorKind::Device, failure(operation) + "building a kernel failed (" + e.error_string() + "):\n" +
                                         e.build_log());
    } catch (const compute::opencl_error& e) {
      throw Error(ErrorKind::Device, failure(operation) + e.error_string() + " (" + e.what() + ")");
    } catch (const Error&) {
      throw;
    } catch (const std::exception& e) {
      throw Error(ErrorKind::Device, failure(operation) + e.what());
    }
  }

  std::string failure(const char* operation) const {
    return "Boost.Compute " + std::string(operation) + " on " + device_.name() + ": ";
  }

  compute::context context_;
  compute::device device_;
  compute::command_queue queue_;
  bool gpu_variants_;
};

}  // namespace

std::unique_ptr<DevicePrimitives> make_boost_compute_primitives(_cl_context* context, _cl_device_id* device,
                                                                _cl_command_queue* queue,
                                                                BoostComputeVariants variants) {
  return std::make_unique<BoostComputePrimitives>(context, device, queue, variants);
}

BoostComputeVariants boost_compute_variants_from_environment() {
  const char* env = std::getenv("HORSEQC_BOOST_COMPUTE_VARIANTS");
  const std::string value = env != nullptr ? env : "";
  if (value.empty()) return BoostComputeVariants::ByDeviceType;
  if (value == "gpu") return BoostComputeVariants::GpuVariants;
  throw Error(ErrorKind::Usage, "HORSEQC_BOOST_COMPUTE_VARIANTS must be \"gpu\" or empty, not \"" + value + "\"");
}

}  // namespace hqc::runtime

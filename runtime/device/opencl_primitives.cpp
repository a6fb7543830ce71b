// Boost.Compute behind DevicePrimitives (see opencl_primitives.h and the contract of
// device_primitives.h). How each operation is built from the library's algorithms:
//   - stable_sort_by_key: boost::compute::stable_sort_by_key on (ulong, uint). Boost.Compute picks
//     the algorithm by device type: a radix sort on GPUs (stable), a merge sort of insertion-sorted
//     blocks on CPUs such as PoCL (stable; its last merge passes run on few work-items).
//     GpuVariants calls the GPU dispatch (detail::dispatch_gpu_ssort_by_key) on any device; likewise
//     detail::scan_on_gpu for the scans below (Boost.Compute's internals of Boost 1.74). On a CPU
//     device of one compute unit the scans take detail::serial_scan: Boost.Compute's CPU scan
//     leaves the second half unscanned there (seen with PoCL and POCL_MAX_PTHREAD_COUNT=1).
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
//   - exclusive_scan: boost::compute::exclusive_scan with plus<ulong> and init 0 (detail::scan_on_gpu
//     with exclusive = true for GpuVariants). In place works: the GPU scan copies its input first when
//     it is the output, the CPU scan reads each element before it writes it.
//   - reduce: boost::compute::reduce with plus<ulong> / plus<double> for Sum and min/max functions on
//     long / double. GpuVariants takes its GPU branch: detail::reduce_on_gpu for plus, else
//     detail::block_reduce + detail::inplace_reduce (what detail::generic_reduce does off CPUs).
//   - reduce_by_key: boost::compute::reduce_by_key (keys compared with ==), whose returned
//     iterators give the run count; it picks a serial kernel on CPUs and for up to 256 elements,
//     detail::reduce_by_key_with_scan otherwise, which GpuVariants calls on any device.
//   - reduce and reduce_by_key see at most kReduceChunk (2^20) elements per library call: Boost.Compute
//     1.74 sizes their launches as ceil(float(count) / ...) (on the host in reduce_on_gpu,
//     generic_reduce and reduce_by_key_with_scan, in OpenCL C in reduce_on_cpu), which drops the
//     last elements once count outgrows float's 24-bit mantissa (at 2^24 + 1 already: the test has
//     that case). reduce reduces the pieces into partials and then the partials; reduce_by_key
//     reduces each piece into piece outputs and appends their runs, reducing a run that continues
//     across a boundary from its two values. Pieces are sub-buffers, since Boost.Compute compiles
//     an iterator's offset into the kernel source (offsets would build new programs per piece).
//     Doubles are therefore summed piece by piece, in Boost.Compute's order within a piece.
//   - Doubles need cl_khr_fp64 (Boost.Compute's kernels enable it): without it, F64 throws
//     Error(Unsupported) before any kernel is built.
// Boost.Compute compiles its kernels at first use and keeps them in its global program cache
// (program_cache::get_global_cache: 64 programs for each of the 8 contexts used last), so repeated
// calls do not rebuild. The cached programs keep their context alive after the backend released it,
// until the cache drops them or the process exits; emptying the entry in a destructor is not safe,
// since a backend held in a static may outlive the cache (a function-local static made later).
// BOOST_COMPUTE_USE_OFFLINE_CACHE is left off: it writes files under $HOME (~/.boost_compute), and
// PoCL and NVIDIA keep their own on-disk caches of built programs.
#define CL_TARGET_OPENCL_VERSION 120
#include "runtime/device/opencl_primitives.h"

#include <boost/compute/algorithm/copy_n.hpp>
#include <boost/compute/algorithm/detail/reduce_by_key_with_scan.hpp>
#include <boost/compute/algorithm/detail/scan_on_gpu.hpp>
#include <boost/compute/algorithm/detail/serial_scan.hpp>
#include <boost/compute/algorithm/exclusive_scan.hpp>
#include <boost/compute/algorithm/gather.hpp>
#include <boost/compute/algorithm/inclusive_scan.hpp>
#include <boost/compute/algorithm/reduce.hpp>
#include <boost/compute/algorithm/reduce_by_key.hpp>
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

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <vector>

#include "runtime/device/backend.h"
#include "storage/error.h"

namespace hqc::runtime {

namespace {

namespace compute = boost::compute;

// Scan operators as OpenCL C functions. The segmented ones combine (segment id, value) pairs.
BOOST_COMPUTE_FUNCTION(compute::long_, hqc_min_long, (compute::long_ a, compute::long_ b), { return min(a, b); });
BOOST_COMPUTE_FUNCTION(compute::long_, hqc_max_long, (compute::long_ a, compute::long_ b), { return max(a, b); });
// Comparisons rather than OpenCL's min/max, which are undefined for infinities on floating types.
BOOST_COMPUTE_FUNCTION(compute::double_, hqc_min_double, (compute::double_ a, compute::double_ b), {
  return b < a ? b : a;
});
BOOST_COMPUTE_FUNCTION(compute::double_, hqc_max_double, (compute::double_ a, compute::double_ b), {
  return b > a ? b : a;
});
// reduce_by_key's key predicate: equal_to<ulong> would do, but its "(a == b)" inside the library's
// "if (...)" makes clang (PoCL) warn about extraneous parentheses at every build.
BOOST_COMPUTE_FUNCTION(bool, hqc_same_key, (compute::ulong_ a, compute::ulong_ b), { return a == b; });
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

// The most elements one Boost.Compute reduce / reduce_by_key call sees (see the top of the file):
// counts up to 2^20 stay exact through its float arithmetic with margin for OpenCL C's division,
// which may be off by 2.5 ulp.
constexpr uint64_t kReduceChunk = uint64_t{1} << 20;

// Calls body(T(), function) with the element type and the operator of (op, type): an int64 Sum on
// ulong (wrapping without signed overflow), Min/Max on long, doubles on double.
template <typename Body>
void with_values(ScanOp op, ValueType type, Body&& body) {
  if (type == ValueType::F64) {
    switch (op) {
      case ScanOp::Sum: return body(compute::double_(), compute::plus<compute::double_>());
      case ScanOp::Min: return body(compute::double_(), hqc_min_double);
      case ScanOp::Max: return body(compute::double_(), hqc_max_double);
    }
  }
  switch (op) {
    case ScanOp::Sum: return body(compute::ulong_(), compute::plus<compute::ulong_>());
    case ScanOp::Min: return body(compute::long_(), hqc_min_long);
    case ScanOp::Max: return body(compute::long_(), hqc_max_long);
  }
}

class BoostComputePrimitives final : public DevicePrimitives {
 public:
  BoostComputePrimitives(cl_context context, cl_device_id device, cl_command_queue queue,
                         BoostComputeVariants variants)
      : context_(context, /*retain=*/true),
        device_(device, /*retain=*/true),
        queue_(queue, /*retain=*/true),
        gpu_variants_(variants == BoostComputeVariants::GpuVariants),
        single_unit_cpu_((device_.type() & CL_DEVICE_TYPE_CPU) != 0 && device_.compute_units() < 2) {}

  std::string library() const override {
    return "Boost.Compute " + std::to_string(BOOST_COMPUTE_VERSION_MAJOR) + "." +
           std::to_string(BOOST_COMPUTE_VERSION_MINOR) + "." + std::to_string(BOOST_COMPUTE_VERSION_PATCH) +
           " (Boost " + std::to_string(BOOST_VERSION / 100000) + "." + std::to_string(BOOST_VERSION / 100 % 1000) +
           ")" + (gpu_variants_ ? ", GPU algorithms on any device" : "");
  }

  void stable_sort_by_key(DeviceBuffer& keys, DeviceBuffer& values, uint64_t n) override {
    if (!check_sort_arguments(keys, values, n)) return;
    run("stable_sort_by_key", [&] { sort_pairs(wrap(keys), wrap(values), n); });
  }

  // The programs are in Boost.Compute's program cache afterwards (see the top of this file). 2^15
  // pairs: the fewest a device top-k sorts (kDeviceTopKRows), past the sizes Boost.Compute sorts by
  // other methods (insertion sorts up to 32 or 512), and an odd number of merge rounds on a CPU
  // device, so that the merge sort's final copy is built too.
  void prepare_sort() override {
    constexpr uint64_t n = uint64_t{1} << 15;
    run("stable_sort_by_key (building it)", [&] {
      const std::vector<compute::ulong_> zeros(n, 0);
      compute::buffer keys(context_, n * sizeof(compute::ulong_));
      compute::buffer values(context_, n * sizeof(compute::uint_));
      queue_.enqueue_write_buffer(keys, 0, keys.size(), zeros.data());
      queue_.enqueue_write_buffer(values, 0, values.size(), zeros.data());
      sort_pairs(keys, values, n);
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

  void exclusive_scan(const DeviceBuffer& in, DeviceBuffer& out, uint64_t n) override {
    if (!check_exclusive_scan_arguments(in, out, n)) return;
    run("exclusive_scan", [&] {
      const compute::buffer i = wrap(in);
      auto first = begin_of<compute::ulong_>(i);
      scan(first, first + n, begin_of<compute::ulong_>(wrap(out)), compute::plus<compute::ulong_>(),
           /*exclusive=*/true);
    });
  }

  void reduce(const DeviceBuffer& in, DeviceBuffer& out, uint64_t n, ScanOp op, ValueType type) override {
    if (!check_reduce_arguments(in, out, n)) return;
    require_value_type(type, "reduce");
    run("reduce", [&] {
      with_values(op, type, [&](auto value, auto function) {
        using T = decltype(value);
        reduce_in_pieces<T>(wrap(in), n, wrap(out), function);
      });
    });
  }

  uint64_t reduce_by_key(const DeviceBuffer& keys, const DeviceBuffer& values, DeviceBuffer& out_keys,
                         DeviceBuffer& out_values, uint64_t n, ScanOp op, ValueType type) override {
    if (!check_reduce_by_key_arguments(keys, values, out_keys, out_values, n)) return 0;
    require_value_type(type, "reduce_by_key");
    uint64_t runs = 0;
    run("reduce_by_key", [&] {
      with_values(op, type, [&](auto value, auto function) {
        using T = decltype(value);
        runs = reduce_by_key_in_pieces<T>(wrap(keys), wrap(values), wrap(out_keys), wrap(out_values), n, function);
      });
    });
    return runs;
  }

 private:
  using KeyIterator = compute::buffer_iterator<compute::ulong_>;

  // An inclusive (or exclusive, from 0) scan, by device type or (gpu_variants_) with the GPU
  // algorithm.
  template <typename In, typename Out, typename Op>
  void scan(In first, In last, Out result, Op op, bool exclusive = false) {
    using T = typename std::iterator_traits<Out>::value_type;
    if (gpu_variants_) {
      compute::detail::scan_on_gpu(first, last, result, exclusive, T(0), op, queue_);
    } else if (single_unit_cpu_) {
      // Boost.Compute 1.74's CPU scan (scan_on_cpu) returns after its first kernel on a device of
      // one compute unit, leaving all but the first half of 2^17 and more elements unscanned. One
      // unit scans serially anyway.
      compute::detail::serial_scan(first, last, result, exclusive, T(0), op, queue_);
    } else if (exclusive) {
      compute::exclusive_scan(first, last, result, T(0), op, queue_);
    } else {
      compute::inclusive_scan(first, last, result, op, queue_);
    }
  }

  // out[0] = the reduction of n elements of `in`, reduced kReduceChunk at a time into partials first.
  template <typename T, typename Function>
  void reduce_in_pieces(const compute::buffer& in, uint64_t n, const compute::buffer& out, Function function) {
    if (n <= kReduceChunk) return reduce_range(begin_of<T>(in), n, begin_of<T>(out), function);
    const uint64_t pieces = (n + kReduceChunk - 1) / kReduceChunk;
    compute::vector<T> partials(pieces, context_);
    compute::vector<T> partial(1, context_);  // see piece(): a result iterator's offset is compiled in too
    for (uint64_t p = 0; p < pieces; ++p) {
      const uint64_t start = p * kReduceChunk;
      const uint64_t count = std::min(kReduceChunk, n - start);
      const compute::buffer in_piece = piece<T>(in, start, count);
      reduce_range(begin_of<T>(in_piece), count, partial.begin(), function);
      compute::copy_n(partial.begin(), 1, partials.begin() + p, queue_);
    }
    reduce_range(partials.begin(), pieces, begin_of<T>(out), function);
  }

  // One Boost.Compute reduce of n >= 1 elements, by device type or (gpu_variants_) with its GPU
  // branch.
  template <typename T, typename Function>
  void reduce_range(compute::buffer_iterator<T> first, uint64_t n, compute::buffer_iterator<T> result,
                    Function function) {
    if (!gpu_variants_) return compute::reduce(first, first + n, result, function, queue_);
    gpu_reduce(first, n, result, function);
  }

  template <typename T>
  void gpu_reduce(compute::buffer_iterator<T> first, uint64_t n, compute::buffer_iterator<T> result,
                  compute::plus<T> function) {
    compute::detail::reduce_on_gpu(first, first + n, result, function, queue_);
  }

  template <typename T, typename Function>
  void gpu_reduce(compute::buffer_iterator<T> first, uint64_t n, compute::buffer_iterator<T> result,
                  Function function) {
    compute::vector<T> partials = compute::detail::block_reduce(first, n, /*block_size=*/256, function, queue_);
    if (partials.size() > 1) compute::detail::inplace_reduce(partials.begin(), partials.end(), function, queue_);
    compute::copy_n(partials.begin(), 1, result, queue_);
  }

  // reduce_by_key kReduceChunk elements at a time into piece outputs, whose runs are appended to the
  // outputs (clEnqueueCopyBuffer). Returns the run count.
  template <typename T, typename Function>
  uint64_t reduce_by_key_in_pieces(const compute::buffer& keys, const compute::buffer& values,
                                   const compute::buffer& out_keys, const compute::buffer& out_values, uint64_t n,
                                   Function function) {
    if (n <= kReduceChunk) {
      return reduce_by_key_range(begin_of<compute::ulong_>(keys), n, begin_of<T>(values),
                                 begin_of<compute::ulong_>(out_keys), begin_of<T>(out_values), function);
    }
    compute::vector<compute::ulong_> piece_keys(kReduceChunk, context_);
    compute::vector<T> piece_values(kReduceChunk, context_);
    uint64_t runs = 0;
    for (uint64_t start = 0; start < n; start += kReduceChunk) {
      const uint64_t count = std::min(kReduceChunk, n - start);
      const compute::buffer key_piece = piece<compute::ulong_>(keys, start, count);
      const compute::buffer value_piece = piece<T>(values, start, count);
      const uint64_t piece_runs = reduce_by_key_range(begin_of<compute::ulong_>(key_piece), count,
                                                      begin_of<T>(value_piece), piece_keys.begin(),
                                                      piece_values.begin(), function);
      runs = append_runs(piece_keys, piece_values, piece_runs, out_keys, out_values, runs, function);
    }
    return runs;
  }

  // Appends a piece's runs after the `runs` in the outputs; when the piece's first key continues the
  // last run there, the two values are reduced into that run instead. Returns the new run count.
  template <typename T, typename Function>
  uint64_t append_runs(const compute::vector<compute::ulong_>& piece_keys, const compute::vector<T>& piece_values,
                       uint64_t piece_runs, const compute::buffer& out_keys, const compute::buffer& out_values,
                       uint64_t runs, Function function) {
    uint64_t continued = 0;
    if (runs > 0 && read_key(out_keys, runs - 1) == read_key(piece_keys.get_buffer(), 0)) {
      const auto last = begin_of<T>(out_values) + (runs - 1);
      compute::vector<T> pair(2, context_);
      compute::copy_n(last, 1, pair.begin(), queue_);
      compute::copy_n(piece_values.begin(), 1, pair.begin() + 1, queue_);
      compute::vector<T> combined(1, context_);  // not `last`: its offset would be compiled in (see piece())
      reduce_range(pair.begin(), 2, combined.begin(), function);
      compute::copy_n(combined.begin(), 1, last, queue_);
      continued = 1;
    }
    const uint64_t appended = piece_runs - continued;
    compute::copy_n(piece_keys.begin() + continued, appended, begin_of<compute::ulong_>(out_keys) + runs, queue_);
    compute::copy_n(piece_values.begin() + continued, appended, begin_of<T>(out_values) + runs, queue_);
    return runs + appended;
  }

  // Elements [start, start + count) of `whole` as a sub-buffer, so that its iterators start at index
  // 0: Boost.Compute writes a nonzero iterator offset into the kernel source, so offsets would build
  // new programs for every piece. Pieces start at multiples of kReduceChunk * 8 bytes (8 MiB),
  // aligned for any device's CL_DEVICE_MEM_BASE_ADDR_ALIGN. The caller keeps the sub-buffer while
  // its iterators are in use (buffer_iterator does not retain its buffer).
  template <typename T>
  static compute::buffer piece(const compute::buffer& whole, uint64_t start, uint64_t count) {
    return compute::buffer(whole).create_subbuffer(CL_MEM_READ_WRITE, start * sizeof(T), count * sizeof(T));
  }

  // One Boost.Compute reduce_by_key of n >= 1 elements; returns the run count. GpuVariants takes
  // detail::reduce_by_key_with_scan where Boost.Compute does on a GPU (above 256 elements), except
  // on a CPU of one compute unit: it numbers the runs with the by-device-type inclusive_scan, whose
  // CPU scan is wrong there (see scan()).
  template <typename T, typename Function>
  uint64_t reduce_by_key_range(KeyIterator keys, uint64_t n, compute::buffer_iterator<T> values, KeyIterator out_keys,
                               compute::buffer_iterator<T> out_values, Function function) {
    if (gpu_variants_ && !single_unit_cpu_ && n > 256) {
      return compute::detail::reduce_by_key_with_scan(keys, keys + n, values, out_keys, out_values, function,
                                                      hqc_same_key, queue_);
    }
    const auto ends =
        compute::reduce_by_key(keys, keys + n, values, out_keys, out_values, function, hqc_same_key, queue_);
    return static_cast<uint64_t>(ends.first - out_keys);
  }

  // keys[index], read after the queue's earlier work (a blocking read).
  compute::ulong_ read_key(const compute::buffer& keys, uint64_t index) {
    compute::ulong_ key = 0;
    queue_.enqueue_read_buffer(keys, index * sizeof(key), sizeof(key), &key);
    return key;
  }

  // Doubles need the device's cl_khr_fp64.
  void require_value_type(ValueType type, const char* operation) const {
    if (type == ValueType::F64 && !device_.supports_extension("cl_khr_fp64")) {
      throw Error(ErrorKind::Unsupported, std::string(operation) + " of " + value_type_name(type) + " values on " +
                                              device_.name() + ": the device lacks cl_khr_fp64 (double precision)");
    }
  }

  // n (ulong key, uint value) pairs sorted by key, stable: the GPU algorithm where asked for.
  void sort_pairs(const compute::buffer& keys, const compute::buffer& values, uint64_t n) {
    auto first = begin_of<compute::ulong_>(keys);
    if (gpu_variants_) {
      compute::detail::dispatch_gpu_ssort_by_key(first, first + n, begin_of<compute::uint_>(values),
                                                 compute::less<compute::ulong_>(), queue_);
    } else {
      compute::stable_sort_by_key(first, first + n, begin_of<compute::uint_>(values), queue_);
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
  bool single_unit_cpu_;  // a CPU device of one compute unit (see scan())
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

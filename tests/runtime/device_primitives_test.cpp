// Device-wide primitives (runtime/device/device_primitives.h) against host references: Boost.Compute on the
// OpenCL device (PoCL in CI) twice — with the algorithms Boost.Compute picks for the device's type
// (CPU ones on PoCL) and with its GPU algorithms forced (HORSEQC_BOOST_COMPUTE_VARIANTS=gpu), the
// code a GPU runs — or, with HORSEQC_TEST_DEVICE=cuda, CUB on the CUDA backend, where a CUDA
// backend that does not open fails the tests (never a silent skip or switch).
// Run alone: test_runtime -ts=device_primitives
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include <stdlib.h>

#include "runtime/device/backend.h"
#include "runtime/device/cuda_backend.h"
#include "runtime/device/device_primitives.h"
#include "runtime/device/opencl_backend.h"
#include "storage/error.h"

using namespace hqc;
using namespace hqc::runtime;

namespace {

constexpr uint64_t kLarge = 1'000'003;  // not a power of two, above Boost.Compute's serial-scan threshold
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr uint64_t kMaxKey = std::numeric_limits<uint64_t>::max();
// Past 2^21: reduce and reduce_by_key hand Boost.Compute 2^20 elements per call (its float sizing
// drops elements beyond 2^24); this size makes three pieces and crosses two of their boundaries.
constexpr uint64_t kPieces = (uint64_t{2} << 20) + 5;
constexpr double kInf = std::numeric_limits<double>::infinity();

// $HORSEQC_TEST_DEVICE: "opencl" (default) or "cuda".
std::string test_device() {
  const char* env = std::getenv("HORSEQC_TEST_DEVICE");
  return env != nullptr && *env != '\0' ? env : "opencl";
}

// An OpenCL backend whose primitives were made with $HORSEQC_BOOST_COMPUTE_VARIANTS = `variants`.
std::unique_ptr<Backend> open_opencl_with_variants(const char* variants) {
  const char* saved = std::getenv("HORSEQC_BOOST_COMPUTE_VARIANTS");
  const std::string saved_value = saved != nullptr ? saved : "";
  ::setenv("HORSEQC_BOOST_COMPUTE_VARIANTS", variants, 1);
  auto backend = open_opencl_backend();
  backend->primitives();  // made now, reading the variable
  if (saved != nullptr) {
    ::setenv("HORSEQC_BOOST_COMPUTE_VARIANTS", saved_value.c_str(), 1);
  } else {
    ::unsetenv("HORSEQC_BOOST_COMPUTE_VARIANTS");
  }
  return backend;
}

// The backends every case runs on (see the top of the file).
std::vector<std::unique_ptr<Backend>> test_backends() {
  const std::string device = test_device();
  std::vector<std::unique_ptr<Backend>> backends;
  if (device == "cuda") {
    backends.push_back(open_cuda_backend());
  } else {
    REQUIRE_MESSAGE(device == "opencl", "HORSEQC_TEST_DEVICE must be opencl or cuda, not " << device);
    backends.push_back(open_opencl_with_variants(""));
    backends.push_back(open_opencl_with_variants("gpu"));
  }
  return backends;
}

template <typename T>
DeviceBuffer upload(Backend& backend, const std::vector<T>& host) {
  // At least 8 bytes: an OpenCL buffer cannot be empty.
  DeviceBuffer buffer = backend.allocate(std::max<uint64_t>(host.size() * sizeof(T), 8));
  if (!host.empty()) buffer.upload(host);
  return buffer;
}

template <typename T>
std::vector<T> download(const DeviceBuffer& buffer, uint64_t n) {
  return buffer.download_as<T>(n);
}

int64_t apply(ScanOp op, int64_t a, int64_t b) {
  switch (op) {
    case ScanOp::Sum: return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
    case ScanOp::Min: return std::min(a, b);
    case ScanOp::Max: return std::max(a, b);
  }
  return 0;
}

std::vector<int64_t> host_scan(const std::vector<uint32_t>& heads, const std::vector<int64_t>& in, ScanOp op) {
  std::vector<int64_t> out(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const bool starts = i == 0 || (!heads.empty() && heads[i] != 0);
    out[i] = starts ? in[i] : apply(op, out[i - 1], in[i]);
  }
  return out;
}

// Values over the whole int64 range, with the extremes frequent enough that sums wrap often.
std::vector<int64_t> extreme_values(uint64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int64_t> v(n);
  for (int64_t& x : v) {
    switch (rng() % 4) {
      case 0: x = kMin + static_cast<int64_t>(rng() % 3); break;
      case 1: x = kMax - static_cast<int64_t>(rng() % 3); break;
      case 2: x = static_cast<int64_t>(rng() % 2001) - 1000; break;
      default: x = static_cast<int64_t>(rng()); break;
    }
  }
  return v;
}

void check_sort(Backend& backend, const std::vector<uint64_t>& keys) {
  const uint64_t n = keys.size();
  std::vector<uint32_t> values(n);
  std::iota(values.begin(), values.end(), 0u);
  DeviceBuffer d_keys = upload(backend, keys);
  DeviceBuffer d_values = upload(backend, values);
  backend.primitives().stable_sort_by_key(d_keys, d_values, n);

  // Values are the input positions: a stable sort orders equal keys by them.
  std::vector<uint32_t> expected_values = values;
  std::stable_sort(expected_values.begin(), expected_values.end(),
                   [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
  std::vector<uint64_t> expected_keys(n);
  for (uint64_t i = 0; i < n; ++i) expected_keys[i] = keys[expected_values[i]];
  CHECK(download<uint64_t>(d_keys, n) == expected_keys);
  CHECK(download<uint32_t>(d_values, n) == expected_values);
}

// Doubles that every summation order adds exactly: multiples of 1/4 up to 1000 in magnitude (sums of
// a few million stay far below 2^53 quarters).
std::vector<double> exact_doubles(uint64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> v(n);
  for (double& x : v) x = static_cast<double>(static_cast<int64_t>(rng() % 8001) - 4000) / 4;
  return v;
}

double apply(ScanOp op, double a, double b) {
  switch (op) {
    case ScanOp::Sum: return a + b;
    case ScanOp::Min: return b < a ? b : a;
    case ScanOp::Max: return b > a ? b : a;
  }
  return 0;
}

template <typename T>
constexpr ValueType value_type_of() {
  return std::is_same_v<T, double> ? ValueType::F64 : ValueType::I64;
}

template <typename T>
T host_reduce(const std::vector<T>& in, ScanOp op) {
  T result = in.front();
  for (size_t i = 1; i < in.size(); ++i) result = apply(op, result, in[i]);
  return result;
}

// reduce of `in` into element 0 of a two-element buffer, whose element 1 must stay untouched.
template <typename T>
void check_reduce(Backend& backend, const std::vector<T>& in) {
  const uint64_t n = in.size();
  const std::string type = value_type_name(value_type_of<T>());
  CAPTURE(type);
  DeviceBuffer d_in = upload(backend, in);
  for (ScanOp op : {ScanOp::Sum, ScanOp::Min, ScanOp::Max}) {
    const std::string op_name = scan_op_name(op);  // doctest prints a const char* as a pointer
    CAPTURE(op_name);
    const std::vector<T> sentinels = {T(17), T(19)};
    DeviceBuffer d_out = upload(backend, sentinels);
    backend.primitives().reduce(d_in, d_out, n, op, value_type_of<T>());
    CHECK(download<T>(d_out, 2) == std::vector<T>{host_reduce(in, op), sentinels[1]});
  }
}

// The runs of equal adjacent keys and op over each run's values, on the host.
template <typename T>
std::pair<std::vector<uint64_t>, std::vector<T>> host_reduce_by_key(const std::vector<uint64_t>& keys,
                                                                    const std::vector<T>& values, ScanOp op) {
  std::pair<std::vector<uint64_t>, std::vector<T>> runs;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (i > 0 && keys[i] == keys[i - 1]) {
      runs.second.back() = apply(op, runs.second.back(), values[i]);
    } else {
      runs.first.push_back(keys[i]);
      runs.second.push_back(values[i]);
    }
  }
  return runs;
}

template <typename T>
void check_reduce_by_key(Backend& backend, const std::vector<uint64_t>& keys, const std::vector<T>& values) {
  const uint64_t n = keys.size();
  const std::string type = value_type_name(value_type_of<T>());
  CAPTURE(type);
  DeviceBuffer d_keys = upload(backend, keys);
  DeviceBuffer d_values = upload(backend, values);
  DeviceBuffer out_keys = backend.allocate(n * 8);
  DeviceBuffer out_values = backend.allocate(n * 8);
  for (ScanOp op : {ScanOp::Sum, ScanOp::Min, ScanOp::Max}) {
    const std::string op_name = scan_op_name(op);
    CAPTURE(op_name);
    const auto expected = host_reduce_by_key(keys, values, op);
    const uint64_t runs =
        backend.primitives().reduce_by_key(d_keys, d_values, out_keys, out_values, n, op, value_type_of<T>());
    REQUIRE(runs == expected.first.size());
    CHECK(download<uint64_t>(out_keys, runs) == expected.first);
    CHECK(download<T>(out_values, runs) == expected.second);
  }
}

// Sorted keys in runs of 1 to max_run rows (key gaps of 1 to 3), starting near 2^64 - 1 - n * 3
// when `high`, else at 0.
std::vector<uint64_t> keys_in_runs(uint64_t n, uint64_t max_run, bool high, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> keys(n);
  uint64_t key = high ? kMaxKey - n * 3 : 0;
  for (uint64_t i = 0; i < n;) {
    const uint64_t run = std::min(n - i, 1 + rng() % max_run);
    std::fill(keys.begin() + i, keys.begin() + i + run, key);
    i += run;
    key += 1 + rng() % 3;
  }
  return keys;
}

// check_reduce_by_key with int64 values over the whole range (wrapping sums) and with exact doubles.
void check_reduce_by_key_both(Backend& backend, const std::vector<uint64_t>& keys, uint64_t seed) {
  check_reduce_by_key(backend, keys, extreme_values(keys.size(), seed));
  check_reduce_by_key(backend, keys, exact_doubles(keys.size(), seed));
}

void check_segmented(Backend& backend, const std::vector<uint32_t>& heads, const std::vector<int64_t>& in) {
  const uint64_t n = in.size();
  DeviceBuffer d_heads = upload(backend, heads);
  DeviceBuffer d_in = upload(backend, in);
  DeviceBuffer d_out = backend.allocate(n * 8);
  for (ScanOp op : {ScanOp::Sum, ScanOp::Min, ScanOp::Max}) {
    const std::string op_name = scan_op_name(op);
    CAPTURE(op_name);
    backend.primitives().segmented_inclusive_scan(d_heads, d_in, d_out, n, op);
    CHECK(download<int64_t>(d_out, n) == host_scan(heads, in, op));
  }
}

}  // namespace

TEST_SUITE("device_primitives") {

TEST_CASE("the primitives name their library and version, and the variants under test") {
  const auto backends = test_backends();
  for (const auto& backend : backends) {
    const std::string library = backend->primitives().library();
    MESSAGE(backend->device_description() << ": " << library);
    CHECK(&backend->primitives() == &backend->primitives());  // made once
  }
  if (test_device() == "cuda") {
    CHECK(backends.front()->primitives().library().rfind("CUB ", 0) == 0);
  } else {
    REQUIRE(backends.size() == 2);
    CHECK(backends[0]->primitives().library().rfind("Boost.Compute ", 0) == 0);
    CHECK(backends[0]->primitives().library().find("(Boost 1.") != std::string::npos);
    CHECK(backends[0]->primitives().library().find("GPU algorithms") == std::string::npos);
    CHECK(backends[1]->primitives().library().find("GPU algorithms on any device") != std::string::npos);
  }
}

TEST_CASE("n == 0 changes nothing") {
  for (const auto& backend : test_backends()) {
    CAPTURE(backend->primitives().library());
    DevicePrimitives& p = backend->primitives();
    DeviceBuffer a = upload(*backend, std::vector<uint64_t>{7});
    DeviceBuffer b = upload(*backend, std::vector<uint64_t>{9});
    DeviceBuffer heads = upload(*backend, std::vector<uint32_t>{1, 1});
    p.stable_sort_by_key(a, b, 0);
    p.gather(heads, a, b, 0);
    p.inclusive_scan(a, b, 0, ScanOp::Sum);
    p.segmented_inclusive_scan(heads, a, b, 0, ScanOp::Max);
    p.exclusive_scan(a, b, 0);
    DeviceBuffer c = upload(*backend, std::vector<uint64_t>{11});
    DeviceBuffer d = upload(*backend, std::vector<uint64_t>{13});
    for (ValueType type : {ValueType::I64, ValueType::F64}) {
      const std::string type_name = value_type_name(type);
      CAPTURE(type_name);
      p.reduce(a, b, 0, ScanOp::Sum, type);
      p.reduce(a, b, 0, ScanOp::Min, type);
      CHECK(p.reduce_by_key(a, b, c, d, 0, ScanOp::Max, type) == 0);
    }
    CHECK(download<uint64_t>(a, 1) == std::vector<uint64_t>{7});
    CHECK(download<uint64_t>(b, 1) == std::vector<uint64_t>{9});
    CHECK(download<uint64_t>(c, 1) == std::vector<uint64_t>{11});
    CHECK(download<uint64_t>(d, 1) == std::vector<uint64_t>{13});
  }
}

TEST_CASE("stable_sort_by_key: one element, small sizes around Boost.Compute's thresholds, all-equal keys") {
  for (const auto& backend : test_backends()) {
    CAPTURE(backend->primitives().library());
    check_sort(*backend, {42});
    check_sort(*backend, {kMaxKey, 0});
    std::mt19937_64 rng(1);
    for (uint64_t n : {31u, 32u, 33u, 512u, 513u, 1000u}) {
      CAPTURE(n);
      std::vector<uint64_t> keys(n);
      for (uint64_t& k : keys) k = rng() % 7;
      check_sort(*backend, keys);
    }
    // Every key equal: the values must stay in input order.
    check_sort(*backend, std::vector<uint64_t>(kLarge, 0x123456789abcdefULL));
  }
}

TEST_CASE("prepare_sort builds the sort on another thread while the caller uploads; the sorts after it are exact") {
  for (const auto& backend : test_backends()) {
    CAPTURE(backend->primitives().library());
    DevicePrimitives& p = backend->primitives();
    CHECK(backend->library_sort_builds_at_first_use() == (test_device() != "cuda"));  // Boost.Compute builds at first use, CUB does not
    std::vector<uint64_t> keys(5000);
    std::mt19937_64 rng(3);
    for (uint64_t& k : keys) k = rng() % 1000;
    std::thread build([&p] { p.prepare_sort(); });
    DeviceBuffer uploaded = upload(*backend, keys);  // the backend's queue, beside the build
    build.join();
    CHECK(download<uint64_t>(uploaded, keys.size()) == keys);
    check_sort(*backend, keys);
    check_sort(*backend, {kMaxKey, 0});
  }
}

TEST_CASE("stable_sort_by_key: 1,000,003 random keys with many duplicates and keys near 0 and 2^64-1") {
  for (const auto& backend : test_backends()) {
    CAPTURE(backend->primitives().library());
    std::mt19937_64 rng(2);
    const std::vector<uint64_t> extremes = {0, 1, 2, kMaxKey, kMaxKey - 1, kMaxKey - 2, uint64_t{1} << 63,
                                            (uint64_t{1} << 63) - 1, uint64_t{1} << 32, 0xffffffffULL};
    std::vector<uint64_t> keys(kLarge);
    for (uint64_t& k : keys) {
      const uint64_t r = rng();
      k = r % 3 == 0 ? extremes[(r >> 8) % extremes.size()] : (r % 3 == 1 ? (r >> 8) % 5000 : r);
    }
    check_sort(*backend, keys);
  }
}

TEST_CASE("gather: out[i] = in[map[i]] with repeated and out-of-order positions") {
  for (const auto& backend : test_backends()) {
    CAPTURE(backend->primitives().library());
    std::mt19937_64 rng(3);
    const uint64_t m = 70'001;  // `in` is shorter than `map`
    std::vector<uint64_t> in(m);
    for (uint64_t& x : in) x = rng();
    in[0] = kMaxKey;
    for (uint64_t n : {uint64_t{1}, uint64_t{1000}, kLarge}) {
      CAPTURE(n);
      std::vector<uint32_t> map(n);
      for (uint32_t& x : map) x = static_cast<uint32_t>(rng() % m);
      map[0] = 0;
      DeviceBuffer d_map = upload(*backend, map);
      DeviceBuffer d_in = upload(*backend, in);
      DeviceBuffer d_out = backend->allocate(n * 8);
      backend->primitives().gather(d_map, d_in, d_out, n);
      std::vector<uint64_t> expected(n);
      for (uint64_t i = 0; i < n; ++i) expected[i] = in[map[i]];
      CHECK(download<uint64_t>(d_out, n) == expected);
    }
  }
}

TEST_CASE("inclusive_scan: sum wraps at INT64_MIN/INT64_MAX, min and max, in place") {
  for (const auto& backend : test_backends()) {
    CAPTURE(backend->primitives().library());
    for (uint64_t n : {uint64_t{1}, uint64_t{7}, uint64_t{1000}, kLarge}) {
      CAPTURE(n);
      const std::vector<int64_t> in = extreme_values(n, 4 + n);
      DeviceBuffer d_in = upload(*backend, in);
      DeviceBuffer d_out = backend->allocate(n * 8);
      for (ScanOp op : {ScanOp::Sum, ScanOp::Min, ScanOp::Max}) {
        const std::string op_name = scan_op_name(op);
        CAPTURE(op_name);
        backend->primitives().inclusive_scan(d_in, d_out, n, op);
        CHECK(download<int64_t>(d_out, n) == host_scan({}, in, op));
      }
      backend->primitives().inclusive_scan(d_in, d_in, n, ScanOp::Sum);  // out == in
      CHECK(download<int64_t>(d_in, n) == host_scan({}, in, ScanOp::Sum));
    }
    // INT64_MAX + 1 wraps to INT64_MIN.
    DeviceBuffer wrap = upload(*backend, std::vector<int64_t>{kMax, 1, kMin, -1});
    backend->primitives().inclusive_scan(wrap, wrap, 4, ScanOp::Sum);
    CHECK(download<int64_t>(wrap, 4) == std::vector<int64_t>{kMax, kMin, 0, -1});
  }
}

TEST_CASE("exclusive_scan: one element, 1,000,003 elements, sum wrapping at INT64_MAX, in place") {
  for (const auto& backend : test_backends()) {
    CAPTURE(backend->primitives().library());
    for (uint64_t n : {uint64_t{1}, uint64_t{7}, uint64_t{1000}, kLarge}) {
      CAPTURE(n);
      const std::vector<int64_t> in = extreme_values(n, 8 + n);
      std::vector<int64_t> expected(n, 0);  // expected[i] = the wrapping sum of in[0 .. i - 1]
      for (uint64_t i = 1; i < n; ++i) expected[i] = apply(ScanOp::Sum, expected[i - 1], in[i - 1]);
      DeviceBuffer d_in = upload(*backend, in);
      DeviceBuffer d_out = backend->allocate(n * 8);
      backend->primitives().exclusive_scan(d_in, d_out, n);
      CHECK(download<int64_t>(d_out, n) == expected);
      CHECK(download<int64_t>(d_in, n) == in);
      backend->primitives().exclusive_scan(d_in, d_in, n);  // out == in
      CHECK(download<int64_t>(d_in, n) == expected);
    }
    DeviceBuffer wrap = upload(*backend, std::vector<int64_t>{kMax, 1, kMin, -1, 5});
    backend->primitives().exclusive_scan(wrap, wrap, 5);
    CHECK(download<int64_t>(wrap, 5) == std::vector<int64_t>{0, kMax, kMin, 0, -1});
  }
}

TEST_CASE("reduce: int64 and exact doubles, one element to past 2^21, sum wrapping at INT64_MAX, infinities") {
  for (const auto& backend : test_backends()) {
    CAPTURE(backend->primitives().library());
    for (uint64_t n : {uint64_t{1}, uint64_t{2}, uint64_t{7}, uint64_t{1000}, kLarge, kPieces}) {
      CAPTURE(n);
      check_reduce(*backend, extreme_values(n, 9 + n));
      check_reduce(*backend, exact_doubles(n, 10 + n));
    }
    check_reduce(*backend, std::vector<int64_t>{kMax, 1});  // sum: INT64_MIN
    check_reduce(*backend, std::vector<int64_t>(kLarge, kMax));
    check_reduce(*backend, std::vector<int64_t>{kMin, kMin});  // sum: 0
    // Min/Max over infinities and the extremes of double (sums of these are not exact: Min/Max only).
    const std::vector<double> wide = {1e308, -kInf, 5e-324, -1e308, kInf, 0.5};
    for (const std::vector<double>& in : {wide, std::vector<double>{kInf}, std::vector<double>(1000, -kInf)}) {
      CAPTURE(in.size());
      DeviceBuffer d_in = upload(*backend, in);
      DeviceBuffer d_out = backend->allocate(8);
      for (ScanOp op : {ScanOp::Min, ScanOp::Max}) {
        backend->primitives().reduce(d_in, d_out, in.size(), op, ValueType::F64);
        CHECK(download<double>(d_out, 1).front() == host_reduce(in, op));
      }
    }
  }
}

TEST_CASE("reduce_by_key: one element, one run, every key distinct, random runs, runs across 2^20 boundaries") {
  for (const auto& backend : test_backends()) {
    CAPTURE(backend->primitives().library());
    check_reduce_by_key_both(*backend, {kMaxKey}, 11);
    check_reduce_by_key_both(*backend, {3, 3}, 12);
    for (uint64_t n : {uint64_t{7}, uint64_t{256}, uint64_t{257}, uint64_t{1000}, kPieces}) {
      CAPTURE(n);
      check_reduce_by_key_both(*backend, std::vector<uint64_t>(n, 0x123456789abcdefULL), 13 + n);  // one run
      check_reduce_by_key_both(*backend, keys_in_runs(n, 1, n % 2 == 0, 14 + n), 15 + n);  // every key distinct
      check_reduce_by_key_both(*backend, keys_in_runs(n, 40, n % 2 == 1, 16 + n), 17 + n);  // random runs
    }
    // Long runs at the 2^20 boundaries: one covering the whole middle piece and both of its
    // boundaries; one ending at a boundary, the next starting there, one crossing the last one.
    const uint64_t piece = uint64_t{1} << 20;
    std::vector<uint64_t> keys = keys_in_runs(kPieces, 3000, false, 18);
    std::fill(keys.begin() + piece - 10, keys.begin() + 2 * piece + 2, keys[piece - 10]);
    std::fill(keys.begin() + 2 * piece + 2, keys.end(), keys[piece - 10] + 1);
    check_reduce_by_key_both(*backend, keys, 19);
    keys = keys_in_runs(kPieces, 3000, true, 20);
    std::fill(keys.begin() + piece / 2, keys.begin() + piece, keys[piece / 2]);
    std::fill(keys.begin() + piece, keys.begin() + piece + 100, keys[piece / 2] + 1);
    std::fill(keys.begin() + 2 * piece - 10, keys.end(), keys[2 * piece - 10]);
    check_reduce_by_key_both(*backend, keys, 21);
  }
}

TEST_CASE("reduce and reduce_by_key keep the last of 2^24 + 1 elements (Boost.Compute sizes launches in float)") {
  for (const auto& backend : test_backends()) {
    CAPTURE(backend->primitives().library());
    const uint64_t n = (uint64_t{1} << 24) + 1;
    std::vector<int64_t> values(n, 1);
    values.back() = 1000;
    std::vector<uint64_t> keys(n, 0);
    keys.back() = 1;
    DeviceBuffer d_values = upload(*backend, values);
    DeviceBuffer d_keys = upload(*backend, keys);
    DeviceBuffer out = backend->allocate(8);
    DeviceBuffer out_keys = backend->allocate(n * 8);
    DeviceBuffer out_values = backend->allocate(n * 8);
    for (ScanOp op : {ScanOp::Sum, ScanOp::Max}) {
      const std::string op_name = scan_op_name(op);
      CAPTURE(op_name);
      backend->primitives().reduce(d_values, out, n, op, ValueType::I64);
      CHECK(download<int64_t>(out, 1).front() == host_reduce(values, op));
      REQUIRE(backend->primitives().reduce_by_key(d_keys, d_values, out_keys, out_values, n, op, ValueType::I64) == 2);
      CHECK(download<uint64_t>(out_keys, 2) == std::vector<uint64_t>{0, 1});
      CHECK(download<int64_t>(out_values, 2) == std::vector<int64_t>{op == ScanOp::Sum ? int64_t{1} << 24 : 1, 1000});
    }
  }
}

TEST_CASE("reduce_by_key reduces runs, not keys: a key may come back after other keys") {
  for (const auto& backend : test_backends()) {
    CAPTURE(backend->primitives().library());
    check_reduce_by_key_both(*backend, {7, 7, 2, 2, 2, 7, 0, kMaxKey, kMaxKey, 0}, 22);
    std::vector<uint64_t> keys(kLarge);
    for (uint64_t i = 0; i < kLarge; ++i) keys[i] = (i / (1 + i % 7)) % 3;  // few distinct keys, short runs
    check_reduce_by_key_both(*backend, keys, 23);
  }
}

TEST_CASE("segmented_inclusive_scan: heads at 0 only, every row a head, random heads, heads[0] == 0") {
  for (const auto& backend : test_backends()) {
    CAPTURE(backend->primitives().library());
    std::mt19937_64 rng(5);
    for (uint64_t n : {uint64_t{1}, uint64_t{5}, uint64_t{300}, kLarge}) {
      CAPTURE(n);
      const std::vector<int64_t> in = extreme_values(n, 6 + n);
      std::vector<uint32_t> heads(n, 0);
      heads[0] = 1;
      check_segmented(*backend, heads, in);  // one segment
      std::fill(heads.begin(), heads.end(), 1u);
      check_segmented(*backend, heads, in);  // every row alone: out == in
      for (uint32_t& h : heads) h = rng() % 50 == 0 ? static_cast<uint32_t>(rng() | 1) : 0;  // any nonzero is a head
      heads[0] = 1;
      check_segmented(*backend, heads, in);
      heads[0] = 0;  // row 0 still starts a segment
      check_segmented(*backend, heads, in);
      std::fill(heads.begin(), heads.end(), 0u);
      check_segmented(*backend, heads, in);  // no heads at all: one segment
    }
  }
}

TEST_CASE("segmented_inclusive_scan in place, with long segments and heads in consecutive rows") {
  for (const auto& backend : test_backends()) {
    CAPTURE(backend->primitives().library());
    const uint64_t n = kLarge;
    const std::vector<int64_t> in = extreme_values(n, 7);
    std::vector<uint32_t> heads(n, 0);
    for (uint64_t i = 0; i < n; i += (i % 3 == 0 ? 1 : 250'000)) heads[i] = 1;
    DeviceBuffer d_heads = upload(*backend, heads);
    DeviceBuffer d_data = upload(*backend, in);
    backend->primitives().segmented_inclusive_scan(d_heads, d_data, d_data, n, ScanOp::Min);
    CHECK(download<int64_t>(d_data, n) == host_scan(heads, in, ScanOp::Min));
  }
}

TEST_CASE("a primitive sees the work issued before it and is complete when it returns") {
  for (const auto& backend : test_backends()) {
    CAPTURE(backend->primitives().library());
    const uint64_t n = kLarge;
    DeviceBuffer data = backend->allocate(n * 8);
    data.fill_u64(3);  // asynchronous on the default queue / stream
    backend->primitives().inclusive_scan(data, data, n, ScanOp::Sum);
    const std::vector<int64_t> out = download<int64_t>(data, n);
    CHECK(out.front() == 3);
    CHECK(out.back() == static_cast<int64_t>(3 * n));
    data.fill_u64(2);
    DeviceBuffer sum = backend->allocate(8);
    backend->primitives().reduce(data, sum, n, ScanOp::Sum, ValueType::I64);
    CHECK(download<int64_t>(sum, 1).front() == static_cast<int64_t>(2 * n));
    data.fill_u64(4);
    backend->primitives().exclusive_scan(data, data, n);
    CHECK(download<int64_t>(data, n).back() == static_cast<int64_t>(4 * (n - 1)));
  }
}

TEST_CASE("counts beyond a buffer are Internal errors naming the sizes; too many elements are Unsupported") {
  for (const auto& backend : test_backends()) {
    CAPTURE(backend->primitives().library());
    DevicePrimitives& p = backend->primitives();
    DeviceBuffer keys = backend->allocate(80);    // 10 keys
    DeviceBuffer values = backend->allocate(36);  // 9 values
    try {
      p.stable_sort_by_key(keys, values, 10);
      FAIL("expected an error");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::Internal);
      CHECK(std::string(e.what()) ==
            "stable_sort_by_key: the values buffer holds 36 bytes, but 10 elements of 4 bytes need 40");
    }
    DeviceBuffer small = backend->allocate(64);
    CHECK_THROWS_WITH_AS(p.inclusive_scan(small, keys, 9, ScanOp::Max),
                         "inclusive_scan: the input buffer holds 64 bytes, but 9 elements of 8 bytes need 72", Error);
    CHECK_THROWS_WITH_AS(p.segmented_inclusive_scan(values, keys, keys, 10, ScanOp::Sum),
                         "segmented_inclusive_scan: the heads buffer holds 36 bytes, but 10 elements of 4 bytes need 40",
                         Error);
    CHECK_THROWS_WITH_AS(p.gather(values, keys, small, 9),
                         "gather: the output buffer holds 64 bytes, but 9 elements of 8 bytes need 72", Error);
    CHECK_THROWS_WITH_AS(p.exclusive_scan(keys, small, 10),
                         "exclusive_scan: the output buffer holds 64 bytes, but 10 elements of 8 bytes need 80", Error);
    CHECK_THROWS_WITH_AS(p.reduce(small, keys, 10, ScanOp::Sum, ValueType::F64),
                         "reduce: the input buffer holds 64 bytes, but 10 elements of 8 bytes need 80", Error);
    DeviceBuffer tiny = backend->allocate(4);
    CHECK_THROWS_WITH_AS(p.reduce(keys, tiny, 10, ScanOp::Min, ValueType::I64),
                         "reduce: the output buffer holds 4 bytes, but 1 elements of 8 bytes need 8", Error);
    CHECK_THROWS_WITH_AS(p.reduce_by_key(keys, small, keys, keys, 10, ScanOp::Max, ValueType::I64),
                         "reduce_by_key: the values buffer holds 64 bytes, but 10 elements of 8 bytes need 80", Error);
    DeviceBuffer other = backend->allocate(80);
    try {
      p.reduce_by_key(keys, other, keys, small, 10, ScanOp::Sum, ValueType::F64);
      FAIL("expected an error");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::Internal);
      CHECK(std::string(e.what()) ==
            "reduce_by_key: the output values buffer holds 64 bytes, but 10 elements of 8 bytes need 80");
    }
    CHECK_THROWS_WITH_AS(p.reduce_by_key(keys, other, small, other, 10, ScanOp::Sum, ValueType::F64),
                         "reduce_by_key: the output keys buffer holds 64 bytes, but 10 elements of 8 bytes need 80",
                         Error);
    for (ValueType type : {ValueType::I64, ValueType::F64}) {
      try {
        p.reduce_by_key(keys, other, keys, other, kMaxPrimitiveElements + 1, ScanOp::Sum, type);
        FAIL("expected an error");
      } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::Unsupported);
      }
    }
    try {
      p.gather(values, keys, small, kMaxPrimitiveElements + 1);
      FAIL("expected an error");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::Unsupported);
    }
  }
}

}  // TEST_SUITE

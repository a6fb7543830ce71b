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

void check_segmented(Backend& backend, const std::vector<uint32_t>& heads, const std::vector<int64_t>& in) {
  const uint64_t n = in.size();
  DeviceBuffer d_heads = upload(backend, heads);
  DeviceBuffer d_in = upload(backend, in);
  DeviceBuffer d_out = backend.allocate(n * 8);
  for (ScanOp op : {ScanOp::Sum, ScanOp::Min, ScanOp::Max}) {
    CAPTURE(scan_op_name(op));
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
    CHECK(download<uint64_t>(a, 1) == std::vector<uint64_t>{7});
    CHECK(download<uint64_t>(b, 1) == std::vector<uint64_t>{9});
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
        CAPTURE(scan_op_name(op));
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
    try {
      p.gather(values, keys, small, kMaxPrimitiveElements + 1);
      FAIL("expected an error");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::Unsupported);
    }
  }
}

}  // TEST_SUITE

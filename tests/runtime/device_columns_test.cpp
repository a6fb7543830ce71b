// DeviceColumnCache: each column is uploaded once, in its physical form; a changed column is
// uploaded again instead of being served stale.
#include <doctest/doctest.h>

#include <algorithm>

#include "runtime/device/device_columns.h"
#include "storage/error.h"
#include "tests/runtime/forwarding_backend.h"

using namespace hqc;
using namespace hqc::runtime;

namespace {
// A column's values as the std::vector a download returns, to compare the two.
template <class T>
std::vector<T> plain(const Values<T>& v) {
  return {v.begin(), v.end()};
}
}  // namespace

TEST_CASE("device columns are uploaded once and refreshed when the host column changes") {
  auto backend = open_backend(DeviceChoice::OpenCL);
  DeviceColumnCache cache(*backend);
  Column c;
  c.name = "v";
  c.type = DataType::int64();
  for (int64_t i = 0; i < 10000; ++i) c.i64.push_back(i * 3);

  const DeviceColumn& first = cache.get("t", c);
  CHECK(first.rows == 10000);
  CHECK(first.values.download_as<int64_t>(10000) == plain(c.i64));
  CHECK(cache.uploads() == 1);
  CHECK(cache.bytes_uploaded() == 80000);
  cache.get("t", c);
  CHECK(cache.uploads() == 1);  // served from the cache

  c.i64[0] = -1;  // the first sampled window changes
  CHECK(cache.get("t", c).values.download_as<int64_t>(1)[0] == -1);
  CHECK(cache.uploads() == 2);

  c.i64.push_back(7);  // resized
  CHECK(cache.get("t", c).rows == 10001);
  CHECK(cache.uploads() == 3);

  cache.clear();
  cache.get("t", c);
  CHECK(cache.uploads() == 4);
}

TEST_CASE("heap strings upload offsets and bytes; dictionary strings upload codes") {
  auto backend = open_backend(DeviceChoice::OpenCL);
  DeviceColumnCache cache(*backend);
  Column heap;
  heap.name = "comment";
  heap.type = DataType::varchar(20);
  heap.encoding = Encoding::Heap;
  heap.offsets = {0, 5, 5, 12};
  const std::string bytes = "hello" "another";
  heap.heap.assign(bytes.begin(), bytes.end());
  const DeviceColumn& h = cache.get("t", heap);
  CHECK(h.rows == 3);
  CHECK(h.values.download_as<uint64_t>(4) == plain(heap.offsets));
  CHECK(h.heap.download_as<char>(12) == plain(heap.heap));

  Column dict;
  dict.name = "flag";
  dict.type = DataType::fixed_char(1);
  dict.encoding = Encoding::Dictionary;
  dict.dictionary = {"A", "N", "R"};
  dict.i32 = {2, 0, 1, 1};
  const DeviceColumn& d = cache.get("t", dict);
  CHECK(d.rows == 4);
  CHECK(d.values.download_as<int32_t>(4) == plain(dict.i32));
  CHECK_FALSE(d.heap.valid());
}

TEST_CASE("large columns go through the pinned staging slots, piece by piece, and arrive whole") {
  auto backend = open_backend(DeviceChoice::OpenCL);
  // 80,000 bytes through two 4 KiB slots: 20 pieces, each slot reused ten times.
  DeviceColumnCache cache(*backend, StagingOptions{.threshold = 1000, .batch_threshold = 0, .slot_bytes = 4096, .slots = 2, .threads = 3});
  Column c;
  c.name = "v";
  c.type = DataType::int64();
  for (int64_t i = 0; i < 10000; ++i) c.i64.push_back(i * 7919 - 5);
  CHECK(cache.get("t", c).values.download_as<int64_t>(10000) == plain(c.i64));
  CHECK(cache.staged_bytes() == 80000);

  Column heap;  // offsets (4 × 8 B) stay below the threshold; the 5,003 heap bytes are staged
  heap.name = "comment";
  heap.type = DataType::varchar(6000);
  heap.encoding = Encoding::Heap;
  heap.heap.assign(5003, 'x');
  for (size_t i = 0; i < heap.heap.size(); ++i) heap.heap[i] = static_cast<char>('a' + i % 26);
  heap.offsets = {0, 1, 5000, 5003};
  const DeviceColumn& h = cache.get("t", heap);
  CHECK(h.values.download_as<uint64_t>(4) == plain(heap.offsets));
  CHECK(h.heap.download_as<char>(5003) == plain(heap.heap));
  CHECK(cache.staged_bytes() == 80000 + 5003);

  Column small;  // below the threshold: the synchronous copy
  small.name = "s";
  small.type = DataType::int32();
  small.i32 = {1, 2, 3};
  CHECK(cache.get("t", small).values.download_as<int32_t>(3) == plain(small.i32));
  CHECK(cache.staged_bytes() == 80000 + 5003);
}

TEST_CASE("the staging slots are pinned only for a batch of uploads large enough to pay for them") {
  auto backend = open_backend(DeviceChoice::OpenCL);
  DeviceColumnCache cache(*backend,
                          StagingOptions{.threshold = 1000, .batch_threshold = 150000, .slot_bytes = 4096, .slots = 2, .threads = 2});
  auto column = [](const std::string& name, int64_t rows, int64_t seed) {
    Column c;
    c.name = name;
    c.type = DataType::int64();
    for (int64_t i = 0; i < rows; ++i) c.i64.push_back(i * seed);
    return c;
  };
  const Column a = column("a", 10000, 3), b = column("b", 10000, 5), c = column("c", 10000, 7), d = column("d", 10000, 11);

  // 80,000 bytes by get(), then a batch of 80,000 new bytes (a is resident): below 150,000, copied.
  cache.get("t", a);
  auto small = cache.get_all({{"t", &a}, {"t", &b}});
  CHECK(small.at({"t", "b"})->values.download_as<int64_t>(10000) == plain(b.i64));
  CHECK(cache.staged_bytes() == 0);
  CHECK(cache.uploads() == 2);

  // 160,000 new bytes in one batch: the slots are pinned and both columns staged.
  auto large = cache.get_all({{"t", &c}, {"t", &d}, {"t", &c}});
  CHECK(large.size() == 2);
  CHECK(large.at({"t", "c"})->values.download_as<int64_t>(10000) == plain(c.i64));
  CHECK(large.at({"t", "d"})->values.download_as<int64_t>(10000) == plain(d.i64));
  CHECK(cache.staged_bytes() == 160000);

  // Once pinned, any large enough column is staged, in a batch or not.
  const Column e = column("e", 10000, 13);
  CHECK(cache.get("t", e).values.download_as<int64_t>(10000) == plain(e.i64));
  CHECK(cache.staged_bytes() == 240000);
}

namespace {

// A device of `budget` bytes: what this backend has allocated is all that is in use.
class SmallDevice final : public test::ForwardingBackend {
 public:
  SmallDevice(uint64_t budget) : ForwardingBackend(open_backend(DeviceChoice::OpenCL)), budget_(budget) {}
  uint64_t free_memory() override { return budget_ > allocated_bytes() ? budget_ - allocated_bytes() : 0; }

 private:
  uint64_t budget_;
};

// A device that refuses an allocation past `budget` bytes, as a full GPU does (Error(Device)).
class FullDevice final : public test::ForwardingBackend {
 public:
  FullDevice(uint64_t budget) : ForwardingBackend(open_backend(DeviceChoice::OpenCL)), budget_(budget) {}
  uint64_t raw_allocate(uint64_t bytes) override {
    if (allocated_bytes() + bytes > budget_) throw Error(ErrorKind::Device, "out of device memory (test budget)");
    return ForwardingBackend::raw_allocate(bytes);
  }

 private:
  uint64_t budget_;
};

Column int32_column(const std::string& name, int32_t base) {
  Column c;
  c.name = name;
  c.type = DataType::int32();
  for (int32_t i = 0; i < 262144; ++i) c.i32.push_back(base + i);  // 1 MiB
  return c;
}

}  // namespace

TEST_CASE("columns of earlier batches are freed, least recently used first, when a batch needs their room") {
  constexpr uint64_t kMiB = 1 << 20;
  SmallDevice device(4 * kMiB + 4096);
  DeviceColumnCache cache(device);
  const Column a = int32_column("a", 0), b = int32_column("b", 1000), c = int32_column("c", 2000);
  cache.get_all({{"t", &a}});
  cache.get_all({{"t", &b}});
  cache.get("t", a);  // a is now used more recently than b
  CHECK(cache.bytes_held() == 2 * kMiB);

  // c (1 MiB) and 1 MiB of state fit beside a and b: nothing is freed.
  cache.get_all({{"t", &c}}, kMiB);
  CHECK(cache.evictions() == 0);
  CHECK(cache.bytes_held() == 3 * kMiB);

  // c resident and 2 MiB of state: one column must go, the least recently used one not asked for (b).
  const auto got = cache.get_all({{"t", &c}}, 2 * kMiB);
  CHECK(cache.evictions() == 1);
  CHECK(cache.holds("t", "a"));
  CHECK_FALSE(cache.holds("t", "b"));
  CHECK(got.at({"t", "c"})->values.download_as<int32_t>(3) == std::vector<int32_t>{2000, 2001, 2002});

  // More than the device has: every column the batch does not read goes, the batch's stay.
  cache.get_all({{"t", &c}}, 8 * kMiB);
  CHECK(cache.evictions() == 2);
  CHECK_FALSE(cache.holds("t", "a"));
  CHECK(cache.holds("t", "c"));

  // A freed column is uploaded again when asked for.
  const uint64_t uploads = cache.uploads();
  CHECK(cache.get_all({{"t", &b}}).at({"t", "b"})->values.download_as<int32_t>(1)[0] == 1000);
  CHECK(cache.uploads() == uploads + 1);
}

TEST_CASE("a memory limit frees columns as the device's own free memory would") {
  constexpr uint64_t kMiB = 1 << 20;
  SmallDevice device(64 * kMiB);  // room for all of them
  DeviceColumnCache cache(device);
  cache.set_memory_limit(3 * kMiB);
  const Column a = int32_column("a", 0), b = int32_column("b", 1000), c = int32_column("c", 2000);
  cache.get_all({{"t", &a}});
  cache.get_all({{"t", &b}});
  CHECK(cache.evictions() == 0);
  // c and 1 MiB of state beside a and b: 4 MiB, past the limit; a (least recently used) goes.
  cache.get_all({{"t", &c}}, kMiB);
  CHECK(cache.evictions() == 1);
  CHECK_FALSE(cache.holds("t", "a"));
  CHECK(cache.holds("t", "b"));
  CHECK(cache.holds("t", "c"));
  // Without a limit the device's free memory decides: nothing more goes.
  cache.set_memory_limit(0);
  cache.get_all({{"t", &a}}, kMiB);
  CHECK(cache.evictions() == 1);
  CHECK(cache.bytes_held() == 3 * kMiB);
}

TEST_CASE("scratch kept between calls gives way to an allocation that would not fit beside it") {
  FullDevice device(1000);
  device.release_scratch(device.acquire_scratch(600));
  CHECK(device.cached_scratch_bytes() == 600);
  DeviceBuffer needed = device.allocate(700);  // refused beside the 600 kept; they are freed, then it fits
  CHECK(needed.bytes() == 700);
  CHECK(device.cached_scratch_bytes() == 0);
  CHECK(device.allocated_bytes() == 700);
  CHECK_THROWS_AS(device.allocate(400), Error);  // nothing left to give way: the error stands
}

// get() of `column` narrowed to 2 bytes fails with Error(Input) whose message holds `message`.
void check_narrowing_refused(DeviceColumnCache& cache, const Column& column, const std::string& message) {
  try {
    cache.get("t", column, 2);
    FAIL("expected the narrowing to be refused");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Input);
    CHECK(std::string(e.what()).find(message) != std::string::npos);
  }
}

// Narrowed columns (ir pass narrow_columns): the device holds each value in fewer bytes, staged or
// not, and a value the width cannot hold fails the upload instead of being truncated.
TEST_CASE("narrowed columns hold every value in the width asked for, staged or not, and refuse one that does not fit") {
  auto backend = open_backend(DeviceChoice::OpenCL);
  DeviceColumnCache cache(*backend,
                          StagingOptions{.threshold = 1000, .batch_threshold = 1, .slot_bytes = 4096, .slots = 2, .threads = 2});
  Column money;  // int64 values of -30,000..29,997: two bytes each
  money.name = "money";
  money.type = DataType::int64();
  for (int64_t i = 0; i < 20000; ++i) money.i64.push_back(i * 3 - 30000);
  Column codes;  // int32 values 0..99: one byte
  codes.name = "codes";
  codes.type = DataType::int32();
  for (int32_t i = 0; i < 240; ++i) codes.i32.push_back(i % 100);

  // 40,000 bytes staged through 4,096-byte slots (2,048 values a piece); codes' 960 host bytes are
  // under the threshold: its 240 narrowed bytes are copied directly.
  auto got = cache.get_all({{"t", &money, 2}, {"t", &codes, 1}});
  const std::vector<int16_t> money16 = got.at({"t", "money"})->values.download_as<int16_t>(20000);
  const std::vector<int8_t> codes8 = got.at({"t", "codes"})->values.download_as<int8_t>(240);
  CHECK(std::equal(money16.begin(), money16.end(), money.i64.begin()));
  CHECK(std::equal(codes8.begin(), codes8.end(), codes.i32.begin()));
  CHECK(got.at({"t", "money"})->values.bytes() == 40000);
  CHECK(cache.bytes_uploaded() == 40240);
  CHECK(cache.staged_bytes() == 40000);
  CHECK(device_bytes(money, 2) == 40000);
  CHECK(device_bytes(money) == 160000);

  // The full-width copy is an entry of its own; the narrowed one stays resident beside it.
  CHECK(cache.get("t", money).values.download_as<int64_t>(20000) == plain(money.i64));
  CHECK(cache.uploads() == 3);
  cache.get("t", money, 2);
  CHECK(cache.uploads() == 3);

  // One value past int16 in the last staged piece: Error(Input) naming the column, nothing kept.
  money.i64[19999] = 40000;
  cache.clear();
  check_narrowing_refused(cache, money, "t.money holds 40000, outside the 16-bit range");
  CHECK_FALSE(cache.holds("t", "money"));
  CHECK(cache.bytes_held() == 0);
  codes.i32[5] = -129;  // below int8, copied without staging
  CHECK_THROWS_AS(cache.get("t", codes, 1), Error);
  CHECK(cache.bytes_held() == 0);

  // One batch asking for a column in two widths is a bug of its caller.
  CHECK_THROWS_AS(cache.get_all({{"t", &money, 4}, {"t", &money, 0}}), Error);
}

// Staging is decided by the host bytes a narrowed column is read from, not the fewer bytes it
// becomes; one that is not staged goes through the kept piece buffer, piece by piece.
TEST_CASE("a narrowed column is staged by its host bytes, else uploaded in pieces of the kept buffer") {
  auto backend = open_backend(DeviceChoice::OpenCL);
  Column money;  // int64 values of -30,000..29,997: two bytes each
  money.name = "money";
  money.type = DataType::int64();
  for (int64_t i = 0; i < 20000; ++i) money.i64.push_back(i * 3 - 30000);

  // 160,000 host bytes reach a batch threshold of 100,000 that its 40,000 narrowed bytes do not.
  DeviceColumnCache staged(*backend, StagingOptions{.threshold = 1000, .batch_threshold = 100000, .slot_bytes = 4096,
                                                    .slots = 2, .threads = 2});
  auto got = staged.get_all({{"t", &money, 2}});
  const std::vector<int16_t> money16 = got.at({"t", "money"})->values.download_as<int16_t>(20000);
  CHECK(std::equal(money16.begin(), money16.end(), money.i64.begin()));
  CHECK(staged.staged_bytes() == 40000);

  // No slots (the batch threshold is out of reach): 40 pieces of 1,000 bytes (500 values) each.
  DeviceColumnCache direct(*backend, StagingOptions{.threshold = 1000, .batch_threshold = uint64_t{1} << 40,
                                                    .slot_bytes = 4096, .slots = 2, .piece_bytes = 1000, .threads = 2});
  got = direct.get_all({{"t", &money, 2}});
  const std::vector<int16_t> pieces16 = got.at({"t", "money"})->values.download_as<int16_t>(20000);
  CHECK(std::equal(pieces16.begin(), pieces16.end(), money.i64.begin()));
  CHECK(direct.staged_bytes() == 0);
  CHECK(direct.bytes_uploaded() == 40000);

  // A value past int16 in the last piece: refused, naming the column, nothing kept.
  money.i64[19999] = -40000;
  direct.clear();
  check_narrowing_refused(direct, money, "t.money holds -40000, outside the 16-bit range");
  CHECK(direct.bytes_held() == 0);
}

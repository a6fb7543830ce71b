// DeviceColumnCache: each column is uploaded once, in its physical form; a changed column is
// uploaded again instead of being served stale.
#include <doctest/doctest.h>

#include "runtime/device_columns.h"

using namespace hqc;
using namespace hqc::runtime;

TEST_CASE("device columns are uploaded once and refreshed when the host column changes") {
  auto backend = open_backend(DeviceChoice::OpenCL);
  DeviceColumnCache cache(*backend);
  Column c;
  c.name = "v";
  c.type = DataType::int64();
  for (int64_t i = 0; i < 10000; ++i) c.i64.push_back(i * 3);

  const DeviceColumn& first = cache.get("t", c);
  CHECK(first.rows == 10000);
  CHECK(first.values.download_as<int64_t>(10000) == c.i64);
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
  CHECK(h.values.download_as<uint64_t>(4) == heap.offsets);
  CHECK(h.heap.download_as<char>(12) == heap.heap);

  Column dict;
  dict.name = "flag";
  dict.type = DataType::fixed_char(1);
  dict.encoding = Encoding::Dictionary;
  dict.dictionary = {"A", "N", "R"};
  dict.i32 = {2, 0, 1, 1};
  const DeviceColumn& d = cache.get("t", dict);
  CHECK(d.rows == 4);
  CHECK(d.values.download_as<int32_t>(4) == dict.i32);
  CHECK_FALSE(d.heap.valid());
}

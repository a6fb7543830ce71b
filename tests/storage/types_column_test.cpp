// DataType spelling, Column invariants, dictionary construction and statistics.
#include <doctest/doctest.h>

#include <random>
#include <stdexcept>

#include "storage/column.h"
#include "storage/table.h"
#include "storage/types.h"

using namespace hqc;

TEST_CASE("DataType spellings round-trip and bad spellings are rejected") {
  for (const DataType& t : {DataType::int32(), DataType::int64(), DataType::date(), DataType::float64(),
                            DataType::decimal(15, 2), DataType::fixed_char(25), DataType::varchar(44),
                            DataType::varchar(0), DataType::boolean()}) {
    CHECK(DataType::parse(t.to_string()) == t);
  }
  CHECK(DataType::decimal(15, 2).to_string() == "decimal(15,2)");
  CHECK(DataType::fixed_char(1).to_string() == "char(1)");
  for (const char* bad : {"int33", "decimal(15)", "decimal(2,3)", "decimal(19,2)", "char()", "char(0)",
                          "varchar(1,2)", "decimal(15,2", "Int32", "char(25) ", "decimal(15,)"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(DataType::parse(bad), std::invalid_argument);
  }
  CHECK(DataType::int32().physical_width() == 4);
  CHECK(DataType::decimal(15, 2).physical_width() == 8);
  CHECK(std::string(encoding_name(Encoding::Dictionary)) == "dictionary");
}

TEST_CASE("a dictionary column preserves string order in its codes") {
  const std::vector<std::string> values{"MAIL", "AIR", "TRUCK", "AIR", "REG AIR", "MAIL"};
  Column c = make_dictionary_column("lo_shipmode", DataType::fixed_char(10), values);
  CHECK_NOTHROW(c.validate());
  CHECK(c.dictionary == std::vector<std::string>{"AIR", "MAIL", "REG AIR", "TRUCK"});
  REQUIRE(c.size() == values.size());
  for (size_t i = 0; i < values.size(); ++i) CHECK(c.string_at(i) == values[i]);
  for (size_t i = 0; i < values.size(); ++i)
    for (size_t j = 0; j < values.size(); ++j) CHECK((c.i32[i] < c.i32[j]) == (values[i] < values[j]));
  CHECK(c.stats.valid);
  CHECK(c.stats.min == 0);
  CHECK(c.stats.max == 3);
  CHECK(c.stats.distinct == 4);
  CHECK(c.device_bytes() == values.size() * 4);
}

TEST_CASE("a heap column stores strings back to back") {
  Column c = make_heap_column("c_name", DataType::varchar(25), {"Customer#1", "", "Ünïcode"});
  CHECK_NOTHROW(c.validate());
  CHECK(c.string_at(0) == "Customer#1");
  CHECK(c.string_at(1).empty());
  CHECK(c.string_at(2) == "Ünïcode");
  CHECK(c.offsets.size() == 4);
  CHECK(c.device_bytes() == 4 * 8 + c.heap.size());
  CHECK_FALSE(c.stats.valid);  // no integer range for heap strings
  CHECK(c.stats.distinct == 3);
  CHECK_FALSE(c.stats.sorted);  // recorded for integer-backed columns only
}

TEST_CASE("sorted: integer values that never decrease in row order") {
  auto stats_of = [](std::vector<int64_t> v) {
    Column c;
    c.name = "k";
    c.type = DataType::int64();
    c.i64.assign(v.begin(), v.end());
    c.compute_stats();
    return c.stats;
  };
  CHECK(stats_of({1, 1, 2, 2, 2, 7}).sorted);  // runs of equal keys (lineitem by l_orderkey)
  CHECK(stats_of({-3}).sorted);
  CHECK(stats_of({}).sorted);
  CHECK_FALSE(stats_of({1, 2, 2, 1}).sorted);
  CHECK_FALSE(stats_of({5, 4, 3}).sorted);
  // Dictionary codes follow string order: sorted when the strings are.
  CHECK(make_dictionary_column("s", DataType::varchar(5), {"a", "a", "b"}).stats.sorted);
  CHECK_FALSE(make_dictionary_column("s", DataType::varchar(5), {"b", "a"}).stats.sorted);
}

TEST_CASE("validate names the broken invariant") {
  Column c = make_dictionary_column("x", DataType::varchar(5), {"b", "a"});
  c.i32[1] = 7;
  CHECK_THROWS_WITH_AS(c.validate(), doctest::Contains("outside the dictionary"), std::logic_error);
  Column d = make_dictionary_column("y", DataType::varchar(5), {"b", "a"});
  std::swap(d.dictionary[0], d.dictionary[1]);
  CHECK_THROWS_WITH_AS(d.validate(), doctest::Contains("not strictly ascending"), std::logic_error);
  Column h = make_heap_column("z", DataType::varchar(5), {"ab", "c"});
  h.offsets[1] = 3;
  h.offsets[2] = 2;
  CHECK_THROWS_WITH_AS(h.validate(), doctest::Contains("offsets decrease"), std::logic_error);
  Column i;
  i.name = "k";
  i.type = DataType::int32();
  i.i32 = {1, 2};
  i.i64 = {3};
  CHECK_THROWS_WITH_AS(i.validate(), doctest::Contains("unexpected int64"), std::logic_error);

  Table t;
  t.name = "t";
  t.rows = 3;
  t.columns.push_back(make_heap_column("z", DataType::varchar(5), {"ab", "c"}));
  CHECK_THROWS_WITH_AS(t.validate(), doctest::Contains("has 2 rows, the table 3"), std::logic_error);
  CHECK_THROWS_AS(t.column("nope"), std::out_of_range);
  CHECK(t.find("z") != nullptr);
}

TEST_CASE("integer statistics are exact for small ranges and close for wide ones") {
  Column c;
  c.name = "k";
  c.type = DataType::int32();
  for (int32_t i = -50; i < 1000; ++i) c.i32.push_back(i % 500);
  c.compute_stats();
  CHECK(c.stats.valid);
  CHECK(c.stats.min == -50);  // C++ remainder keeps the sign: -50 % 500 == -50
  CHECK(c.stats.max == 499);
  CHECK(c.stats.distinct == 550);

  Column w;
  w.name = "wide";
  w.type = DataType::int64();
  std::mt19937_64 rng(42);
  const int n = 200000;
  for (int i = 0; i < n; ++i) w.i64.push_back(static_cast<int64_t>(rng() >> 1));
  w.compute_stats();
  CHECK(w.stats.valid);
  const double err = std::abs(static_cast<double>(w.stats.distinct) - n) / n;
  CAPTURE(w.stats.distinct);
  CHECK(err < 0.05);  // HyperLogLog with 2^14 registers: about 0.8% standard error

  Column empty;
  empty.name = "e";
  empty.type = DataType::decimal(15, 2);
  empty.compute_stats();
  CHECK(empty.stats.valid);
  CHECK(empty.stats.distinct == 0);
}

// SQL NULLs in host results: the three formats (table NULL, csv empty field, json null), NULLS LAST
// sorting in both directions, LIMIT / projection keeping validity aligned, dictionary decoding of
// 64-bit codes that skips NULL rows, AVG of a NULL sum, and validate() catching a bad validity vector.
#include <doctest/doctest.h>

#include <climits>

#include "runtime/execution/result.h"
#include "storage/error.h"

using namespace hqc;
using namespace hqc::runtime;

namespace {

ResultColumn ints(const std::string& name, DataType type, std::vector<int64_t> values) {
  ResultColumn c;
  c.name = name;
  c.type = type;
  c.ints = std::move(values);
  return c;
}

}  // namespace

TEST_CASE("NULLs in the three formats") {
  Result r;
  r.columns.push_back(ints("total", DataType::decimal(18, 2), {0}));
  r.columns.push_back(ints("n", DataType::int64(), {0}));
  ResultColumn mean;
  mean.name = "mean";
  mean.type = DataType::float64();
  mean.floats = {0};
  r.columns.push_back(mean);
  r.columns[0].set_null(0);
  r.columns[2].set_null(0);
  r.validate();
  CHECK(r.columns[0].is_null(0));
  CHECK_FALSE(r.columns[1].is_null(0));
  CHECK(r.columns[0].text(0) == "NULL");
  CHECK(r.format(ResultFormat::Csv) == "total,n,mean\n,0,\n");
  CHECK(r.format(ResultFormat::Json) ==
        "{\"columns\":[{\"name\":\"total\",\"type\":\"decimal(18,2)\"},{\"name\":\"n\",\"type\":\"int64\"},"
        "{\"name\":\"mean\",\"type\":\"float64\"}],\"rows\":[[null,0,null]]}");
  CHECK(r.format(ResultFormat::Table) ==
        "total | n | mean\n"
        "------+---+-----\n"
        " NULL | 0 | NULL\n"
        "(1 row)\n");
}

TEST_CASE("set_null replaces the value, so no sentinel leaks") {
  ResultColumn c = ints("lo", DataType::int64(), {INT64_MAX, 5});
  c.set_null(0);
  CHECK(c.ints[0] == 0);
  CHECK(c.valid == std::vector<uint8_t>{0, 1});
  CHECK_THROWS_AS(c.set_null(2), Error);
}

TEST_CASE("NULLS LAST in both directions; LIMIT and projection keep validity aligned") {
  Result r;
  r.columns.push_back(ints("k", DataType::int32(), {3, 0, 1, 0, 2}));
  r.columns.push_back(ints("tag", DataType::int32(), {30, 99, 10, 98, 20}));
  r.columns[0].set_null(1);
  r.columns[0].set_null(3);
  r.sort({{0, false}});
  CHECK(r.columns[1].ints == std::vector<int64_t>{10, 20, 30, 99, 98});  // stable among the NULLs
  CHECK(r.columns[0].valid == std::vector<uint8_t>{1, 1, 1, 0, 0});
  r.sort({{0, true}});
  CHECK(r.columns[1].ints == std::vector<int64_t>{30, 20, 10, 99, 98});
  r.limit(4);
  r.validate();
  CHECK(r.columns[0].valid == std::vector<uint8_t>{1, 1, 1, 0});
  r.project({1, 0});
  CHECK(r.columns[1].is_null(3));
  CHECK(r.format(ResultFormat::Csv) == "tag,k\n30,3\n20,2\n10,1\n99,\n");
}

TEST_CASE("dictionary decoding of 64-bit codes skips NULL rows") {
  // A MAX accumulator over codes, widened to 64 bits; row 1 is a scalar MIN over no rows whose
  // identity INT64_MAX is no code at all.
  ResultColumn codes = ints("tag", DataType::int32(), {2, INT64_MAX, 0});
  codes.set_null(1);
  ResultColumn s = decode_dictionary(codes, {"a", "b", "c"}, DataType::varchar(1));
  CHECK(s.strings == std::vector<std::string>{"c", "", "a"});
  CHECK(s.is_null(1));
  CHECK_FALSE(s.is_null(0));
  // Without the NULL mark the same code is a bug, reported.
  CHECK_THROWS_AS(decode_dictionary(ints("tag", DataType::int32(), {INT64_MAX}), {"a"}, DataType::varchar(1)), Error);
  CHECK_THROWS_AS(decode_dictionary(ints("tag", DataType::int32(), {int64_t{1} << 32}), {"a"}, DataType::varchar(1)),
                  Error);
}

TEST_CASE("AVG of a NULL sum is NULL; a zero count with a sum is still a bug") {
  ResultColumn sum = ints("s", DataType::decimal(18, 2), {0, 250});
  sum.set_null(0);
  ResultColumn count = ints("c", DataType::int64(), {0, 2});
  ResultColumn avg = finalize_average("mean", sum, count);
  CHECK(avg.is_null(0));
  CHECK(avg.floats[1] == doctest::Approx(1.25));
  CHECK(avg.valid.size() == 2);
  CHECK_THROWS_AS(finalize_average("mean", ints("s", DataType::int64(), {5}), ints("c", DataType::int64(), {0})), Error);
}

TEST_CASE("validate rejects a validity vector of the wrong length") {
  Result r;
  r.columns.push_back(ints("k", DataType::int32(), {1, 2}));
  r.columns[0].valid = {1};
  CHECK_THROWS_AS(r.validate(), Error);
}

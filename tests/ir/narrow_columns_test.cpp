// Pass narrow_columns: a scanned column is stored in the fewest bytes its statistics' range needs,
// and nowhere without statistics.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <map>
#include <string>

#include "planner/statistics.h"
#include "tests/ir/ir_test_util.h"

using namespace hqc;

namespace {

// table.column -> stored bytes of every Column argument (all of a column's arguments must agree).
std::map<std::string, unsigned> stored(const ir::Program& p) {
  std::map<std::string, unsigned> out;
  for (const ir::Kernel& k : p.kernels) {
    for (const ir::KernelArg& a : k.args) {
      if (a.kind != ir::KernelArg::Kind::Column) continue;
      const auto [it, fresh] = out.emplace(a.table + "." + a.column, a.stored_bytes);
      CHECK_MESSAGE(it->second == a.stored_bytes, a.table << "." << a.column << " differs between kernels");
      (void)fresh;
    }
  }
  return out;
}

}  // namespace

TEST_CASE("narrow_columns: SSB Q1.1 with the fixture's statistics, and without") {
  Database db = test::ssb_database();
  planner::DatabaseStatistics stats(db);
  ir::Program with = test::build_ssb("q1.1", &stats);
  ir::run_passes(with, ir::default_passes());
  const std::map<std::string, unsigned> w = stored(with);
  // The expectation follows from the fixture's own ranges, read here independently of the pass.
  auto expected = [&](const std::string& table, const std::string& column) -> unsigned {
    const ColumnStats s = db.table(table).column(column).stats;
    REQUIRE(s.valid);
    const unsigned physical = db.table(table).column(column).type.id == TypeId::Int64 ||
                                      db.table(table).column(column).type.id == TypeId::Decimal
                                  ? 8
                                  : 4;
    const unsigned need = s.min >= INT8_MIN && s.max <= INT8_MAX ? 1 : s.min >= INT16_MIN && s.max <= INT16_MAX ? 2
                          : s.min >= INT32_MIN && s.max <= INT32_MAX                                         ? 4
                                                                                                               : 8;
    return need < physical ? need : 0;
  };
  // Named variables, not structured bindings: clang 14 (the sanitizer build) refuses a binding in
  // doctest's message lambdas.
  for (const auto& entry : w) {
    const std::string& name = entry.first;
    const size_t dot = name.find('.');
    CHECK_MESSAGE(entry.second == expected(name.substr(0, dot), name.substr(dot + 1)), name);
  }
  CHECK(w.at("lineorder.lo_quantity") == 1);        // 1..50
  CHECK(w.at("lineorder.lo_discount") == 1);        // 0..10
  CHECK(w.at("lineorder.lo_extendedprice") == 4);   // int64 money below 2^31
  CHECK(w.at("lineorder.lo_orderdate") == 0);       // 19920101..: all four bytes it has

  ir::Program without = test::build_ssb("q1.1");
  ir::run_passes(without, ir::default_passes());
  CHECK(without.column_ranges.empty());
  for (const auto& entry : stored(without)) CHECK_MESSAGE(entry.second == 0u, entry.first);
}

TEST_CASE("narrow_columns: signed widths at the edges of each range") {
  Database db = test::ssb_database();
  planner::DatabaseStatistics stats(db);
  ir::Program p = test::build_ssb("q1.1", &stats);
  ir::run_passes(p, ir::default_passes());
  struct Case {
    int64_t lo, hi;
    unsigned i32_column, i64_column;  // lo_discount is int32 on the device, lo_extendedprice int64
  };
  const Case cases[] = {
      {-128, 127, 1, 1},
      {-129, 0, 2, 2},
      {0, 128, 2, 2},
      {-32768, 32767, 2, 2},
      {0, 32768, 0, 4},  // an int32 column needs all four bytes: not narrowed
      {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max(), 0, 4},
      {0, int64_t{1} << 31, 0, 0},
      {5, 4, 0, 0},  // no values (min > max): left alone
  };
  for (const Case& c : cases) {
    p.column_ranges["lineorder.lo_discount"] = {c.lo, c.hi};
    p.column_ranges["lineorder.lo_extendedprice"] = {c.lo, c.hi};
    ir::narrow_columns(p);
    const std::map<std::string, unsigned> w = stored(p);
    CHECK_MESSAGE(w.at("lineorder.lo_discount") == c.i32_column, "[" << c.lo << ", " << c.hi << "]");
    CHECK_MESSAGE(w.at("lineorder.lo_extendedprice") == c.i64_column, "[" << c.lo << ", " << c.hi << "]");
  }
  p.column_ranges.clear();  // no range known: nothing narrowed
  ir::narrow_columns(p);
  for (const auto& entry : stored(p)) CHECK_MESSAGE(entry.second == 0u, entry.first);
}

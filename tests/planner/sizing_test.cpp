// Selectivity estimates and table sizing from statistics (planner/sizing.h, planner/statistics.h).
#include <doctest/doctest.h>

#include "planner/sizing.h"
#include "planner/statistics.h"
#include "storage/error.h"

using namespace hqc;
using namespace hqc::plan;

namespace {

Database small_db() {
  Database db;
  Table t;
  t.name = "t";
  Column a;
  a.name = "a";
  a.type = DataType::int32();
  for (int i = 0; i < 1000; ++i) a.i32.push_back(i % 100);  // 0..99, 100 distinct
  a.compute_stats();
  t.columns.push_back(a);
  t.columns.push_back(make_dictionary_column("s", DataType::varchar(4), {"b", "a", "c", "a", "d"}));
  t.rows = 1000;
  t.columns[1].i32.resize(1000, 0);  // pad codes to the table length (only stats matter here)
  t.columns[1].compute_stats();
  db.tables["t"] = t;
  return db;
}

ExprPtr col_a() { return make_column("t", "a", DataType::int32()); }
ExprPtr lit(int64_t v) { return make_int_literal(v, DataType::int32()); }

}  // namespace

TEST_CASE("DatabaseStatistics answers rows, column stats and dictionary codes") {
  Database db = small_db();
  planner::DatabaseStatistics s(db);
  CHECK(s.rows("t") == 1000);
  CHECK(s.column("t", "a").max == 99);
  CHECK(s.dictionary_code("t", "s", "c", DictMatch::Equal) == 2);
  CHECK(s.dictionary_code("t", "s", "bb", DictMatch::Equal) == -1);
  CHECK(s.dictionary_code("t", "s", "bb", DictMatch::LowerBound) == 2);
  CHECK(s.dictionary_code("t", "s", "b", DictMatch::UpperBound) == 2);
  CHECK(s.dictionary_code("t", "s", "b", DictMatch::LowerBound) == 1);
  CHECK_THROWS_WITH_AS(s.rows("u"), "statistics: the database has no table \"u\"", Error);
  CHECK_THROWS_WITH_AS(s.column("t", "z"), "statistics: table \"t\" has no column \"z\"", Error);
  CHECK_THROWS_AS(s.dictionary_code("t", "a", "x", DictMatch::Equal), Error);
}

TEST_CASE("selectivity estimates: equality 2/d, ranges by covered domain, and = min after intersecting one column's ranges, or = sum") {
  Database db = small_db();
  planner::DatabaseStatistics s(db);
  CHECK(planner::estimate_selectivity(*make_compare(CompareOp::Eq, col_a(), lit(5)), "t", s) == doctest::Approx(0.02));
  CHECK(planner::estimate_selectivity(*make_compare(CompareOp::Lt, col_a(), lit(25)), "t", s) == doctest::Approx(0.25));
  CHECK(planner::estimate_selectivity(*make_compare(CompareOp::Ge, col_a(), lit(90)), "t", s) == doctest::Approx(0.10));
  auto between = std::make_shared<Expr>();
  between->kind = ExprKind::Between;
  between->type = DataType::boolean();
  between->args = {col_a(), lit(10), lit(19)};
  CHECK(planner::estimate_selectivity(*between, "t", s) == doctest::Approx(0.10));
  ExprPtr both = make_logical(ExprKind::And, {make_compare(CompareOp::Lt, col_a(), lit(25)), between});
  CHECK(planner::estimate_selectivity(*both, "t", s) == doctest::Approx(0.10));
  // Ranges of one column intersect: one year, not the smaller of "since" and "before" (0.3 as a minimum).
  ExprPtr decade = make_logical(ExprKind::And, {make_compare(CompareOp::Ge, col_a(), lit(20)), make_compare(CompareOp::Lt, col_a(), lit(30))});
  CHECK(planner::estimate_selectivity(*decade, "t", s) == doctest::Approx(0.10));
  // With other conjuncts, the minimum over them and the intersected ranges.
  ExprPtr with_eq = make_logical(ExprKind::And, {make_compare(CompareOp::Le, col_a(), lit(59)), make_compare(CompareOp::Eq, col_a(), lit(5)),
                                                 make_compare(CompareOp::Gt, col_a(), lit(9))});
  CHECK(planner::estimate_selectivity(*with_eq, "t", s) == doctest::Approx(0.02));
  ExprPtr wide = make_logical(ExprKind::And, {make_compare(CompareOp::Le, col_a(), lit(59)), make_compare(CompareOp::Gt, col_a(), lit(9)),
                                              make_compare(CompareOp::Eq, make_column("x", "nope", DataType::int32()), lit(1))});
  CHECK(planner::estimate_selectivity(*wide, "t", s) == doctest::Approx(0.50));
  // Disjoint ranges keep a nonzero estimate (one value).
  ExprPtr none = make_logical(ExprKind::And, {make_compare(CompareOp::Ge, col_a(), lit(50)), make_compare(CompareOp::Lt, col_a(), lit(10))});
  CHECK(planner::estimate_selectivity(*none, "t", s) == doctest::Approx(0.01));
  ExprPtr either = make_logical(ExprKind::Or, {make_compare(CompareOp::Lt, col_a(), lit(25)), between});
  CHECK(planner::estimate_selectivity(*either, "t", s) == doctest::Approx(0.35));
  ExprPtr dict = make_compare(CompareOp::Eq, make_column("t", "s", DataType::varchar(4)), make_dict_code("t", "s", "a", DictMatch::Equal));
  CHECK(planner::estimate_selectivity(*dict, "t", s) == doctest::Approx(2.0 / 4.0));
  // Unknown columns and opaque predicates estimate 1 (never 0: the table must hold every row).
  CHECK(planner::estimate_selectivity(*make_compare(CompareOp::Eq, make_column("x", "nope", DataType::int32()), lit(1)), "t", s) == 1.0);
  CHECK(planner::estimate_selectivity(*make_not(between), "t", s) == 1.0);
  CHECK(planner::estimate_selectivity(*make_compare(CompareOp::Gt, col_a(), lit(1000)), "t", s) > 0.0);
}

TEST_CASE("hash capacities are powers of two above rows x selectivity / load factor") {
  CHECK(planner::hash_capacity(0, 1.0, 0.5) == 16);
  CHECK(planner::hash_capacity(100, 1.0, 0.5) == 256);
  CHECK(planner::hash_capacity(128, 1.0, 0.5) == 256);
  CHECK(planner::hash_capacity(129, 1.0, 0.5) == 512);
  CHECK(planner::hash_capacity(6000000, 0.2, 0.5) == 4194304);
}

TEST_CASE("perfect hashing for dense or small domains, scratchpad when the table fits the budget") {
  CHECK(planner::use_perfect_hash(2556, 2556));
  CHECK(planner::use_perfect_hash(69131, 2556));          // SSB date keys: sparse but small
  CHECK(planner::use_perfect_hash(4'000'000, 1'000'000)); // dense enough
  CHECK_FALSE(planner::use_perfect_hash(30'000'000, 300));
  CHECK_FALSE(planner::use_perfect_hash(0, 10));
  CHECK_FALSE(planner::use_perfect_hash(planner::kMaxPerfectHashSlots + 1, planner::kMaxPerfectHashSlots));
  CHECK(planner::use_perfect_hash(600'000'000, 150'000'000));  // TPC-H SF 100's order keys
  CHECK(planner::fits_scratchpad(175, 16));
  CHECK_FALSE(planner::fits_scratchpad(7000, 16));
  CHECK(planner::fits_scratchpad(planner::kScratchpadBudgetBytes / 16, 16));
  CHECK_FALSE(planner::fits_scratchpad(planner::kScratchpadBudgetBytes / 16 + 1, 16));
  CHECK(planner::fits_scratchpad(100, 16, 1600));
  CHECK_FALSE(planner::fits_scratchpad(101, 16, 1600));
}

TEST_CASE("the scratchpad budget comes from the device profile, capped at 48 KiB, less the reserve") {
  planner::DeviceProfile h100 = planner::named_profile("h100");
  CHECK(planner::scratchpad_budget(h100) == 48 * 1024 - planner::kScratchpadReserveBytes);
  CHECK(planner::scratchpad_budget(h100) == planner::kScratchpadBudgetBytes);
  planner::DeviceProfile small = h100;
  small.shared_per_block = 16 * 1024;
  CHECK(planner::scratchpad_budget(small) == 14 * 1024);
  planner::DeviceProfile cpu = h100;  // PoCL reports 2 MiB of local memory (global memory on a CPU)
  cpu.shared_per_block = 2 << 20;
  CHECK(planner::scratchpad_budget(cpu) == planner::kScratchpadBudgetBytes);
  planner::DeviceProfile tiny = h100;
  tiny.shared_per_block = planner::kScratchpadReserveBytes;
  CHECK_THROWS_AS(planner::scratchpad_budget(tiny), hqc::Error);
}

// 128-bit decimal sums read by later stages, end to end on a small hand-written table whose sums
// genuinely leave 64 bits: SQL → ir::build_program → passes → codegen::generate → runtime::Executor
// on the OpenCL device (PoCL here; CUDA too where present; the CUDA source is compiled with NVRTC
// either way), both execution models, with and without statistics (the sums exceed int64 either
// way). Every result is compared with the host's __int128 arithmetic over the same rows:
//   - an expression over a 128-bit sum (+, -, * by a decimal literal, a raised scale), written as a
//     128-bit result column;
//   - HAVING on a 128-bit sum, against a literal and against a scalar subquery's 128-bit value
//     (TPC-H Q11's shape: the subquery's sum times a decimal, a two-word kernel parameter);
//   - division: sum / count(*), AVG, sum / 7.0 per group and of a single-tuple aggregate (Q8, Q17);
//   - MIN and MAX of 128-bit sums (past +-2^63, negative too): of a derived table, per group, and as
//     a scalar subquery compared for equality (TPC-H Q15's shape);
//   - ROUND of 128-bit sums to fewer digits, to tens, and exactly at halves (away from zero);
//   - integer arithmetic over an integer SUM (a 128-bit decimal of scale 0 without statistics);
//   - what has no device form yet is Unsupported, never a wrong answer.
// And: TPC-H Q8, Q11, Q15 and Q17 compile without data (no statistics: every decimal SUM is 128-bit, as
// in horseqc-compile) for CUDA (NVRTC) and OpenCL (built on PoCL).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "codegen/generate.h"
#include "frontend/sql/sql_frontend.h"
#include "ir/build_pipelines.h"
#include "ir/passes.h"
#include "ir/resolve_parameters.h"
#include "planner/statistics.h"
#include "runtime/device/backend.h"
#include "runtime/execution/executor.h"
#include "runtime/execution/lower_program.h"
#include "storage/catalog.h"
#include "storage/error.h"
#include "tests/codegen/run_devices.h"
#include "tests/templates/device_harness.h"
#include "tpch/benchmark_queries.h"

using namespace hqc;

namespace {

__extension__ typedef __int128 i128;  // GCC/Clang; __extension__ keeps -Wpedantic quiet
__extension__ typedef unsigned __int128 u128;

// w_v: decimal(18,2) close to its largest magnitude (about 9e15), so a group of 60 rows sums past
// 2^63 in its scaled representation; w_g: the group.
const char* kSchema = R"json({"name": "wide", "tables": [
  {"name": "w", "columns": [{"name": "w_id", "type": "int32"}, {"name": "w_g", "type": "int32"},
                            {"name": "w_v", "type": "decimal(18,2)"}],
   "primary_key": ["w_id"], "rows_at_sf1": 1000}]})json";

const Catalog& catalog() {
  static const Catalog c = Catalog::from_json(kSchema, "wide.json");
  return c;
}

constexpr int kGroups = 5;

struct Rows {
  std::vector<int32_t> id, g;
  std::vector<int64_t> v;  // scaled by 100
};

// Groups 0..2: about (g + 1) x 3e17 per row (positive, past 2^63 in sum); group 3: small values
// (its sum fits int64); group 4: about -9e17 per row (past -2^63).
const Rows& rows() {
  static const Rows r = [] {
    Rows r;
    for (int32_t i = 0; i < 300; ++i) {
      const int32_t g = i % kGroups;
      int64_t v = g < 3 ? (g + 1) * 300000000000000000LL - 1000LL * i - g : g == 3 ? (i * 7919) % 100000 - 40000 : -900000000000000000LL + i;
      r.id.push_back(i + 1);
      r.g.push_back(g);
      r.v.push_back(v);
    }
    return r;
  }();
  return r;
}

const Database& database() {
  static const Database db = [] {
    const Rows& r = rows();
    auto column = [](const std::string& name, DataType type) {
      Column c;
      c.name = name;
      c.type = type;
      return c;
    };
    Column id = column("w_id", DataType::int32()), g = column("w_g", DataType::int32()), v = column("w_v", DataType::decimal(18, 2));
    id.i32.assign(r.id.begin(), r.id.end());
    g.i32.assign(r.g.begin(), r.g.end());
    v.i64.assign(r.v.begin(), r.v.end());
    for (Column* c : {&id, &g, &v}) c->compute_stats();
    Table t;
    t.name = "w";
    t.rows = r.id.size();
    t.columns = {id, g, v};
    t.validate();
    Database db;
    db.tables["w"] = std::move(t);
    return db;
  }();
  return db;
}

// Per group: the exact sum (scaled by 100) and the row count.
std::map<int32_t, std::pair<i128, int64_t>> groups() {
  std::map<int32_t, std::pair<i128, int64_t>> out;
  const Rows& r = rows();
  for (size_t i = 0; i < r.id.size(); ++i) {
    out[r.g[i]].first += r.v[i];
    out[r.g[i]].second += 1;
  }
  return out;
}

i128 total() {
  i128 t = 0;
  for (const auto& [g, s] : groups()) t += s.first;
  return t;
}

using test::Device;
using test::devices;

using test::Config;
using test::kConfigs;

ir::Program compile(const std::string& sql, const Config& config) {
  planner::DatabaseStatistics stats(database());
  auto plan = std::make_shared<plan::LogicalPlan>(parse_sql(sql, "<wide>", catalog()));
  ir::BuildOptions options;
  options.model = config.model;
  options.stats = config.with_stats ? &stats : nullptr;
  ir::Program program = ir::build_program(plan, catalog(), options);
  ir::run_passes(program, ir::default_passes());
  return program;
}

runtime::Result run(const ir::Program& program, Device& device) {
  const codegen::GeneratedProgram generated = codegen::generate(program, device.dialect);
  const ir::ParamValues values = ir::resolve_parameters(program, database());
  const runtime::ExecutablePlan exec = runtime::lower_program(program, values, generated);
  runtime::Executor executor(*device.backend, nullptr);
  runtime::Execution e = executor.run(exec, database());
  e.result.validate();
  return std::move(e.result);
}

// Value r of an integer result column as the host's 128-bit integer (ints + highs).
i128 value(const runtime::ResultColumn& c, uint64_t r) {
  if (c.highs.empty()) return c.ints.at(r);
  return static_cast<i128>(static_cast<u128>(static_cast<uint64_t>(c.highs.at(r))) << 64 | static_cast<uint64_t>(c.ints.at(r)));
}

// A result row: each column exact (integers, 128-bit where needed) or a double.
struct Cell {
  bool is_float = false;
  i128 exact = 0;
  double approx = 0;
};
using Expected = std::vector<std::vector<Cell>>;
Cell exact(i128 v) { return {false, v, 0}; }
Cell approx(double v) { return {true, 0, v}; }

std::string text(i128 v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  u128 m = negative ? -static_cast<u128>(v) : static_cast<u128>(v);
  std::string s;
  for (; m > 0; m /= 10) s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(m % 10)));
  return negative ? "-" + s : s;
}

// Runs `sql` (ordered by its first column) under every configuration and device and compares.
void check(const std::string& sql, const Expected& expected) {
  REQUIRE(!expected.empty());
  for (const Config& config : kConfigs) {
    CAPTURE(sql);
    CAPTURE(ir::execution_model_name(config.model));
    CAPTURE(config.with_stats);
    const ir::Program program = compile(sql, config);
    if (&config == &kConfigs[0])  // NVRTC is slow: once per query (the CUDA device, where present, runs every one)
      CHECK(test::nvrtc_compile_log(codegen::generate(program, codegen::Dialect::Cuda).source, "sm_90") == "");
    for (Device& device : devices()) {
      CAPTURE(codegen::dialect_name(device.dialect));
      const runtime::Result result = run(program, device);
      REQUIRE(result.rows() == expected.size());
      for (uint64_t r = 0; r < result.rows(); ++r) {
        REQUIRE(result.columns.size() == expected[r].size());
        for (size_t c = 0; c < expected[r].size(); ++c) {
          CAPTURE(r);
          CAPTURE(c);
          const runtime::ResultColumn& col = result.columns[c];
          if (expected[r][c].is_float) {
            REQUIRE(!col.floats.empty());
            CHECK(col.floats.at(r) == doctest::Approx(expected[r][c].approx).epsilon(1e-12));
          } else {
            CHECK(text(value(col, r)) == text(expected[r][c].exact));
          }
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("the test data's sums leave 64 bits (groups 0, 1, 2 above 2^63, group 4 below -2^63, group 3 within)") {
  const auto g = groups();
  const i128 limit = static_cast<i128>(INT64_MAX);
  CHECK(g.at(0).first > limit);
  CHECK(g.at(2).first > limit);
  CHECK(g.at(4).first < -limit);
  CHECK(g.at(3).first < limit);
  CHECK(g.at(3).first > -limit);
  // With statistics the IR still chooses 128 bits: 300 rows x 9e17 exceeds int64.
  const ir::Program p = compile("select w_g, sum(w_v) from w group by w_g", {ir::ExecutionModel::Resolution, true});
  CHECK(p.aggregations.at(0).accumulators.at(0).wide);
}

TEST_CASE("an expression over a 128-bit sum: +, -, * by a decimal, a raised scale; a 128-bit result column") {
  Expected expected;
  for (const auto& [g, s] : groups()) {
    // x = 3S - S + 1.50 (scale 2); half = S * 0.5 (scale 3); plus = S + 0.001 (scale 3: S raised).
    expected.push_back({exact(g), exact(3 * s.first - s.first + 150), exact(s.first * 5), exact(s.first * 10 + 1)});
  }
  check("select w_g, sum(w_v) * 3 - sum(w_v) + 1.5 as x, sum(w_v) * 0.5 as half, sum(w_v) + 0.001 as plus "
        "from w group by w_g order by w_g",
        expected);
}

TEST_CASE("HAVING on a 128-bit sum: against a literal, and against a scalar subquery's 128-bit value (Q11's shape)") {
  Expected literal, subquery;
  const i128 threshold = total() * 5;  // sum(w_v) * 0.5: scale 3
  for (const auto& [g, s] : groups()) {
    if (s.first > 100000) literal.push_back({exact(g), exact(s.first)});
    if (s.first * 10 > threshold) subquery.push_back({exact(g), exact(s.first)});
  }
  REQUIRE(literal.size() >= 3);  // groups 0..2 (and 3 when its small sum passes); never group 4
  REQUIRE(literal.size() < kGroups);
  REQUIRE(subquery.size() == 2);  // groups 1 and 2
  check("select w_g, sum(w_v) as s from w group by w_g having sum(w_v) > 1000.00 order by w_g", literal);
  check("select w_g, sum(w_v) as s from w group by w_g having sum(w_v) > (select sum(w_v) * 0.5 from w) order by w_g", subquery);
  // The HAVING's own comparison between two 128-bit values of one group.
  Expected both;
  for (const auto& [g, s] : groups())
    if (s.first - 1 < s.first * 2) both.push_back({exact(g)});
  check("select w_g from w group by w_g having sum(w_v) - 0.01 < sum(w_v) * 2 order by w_g", both);
}

TEST_CASE("division over 128-bit sums: sum / count, AVG, sum / 7.0 per group and of a single-tuple aggregate (Q8, Q17)") {
  Expected grouped;
  for (const auto& [g, s] : groups()) {
    const double sum = static_cast<double>(s.first) / 100.0;
    grouped.push_back({exact(g), approx(sum / static_cast<double>(s.second)), approx(sum / static_cast<double>(s.second)), approx(sum / 7.0)});
  }
  check("select w_g, sum(w_v) / count(*) as mean, avg(w_v) as a, sum(w_v) / 7.0 as s7 from w group by w_g order by w_g", grouped);
  // Q8's share: the ratio of two 128-bit sums.
  Expected share;
  for (const auto& [g, s] : groups()) {
    i128 big = 0;
    const Rows& r = rows();
    for (size_t i = 0; i < r.id.size(); ++i)
      if (r.g[i] == g && r.id[i] > 150) big += r.v[i];
    share.push_back({exact(g), approx(static_cast<double>(big) / static_cast<double>(s.first))});
  }
  check("select w_g, sum(case when w_id > 150 then w_v else 0 end) / sum(w_v) as share from w group by w_g order by w_g", share);
  check("select sum(w_v) / 7.0 as x from w", {{approx(static_cast<double>(total()) / 100.0 / 7.0)}});
}

TEST_CASE("MIN and MAX of 128-bit sums: of a derived table, negative, per group, equal to a scalar subquery (Q15's shape)") {
  const auto g = groups();
  i128 max = g.at(0).first, min = g.at(0).first;
  for (const auto& [k, s] : g) {
    max = std::max(max, s.first);
    min = std::min(min, s.first);
  }
  REQUIRE(max == g.at(2).first);  // above 2^63
  REQUIRE(min == g.at(4).first);  // below -2^63
  const std::string sums = "(select w_g, sum(w_v) as s from w group by w_g) as t";
  // Both are 128-bit accumulators with a state word (the locked update), not 64-bit ones.
  const ir::Program p = compile("select max(s) as mx, min(s) as mn from " + sums, {ir::ExecutionModel::Resolution, true});
  for (const ir::Accumulator& a : p.aggregations.at(1).accumulators) {
    CHECK(a.wide);
    CHECK(!a.state_buffer.empty());
  }
  check("select max(s) as mx, min(s) as mn from " + sums, {{exact(max), exact(min)}});
  // Only the negative group: its MAX is negative; only the positive ones: MIN is the smallest of them.
  check("select max(s) as mx from " + sums + " where t.w_g = 4", {{exact(g.at(4).first)}});
  check("select min(s) as mn from " + sums + " where t.w_g < 3", {{exact(g.at(0).first)}});
  // Q15: the rows whose 128-bit sum equals the scalar subquery's MAX (MIN), a two-word parameter.
  const std::string with = "with r as (select w_g as k, sum(w_v) as s from w group by w_g) ";
  check(with + "select k, s from r where s = (select max(s) from r) order by k", {{exact(2), exact(max)}});
  check(with + "select k, s from r where s = (select min(s) from r) order by k", {{exact(4), exact(min)}});
  // Grouped: per w_g, the MAX and MIN of its sums over the two halves of w_id (30 rows each: past
  // 2^63 for groups 1 and 2, below -2^63 for group 4, within 64 bits for groups 0 and 3).
  std::map<std::pair<int32_t, int32_t>, i128> halves;
  const Rows& r = rows();
  for (size_t i = 0; i < r.id.size(); ++i) halves[{r.g[i], r.id[i] > 150 ? 1 : 0}] += r.v[i];
  REQUIRE(halves.at({1, 0}) > static_cast<i128>(INT64_MAX));
  REQUIRE(halves.at({4, 1}) < static_cast<i128>(INT64_MIN));
  Expected grouped;
  for (int32_t k = 0; k < kGroups; ++k) {
    const i128 a = halves.at({k, 0}), b = halves.at({k, 1});
    grouped.push_back({exact(k), exact(std::max(a, b)), exact(std::min(a, b))});
  }
  check("select gk, max(s) as mx, min(s) as mn from (select w_g as gk, case when w_id > 150 then 1 else 0 end as h, sum(w_v) as s from w "
        "group by w_g, case when w_id > 150 then 1 else 0 end) as t "
        "group by gk order by gk",
        grouped);
}

// v / d rounded half away from zero, the host's reference for ROUND.
i128 round_div(i128 v, i128 d) {
  const i128 q = v / d, r = v % d < 0 ? -(v % d) : v % d;
  return 2 * r >= d ? q + (v < 0 ? -1 : 1) : q;
}

TEST_CASE("ROUND of 128-bit sums: fewer digits, none, tens, and halves (away from zero, negative groups too)") {
  Expected expected;
  for (const auto& [g, s] : groups()) {
    // Every sum but group 3's ends in 0 (scaled by 100), so s + 0.05 rounds at exactly half a unit.
    expected.push_back({exact(g), exact(round_div(s.first, 10)), exact(round_div(s.first, 100)), exact(round_div(s.first, 100000) * 1000),
                        exact(round_div(s.first + 5, 10))});
  }
  check("select w_g, round(sum(w_v), 1) as r1, round(sum(w_v)) as r0, round(sum(w_v), -3) as rk, round(sum(w_v) + 0.05, 1) as half "
        "from w group by w_g order by w_g",
        expected);
}

TEST_CASE("integer arithmetic over an integer SUM that may leave 64 bits (128-bit without statistics) is exact") {
  Expected expected;
  const Rows& r = rows();
  std::map<int32_t, std::pair<i128, i128>> sums;  // sum(w_id), count(*)
  for (size_t i = 0; i < r.id.size(); ++i) {
    sums[r.g[i]].first += r.id[i];
    sums[r.g[i]].second += 1;
  }
  for (const auto& [g, s] : sums) expected.push_back({exact(g), exact(s.first + 1), exact(2 * s.first - s.second), exact(s.first * 3 - 7)});
  check("select w_g, sum(w_id) + 1 as a, 2 * sum(w_id) - count(*) as b, sum(w_id) * 3 - 7 as c from w group by w_g order by w_g", expected);
}

TEST_CASE("a 128-bit sum as a join's build-side payload (an aggregate joined on its key)") {
  Expected expected;
  const auto g = groups();
  const Rows& r = rows();
  for (size_t i = 0; i < r.id.size(); ++i)
    if (r.id[i] <= 12) expected.push_back({exact(r.id[i]), exact(g.at(r.g[i]).first), exact(g.at(r.g[i]).first - r.v[i])});
  check("select w_id, t.s, t.s - w_v as rest from w, (select w_g as k, sum(w_v) as s from w group by w_g) as t "
        "where w_g = t.k and w_id <= 12 order by w_id",
        expected);
}

TEST_CASE("constructs over 128-bit sums without a device form yet are Unsupported, naming them") {
  const Config config{ir::ExecutionModel::Resolution, false};
  auto message = [&](const std::string& sql) -> std::string {
    try {
      const ir::Program program = compile(sql, config);
      (void)codegen::generate(program, codegen::Dialect::OpenCL);
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::Unsupported);
      return e.what();
    }
    return "";
  };
  CHECK(message("select sum(s) from (select w_g, sum(w_v) as s from w group by w_g) as t").find("128-bit") != std::string::npos);
  CHECK(message("select w_g, sum(w_v) * sum(w_v) as sq from w group by w_g").find("product of two 128-bit") != std::string::npos);
  CHECK(message("select s, count(*) from (select w_g, sum(w_v) as s from w group by w_g) as t group by s").find("group key") !=
        std::string::npos);
}

TEST_CASE("TPC-H Q8, Q11, Q15, Q17 compile without statistics (128-bit sums in later stages): NVRTC and OpenCL") {
  const Catalog tpch = Catalog::tpch();
  test::OpenClDevice device;
  for (const char* q : {"q8", "q11", "q15", "q17"}) {
    CAPTURE(q);
    auto plan = std::make_shared<plan::LogicalPlan>(parse_sql(tpch::query_sql(q), q, tpch));
    for (auto model : {ir::ExecutionModel::Resolution, ir::ExecutionModel::Pipelined}) {
      ir::BuildOptions options;
      options.model = model;
      ir::Program program = ir::build_program(plan, tpch, options);
      ir::run_passes(program, ir::default_passes());
      bool wide_read = false;  // a later stage reads a 128-bit sum
      for (const ir::Pipeline& p : program.pipelines)
        for (const ir::AttributeBinding& b : p.attributes) wide_read = wide_read || ir::is_decimal128(b.attr.type);
      CHECK(wide_read);
      const codegen::GeneratedProgram cuda = codegen::generate(program, codegen::Dialect::Cuda);
      CHECK(cuda.kernels_source.find("hqc_i128") != std::string::npos);
      CHECK(test::nvrtc_compile_log(cuda.source, "sm_90") == "");
      CHECK(device.build_log(codegen::generate(program, codegen::Dialect::OpenCL).source) == "");
    }
  }
}

// Joins end to end on small hand-written tables: SQL (frontend/sql) → ir::build_program → passes →
// codegen::generate → runtime::Executor on the OpenCL device (PoCL here; CUDA too where present),
// under both execution models, with and without statistics. Every result is compared with a
// nested-loop computation over the same tables on the host. Covered:
//   - inner joins whose build keys repeat (every match is visited inside the compound kernel):
//     grouped and scalar aggregates, a materialized result with more rows than the probe side
//     (the output grows on overflow), two such probes nested in one pipeline;
//   - composite keys, unique (partsupp-like primary key) and not; computed keys;
//   - LEFT OUTER JOIN: unmatched probe rows once, COUNT(column) skipping their NULLs, a unique and
//     a non-unique build side;
//   - EXISTS / NOT EXISTS with a correlated `<>` (TPC-H Q21's shape): the residual is checked per
//     match;
//   - what stays Unsupported says so (NULL payload used other than by COUNT);
//   - the generated text of each join shape (golden files tests/codegen/golden/joins_*).
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "codegen/generate.h"
#include "frontend/sql/sql_frontend.h"
#include "ir/build_pipelines.h"
#include "ir/explain.h"
#include "ir/passes.h"
#include "ir/resolve_parameters.h"
#include "planner/statistics.h"
#include "runtime/device/backend.h"
#include "runtime/execution/executor.h"
#include "runtime/execution/lower_program.h"
#include "storage/catalog.h"
#include "storage/error.h"
#include "tests/codegen/run_devices.h"
#include "tests/codegen/golden.h"
#include "tests/templates/device_harness.h"

using namespace hqc;

namespace {

// f: the probe side (largest rows_at_sf1, so the SQL join tree starts there); d and e: build sides
// whose join keys repeat (0 to 4 rows per key, some keys absent); u: unique keys with gaps;
// ps: a composite primary key (ps_a, ps_b) like TPC-H partsupp.
const char* kSchema = R"({"name": "joins", "tables": [
  {"name": "f", "columns": [{"name": "f_id", "type": "int32"}, {"name": "f_k", "type": "int32"},
                            {"name": "f_g", "type": "int32"}, {"name": "f_v", "type": "int32"}],
   "primary_key": ["f_id"], "rows_at_sf1": 1000000},
  {"name": "d", "columns": [{"name": "d_id", "type": "int32"}, {"name": "d_k", "type": "int32"},
                            {"name": "d_k2", "type": "int32"}, {"name": "d_w", "type": "int32"}],
   "primary_key": ["d_id"], "rows_at_sf1": 1000},
  {"name": "e", "columns": [{"name": "e_id", "type": "int32"}, {"name": "e_k", "type": "int32"}, {"name": "e_w", "type": "int64"}],
   "primary_key": ["e_id"], "rows_at_sf1": 100},
  {"name": "u", "columns": [{"name": "u_id", "type": "int32"}, {"name": "u_w", "type": "int32"}],
   "primary_key": ["u_id"], "rows_at_sf1": 100},
  {"name": "ps", "columns": [{"name": "ps_a", "type": "int32"}, {"name": "ps_b", "type": "int32"}, {"name": "ps_w", "type": "int32"}],
   "primary_key": ["ps_a", "ps_b"], "rows_at_sf1": 1000}]})";

const Catalog& catalog() {
  static const Catalog c = Catalog::from_json(kSchema, "joins.json");
  return c;
}

Column int32_column(const std::string& name, std::vector<int32_t> values) {
  Column c;
  c.name = name;
  c.type = DataType::int32();
  c.i32.assign(values.begin(), values.end());
  c.compute_stats();
  return c;
}

Column int64_column(const std::string& name, std::vector<int64_t> values) {
  Column c;
  c.name = name;
  c.type = DataType::int64();
  c.i64.assign(values.begin(), values.end());
  c.compute_stats();
  return c;
}

// Host copies of the rows, for the nested-loop expectations.
struct Rows {
  std::vector<int32_t> f_id, f_k, f_g, f_v;
  std::vector<int32_t> d_id, d_k, d_k2, d_w;
  std::vector<int32_t> e_id, e_k;
  std::vector<int64_t> e_w;
  std::vector<int32_t> u_id, u_w;
  std::vector<int32_t> ps_a, ps_b, ps_w;
};

const Rows& rows() {
  static const Rows r = [] {
    Rows r;
    uint32_t x = 12345;
    auto next = [&x](uint32_t mod) {
      x = x * 1103515245u + 12345u;
      return static_cast<int32_t>((x >> 8) % mod);
    };
    // 3,000 probe rows over keys 0..199 (more than one tile and one block).
    for (int32_t i = 0; i < 3000; ++i) {
      r.f_id.push_back(i + 1);
      r.f_k.push_back(next(200));
      r.f_g.push_back(next(7));
      r.f_v.push_back(next(5));
    }
    // d: key k has k % 5 rows (keys 0, 5, 10, ... and >= 150 have none), d_k2 in 0..6, d_w in 0..4.
    int32_t id = 1;
    for (int32_t k = 0; k < 150; ++k)
      for (int32_t n = 0; n < k % 5; ++n) {
        r.d_id.push_back(id++);
        r.d_k.push_back(k);
        r.d_k2.push_back(next(7));
        r.d_w.push_back(next(5));
      }
    // e: group keys 0..6, 0 to 2 rows each.
    for (int32_t g = 0; g < 7; ++g)
      for (int32_t n = 0; n < g % 3; ++n) {
        r.e_id.push_back(static_cast<int32_t>(r.e_id.size()) + 1);
        r.e_k.push_back(g);
        r.e_w.push_back(1000 * g + n);
      }
    // u: every third key of 0..199.
    for (int32_t k = 0; k < 200; k += 3) {
      r.u_id.push_back(k);
      r.u_w.push_back(k * 2 + 1);
    }
    // ps: (a, b) for a in 0..199, b in 0..6 where (a + b) % 3 != 0: unique pairs, repeated a and b.
    for (int32_t a = 0; a < 200; ++a)
      for (int32_t b = 0; b < 7; ++b)
        if ((a + b) % 3 != 0) {
          r.ps_a.push_back(a);
          r.ps_b.push_back(b);
          r.ps_w.push_back(a * 10 + b);
        }
    return r;
  }();
  return r;
}

const Database& database() {
  static const Database db = [] {
    const Rows& r = rows();
    Database db;
    auto add = [&db](const std::string& name, std::vector<Column> cols) {
      Table t;
      t.name = name;
      t.rows = cols.front().size();
      t.columns = std::move(cols);
      t.validate();
      db.tables[name] = std::move(t);
    };
    add("f", {int32_column("f_id", r.f_id), int32_column("f_k", r.f_k), int32_column("f_g", r.f_g), int32_column("f_v", r.f_v)});
    add("d", {int32_column("d_id", r.d_id), int32_column("d_k", r.d_k), int32_column("d_k2", r.d_k2), int32_column("d_w", r.d_w)});
    add("e", {int32_column("e_id", r.e_id), int32_column("e_k", r.e_k), int64_column("e_w", r.e_w)});
    add("u", {int32_column("u_id", r.u_id), int32_column("u_w", r.u_w)});
    add("ps", {int32_column("ps_a", r.ps_a), int32_column("ps_b", r.ps_b), int32_column("ps_w", r.ps_w)});
    return db;
  }();
  return db;
}

using test::Device;
using test::devices;

using test::Config;
using test::kConfigs;

struct Run {
  codegen::GeneratedProgram generated;
  runtime::Execution execution;
};

// With `explicit_nulls` false, the plan's left outer joins are made to leave their NULLs to the code
// generator (as a JSON plan's do), which refuses any use but COUNT and result columns.
Run run_sql(const std::string& sql, const Config& config, Device& device, bool explicit_nulls = true) {
  const Database& db = database();
  planner::DatabaseStatistics stats(db);
  auto plan = std::make_shared<plan::LogicalPlan>(parse_sql(sql, "<joins>", catalog()));
  if (!explicit_nulls) {
    std::vector<plan::LogicalOp*> stack = {plan->root.get()};
    while (!stack.empty()) {
      plan::LogicalOp* op = stack.back();
      stack.pop_back();
      op->explicit_nulls = false;
      for (auto& c : op->children) stack.push_back(c.get());
    }
  }
  ir::BuildOptions options;
  options.model = config.model;
  options.stats = config.with_stats ? &stats : nullptr;
  ir::Program program = ir::build_program(plan, catalog(), options);
  ir::run_passes(program, ir::default_passes());
  Run r;
  r.generated = codegen::generate(program, device.dialect);
  const ir::ParamValues values = ir::resolve_parameters(program, db);
  const runtime::ExecutablePlan exec = runtime::lower_program(program, values, r.generated);
  runtime::Executor executor(*device.backend, nullptr);
  r.execution = executor.run(exec, db);
  r.execution.result.validate();
  return r;
}

using Table2 = std::vector<std::vector<int64_t>>;  // rows of integer columns

// The result's integer columns, row by row, sorted (for results without ORDER BY).
Table2 result_rows(const runtime::Result& res, bool sort) {
  Table2 out(res.rows());
  for (uint64_t r = 0; r < res.rows(); ++r)
    for (const runtime::ResultColumn& c : res.columns) out[r].push_back(c.ints.at(r));
  if (sort) std::sort(out.begin(), out.end());
  return out;
}

// Runs `sql` on every device and configuration and compares with `expected` (sorted unless the
// query orders its result).
void check(const std::string& sql, Table2 expected, bool ordered, const char* must_contain = nullptr) {
  if (!ordered) std::sort(expected.begin(), expected.end());
  REQUIRE(!expected.empty());
  for (Device& device : devices()) {
    for (const Config& config : kConfigs) {
      CAPTURE(sql);
      CAPTURE(ir::execution_model_name(config.model));
      CAPTURE(config.with_stats);
      Run run = run_sql(sql, config, device);
      if (must_contain) CHECK(run.generated.kernels_source.find(must_contain) != std::string::npos);
      CHECK(result_rows(run.execution.result, !ordered) == expected);
    }
  }
}

}  // namespace

TEST_CASE("inner join on a repeated build key visits every match (grouped, scalar, nested)") {
  const Rows& r = rows();
  SUBCASE("grouped: count and sum per probe group") {
    std::map<int64_t, std::pair<int64_t, int64_t>> g;
    for (size_t i = 0; i < r.f_id.size(); ++i)
      for (size_t j = 0; j < r.d_id.size(); ++j)
        if (r.f_k[i] == r.d_k[j]) {
          g[r.f_g[i]].first += 1;
          g[r.f_g[i]].second += r.d_w[j];
        }
    Table2 expected;
    for (const auto& [k, v] : g) expected.push_back({k, v.first, v.second});
    check("select f_g, count(*) as n, sum(d_w) as s from f, d where f_k = d_k group by f_g order by f_g", expected, true,
          "hqc_ch_next(");
  }
  SUBCASE("a build side whose rows match several times (linear probing: one slot per inserted tuple)") {
    int64_t n = 0, s = 0;
    for (size_t i = 0; i < r.f_id.size(); ++i)
      for (size_t j = 0; j < r.d_id.size(); ++j)
        for (size_t k = 0; k < r.e_id.size(); ++k)
          if (r.d_w[j] == r.e_k[k] && r.f_k[i] == r.d_k[j]) {
            n += 1;
            s += r.e_w[k];
          }
    check("select count(*) as n, sum(x.e_w) as s from f join (select d_k, e_w from d join e on d_w = e_k) x on f_k = x.d_k", {{n, s}},
          true, "hqc_oa_next_i32");
  }
  SUBCASE("two repeated-key probes nested in one pipeline, with a filter between them") {
    int64_t n = 0, s = 0;
    for (size_t i = 0; i < r.f_id.size(); ++i)
      for (size_t j = 0; j < r.d_id.size(); ++j)
        if (r.f_k[i] == r.d_k[j] && r.d_w[j] != 2)
          for (size_t k = 0; k < r.e_id.size(); ++k)
            if (r.f_g[i] == r.e_k[k]) {
              n += 1;
              s += r.e_w[k] + r.d_w[j];
            }
    check("select count(*) as n, sum(e_w + d_w) as s from f, d, e where f_k = d_k and f_g = e_k and d_w <> 2", {{n, s}}, true);
  }
}

TEST_CASE("a materialized inner join with more rows than its probe side grows its output") {
  const Rows& r = rows();
  Table2 expected;
  for (size_t i = 0; i < r.f_id.size(); ++i)
    for (size_t j = 0; j < r.d_id.size(); ++j)
      if (r.f_k[i] == r.d_k[j]) expected.push_back({r.f_id[i], r.d_id[j], r.d_w[j]});
  REQUIRE(expected.size() > r.f_id.size());  // more rows than the first capacity estimate
  check("select f_id, d_id, d_w from f, d where f_k = d_k", expected, false);
  // The resolution model's A3 scan runs inside the match loop: the loop condition is CTA-wide.
  Run run = run_sql("select f_id, d_id, d_w from f, d where f_k = d_k", kConfigs[0], devices()[0]);
  CHECK(run.generated.kernels_source.find("hqc_cta_any(") != std::string::npos);
  // The write counter reserved a position for every row, also past the capacity: the re-run is
  // sized from it, so one rebuild is enough however far off the estimate was.
  CHECK(run.execution.stats.rebuilds == 1);
}

TEST_CASE("composite join keys: unique (primary key) and repeated") {
  const Rows& r = rows();
  SUBCASE("(f_k, f_g) = (ps_a, ps_b): the primary key of ps, one match at most") {
    int64_t n = 0, s = 0;
    for (size_t i = 0; i < r.f_id.size(); ++i)
      for (size_t j = 0; j < r.ps_a.size(); ++j)
        if (r.f_k[i] == r.ps_a[j] && r.f_g[i] == r.ps_b[j]) {
          n += 1;
          s += r.ps_w[j];
        }
    check("select count(*) as n, sum(ps_w) as s from f join ps on f_k = ps_a and f_g = ps_b", {{n, s}}, true, "hqc_hash_combine");
  }
  SUBCASE("(f_k, f_g) = (d_k, d_k2): repeated pairs") {
    std::map<int64_t, int64_t> g;
    for (size_t i = 0; i < r.f_id.size(); ++i)
      for (size_t j = 0; j < r.d_id.size(); ++j)
        if (r.f_k[i] == r.d_k[j] && r.f_g[i] == r.d_k2[j]) g[r.f_v[i]] += r.d_w[j] + 1;
    Table2 expected;
    for (const auto& [k, v] : g) expected.push_back({k, v});
    check("select f_v, sum(d_w + 1) as s from f, d where f_k = d_k and d_k2 = f_g group by f_v order by f_v", expected, true);
  }
}

TEST_CASE("computed join keys: expressions on the probe and on the build side") {
  const Rows& r = rows();
  SUBCASE("f_k + 1 = d_k * 2: a computed key on each side, repeated build keys") {
    int64_t n = 0, s = 0;
    for (size_t i = 0; i < r.f_id.size(); ++i)
      for (size_t j = 0; j < r.d_id.size(); ++j)
        if (r.f_k[i] + 1 == r.d_k[j] * 2) {
          n += 1;
          s += r.d_w[j];
        }
    check("select count(*) as n, sum(d_w) as s from f, d where f_k + 1 = d_k * 2", {{n, s}}, true);
  }
  SUBCASE("(f_k + 1, f_g) = (ps_a, ps_b): computed probe key against a composite primary key") {
    int64_t n = 0, s = 0;
    for (size_t i = 0; i < r.f_id.size(); ++i)
      for (size_t j = 0; j < r.ps_a.size(); ++j)
        if (r.f_k[i] + 1 == r.ps_a[j] && r.f_g[i] == r.ps_b[j]) {
          n += 1;
          s += r.ps_w[j];
        }
    check("select count(*) as n, sum(ps_w) as s from f, ps where f_k + 1 = ps_a and f_g = ps_b", {{n, s}}, true);
  }
}

TEST_CASE("LEFT OUTER JOIN keeps unmatched probe rows once; COUNT(column) skips their NULLs") {
  const Rows& r = rows();
  SUBCASE("repeated build keys, ON filter on the build side, grouped") {
    std::map<int64_t, std::pair<int64_t, int64_t>> g;  // f_g -> (rows, matched)
    for (size_t i = 0; i < r.f_id.size(); ++i) {
      int64_t m = 0;
      for (size_t j = 0; j < r.d_id.size(); ++j)
        if (r.f_k[i] == r.d_k[j] && r.d_w[j] > 1) ++m;
      g[r.f_g[i]].first += std::max<int64_t>(m, 1);
      g[r.f_g[i]].second += m;
    }
    Table2 expected;
    for (const auto& [k, v] : g) expected.push_back({k, v.first, v.second});
    check("select f_g, count(*) as n, count(d_id) as m from f left outer join d on f_k = d_k and d_w > 1 group by f_g order by f_g",
          expected, true, "first_op");
  }
  SUBCASE("per probe row (hashed groups), like TPC-H Q13's inner query") {
    std::map<int64_t, int64_t> c;
    for (size_t i = 0; i < r.f_id.size(); ++i) {
      c[r.f_id[i]] += 0;
      for (size_t j = 0; j < r.d_id.size(); ++j)
        if (r.f_k[i] == r.d_k[j]) ++c[r.f_id[i]];
    }
    Table2 expected;
    for (const auto& [k, v] : c) expected.push_back({k, v});
    check("select f_id, count(d_id) as c from f left outer join d on f_k = d_k group by f_id", expected, false);
  }
  SUBCASE("unique build keys with gaps") {
    int64_t n = 0, m = 0;
    std::set<int32_t> keys(r.u_id.begin(), r.u_id.end());
    for (size_t i = 0; i < r.f_id.size(); ++i) {
      ++n;
      m += keys.count(r.f_k[i]);
    }
    REQUIRE(m < n);
    check("select count(*) as n, count(u_w) as m from f left outer join u on f_k = u_id", {{n, m}}, true);
  }
  SUBCASE("as rows: a probe row without a match once, its build columns NULL") {
    Table2 expected;  // (f_id, d_id, d_w); NULL as -1 (no d_id or d_w is negative)
    for (size_t i = 0; i < r.f_id.size(); ++i) {
      bool any = false;
      for (size_t j = 0; j < r.d_id.size(); ++j)
        if (r.f_k[i] == r.d_k[j] && r.d_k2[j] < 3) {
          expected.push_back({r.f_id[i], r.d_id[j], r.d_w[j]});
          any = true;
        }
      if (!any) expected.push_back({r.f_id[i], -1, -1});
    }
    std::sort(expected.begin(), expected.end());
    for (Device& device : devices()) {
      for (const Config& config : kConfigs) {
        CAPTURE(ir::execution_model_name(config.model));
        CAPTURE(config.with_stats);
        Run run = run_sql("select f_id, d_id, d_w from f left outer join d on f_k = d_k and d_k2 < 3", config, device);
        const runtime::Result& res = run.execution.result;
        Table2 got(res.rows());
        for (uint64_t row = 0; row < res.rows(); ++row)
          for (const runtime::ResultColumn& c : res.columns)
            got[row].push_back(!c.valid.empty() && c.valid[row] == 0 ? -1 : c.ints.at(row));
        CHECK(res.columns[0].valid.empty());  // the probe side is never NULL
        std::sort(got.begin(), got.end());
        CHECK(got == expected);
      }
    }
  }
  SUBCASE("NULL payload in expressions and aggregates: SQL's NULL semantics (the binder's explicit NULLs)") {
    int64_t sum = 0;
    Table2 expected;  // (f_id, d_w + 1), NULL as -1
    for (size_t i = 0; i < r.f_id.size(); ++i) {
      bool any = false;
      for (size_t j = 0; j < r.d_id.size(); ++j)
        if (r.f_k[i] == r.d_k[j]) {
          sum += r.d_w[j];
          expected.push_back({r.f_id[i], r.d_w[j] + 1});
          any = true;
        }
      if (!any) expected.push_back({r.f_id[i], -1});
    }
    std::sort(expected.begin(), expected.end());
    check("select sum(d_w) as s from f left outer join d on f_k = d_k", {{sum}}, true);
    Run run = run_sql("select f_id, d_w + 1 as x from f left outer join d on f_k = d_k", kConfigs[0], devices()[0]);
    const runtime::Result& res = run.execution.result;
    Table2 got(res.rows());
    for (uint64_t row = 0; row < res.rows(); ++row)
      for (const runtime::ResultColumn& c : res.columns) got[row].push_back(c.is_null(row) ? -1 : c.ints.at(row));
    std::sort(got.begin(), got.end());
    CHECK(got == expected);
  }
  SUBCASE("without explicit NULLs (a JSON plan's left_outer), NULL payload used other than by COUNT or as a result column is Unsupported") {
    for (const char* sql : {"select sum(d_w) as s from f left outer join d on f_k = d_k",
                            "select f_id, d_w + 1 as x from f left outer join d on f_k = d_k"}) {
      CAPTURE(sql);
      try {
        run_sql(sql, kConfigs[0], devices()[0], /*explicit_nulls=*/false);
        FAIL("expected Unsupported");
      } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::Unsupported);
        CHECK(std::string(e.what()).find("NULL") != std::string::npos);
      }
    }
  }
}

TEST_CASE("EXISTS / NOT EXISTS on a composite key (every build row kept, first full match counts)") {
  const Rows& r = rows();
  for (bool negated : {false, true}) {
    CAPTURE(negated);
    int64_t n = 0, s = 0;
    for (size_t i = 0; i < r.f_id.size(); ++i) {
      bool found = false;
      for (size_t j = 0; j < r.d_id.size(); ++j)
        if (r.d_k[j] == r.f_k[i] && r.d_k2[j] == r.f_g[i]) found = true;
      if (found != negated) {
        ++n;
        s += r.f_v[i];
      }
    }
    std::string sql = std::string("select count(*) as n, sum(f_v) as s from f where ") + (negated ? "not " : "") +
                      "exists (select * from d where d_k = f_k and d_k2 = f_g)";
    check(sql, {{n, s}}, true, "hqc_hash_combine");
  }
}

TEST_CASE("EXISTS / NOT EXISTS with a correlated <>: the residual is checked per match") {
  const Rows& r = rows();
  for (bool negated : {false, true}) {
    CAPTURE(negated);
    int64_t n = 0, s = 0;
    for (size_t i = 0; i < r.f_id.size(); ++i) {
      bool found = false;
      for (size_t j = 0; j < r.d_id.size(); ++j)
        if (r.d_k[j] == r.f_k[i] && r.d_w[j] != r.f_v[i] && r.d_k2[j] > 1) found = true;
      if (found != negated) {
        ++n;
        s += r.f_id[i];
      }
    }
    std::string sql = std::string("select count(*) as n, sum(f_id) as s from f where ") + (negated ? "not " : "") +
                      "exists (select * from d where d_k = f_k and d_w <> f_v and d_k2 > 1)";
    check(sql, {{n, s}}, true, "found_op");
  }
}

TEST_CASE("golden: the generated text of each join shape (OpenCL, both models); the CUDA text compiles") {
  const std::pair<const char*, const char*> shapes[] = {
      {"joins_match_loop_materialize", "select f_id, d_id, d_w from f, d where f_k = d_k"},
      {"joins_nested_match_loops", "select count(*) as n, sum(e_w + d_w) as s from f, d, e where f_k = d_k and f_g = e_k and d_w <> 2"},
      {"joins_composite_keys", "select count(*) as n, sum(ps_w) as s from f join ps on f_k = ps_a and f_g = ps_b"},
      {"joins_left_outer", "select f_g, count(*) as n, count(d_id) as m from f left outer join d on f_k = d_k and d_w > 1 group by f_g"},
      {"joins_semi_residual", "select count(*) as n from f where exists (select * from d where d_k = f_k and d_w <> f_v)"}};
  for (const auto& shape : shapes) {  // not a structured binding: CAPTURE's lambda cannot take one in clang 14
    const char* name = shape.first;
    const char* sql = shape.second;
    for (ir::ExecutionModel model : {ir::ExecutionModel::Resolution, ir::ExecutionModel::Pipelined}) {
      CAPTURE(name);
      auto plan = std::make_shared<plan::LogicalPlan>(parse_sql(sql, std::string(name) + ".sql", catalog()));
      ir::BuildOptions options;
      options.model = model;
      ir::Program program = ir::build_program(plan, catalog(), options);
      ir::run_passes(program, ir::default_passes());
      test::check_golden(std::string(name) + "." + ir::execution_model_name(model), codegen::generate(program, codegen::Dialect::OpenCL));
      // The CUDA text of the same program compiles with NVRTC (no GPU needed).
      const std::string cuda = codegen::generate(program, codegen::Dialect::Cuda).source;
      CHECK(test::nvrtc_compile_log(cuda, "sm_90") == "");
      CHECK(test::nvrtc_compile_log(cuda, test::nvrtc_oldest_architecture()) == "");
    }
  }
}

// C2 GROUP BYs on CUDA combine runs of one group in neighbouring lanes (device/warp_groups.cuh) —
// only where a group key is a column the statistics show sorted in scan order (d_k, ps_a here; f_g
// is not), only where every lane of a warp reaches the sink together (never inside a match loop),
// and only under the resolution model (the pipelined model is one atomic per tuple by definition).
// OpenCL has no SIMD level. No scratchpad budget: every grouped aggregate runs C2.
namespace {

// `sql` over database() compiled with its statistics under `model` (all passes run).
ir::Program program_with_stats(const char* sql, ir::ExecutionModel model, const planner::Statistics& stats,
                               std::optional<uint64_t> scratchpad_budget = std::nullopt) {
  auto plan = std::make_shared<plan::LogicalPlan>(parse_sql(sql, "<joins>", catalog()));
  ir::BuildOptions options;
  options.model = model;
  options.stats = &stats;
  if (scratchpad_budget) options.scratchpad_budget_bytes = *scratchpad_budget;
  ir::Program program = ir::build_program(plan, catalog(), options);
  ir::run_passes(program, ir::default_passes());
  return program;
}

// body(model, dialect) for both fused models and both dialects, with the query, model and dialect
// captured for failure messages (the warp collectives' tests: each expects its technique only where
// the model, the dialect and the query's shape allow it).
template <typename Body>
void for_each_model_and_dialect(const char* sql, Body body) {
  for (ir::ExecutionModel model : {ir::ExecutionModel::Resolution, ir::ExecutionModel::Pipelined}) {
    for (codegen::Dialect dialect : {codegen::Dialect::Cuda, codegen::Dialect::OpenCL}) {
      CAPTURE(sql);
      CAPTURE(ir::execution_model_name(model));
      CAPTURE(codegen::dialect_name(dialect));
      body(model, dialect);
    }
  }
}

// `sql`, one GROUP BY over a direct-indexed table, generated for `dialect` with `stats`.
codegen::GeneratedProgram direct_table_program(const char* sql, ir::ExecutionModel model, codegen::Dialect dialect,
                                               const planner::Statistics& stats) {
  ir::Program program = program_with_stats(sql, model, stats);
  REQUIRE(program.aggregations.size() == 1);
  CHECK(program.aggregations[0].layout == ir::AggLayout::DirectIndexed);
  return codegen::generate(program, dialect);
}

// The rows of "select f_g, count(*), sum(f_v), min(f_v), max(f_v) from f group by f_g", from the data.
Table2 f_g_count_sum_min_max() {
  const Rows& r = rows();
  std::map<int64_t, std::vector<int64_t>> groups;
  for (size_t i = 0; i < r.f_id.size(); ++i) {
    auto [it, fresh] = groups.try_emplace(r.f_g[i], std::vector<int64_t>{r.f_g[i], 0, 0, r.f_v[i], r.f_v[i]});
    it->second[1] += 1;
    it->second[2] += r.f_v[i];
    it->second[3] = std::min<int64_t>(it->second[3], r.f_v[i]);
    it->second[4] = std::max<int64_t>(it->second[4], r.f_v[i]);
  }
  Table2 out;
  for (const auto& [k, v] : groups) out.push_back(v);
  return out;
}

}  // namespace

TEST_CASE("C3 GROUP BY over a few slots: each work-item keeps them in registers without warps (OpenCL), outside probes") {
  struct Shape {
    const char* sql;
    bool registers;  // expected on OpenCL under the resolution model
  };
  const Shape shapes[] = {
      // f_g: 7 values, so 7 slots; COUNT, SUM, MIN, MAX of integers: 28 words.
      {"select f_g, count(*) as n, sum(f_v) as s, min(f_v) as lo, max(f_v) as hi from f group by f_g", true},
      // A SUM of doubles.
      {"select f_g, count(*) as n, sum(cast(f_v as double precision)) as h from f group by f_g", true},
      // Behind a probe: the registers would cost the probe's loads in flight.
      {"select d_k2, count(*) as n from f, d where f_k = d_k group by d_k2", false},
      // f_g x f_v: 35 slots, above kThreadSlots (16).
      {"select f_g, f_v, count(*) as n from f group by f_g, f_v", false},
      // Six distinct accumulators over 7 slots: 42 words, above kThreadSlotWords (40).
      {"select f_g, count(*) as n, sum(f_v) as s, min(f_v) as lo, max(f_v) as hi, sum(f_k) as sk, min(f_k) as lk "
       "from f group by f_g",
       false},
  };
  const planner::DatabaseStatistics stats(database());
  for (const Shape& shape : shapes) {
    for_each_model_and_dialect(shape.sql, [&](ir::ExecutionModel model, codegen::Dialect dialect) {
      const codegen::GeneratedProgram g = direct_table_program(shape.sql, model, dialect, stats);
      const bool expected = shape.registers && model == ir::ExecutionModel::Resolution && dialect == codegen::Dialect::OpenCL;
      CHECK((g.kernels_source.find("hqc_i64 r_agg0_") != std::string::npos) == expected);
      CHECK((g.kernels_source.find("hqc_gb_thread_merge_sum_i64(s_agg0_") != std::string::npos) == expected);
    });
  }
  // The rows, on every device and configuration (OpenCL runs the registers' path).
  const Rows& r = rows();
  std::map<int64_t, std::vector<int64_t>> groups;  // f_g -> count, sum, min, max, sum(f_k), min(f_k)
  for (size_t i = 0; i < r.f_id.size(); ++i) {
    auto [it, fresh] = groups.try_emplace(r.f_g[i], std::vector<int64_t>{0, 0, r.f_v[i], r.f_v[i], 0, r.f_k[i]});
    std::vector<int64_t>& v = it->second;
    v[0] += 1;
    v[1] += r.f_v[i];
    v[2] = std::min<int64_t>(v[2], r.f_v[i]);
    v[3] = std::max<int64_t>(v[3], r.f_v[i]);
    v[4] += r.f_k[i];
    v[5] = std::min<int64_t>(v[5], r.f_k[i]);
  }
  Table2 four, six;
  for (const auto& [k, v] : groups) {
    four.push_back({k, v[0], v[1], v[2], v[3]});
    six.push_back({k, v[0], v[1], v[2], v[3], v[4], v[5]});
  }
  check(shapes[0].sql, four, false);
  check(shapes[4].sql, six, false);
  std::map<int64_t, int64_t> matches;  // d_k2 -> f x d rows with f_k = d_k
  for (size_t i = 0; i < r.f_id.size(); ++i)
    for (size_t j = 0; j < r.d_id.size(); ++j)
      if (r.f_k[i] == r.d_k[j]) ++matches[r.d_k2[j]];
  Table2 counted;
  for (const auto& [k, n] : matches) counted.push_back({k, n});
  check(shapes[2].sql, counted, false);
}

TEST_CASE("C3 GROUP BY in registers: slots past the statistics' (other data than the kernel was compiled for) take the CTA's table") {
  // Compiled against statistics in which f_g has 4 values (0..3: 4 slots in registers), run on the
  // data, where it has 7: groups 4..6 go through the scratchpad table and its flush.
  Database fewer = database();
  Column& f_g = fewer.tables.at("f").columns[2];
  REQUIRE(f_g.name == "f_g");
  for (int32_t& v : f_g.i32) v %= 4;
  f_g.compute_stats();
  const planner::DatabaseStatistics stats(fewer);
  const char* sql = "select f_g, count(*) as n, sum(f_v) as s, min(f_v) as lo, max(f_v) as hi from f group by f_g";
  const Table2 expected = f_g_count_sum_min_max();
  REQUIRE(expected.size() == 7);
  for (Device& device : devices()) {
    ir::Program program = program_with_stats(sql, ir::ExecutionModel::Resolution, stats);
    REQUIRE(program.aggregations.size() == 1);
    CHECK(program.aggregations[0].expected_slots == 4);
    const codegen::GeneratedProgram generated = codegen::generate(program, device.dialect);
    CHECK(generated.kernels_source.find("hqc_i64 r_agg0_n[4]") != std::string::npos);
    const ir::ParamValues values = ir::resolve_parameters(program, database());
    const runtime::ExecutablePlan exec = runtime::lower_program(program, values, generated);
    runtime::Executor executor(*device.backend, nullptr);
    runtime::Execution run = executor.run(exec, database());
    run.result.validate();
    CHECK(result_rows(run.result, true) == expected);
  }
}

TEST_CASE("C3 GROUP BY over a few slots: a warp combines its lanes per group on CUDA, resolution model only") {
  struct Shape {
    const char* sql;
    bool few;     // expected on CUDA under the resolution model
    bool copies;  // ... with each warp's own copy of the slots (64-bit integer accumulators only)
  };
  const Shape shapes[] = {
      // f_g: 7 values, so 7 slots; SUM, COUNT, MIN, MAX of integers.
      {"select f_g, count(*) as n, sum(f_v) as s, min(f_v) as lo, max(f_v) as hi from f group by f_g", true, true},
      // A SUM of doubles: the warp combines, the CTA's table takes its totals.
      {"select f_g, count(*) as n, sum(cast(f_v as double precision)) as h from f group by f_g", true, false},
      // f_g x f_v: 35 slots, above kWarpGroupSlots (16).
      {"select f_g, f_v, count(*) as n from f group by f_g, f_v", false, false},
      // d_k2 in a match loop (several d rows per f row): lanes leave the warp's step.
      {"select d_k2, count(*) as n from f, d where f_k = d_k group by d_k2", false, false},
  };
  const planner::DatabaseStatistics stats(database());
  for (const Shape& shape : shapes) {
    for_each_model_and_dialect(shape.sql, [&](ir::ExecutionModel model, codegen::Dialect dialect) {
      const codegen::GeneratedProgram g = direct_table_program(shape.sql, model, dialect, stats);
      const bool expected = shape.few && model == ir::ExecutionModel::Resolution && dialect == codegen::Dialect::Cuda;
      const bool copies = expected && shape.copies;
      bool c3 = false;
      for (const codegen::KernelManifest& k : g.kernels) {
        for (const codegen::ManifestReduction& r : k.reductions) {
          if (r.technique != ir::Technique::C3) continue;
          c3 = true;
          if (expected) CHECK(k.block_size_multiple == 32);
          // The copies are sized per thread: 7 slots x 4 distinct accumulators (COUNT, SUM, MIN,
          // MAX) = 28 words a warp, 7 bytes a thread.
          if (copies) CHECK(k.scratch.bytes_per_thread == 7);
          if (expected && !copies) CHECK(k.scratch.bytes_per_thread == 0);
        }
      }
      if (model == ir::ExecutionModel::Resolution && shape.few) CHECK(c3);
      if (dialect == codegen::Dialect::Cuda) CHECK(g.kernels_source.find("hqc_gb_thread_merge_sum_i64(s_") == std::string::npos);
      CHECK((g.kernels_source.find("hqc_warp_group_of(") != std::string::npos) == expected);
      CHECK((g.kernels_source.find("hqc_gb_warp_sum_i64(w_") != std::string::npos) == copies);
      CHECK((g.kernels_source.find("hqc_gb_warp_merge_max_i64(") != std::string::npos) == copies);
      if (expected) CHECK(test::nvrtc_compile_log(g.source, "sm_90") == "");
      if (copies) CHECK(test::nvrtc_compile_log(g.source, "sm_75") == "");
    });
  }
}

// Several tiles per iteration (SinkEmitter::tiles_per_iteration, sink_emitter.cpp's kRegisterTiles,
// kWarpGroupTiles, kThreadSlotTiles): B3 on CUDA takes 4, the few-groups path with warp copies 2, the
// thread slots in registers (OpenCL) 4, everything else 1; only kernels over several tiles use the
// flat loads. f's 3,000 rows end in a partial block of tiles on PoCL, which runs the thread slots'.
TEST_CASE("several tiles per iteration: B3 and the few-groups path on CUDA, the thread slots on OpenCL; flat loads only there") {
  struct Shape {
    const char* sql;
    uint32_t cuda_tiles;    // under the resolution model
    uint32_t opencl_tiles;  // under the resolution model
  };
  const Shape shapes[] = {
      {"select sum(f_v) as s, count(*) as n from f where f_k > 20 and f_g <> 3", 4, 1},
      {"select f_g, count(*) as n, sum(f_v) as s, min(f_v) as lo, max(f_v) as hi from f group by f_g", 2, 4},
      {"select f_id, f_v from f where f_k > 150", 1, 1},
      {"select f_g, f_v, count(*) as n from f group by f_g, f_v", 1, 1},
  };
  const planner::DatabaseStatistics stats(database());
  for (const Shape& shape : shapes) {
    for_each_model_and_dialect(shape.sql, [&](ir::ExecutionModel model, codegen::Dialect dialect) {
      const codegen::GeneratedProgram g = codegen::generate(program_with_stats(shape.sql, model, stats), dialect);
      // The pipelined model: one atomic per tuple, one tile per iteration.
      const uint32_t tiles = model == ir::ExecutionModel::Pipelined ? 1
                             : dialect == codegen::Dialect::Cuda    ? shape.cuda_tiles
                                                                    : shape.opencl_tiles;
      const std::string frame = "tile_block = hqc_tile_first() * " + std::to_string(tiles) + ";";
      CHECK((g.kernels_source.find(frame) != std::string::npos) == (tiles > 1));
      CHECK((g.kernels_source.find("tile_block") != std::string::npos) == (tiles > 1));
      CHECK((g.kernels_source.find("hqc_flat_load_") != std::string::npos) == (tiles > 1));
      CHECK((g.kernels_source.find("hqc_load_i") != std::string::npos) == (tiles == 1));
      const bool kept = tiles > 1 && dialect == codegen::Dialect::Cuda && shape.cuda_tiles == 2;
      CHECK((g.kernels_source.find("hqc_i64 tg_agg0[2];") != std::string::npos) == kept);
      CHECK((g.kernels_source.find("hqc_warp_group_count_rows(hits_agg0)") != std::string::npos) == kept);
      if (dialect == codegen::Dialect::Cuda && tiles > 1) {
        CHECK(test::nvrtc_compile_log(g.source, "sm_90") == "");
        CHECK(test::nvrtc_compile_log(g.source, test::nvrtc_oldest_architecture()) == "");
      }
    });
  }
  // The rows on every device and configuration.
  const Rows& r = rows();
  int64_t sum = 0, count = 0;
  for (size_t i = 0; i < r.f_id.size(); ++i)
    if (r.f_k[i] > 20 && r.f_g[i] != 3) sum += r.f_v[i], ++count;
  check(shapes[0].sql, {{sum, count}}, true);
  check(shapes[1].sql, f_g_count_sum_min_max(), false);
}

TEST_CASE("C2 GROUP BY: warp runs on CUDA over a sorted key, outside match loops, resolution model only") {
  struct Shape {
    const char* sql;
    bool sorted_key;  // expected in the IR
    bool runs;        // expected on CUDA under the resolution model
  };
  const Shape shapes[] = {
      {"select d_k, count(*) as n, sum(d_w) as s, min(d_w) as lo, max(d_w) as hi from d group by d_k", true, true},
      {"select ps_a, ps_b, count(*) as n from ps where ps_w <> 2 group by ps_a, ps_b", true, true},
      {"select f_g, count(*) as n, sum(f_v) as s from f group by f_g", false, false},
      {"select d_k, count(*) as n, sum(e_w) as s from d, e where d_w = e_k group by d_k", true, false},  // match loop
  };
  const planner::DatabaseStatistics stats(database());
  for (const Shape& shape : shapes) {
    for_each_model_and_dialect(shape.sql, [&](ir::ExecutionModel model, codegen::Dialect dialect) {
      ir::Program program = program_with_stats(shape.sql, model, stats, 0);  // no scratchpad: C2
      REQUIRE(program.aggregations.size() == 1);
      CHECK(program.aggregations[0].sorted_key == shape.sorted_key);
      CHECK((ir::explain(program).find("sorted-key") != std::string::npos) == shape.sorted_key);
      const codegen::GeneratedProgram g = codegen::generate(program, dialect);
      const bool expected = shape.runs && model == ir::ExecutionModel::Resolution && dialect == codegen::Dialect::Cuda;
      int c2 = 0;
      for (const codegen::KernelManifest& k : g.kernels) {
        for (const codegen::ManifestReduction& r : k.reductions) {
          if (r.technique != ir::Technique::C2) continue;
          ++c2;
          CHECK((r.local == ir::LocalResolution::Simd) == expected);
          if (expected) CHECK(k.block_size_multiple == 32);
        }
      }
      CHECK(c2 == 1);
      CHECK((g.kernels_source.find("hqc_warp_pairs(") != std::string::npos) == expected);
      if (expected) CHECK(test::nvrtc_compile_log(g.source, "sm_90") == "");
    });
  }
}

TEST_CASE("C3: equal accumulators keep one scratchpad copy (and register array), and each result column its value; small sums in 32 bits") {
  // COUNT(*), COUNT(f_v) (f_v has no NULL: its input is the same 1) and the table's tuple count are
  // one; SUM(f_v) twice is one. f_g's 7 slots take C3 (CUDA: a warp's few groups; OpenCL: each
  // work-item's slots in registers).
  const char* sql = "select f_g, count(*) as n, count(f_v) as m, sum(f_v) as s, sum(f_v) as s2 from f group by f_g";
  const Rows& r = rows();
  std::map<int64_t, std::pair<int64_t, int64_t>> g;  // f_g -> (rows, sum)
  for (size_t i = 0; i < r.f_id.size(); ++i) {
    g[r.f_g[i]].first += 1;
    g[r.f_g[i]].second += r.f_v[i];
  }
  Table2 expected;
  for (const auto& [k, v] : g) expected.push_back({k, v.first, v.first, v.second, v.second});
  check(sql, expected, false);
  const planner::DatabaseStatistics stats(database());
  for_each_model_and_dialect(sql, [&](ir::ExecutionModel model, codegen::Dialect dialect) {
    if (model != ir::ExecutionModel::Resolution) return;
    const codegen::GeneratedProgram gen = codegen::generate(program_with_stats(sql, model, stats), dialect);
    size_t fills = 0;
    for (size_t at = gen.kernels_source.find("hqc_gb_local_fill_i64("); at != std::string::npos;
         at = gen.kernels_source.find("hqc_gb_local_fill_i64(", at + 1))
      ++fills;
    CHECK(fills == 2);  // the count and the sum, not five arrays
    if (dialect == codegen::Dialect::OpenCL) {
      size_t slot_arrays = 0;  // ... and so in each work-item's registers
      for (size_t at = gen.kernels_source.find("hqc_i64 r_agg0_"); at != std::string::npos;
           at = gen.kernels_source.find("hqc_i64 r_agg0_", at + 1))
        ++slot_arrays;
      CHECK(slot_arrays == 2);
    }
    if (dialect == codegen::Dialect::Cuda) {
      // The COUNTs: each lane's rows of the group over the iteration's tiles, counted over the warp.
      CHECK(gen.kernels_source.find("hqc_warp_group_count_rows(") != std::string::npos);
      // f_v's bound (statistics) is small: a warp's 2 x 32 inputs sum in 32 bits, one reduction
      // instruction from sm_80 on, the 64-bit tree before (both must compile).
      CHECK(gen.kernels_source.find("hqc_warp_group_sum_small(") != std::string::npos);
      CHECK(test::nvrtc_compile_log(gen.source, "sm_90") == "");
      CHECK(test::nvrtc_compile_log(gen.source, "sm_75") == "");
    }
  });
}

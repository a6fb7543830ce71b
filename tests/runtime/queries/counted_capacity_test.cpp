// Capacities bounded by a count made at run time (ir::Param::count_buffer, runtime CountedCapacity):
// a grouped aggregation whose key is IN (groups of an earlier stage) is sized, once that stage's
// build ran, by the rows the build counted rather than by the key's distinct count — TPC-H Q18's
// shape. Checked against the host on the generated data: the groups (every threshold from "all
// orders" to "none"), the slots the run chose (the count's, never more than the statistics'), a
// query outside the rule (an IN over a base table) left as the statistics size it; and the state
// functions themselves: buffers of a deferred capacity allocated only when its count is read, and
// sized up front again once an overflow restart has grown it.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "frontend/sql/sql_frontend.h"
#include "planner/sizing.h"
#include "planner/statistics.h"
#include "runtime/execution/concurrent_executor.h"
#include "runtime/execution/executor.h"
#include "runtime/execution/plan_state.h"
#include "storage/catalog.h"
#include "storage/date.h"
#include "tools/driver/query_driver.h"
#include "tests/runtime/queries/tpch_sf001.h"

using namespace hqc;
using namespace hqc::runtime;

namespace {

const Database& tpch_data() { return test::tpch_sf001(); }

// A column of the generated data, for the host's answers.
const Column& column(const std::string& table, const std::string& name) { return tpch_data().table(table).column(name); }

Backend& backend() {
  static std::unique_ptr<Backend> b = open_backend(DeviceChoice::OpenCL);
  return *b;
}

// `partitioned`: compiled as mpirun's ranks compile it (lineitem a share per rank); run here in one
// process, where the one rank's share is the whole table.
driver::CompiledQuery compile(const std::string& sql, bool partitioned = false) {
  const Catalog catalog = Catalog::tpch();
  static const planner::DatabaseStatistics stats(tpch_data());
  driver::CompileOptions options;
  options.dialect = backend().dialect();
  options.stats = &stats;
  if (partitioned) driver::partition_like_ranks(catalog, options);
  auto plan = std::make_shared<const plan::LogicalPlan>(parse_sql(sql, "counted capacity test", catalog));
  return driver::compile_query(plan, catalog, options);
}

ExecutablePlan lower(const std::string& sql, bool partitioned = false) {
  return driver::lower_query(compile(sql, partitioned), tpch_data());
}

std::string in_heavy_orders(int64_t threshold) {
  return "SELECT o_orderkey, o_custkey, sum(l_quantity) AS q FROM orders, lineitem WHERE o_orderkey IN "
         "(SELECT l_orderkey FROM lineitem GROUP BY l_orderkey HAVING sum(l_quantity) > " +
         std::to_string(threshold) + ") AND o_orderkey = l_orderkey GROUP BY o_orderkey, o_custkey ORDER BY o_orderkey";
}

}  // namespace

TEST_CASE("groups IN an earlier stage's groups: sized by the rows its build counted, the host's groups") {
  const Database& db = tpch_data();
  const Column& l_orderkey = column("lineitem", "l_orderkey");
  const Column& l_quantity = column("lineitem", "l_quantity");
  const Column& o_orderkey = column("orders", "o_orderkey");
  const Column& o_custkey = column("orders", "o_custkey");
  std::map<int64_t, int64_t> quantity;  // order -> sum(l_quantity), scaled as stored (cents)
  for (uint64_t r = 0; r < l_orderkey.size(); ++r) quantity[l_orderkey.int_at(r)] += l_quantity.int_at(r);
  std::map<int64_t, int64_t> customer;
  for (uint64_t r = 0; r < o_orderkey.size(); ++r) customer[o_orderkey.int_at(r)] = o_custkey.int_at(r);

  Executor executor(backend(), nullptr);
  // Every order, a share of them, Q18's 300, and none.
  for (int64_t threshold : {0, 150, 250, 300, 100000}) {
    CAPTURE(threshold);
    std::vector<int64_t> heavy;
    for (const auto& [order, sum] : quantity)
      if (sum > threshold * 100) heavy.push_back(order);

    const ExecutablePlan plan = lower(in_heavy_orders(threshold));
    REQUIRE(plan.counted.size() == 1);
    const CountedCapacity& counted = plan.counted[0];
    CHECK(counted.counted_by < counted.first_use);
    const int64_t statistics = param_values(plan).at(counted.param);

    const Execution run = executor.run(plan, db, ExecutorOptions{});
    const Result& r = run.result;
    REQUIRE(r.rows() == heavy.size());
    for (uint64_t i = 0; i < r.rows(); ++i) {
      CAPTURE(i);
      CHECK(r.columns[0].ints[i] == heavy[i]);
      CHECK(r.columns[1].ints[i] == customer.at(heavy[i]));
      CHECK(r.columns[2].ints[i] == quantity.at(heavy[i]));
    }
    // The slots of the counted rows (as many as the heavy orders: the build's rows are the HAVING's
    // groups), never more than the statistics gave.
    const uint64_t expected = std::min<uint64_t>(static_cast<uint64_t>(statistics), planner::hash_capacity(heavy.size(), 1.0, 0.5));
    REQUIRE(run.stats.counted.count(counted.param) == 1);
    CHECK(run.stats.counted.at(counted.param).first == statistics);
    CHECK(run.stats.counted.at(counted.param).second == static_cast<int64_t>(expected));
    CHECK(run.stats.params.at(counted.param) == static_cast<int64_t>(expected));
    if (heavy.size() < quantity.size() / 4) CHECK(static_cast<int64_t>(expected) < statistics);
  }
}

TEST_CASE("a capacity is counted only where the build comes from an earlier stage") {
  // The IN-list is a base table's filtered rows: the statistics describe it; nothing is counted.
  const ExecutablePlan plan = lower(
      "SELECT o_custkey, count(*) AS n FROM orders WHERE o_custkey IN (SELECT c_custkey FROM customer WHERE c_acctbal > 0) "
      "GROUP BY o_custkey");
  CHECK(plan.counted.empty());
}

TEST_CASE("phase 2 of a two-phase aggregation: sized by the partial groups it reads, the host's groups") {
  // Groups by (part, supplier, quantity) from lineitem's share: phase 1 per rank, its groups
  // materialized (and, under mpirun, gathered), phase 2 combining them — a table the statistics size
  // for the lines the filter passes, bounded at run time by the rows phase 1 wrote
  // (ir/pass_output_bounds.cpp).
  const Database& db = tpch_data();
  const Column& l_partkey = column("lineitem", "l_partkey");
  const Column& l_suppkey = column("lineitem", "l_suppkey");
  const Column& l_quantity = column("lineitem", "l_quantity");
  const Column& l_shipdate = column("lineitem", "l_shipdate");
  Executor executor(backend(), nullptr);
  for (const std::string since : {"1992-01-01", "1998-06-01", "1998-11-20"}) {
    CAPTURE(since);
    using Key = std::tuple<int64_t, int64_t, int64_t>;  // part, supplier, quantity as stored
    std::map<Key, int64_t> host;                        // lines
    const int64_t day = parse_iso_date(since).value();
    for (uint64_t r = 0; r < l_partkey.size(); ++r)
      if (l_shipdate.int_at(r) >= day) ++host[{l_partkey.int_at(r), l_suppkey.int_at(r), l_quantity.int_at(r)}];
    const ExecutablePlan plan =
        lower("SELECT l_partkey, l_suppkey, l_quantity, count(*) AS n FROM lineitem WHERE l_shipdate >= date '" + since +
                  "' GROUP BY l_partkey, l_suppkey, l_quantity ORDER BY l_partkey, l_suppkey, l_quantity",
              true);
    REQUIRE(plan.counted.size() == 1);
    const CountedCapacity& counted = plan.counted[0];
    CHECK(plan.pipelines[counted.counted_by].name.find("materialize") != std::string::npos);
    CHECK(counted.groups_per_count == 1.0);  // the count bounds the groups themselves
    const int64_t statistics = param_values(plan).at(counted.param);

    const Execution run = executor.run(plan, db, ExecutorOptions{});
    const Result& r = run.result;
    REQUIRE(r.rows() == host.size());
    uint64_t i = 0;
    for (const auto& [key, lines] : host) {
      CAPTURE(i);
      CHECK(r.columns[0].ints[i] == std::get<0>(key));
      CHECK(r.columns[1].ints[i] == std::get<1>(key));
      CHECK(r.columns[2].ints[i] == std::get<2>(key));
      CHECK(r.columns[3].ints[i] == lines);
      ++i;
    }
    // In one process phase 1's rows are the groups: the table takes their slots where the statistics
    // gave more.
    const uint64_t expected = std::min<uint64_t>(static_cast<uint64_t>(statistics), planner::hash_capacity(host.size(), 1.0, 0.5));
    REQUIRE(run.stats.counted.count(counted.param) == 1);
    CHECK(run.stats.counted.at(counted.param).first == statistics);
    CHECK(run.stats.counted.at(counted.param).second == static_cast<int64_t>(expected));
    if (host.size() * 8 < static_cast<uint64_t>(statistics)) CHECK(static_cast<int64_t>(expected) < statistics);

    // Streamed in chunks (the concurrent executor, as a rank streams its share): the same groups,
    // the table allocated once phase 1's rows are counted, at the same slots.
    ConcurrentOptions streamed;
    streamed.placement = Placement::Stream;
    streamed.chunks = 3;
    const ConcurrentRun chunks = executor.run(std::vector<const ExecutablePlan*>{&plan}, db, streamed);
    REQUIRE(chunks.stats.stream.streamed);
    const Execution& s = chunks.executions.at(0);
    REQUIRE(s.result.rows() == r.rows());
    for (size_t c = 0; c < r.columns.size(); ++c) CHECK(s.result.columns[c].ints == r.columns[c].ints);
    REQUIRE(s.stats.counted.count(counted.param) == 1);
    CHECK(s.stats.counted.at(counted.param) == run.stats.counted.at(counted.param));
  }
}

TEST_CASE("a capacity estimated from a counted one does not hold it back; a product of it does") {
  // TPC-H Q20 under mpirun at SF 1 and more: the build over phase 2's groups estimates its rows from
  // phase 2's capacity. That estimate stays an upper bound when phase 2's capacity is lowered, so
  // the latter is still counted; a product computed from it (a buffer's stride) is not.
  const Database& db = tpch_data();
  driver::CompiledQuery query =
      compile("SELECT l_partkey, l_suppkey, l_quantity, count(*) AS n FROM lineitem GROUP BY l_partkey, l_suppkey, l_quantity", true);
  const ir::AggregationTable* final_groups = query.program.find_aggregation("agg0");
  REQUIRE(final_groups != nullptr);
  const std::string slots = final_groups->slots_param;

  ir::Param estimate;
  estimate.name = "estimated_from_slots";
  estimate.source = ir::Param::Source::Capacity;
  estimate.factors = {slots};
  query.program.params.push_back(estimate);
  const ExecutablePlan estimated = driver::lower_query(query, db);
  REQUIRE(estimated.counted.size() == 1);
  CHECK(estimated.counted[0].param == slots);

  ir::Param product;
  product.name = "product_of_slots";
  product.source = ir::Param::Source::Product;
  product.factors = {slots};
  query.program.params.push_back(product);
  CHECK(driver::lower_query(query, db).counted.empty());
}

TEST_CASE("deferred state: allocated when its count is read; a grown capacity is allocated up front again") {
  ExecutablePlan plan;
  plan.label = "counted";
  plan.params = {{"cap", 1024, "", std::nullopt}, {"rows", 1024, "", std::nullopt}};
  BufferSpec count{"count", ElementType::I64, 1, "", 1, BufferSpec::Init::Zero, 0, {}};
  BufferSpec flag{"flag", ElementType::U32, 1, "", 1, BufferSpec::Init::Zero, 0, {}};
  BufferSpec slots{"slots", ElementType::I64, 0, "cap", 2, BufferSpec::Init::Pattern, 7, {}};
  BufferSpec rows{"rows", ElementType::I32, 0, "rows", 1, BufferSpec::Init::None, 0, {}};  // an output the capacity sizes
  plan.buffers = {count, flag, slots, rows};
  plan.counted = {{"cap", {"rows"}, "count", 1.0, 0.5, 0, 1}};

  std::vector<std::map<std::string, int64_t>> params{param_values(plan)};
  std::vector<std::map<std::string, AllocatedBuffer>> buffers(1);
  std::vector<std::set<std::string>> deferred{{"cap", "rows"}};
  CHECK(state_bytes(plan, params[0], deferred[0]) == 8 + 4);

  CheckSpec grow;
  grow.flag_buffer = "flag";
  grow.grow_params = {"cap"};
  grow.what = "the test's table";
  OverflowRestarts restarts(backend(), {&plan}, params, buffers, 4, &deferred);
  int attempts = 0;
  double setup_ms = 0;
  int rebuilds = 0;
  restarts.run("counted", [&] {
    ++attempts;
    if (attempts == 1) {
      CHECK(buffers[0].count("slots") == 0);  // waits for its count
      CHECK(buffers[0].count("rows") == 0);
      const int64_t rows = 5;
      buffers[0].at("count").buffer.upload(&rows, sizeof rows);
      CHECK_FALSE(allocate_counted(backend(), plan, 0, params[0], buffers[0], deferred[0]));  // not used yet
      CHECK(buffers[0].count("slots") == 0);
      CHECK(allocate_counted(backend(), plan, 1, params[0], buffers[0], deferred[0]));
      CHECK(params[0].at("cap") == 16);  // 5 rows at load 0.5: 10 -> the smallest table, 16 slots
      CHECK(params[0].at("rows") == 16);  // the output follows its capacity
      REQUIRE(buffers[0].count("rows") == 1);
      CHECK(buffers[0].at("rows").elements == 16);
      REQUIRE(buffers[0].count("slots") == 1);
      CHECK(buffers[0].at("slots").elements == 32);
      CHECK(read_ints(buffers[0].at("slots"), 32) == std::vector<int64_t>(32, 7));
      CHECK(deferred[0].empty());
      throw OverflowRestart{0, &grow};  // as if the table overflowed: doubled, sized up front
    }
    CHECK(params[0].at("cap") == 32);
    REQUIRE(buffers[0].count("slots") == 1);
    CHECK(buffers[0].at("slots").elements == 64);
    CHECK_FALSE(allocate_counted(backend(), plan, 1, params[0], buffers[0], deferred[0]));
    CHECK(params[0].at("cap") == 32);  // the count no longer lowers it
  }, setup_ms, rebuilds);
  CHECK(attempts == 2);
  CHECK(rebuilds == 1);
}

TEST_CASE("a counted capacity's slots: the smallest table for none, never past 2^62") {
  const CountedCapacity c{"cap", {}, "count", 1.0, 0.5, 0, 1};
  CHECK(c.slots(0) == 16);
  CHECK(c.slots(-3) == 16);
  CHECK(c.slots(1000) == 2048);
  const CountedCapacity wide{"cap", {}, "count", 1e30, 0.5, 0, 1};
  CHECK(wide.slots(1000) == (int64_t{1} << 62));
}

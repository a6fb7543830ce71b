// Two-phase hashed aggregation (ir/two_phase_aggregation.cpp): a distributed compile splits a hashed
// aggregation over a partitioned table into a rank-local partial table, a materialization of its
// groups and a final table combining them; one process (or a table that is not partitioned) keeps
// the single table, exactly.
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "frontend/sql/sql_frontend.h"
#include "ir/build_pipelines.h"
#include "ir/explain.h"
#include "ir/passes.h"
#include "ir/verifier.h"
#include "storage/catalog.h"
#include "tests/ir/ssb_fixture.h"

using namespace hqc;

namespace {

// TPC-H at SF 1 with dbgen's value ranges: enough for the layouts and the 64-bit sums.
class Sf1Stats final : public planner::Statistics {
 public:
  uint64_t rows(const std::string& table) const override {
    static const std::map<std::string, uint64_t> rows = {{"lineitem", 6001215}, {"orders", 1500000}, {"customer", 150000},
                                                         {"nation", 25},        {"region", 5},       {"part", 200000},
                                                         {"supplier", 10000},   {"partsupp", 800000}};
    return rows.at(table);
  }
  ColumnStats column(const std::string&, const std::string& column) const override {
    static const std::map<std::string, std::pair<int64_t, int64_t>> ranges = {
        {"l_extendedprice", {90000, 10494950}}, {"l_discount", {0, 10}},        {"l_tax", {0, 8}},
        {"l_quantity", {100, 5000}},            {"c_custkey", {1, 150000}},     {"l_orderkey", {1, 6000000}},
        {"l_shipdate", {8036, 10561}},          {"o_orderdate", {8035, 10440}}, {"o_orderkey", {1, 6000000}},
        {"o_custkey", {1, 150000}},             {"o_shippriority", {0, 0}},     {"c_mktsegment", {0, 4}}};
    ColumnStats s;
    auto it = ranges.find(column);
    if (it == ranges.end()) return s;
    s.valid = true;
    s.min = it->second.first;
    s.max = it->second.second;
    s.distinct = static_cast<uint64_t>(s.max - s.min + 1);
    return s;
  }
  int64_t dictionary_code(const std::string&, const std::string&, const std::string&, plan::DictMatch) const override { return 0; }
};

ir::Program compile(const std::string& sql, std::set<std::string> partitioned, const planner::Statistics* stats) {
  Catalog catalog = Catalog::tpch();
  auto plan = std::make_shared<plan::LogicalPlan>(parse_sql(sql, "q", catalog, stats));
  ir::BuildOptions options;
  options.stats = stats;
  options.partitioned_tables = std::move(partitioned);
  // Tables split by rows without partition keys: Auto would shuffle Q21's lineitem self-joins by
  // the order key (ir/shuffle_join.cpp); these tests look at the aggregation, over the scans.
  options.join_exchange = ir::JoinExchange::Broadcast;
  ir::Program p = ir::build_program(plan, catalog, options);
  ir::run_passes(p, ir::default_passes());
  return p;
}

std::string query_file(const std::string& name) {
  std::ifstream in(test::source_dir() + "/tpch/queries/" + name + ".sql");
  std::stringstream s;
  s << in.rdbuf();
  REQUIRE_FALSE(s.str().empty());
  return s.str();
}

std::vector<std::string> pipelines(const ir::Program& p) {
  std::vector<std::string> out;
  for (const ir::Pipeline& pl : p.pipelines) out.push_back(pl.name);
  return out;
}

std::vector<std::string> accumulators(const ir::AggregationTable& t) {
  std::vector<std::string> out;
  for (const ir::Accumulator& a : t.accumulators)
    out.push_back(a.name + " := " + plan::agg_func_name(a.func) + "(" + (a.arg ? a.arg->to_string() : "*") + ")" +
                  (a.filter ? " filter" : "") + " -> " + a.buffer);
  return out;
}

const std::set<std::string> kTpch = {"orders", "lineitem"};

const char* kGrouped =
    "SELECT l_orderkey, l_shipdate, SUM(l_quantity) AS q, COUNT(*) AS n, MIN(l_shipdate) AS first, MAX(l_discount) AS top, "
    "AVG(l_tax) AS tax FROM lineitem WHERE l_quantity < 10 GROUP BY l_orderkey, l_shipdate";

}  // namespace

TEST_CASE("two-phase aggregation: partial table, materialized groups, final table combining them") {
  Sf1Stats stats;
  const ir::Program p = compile(kGrouped, kTpch, &stats);
  CHECK(pipelines(p) == std::vector<std::string>{"p0 aggregate agg0_partial from lineitem", "p1 materialize out0 from agg0_partial",
                                                 "p2 aggregate agg0 from out0"});
  REQUIRE(p.aggregations.size() == 2);
  const ir::AggregationTable& partial = p.aggregations[0];
  const ir::AggregationTable& final_table = p.aggregations[1];
  CHECK(partial.name == "agg0_partial");
  CHECK(partial.rank_local);
  CHECK(partial.combines.empty());
  CHECK(partial.layout == ir::AggLayout::GlobalHash);
  CHECK_FALSE(partial.compaction.has_value());
  // Filters and argument expressions in phase 1 only.
  CHECK(accumulators(partial) == std::vector<std::string>{
                                     "q := sum(lineitem.l_quantity) -> agg0_partial_q", "n := count_star(*) -> agg0_partial_n",
                                     "first := min(lineitem.l_shipdate) -> agg0_partial_first",
                                     "top := max(lineitem.l_discount) -> agg0_partial_top",
                                     "tax__sum := sum(lineitem.l_tax) -> agg0_partial_tax__sum",
                                     "tax__count := count(lineitem.l_tax) -> agg0_partial_tax__count"});
  // The final table: the name, buffers, capacity and result one process gives the table.
  CHECK(final_table.name == "agg0");
  CHECK_FALSE(final_table.rank_local);
  CHECK(final_table.combines == "agg0_partial");
  CHECK(final_table.layout == ir::AggLayout::GlobalHash);
  CHECK(final_table.slots_param == "agg0_capacity");
  // The partial table: a capacity of its own, resolved by each rank for its share's rows.
  CHECK(partial.slots_param == "agg0_partial_capacity");
  REQUIRE(p.find_param("agg0_partial_capacity") != nullptr);
  CHECK(p.find_param("agg0_partial_capacity")->per_rank);
  CHECK_FALSE(p.find_param("agg0_capacity")->per_rank);
  CHECK(final_table.compaction.has_value());
  CHECK(accumulators(final_table) == std::vector<std::string>{"q := sum(q) -> agg0_q", "n := sum(n) -> agg0_n",
                                                              "first := min(first) -> agg0_first", "top := max(top) -> agg0_top",
                                                              "tax__sum := sum(tax__sum) -> agg0_tax__sum",
                                                              "tax__count := sum(tax__count) -> agg0_tax__count"});
  for (const ir::Accumulator& a : final_table.accumulators) CHECK_FALSE(a.wide);
  CHECK(final_table.accumulators[1].zero_without_input);  // a SUM of COUNTs
  // The materialization: every group's keys and partial accumulators, one row per slot at most.
  REQUIRE(p.outputs.size() == 1);
  CHECK(p.outputs[0].capacity_param == "agg0_partial_capacity");  // a rank's rows; the merge grows it for all
  std::vector<std::string> columns;
  for (const ir::OutputColumn& c : p.outputs[0].columns) columns.push_back(c.name);
  CHECK(columns == std::vector<std::string>{"l_orderkey", "l_shipdate", "q", "n", "first", "top", "tax__sum", "tax__count"});
  CHECK(p.pipelines[1].source.aggregation == "agg0_partial");
  CHECK(p.pipelines[2].source.output == "out0");
  CHECK(p.result.state == "agg0");
  CHECK(p.result.columns.back().source == ir::ResultColumn::Source::Average);
  ir::verify(p);

  // One process, or partitioned tables the aggregation does not scan: the program of today, exactly.
  const std::string single = ir::explain(compile(kGrouped, {}, &stats));
  CHECK(ir::explain(compile(kGrouped, {"orders"}, &stats)) == single);
  CHECK(single.find("agg0_partial") == std::string::npos);
}

TEST_CASE("two-phase aggregation: TPC-H Q3 combines on every rank; what phase 2 cannot express stays one table") {
  Sf1Stats stats;
  const ir::Program q3 = compile(query_file("3"), kTpch, &stats);
  CHECK(pipelines(q3) == std::vector<std::string>{"p0 hash_build ht0 from customer", "p1 materialize out0 from orders",
                                                  "p2 hash_build ht1 from out0", "p3 aggregate agg0_partial from lineitem",
                                                  "p4 materialize out1 from agg0_partial", "p5 aggregate agg0 from out1"});
  CHECK(accumulators(q3.aggregations[1]) == std::vector<std::string>{"revenue := sum(revenue) -> agg0_revenue"});
  const ir::Program single = compile(query_file("3"), {}, &stats);
  CHECK(pipelines(single).back() == "p2 aggregate agg0 from lineitem");  // (no materialized build either)
  // Without statistics the sum is 128-bit (no bound): its re-summation has no device form, the
  // table stays one (merged on the host).
  const ir::Program wide = compile(kGrouped, kTpch, nullptr);
  CHECK(pipelines(wide) == std::vector<std::string>{"p0 aggregate agg0 from lineitem"});
  CHECK_FALSE(wide.aggregations[0].rank_local);
}

TEST_CASE("two-phase aggregation: text keys of a replicated table (TPC-H Q21) combine on the device; of a partitioned one they do not") {
  Sf1Stats stats;
  const ir::Program q21 = compile(query_file("21"), kTpch, &stats);
  const std::vector<std::string> names = pipelines(q21);
  REQUIRE(names.size() >= 3);
  CHECK(names[names.size() - 3].find("aggregate agg0_partial from lineitem") != std::string::npos);
  CHECK(names[names.size() - 2].find(" materialize ") != std::string::npos);
  CHECK(names[names.size() - 2].find(" from agg0_partial") != std::string::npos);
  REQUIRE(q21.aggregations.size() == 2);
  const ir::AggregationTable& final_table = q21.aggregations[1];
  CHECK(final_table.combines == "agg0_partial");
  // Row references into supplier (the same rows on every rank); equal texts merge on the host as in one process.
  REQUIRE(final_table.keys.size() == 1);
  CHECK(final_table.keys[0].heap_table == "supplier");
  CHECK(final_table.merge_on_host);
  CHECK(q21.aggregations[0].merge_on_host);
  ir::verify(q21);
  // orders.o_comment's row references differ per rank: one table (the runtime refuses it, exit 4).
  const ir::Program comments = compile("SELECT o_comment, COUNT(*) AS n FROM orders GROUP BY o_comment", kTpch, &stats);
  CHECK(pipelines(comments) == std::vector<std::string>{"p0 aggregate agg0 from orders"});
  CHECK_FALSE(comments.aggregations[0].rank_local);
}

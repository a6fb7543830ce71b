// Multi-stage queries in the IR (ir/build_pipelines.cpp): an aggregation's table as the source of
// later pipelines (HAVING, maps over aggregates, an aggregate as a join's build side, aggregates of
// aggregates) and single-row stages whose values reach later kernels as run-time params.
#include <doctest/doctest.h>

#include <algorithm>

#include "ir/explain.h"
#include "ir/resolve_parameters.h"
#include "tests/ir/ir_test_util.h"

using namespace hqc;

namespace {

ir::Program compiled(const std::string& json, ir::ExecutionModel model = ir::ExecutionModel::Resolution) {
  ir::Program p = test::build_inline(json, nullptr, model);
  ir::run_passes(p, ir::default_passes());
  return p;
}

bool has_arg(const ir::Kernel& k, const std::string& name) {
  return std::any_of(k.args.begin(), k.args.end(), [&](const ir::KernelArg& a) { return a.name == name; });
}

// Revenue per customer nation, kept where it exceeds a threshold (HAVING), with the average
// discount rebuilt from its halves in the later stage.
const char* kHaving = R"({"plan": {"op": "filter", "predicate": {"op": ">", "left": {"column": "rev"}, "right": {"int": 1000}},
  "input": {"op": "aggregate", "group_by": [{"column": "lo_custkey"}],
    "aggregates": [{"name": "rev", "func": "sum", "arg": {"column": "lo_revenue"}}, {"name": "d", "func": "avg", "arg": {"column": "lo_discount"}}],
    "input": {"op": "scan", "table": "lineorder"}}}})";

}  // namespace

TEST_CASE("HAVING: a pipeline scans the aggregation table, filters its slots and materialises the result") {
  ir::Program p = compiled(kHaving);
  REQUIRE(p.pipelines.size() == 2);
  CHECK(p.pipelines[0].sink.kind == ir::SinkKind::Aggregate);
  const ir::Pipeline& stage = p.pipelines[1];
  CHECK(stage.source.aggregation == "agg0");
  CHECK(stage.source.table.empty());
  CHECK(stage.depends_on == std::vector<int>{0});
  CHECK(stage.source.rows_param == p.aggregations[0].slots_param);
  // The AVG's halves are read and divided by a Map; the key and the sum are plain source columns.
  CHECK(stage.source.columns == std::vector<std::string>{"lo_custkey", "rev", "d__sum", "d__count"});
  REQUIRE(stage.ops.size() == 2);
  CHECK(stage.ops[0].kind == ir::PipelineOpKind::Map);
  CHECK(stage.ops[0].exprs[0].expr->to_string() == "(float64(d__sum) / float64(d__count))");
  CHECK(stage.ops[1].kind == ir::PipelineOpKind::Filter);
  CHECK(stage.sink.kind == ir::SinkKind::Materialize);
  CHECK(p.result.kind == ir::ResultDesc::Kind::Output);
  CHECK(p.result.input_rows_state.empty());  // a grouped aggregate has no NULL row
  // The stage's kernel reads the occupancy, the key and the accumulators; it writes none of them.
  const ir::AggregationTable& agg = p.aggregations[0];
  REQUIRE(agg.layout == ir::AggLayout::GlobalHash);
  for (const std::string& b : {agg.occupancy_buffer, agg.keys[0].key_buffer, agg.accumulators[0].buffer}) {
    auto it = std::find_if(p.kernels[1].args.begin(), p.kernels[1].args.end(), [&](const ir::KernelArg& a) { return a.name == b; });
    REQUIRE(it != p.kernels[1].args.end());
    CHECK_FALSE(it->written);
  }
}

TEST_CASE("a map over a single-tuple aggregate: one slot, NULL columns when no row reached it") {
  std::string json = R"({"plan": {"op": "project", "columns": [
      {"name": "share", "expr": {"op": "/", "left": {"column": "a"}, "right": {"column": "b"}}}, {"column": "n"}],
    "input": {"op": "aggregate", "aggregates": [{"name": "a", "func": "sum", "arg": {"column": "lo_revenue"}},
      {"name": "b", "func": "sum", "arg": {"column": "lo_supplycost"}}, {"name": "n", "func": "count_star"}],
      "input": {"op": "scan", "table": "lineorder"}}}})";
  ir::Program p = compiled(json);
  REQUIRE(p.pipelines.size() == 2);
  const ir::Param* rows = p.find_param(p.pipelines[1].source.rows_param);
  REQUIRE(rows);
  CHECK(rows->source == ir::Param::Source::Constant);
  CHECK(rows->value == 1);
  CHECK(p.result.input_rows_state == "agg0");
  REQUIRE(p.result.columns.size() == 2);
  CHECK(p.result.columns[0].null_without_input);        // SUM / SUM is NULL over no rows
  CHECK_FALSE(p.result.columns[1].null_without_input);  // COUNT(*) is 0
}

TEST_CASE("an aggregate as a join's build side: its single group key is unique, so the join is n:1") {
  // Customers whose line count exceeds 5, joined back to lineorder (TPC-H Q18's shape).
  std::string json = R"({"plan": {"op": "aggregate", "aggregates": [{"name": "s", "func": "sum", "arg": {"column": "lo_quantity"}}],
    "input": {"op": "join", "probe": {"op": "scan", "table": "lineorder"},
      "build": {"op": "filter", "predicate": {"op": ">", "left": {"column": "n"}, "right": {"int": 5}},
        "input": {"op": "aggregate", "group_by": [{"name": "k", "expr": {"column": "l2.lo_custkey"}}], "aggregates": [{"name": "n", "func": "count_star"}],
          "input": {"op": "scan", "table": "lineorder", "alias": "l2"}}},
      "probe_keys": [{"column": "lo_custkey"}], "build_keys": [{"column": "k"}]}}})";
  ir::Program p = compiled(json);
  REQUIRE(p.pipelines.size() == 3);
  CHECK(p.pipelines[0].sink.kind == ir::SinkKind::Aggregate);
  CHECK(p.pipelines[1].source.aggregation == "agg0");
  CHECK(p.pipelines[1].sink.kind == ir::SinkKind::HashBuild);
  REQUIRE(p.hash_tables.size() == 1);
  CHECK(p.hash_tables[0].unique_keys);
  // The group key takes lo_custkey's values (a key column: a foreign key of a dense primary key):
  // slot = key - min over that column's domain, as a table built from the scan itself would be.
  CHECK(p.hash_tables[0].layout == ir::HashLayout::PerfectHash);
  const ir::Param* cap = p.find_param(p.hash_tables[0].capacity_param);
  REQUIRE(cap);
  CHECK(cap->source == ir::Param::Source::ColumnDomain);
  CHECK(cap->table == "lineorder");
  CHECK(cap->column == "lo_custkey");
  CHECK(p.pipelines[2].depends_on == std::vector<int>{1});
  CHECK(p.result.kind == ir::ResultDesc::Kind::Aggregation);
  CHECK(p.result.state == "agg1");
}

TEST_CASE("an aggregate's computed group key as a join's build key: hashed, sized by the groups' slots") {
  std::string json = R"({"plan": {"op": "aggregate", "aggregates": [{"name": "s", "func": "sum", "arg": {"column": "lo_quantity"}}],
    "input": {"op": "join", "probe": {"op": "scan", "table": "lineorder"},
      "build": {"op": "filter", "predicate": {"op": ">", "left": {"column": "n"}, "right": {"int": 5}},
        "input": {"op": "aggregate", "group_by": [{"name": "k", "expr": {"op": "+", "left": {"column": "l2.lo_custkey"}, "right": {"int": 1}}}],
          "aggregates": [{"name": "n", "func": "count_star"}], "input": {"op": "scan", "table": "lineorder", "alias": "l2"}}},
      "probe_keys": [{"column": "lo_custkey"}], "build_keys": [{"column": "k"}]}}})";
  ir::Program p = compiled(json);
  REQUIRE(p.hash_tables.size() == 1);
  CHECK(p.hash_tables[0].layout == ir::HashLayout::LinearProbing);
  const ir::Param* cap = p.find_param(p.hash_tables[0].capacity_param);
  REQUIRE(cap);
  CHECK(cap->factors == std::vector<std::string>{p.aggregations[0].slots_param});
}

TEST_CASE("an aggregate over an aggregate (count of counts) groups the first table's slots") {
  std::string json = R"({"plan": {"op": "aggregate", "group_by": [{"column": "n"}], "aggregates": [{"name": "customers", "func": "count_star"}],
    "input": {"op": "aggregate", "group_by": [{"column": "lo_custkey"}], "aggregates": [{"name": "n", "func": "count_star"}],
      "input": {"op": "scan", "table": "lineorder"}}}})";
  ir::Program p = compiled(json);
  REQUIRE(p.pipelines.size() == 2);
  CHECK(p.pipelines[1].source.aggregation == "agg0");
  CHECK(p.pipelines[1].source.columns == std::vector<std::string>{"n"});
  REQUIRE(p.aggregations.size() == 2);
  CHECK(p.aggregations[1].layout == ir::AggLayout::GlobalHash);
  CHECK(p.result.state == "agg1");
  CHECK(ir::explain(p).find("source aggregation agg0 rows agg0_capacity columns [n]") != std::string::npos);
}

TEST_CASE("a single-row side joined without keys runs first; its value reaches later kernels as a param") {
  // Lines whose revenue exceeds the average revenue (an uncorrelated scalar subquery).
  std::string json = R"({"plan": {"op": "aggregate", "aggregates": [{"name": "n", "func": "count_star"}],
    "input": {"op": "filter", "predicate": {"op": ">", "left": {"column": "lo_revenue"}, "right": {"column": "value"}},
      "input": {"op": "join", "probe": {"op": "scan", "table": "lineorder"},
        "build": {"op": "project", "columns": [{"name": "value", "expr": {"column": "a"}}],
          "input": {"op": "aggregate", "aggregates": [{"name": "a", "func": "avg", "arg": {"column": "lo_revenue"}}],
            "input": {"op": "scan", "table": "lineorder", "alias": "l2"}}},
        "probe_keys": [], "build_keys": []}}}})";
  ir::Program p = compiled(json);
  REQUIRE(p.pipelines.size() == 3);
  CHECK(p.pipelines[1].source.aggregation == "agg0");
  CHECK(p.pipelines[1].sink.kind == ir::SinkKind::Materialize);
  REQUIRE(p.outputs.size() == 1);
  const ir::Param* value = p.find_param("out0_value_value");
  REQUIRE(value);
  CHECK(value->source == ir::Param::Source::OutputValue);
  CHECK(value->type == ir::ScalarType::F64);
  const ir::Pipeline& main = p.pipelines[2];
  CHECK(main.depends_on == std::vector<int>{1});
  REQUIRE(main.ops.size() == 2);
  CHECK(main.ops[0].kind == ir::PipelineOpKind::Map);
  CHECK(main.ops[0].exprs[0].expr->to_string() == "$out0_value_value");
  CHECK(has_arg(p.kernels[2], "out0_value_value"));
  CHECK(ir::resolve_parameters(p, test::ssb_database()).at("out0_value_value") == 0);  // the executor supplies it
  CHECK(ir::explain(p).find("out0_value_value: f64 = value(out0.value)") != std::string::npos);
}

TEST_CASE("a single-row side that may be empty (a filter above its aggregate) guards the probe side by its row count") {
  std::string json = R"({"plan": {"op": "aggregate", "aggregates": [{"name": "n", "func": "count_star"}],
    "input": {"op": "join", "probe": {"op": "scan", "table": "customer"},
      "build": {"op": "filter", "predicate": {"op": ">", "left": {"column": "m"}, "right": {"int": 3}},
        "input": {"op": "aggregate", "aggregates": [{"name": "m", "func": "max", "arg": {"column": "lo_quantity"}}],
          "input": {"op": "scan", "table": "lineorder"}}},
      "probe_keys": [], "build_keys": []}}})";
  ir::Program p = compiled(json);
  REQUIRE(p.pipelines.size() == 3);
  const ir::Pipeline& main = p.pipelines[2];
  REQUIRE(main.ops.size() == 1);
  CHECK(main.ops[0].kind == ir::PipelineOpKind::Filter);
  CHECK(main.ops[0].predicate->to_string() == "($out0_rows > 0)");
  CHECK(has_arg(p.kernels[2], "out0_rows"));
}

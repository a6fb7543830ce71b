// Lowering details beyond the SSB shapes: unsupported constructs, materialized outputs, explicit
// pipeline breaks, hash-table and aggregation layouts chosen from statistics, AVG, parameters.
#include <doctest/doctest.h>

#include <algorithm>

#include "ir/explain.h"
#include "ir/resolve_parameters.h"
#include "planner/statistics.h"
#include "storage/error.h"
#include "tests/ir/ir_test_util.h"

using namespace hqc;

namespace {

std::string error_of(const std::string& json, ir::ExecutionModel model = ir::ExecutionModel::Resolution) {
  try {
    ir::Program p = test::build_inline(json, nullptr, model);
    ir::run_passes(p, ir::default_passes());
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Unsupported);
    return e.what();
  }
  return "";
}

const char* kLeftOuter = R"({"plan": {"op": "join", "type": "left_outer", "probe": {"op": "scan", "table": "lineorder"},
  "build": {"op": "scan", "table": "customer"}, "probe_keys": [{"column": "lo_custkey"}], "build_keys": [{"column": "c_custkey"}]}})";

const char* kMaterialize = R"({"plan": {"op": "limit", "count": 10, "input": {"op": "project",
  "columns": [{"column": "lo_orderkey"}, {"name": "nation", "expr": {"column": "c_nation"}}],
  "input": {"op": "join", "probe": {"op": "filter", "predicate": {"op": "<", "left": {"column": "lo_quantity"}, "right": {"int": 10}},
                                    "input": {"op": "scan", "table": "lineorder"}},
            "build": {"op": "scan", "table": "customer"}, "probe_keys": [{"column": "lo_custkey"}], "build_keys": [{"column": "c_custkey"}]}}}})";

}  // namespace

TEST_CASE("constructs that parse but do not compile yet are Unsupported, naming the plan path") {
  // A left outer join's whole output lowers: customer's heap strings travel as row references
  // (ir/state.h); using the NULL-able payload of unmatched rows is for codegen to refuse.
  CHECK(error_of(kLeftOuter).empty());
  std::string cross = R"({"plan": {"op": "join", "probe": {"op": "scan", "table": "customer"}, "build": {"op": "scan", "table": "supplier"},
      "probe_keys": [], "build_keys": []}})";
  CHECK(error_of(cross).find("$.plan: a join without equi-join keys (a cross product) is only supported") == 0);
  CHECK(error_of(kMaterialize, ir::ExecutionModel::OperatorAtATime).empty());
  CHECK(error_of(kMaterialize, ir::ExecutionModel::MultiPass).empty());
}

TEST_CASE("an inner join on a repeated build key lowers to a multi-map; its materialized output can grow") {
  std::string many = R"({"plan": {"op": "project", "columns": [{"column": "c_custkey"}, {"column": "lo_orderkey"}],
      "input": {"op": "join", "probe": {"op": "scan", "table": "customer"}, "build": {"op": "scan", "table": "lineorder"},
      "probe_keys": [{"column": "c_custkey"}], "build_keys": [{"column": "lo_custkey"}]}}})";
  ir::Program p = ir::build_program(std::make_shared<plan::LogicalPlan>(plan::parse_json_plan(many, "many.json", Catalog::ssb())),
                                    Catalog::ssb());
  REQUIRE(p.hash_tables.size() == 1);
  CHECK_FALSE(p.hash_tables[0].unique_keys);
  CHECK_FALSE(p.hash_tables[0].keys_only);
  // A list of entries per distinct key: the entries are lineorder's rows, payload and links sized
  // by them; lo_custkey is a key column (it references customer), so without statistics its slots
  // are its domain (slot = key - min).
  const ir::HashTable& ht = p.hash_tables[0];
  CHECK(ht.layout == ir::HashLayout::Chained);
  CHECK(ht.perfect_slots);
  CHECK(ht.entries_param == p.pipelines[0].source.rows_param);
  const ir::Param* cap = p.find_param(ht.capacity_param);
  REQUIRE(cap);
  CHECK(cap->source == ir::Param::Source::ColumnDomain);
  CHECK(!ht.key_min_param.empty());
  REQUIRE(p.find_buffer(ht.next_buffer));
  CHECK(p.find_buffer(ht.next_buffer)->elements_param == ht.entries_param);
  CHECK(p.find_buffer(ht.head_buffer)->elements_param == ht.capacity_param);
  CHECK(p.find_buffer(ht.head_buffer)->pattern == ~uint64_t{0});
  for (const std::string& b : ht.payload_buffers) CHECK(p.find_buffer(b)->elements_param == ht.entries_param);
  CHECK(p.find_buffer(ht.key_buffers[0])->elements_param == ht.capacity_param);
  // Any other repeated integer may span anything: its slots are searched, as many as distinct keys.
  std::string spread = many;
  spread.replace(spread.find("lo_custkey"), 10, "lo_quantity");
  ir::Program q = ir::build_program(std::make_shared<plan::LogicalPlan>(plan::parse_json_plan(spread, "spread.json", Catalog::ssb())),
                                    Catalog::ssb());
  REQUIRE(q.hash_tables.size() == 1);
  CHECK(q.hash_tables[0].layout == ir::HashLayout::Chained);
  CHECK_FALSE(q.hash_tables[0].perfect_slots);
  const ir::Param* qcap = q.find_param(q.hash_tables[0].capacity_param);
  REQUIRE(qcap);
  CHECK(qcap->distinct_columns == std::vector<std::string>{"lineorder.lo_quantity"});
  REQUIRE(p.outputs.size() == 1);
  CHECK(p.outputs[0].overflow_buffer == "out0_overflow");  // more rows than the probe side: grown on overflow
  CHECK_NOTHROW(ir::run_passes(p, ir::default_passes()));
  // Unique keys (one match per probe) keep the exact capacity and no overflow flag.
  ir::Program unique = ir::build_program(std::make_shared<plan::LogicalPlan>(plan::parse_json_plan(kMaterialize, "m.json", Catalog::ssb())),
                                         Catalog::ssb());
  REQUIRE(unique.outputs.size() == 1);
  CHECK(unique.outputs[0].overflow_buffer.empty());
}

TEST_CASE("a build row that can insert several times (its pipeline's probe matches several times) keeps linear probing") {
  // build side: lineorder l2 joined to lineorder l3 on lo_custkey (several matches per l2 row),
  // built on l3.lo_orderkey (not unique): one l2 row inserts once per match, so entries are not rows.
  std::string json = R"({"plan": {"op": "aggregate", "aggregates": [{"name": "n", "func": "count_star"}],
    "input": {"op": "join", "probe": {"op": "scan", "table": "customer"},
      "build": {"op": "join", "probe": {"op": "scan", "table": "lineorder", "alias": "l2"},
                "build": {"op": "scan", "table": "lineorder", "alias": "l3"},
                "probe_keys": [{"column": "l2.lo_custkey"}], "build_keys": [{"column": "l3.lo_custkey"}]},
      "probe_keys": [{"column": "c_custkey"}], "build_keys": [{"column": "l3.lo_orderkey"}]}}})";
  ir::Program p = test::build_inline(json);
  REQUIRE(p.hash_tables.size() == 2);
  CHECK(p.hash_tables[0].layout == ir::HashLayout::Chained);        // l3 by lo_custkey: one entry per row
  CHECK(p.hash_tables[1].layout == ir::HashLayout::LinearProbing);  // l2 x l3 by l3.lo_orderkey
  CHECK(p.hash_tables[1].next_buffer.empty());
  CHECK_NOTHROW(ir::run_passes(p, ir::default_passes()));
}

TEST_CASE("a plan without aggregation materializes its output with A3 (resolution) or A2 (pipelined)") {
  ir::Program p = test::build_inline(kMaterialize);
  ir::run_passes(p, ir::default_passes());
  REQUIRE(p.pipelines.size() == 2);
  CHECK(p.pipelines[1].sink.kind == ir::SinkKind::Materialize);
  REQUIRE(p.outputs.size() == 1);
  CHECK(p.outputs[0].columns.size() == 2);
  CHECK(p.outputs[0].columns[1].dict_column == "c_nation");
  CHECK(p.result.kind == ir::ResultDesc::Kind::Output);
  CHECK(p.result.limit == 10);
  CHECK(p.result.columns[1].name == "nation");
  CHECK(p.kernels[1].reductions[0].technique == ir::Technique::A3);
  CHECK(p.kernels[1].launch.scratch_bytes_per_thread == 8);
  // The customer hash table carries c_nation as payload; only the projected columns are read.
  CHECK(p.hash_tables[0].payload.size() == 1);
  CHECK(p.pipelines[1].source.columns == std::vector<std::string>{"lo_orderkey", "lo_custkey", "lo_quantity"});
  ir::Program q = test::build_inline(kMaterialize, nullptr, ir::ExecutionModel::Pipelined);
  ir::run_passes(q, ir::default_passes());
  CHECK(q.kernels[1].reductions[0].technique == ir::Technique::A2);
  CHECK(q.kernels[1].launch.scratch_bytes_per_thread == 0);
}

TEST_CASE("an explicit pipeline_break materializes the node and starts a pipeline over its output") {
  std::string json = R"({"plan": {"op": "aggregate", "aggregates": [{"name": "s", "func": "sum", "arg": {"column": "lo_revenue"}}],
    "input": {"op": "filter", "predicate": {"op": "<", "left": {"column": "lo_tax"}, "right": {"int": 3}},
      "input": {"op": "filter", "pipeline_break": true, "predicate": {"op": "<", "left": {"column": "lo_quantity"}, "right": {"int": 10}},
        "input": {"op": "scan", "table": "lineorder"}}}}})";
  Database db = test::ssb_database();
  ir::Program p = test::build_inline(json);
  ir::run_passes(p, ir::default_passes());
  REQUIRE(p.pipelines.size() == 2);
  CHECK(p.pipelines[0].sink.kind == ir::SinkKind::Materialize);
  CHECK(p.pipelines[1].source.output == "out0");
  CHECK(p.pipelines[1].depends_on == std::vector<int>{0});
  // The output carries exactly what the consumers use: lo_tax for the filter, lo_revenue for the sum.
  REQUIRE(p.outputs[0].columns.size() == 2);
  const ir::Param* rows = p.find_param(p.pipelines[1].source.rows_param);
  REQUIRE(rows);
  CHECK(rows->source == ir::Param::Source::OutputRows);
  CHECK(p.kernels[1].args[0].kind == ir::KernelArg::Kind::Buffer);  // reads the materialized columns
}

TEST_CASE("layouts follow the statistics: sparse keys use linear probing sized from selectivity") {
  Database db = test::ssb_database();
  for (int32_t& k : db.tables["customer"].find("c_custkey")->i32) k *= 100000;  // 30M-wide domain, 300 rows
  db.tables["customer"].find("c_custkey")->compute_stats();
  planner::DatabaseStatistics stats(db);
  std::string json = R"({"plan": {"op": "aggregate", "group_by": [{"column": "c_nation"}], "aggregates": [
      {"name": "avg_rev", "func": "avg", "arg": {"column": "lo_revenue"}}, {"name": "n", "func": "count_star"}],
    "input": {"op": "join", "probe": {"op": "scan", "table": "lineorder"},
      "build": {"op": "filter", "predicate": {"op": "=", "left": {"column": "c_region"}, "right": {"string": "ASIA"}},
                "input": {"op": "scan", "table": "customer"}},
      "probe_keys": [{"column": "lo_custkey"}], "build_keys": [{"column": "c_custkey"}]}}})";
  ir::Program p = test::build_inline(json, &stats);
  ir::run_passes(p, ir::default_passes());
  REQUIRE(p.hash_tables.size() == 1);
  CHECK(p.hash_tables[0].layout == ir::HashLayout::LinearProbing);
  ir::ParamValues v = ir::resolve_parameters(p, db);
  // 300 rows x 2/5 (equality on a 5-value dictionary, doubled for skew) / 0.5 load = 240 -> 256.
  CHECK(v.at(p.hash_tables[0].capacity_param) == 256);
  // AVG is a sum and a count; the result divides them.
  const ir::AggregationTable& agg = p.aggregations[0];
  REQUIRE(agg.accumulators.size() == 3);
  CHECK(agg.accumulators[0].name == "avg_rev__sum");
  CHECK(agg.accumulators[1].func == plan::AggFunc::Count);
  CHECK(p.result.columns[1].source == ir::ResultColumn::Source::Average);
  CHECK(p.result.columns[1].count_index == 1);
  CHECK(p.result.columns[2].index == 2);
  CHECK(agg.layout == ir::AggLayout::DirectIndexed);
  CHECK(v.at(agg.slots_param) == 25);
}

TEST_CASE("grouping by a key column: global hash without statistics, direct-indexed when the domain is small") {
  std::string json = R"({"plan": {"op": "aggregate", "group_by": [{"column": "lo_custkey"}], "aggregates": [
      {"name": "m", "func": "max", "arg": {"column": "lo_revenue"}}], "input": {"op": "scan", "table": "lineorder"}}})";
  ir::Program blind = test::build_inline(json);
  ir::run_passes(blind, ir::default_passes());
  CHECK(blind.aggregations[0].layout == ir::AggLayout::GlobalHash);
  // 64-bit accumulators and keys: MAX starts at INT64_MIN, the int32 key is stored widened.
  CHECK(blind.find_buffer(blind.aggregations[0].accumulators[0].buffer)->pattern == ir::kMinI64);
  CHECK(blind.find_buffer(blind.aggregations[0].keys[0].key_buffer)->element == ir::ScalarType::I64);
  CHECK(blind.find_buffer(blind.aggregations[0].keys[0].key_buffer)->pattern == ir::kEmptyKeyI64);
  CHECK(blind.aggregations[0].overflow_buffer == "agg0_overflow");
  Database db = test::ssb_database();
  planner::DatabaseStatistics stats(db);
  ir::ParamValues bv = ir::resolve_parameters(blind, db);
  // Groups capped by the distinct count of lo_custkey (300 in the fixture): 300 / 0.5 -> 1024.
  CHECK(bv.at(blind.aggregations[0].slots_param) == 1024);
  ir::Program seen = test::build_inline(json, &stats);
  ir::run_passes(seen, ir::default_passes());
  CHECK(seen.aggregations[0].layout == ir::AggLayout::DirectIndexed);
}

TEST_CASE("parameters resolve from the data: dictionary codes, key minima, row counts") {
  Database db = test::ssb_database();
  ir::Program p = test::build_ssb("q2.1");
  ir::run_passes(p, ir::default_passes());
  ir::ParamValues v = ir::resolve_parameters(p, db);
  CHECK(v.at("rows_lineorder") == 6000);
  CHECK(v.at("rows_part") == 400);
  const Column& category = *db.tables["part"].find("p_category");
  int64_t expected = std::find(category.dictionary.begin(), category.dictionary.end(), "MFGR#12") - category.dictionary.begin();
  bool found = false;
  for (const ir::Param& prm : p.params) {
    if (prm.source == ir::Param::Source::DictCode && prm.literal == "MFGR#12") {
      CHECK(v.at(prm.name) == expected);
      found = true;
    }
  }
  CHECK(found);
  // The same program resolves against a bigger database: only the values change.
  Database bigger = test::ssb_database(12000);
  CHECK(ir::resolve_parameters(p, bigger).at("rows_lineorder") == 12000);
  // A literal missing from the dictionary matches nothing.
  ir::Program q = test::build_inline(R"({"plan": {"op": "aggregate", "aggregates": [{"name": "n", "func": "count_star"}],
      "input": {"op": "filter", "predicate": {"op": "=", "left": {"column": "c_region"}, "right": {"string": "ATLANTIS"}},
      "input": {"op": "scan", "table": "customer"}}}})");
  ir::run_passes(q, ir::default_passes());
  CHECK(ir::resolve_parameters(q, db).at("dict_c_region_eq_0") == -1);
  // Buffers size from the params.
  const ir::Buffer* keys = p.find_buffer("ht0_keys");
  REQUIRE(keys);
  CHECK(ir::buffer_elements(*keys, v) == static_cast<uint64_t>(v.at(keys->elements_param)));
}

// Semi and anti joins in the IR: the build side becomes a keys-only hash table (no payload, no
// build columns carried), non-unique build keys are accepted for them (and still rejected for inner
// joins), the layout and capacity follow the key (perfect hash for a foreign key, linear probing
// capped by the key's distinct count otherwise), the probe op and EXPLAIN name the join type, and
// the programs pass the verifier under both models. Left outer joins stay Unsupported.
#include <doctest/doctest.h>

#include <algorithm>

#include "ir/explain.h"
#include "planner/statistics.h"
#include "storage/error.h"
#include "tests/ir/ir_test_util.h"
#include "tests/ir/semi_join_plans.h"

using namespace hqc;

namespace {

const ir::PipelineOp& only_probe(const ir::Pipeline& p) {
  auto it = std::find_if(p.ops.begin(), p.ops.end(), [](const ir::PipelineOp& op) { return op.kind == ir::PipelineOpKind::Probe; });
  REQUIRE(it != p.ops.end());
  return *it;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("semi and anti join on a non-unique foreign key: keys-only perfect-hash table, probe carries the type") {
  for (const char* type : {"semi", "anti"}) {
    CAPTURE(type);
    for (auto model : {ir::ExecutionModel::Resolution, ir::ExecutionModel::Pipelined}) {
      ir::Program p = test::build_inline(test::customers_by_order_plan(type), nullptr, model);
      REQUIRE(p.hash_tables.size() == 1);
      const ir::HashTable& ht = p.hash_tables[0];
      CHECK(ht.keys_only);
      CHECK_FALSE(ht.unique_keys);
      CHECK(ht.payload.empty());
      CHECK(ht.payload_buffers.empty());
      CHECK(ht.layout == ir::HashLayout::PerfectHash);  // lo_custkey is a foreign key: dense domain
      // Keys only on a perfect hash: one bit per slot, no key per slot (ir::HashTable::key_bits).
      CHECK(ht.key_bits);
      CHECK(ht.key_bits_read_first);  // duplicate keys, in no known order (no statistics)
      REQUIRE(ht.key_buffers.size() == 1);
      const ir::Buffer* bits = p.find_buffer(ht.key_buffers[0]);
      REQUIRE(bits != nullptr);
      CHECK(bits->element == ir::ScalarType::U32);
      CHECK(bits->fill == ir::Buffer::Fill::Zero);
      CHECK(ht.bitmap_buffer.empty());
      REQUIRE(p.pipelines.size() == 2);
      // The build pipeline reads only what its filter and key need.
      std::vector<std::string> build_columns = p.pipelines[0].source.columns;
      std::sort(build_columns.begin(), build_columns.end());
      CHECK(build_columns == std::vector<std::string>{"lo_custkey", "lo_orderdate"});
      CHECK(p.pipelines[0].sink.kind == ir::SinkKind::HashBuild);
      const ir::PipelineOp& probe = only_probe(p.pipelines[1]);
      CHECK(plan::join_type_name(probe.join_type) == std::string(type));
      // No attribute of the build side is bound in the probe pipeline.
      for (const ir::AttributeBinding& b : p.pipelines[1].attributes) CHECK(b.origin != ir::AttributeBinding::Origin::ProbePayload);
      // The passes (fusion, parameters, launch) verify the program after each step.
      CHECK_NOTHROW(ir::run_passes(p, ir::default_passes()));
      std::string text = ir::explain(p);
      CHECK(contains(text, std::string(" ") + type + " ht0 keys [customer.c_custkey]"));
      CHECK(contains(text, "hash table ht0 "));
      CHECK(contains(text, " keys-only\n  payload []\n  key bits (read first) [ht0_key_bits]"));
    }
  }
}

TEST_CASE("semi/anti join on a non-key column: linear probing, capacity capped by the key's distinct count") {
  for (const char* type : {"semi", "anti"}) {
    CAPTURE(type);
    ir::Program p = test::build_inline(test::lines_by_size_plan(type, ""));
    REQUIRE(p.hash_tables.size() == 1);
    const ir::HashTable& ht = p.hash_tables[0];
    CHECK(ht.keys_only);
    CHECK(ht.layout == ir::HashLayout::LinearProbing);
    const ir::Param* cap = p.find_param(ht.capacity_param);
    REQUIRE(cap != nullptr);
    CHECK(cap->source == ir::Param::Source::Capacity);
    CHECK(cap->distinct_columns == std::vector<std::string>{"part.p_size"});
    CHECK_NOTHROW(ir::run_passes(p, ir::default_passes()));
  }
}

TEST_CASE("semi join on a unique key, anti join and inner join in one pipeline") {
  ir::Program p = test::build_inline(test::revenue_by_year_plan("ASIA"));
  REQUIRE(p.hash_tables.size() == 3);
  // Built outermost first: date (inner, ht0), supplier (anti, ht1), customer (semi, ht2).
  CHECK(p.hash_tables[0].build_table == "date");
  CHECK_FALSE(p.hash_tables[0].keys_only);
  CHECK(p.hash_tables[0].payload.size() == 1);  // d_year
  CHECK(p.hash_tables[1].build_table == "supplier");
  CHECK(p.hash_tables[1].keys_only);
  CHECK(p.hash_tables[1].payload.empty());
  CHECK(p.hash_tables[2].build_table == "customer");
  CHECK(p.hash_tables[2].keys_only);
  CHECK(p.hash_tables[2].unique_keys);
  CHECK(p.hash_tables[2].payload.empty());
  const ir::Pipeline& probe = p.pipelines.back();
  std::vector<std::string> types;
  for (const ir::PipelineOp& op : probe.ops)
    if (op.kind == ir::PipelineOpKind::Probe) types.push_back(plan::join_type_name(op.join_type));
  CHECK(types == std::vector<std::string>{"semi", "anti", "inner"});
  CHECK_NOTHROW(ir::run_passes(p, ir::default_passes()));
}

TEST_CASE("with statistics a semi join on a dense non-unique key still chooses the layout from the data") {
  Database db = test::ssb_database();
  planner::DatabaseStatistics stats(db);
  ir::Program p = test::build_inline(test::customers_by_order_plan("semi"), &stats);
  REQUIRE(p.hash_tables.size() == 1);
  CHECK(p.hash_tables[0].keys_only);
  CHECK(p.hash_tables[0].layout == ir::HashLayout::PerfectHash);
}

TEST_CASE("inner and left outer joins on non-unique build keys lower to a multi-map table") {
  for (const char* type : {"inner", "left_outer"}) {
    CAPTURE(type);
    ir::Program p = test::build_inline(test::customers_by_order_plan(type));
    REQUIRE(p.hash_tables.size() == 1);
    CHECK_FALSE(p.hash_tables[0].unique_keys);
    CHECK_FALSE(p.hash_tables[0].keys_only);
    CHECK(p.hash_tables[0].layout == ir::HashLayout::Chained);  // a list of rows per distinct key
    CHECK_NOTHROW(ir::run_passes(p, ir::default_passes()));
  }
}

TEST_CASE("a semi/anti join's residual (JSON \"residual\") stores the build columns it reads and keeps every build row") {
  auto plan = [](const std::string& type) {
    return R"({"plan": {"op": "aggregate", "aggregates": [{"name": "n", "func": "count_star"}],
      "input": {"op": "join", "type": ")" + type + R"(", "probe": {"op": "scan", "table": "customer"},
        "build": {"op": "scan", "table": "lineorder"},
        "probe_keys": [{"column": "c_custkey"}], "build_keys": [{"column": "lo_custkey"}],
        "residual": {"op": "<>", "left": {"column": "lo_suppkey"}, "right": {"column": "c_custkey"}}}}})";
  };
  for (const char* type : {"semi", "anti"}) {
    CAPTURE(type);
    ir::Program p = test::build_inline(plan(type));
    REQUIRE(p.hash_tables.size() == 1);
    const ir::HashTable& ht = p.hash_tables[0];
    CHECK_FALSE(ht.keys_only);  // the residual needs the rows, not only the distinct keys
    CHECK_FALSE(ht.key_bits);
    REQUIRE(ht.payload.size() == 1);
    CHECK(ht.payload[0].name == "lo_suppkey");
    CHECK(ht.layout == ir::HashLayout::Chained);
    std::string text = ir::explain_pipelines(p);
    CHECK(contains(text, std::string(" ") + type + " ht0 keys [customer.c_custkey] residual (lineorder.lo_suppkey <> customer.c_custkey)"));
    CHECK_NOTHROW(ir::run_passes(p, ir::default_passes()));
  }
  try {
    test::build_inline(plan("inner"));
    FAIL("a residual on an inner join was accepted");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Input);
    CHECK(contains(e.what(), "$.plan.input.residual"));
    CHECK(contains(e.what(), "only supported on semi and anti joins"));
  }
}

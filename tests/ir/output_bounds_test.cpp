// Pass output_bounds (ir/pass_output_bounds.cpp): a table filled from an earlier pipeline's output
// rows — directly or through aggregations of them — takes that output's row counter as its
// capacity's run-time bound; one filled from a base table, or through a probe that can pass a row
// more than once, keeps the statistics' size.
#include <doctest/doctest.h>

#include <string>

#include "ir/build_pipelines.h"
#include "ir/passes.h"
#include "tests/ir/ir_test_util.h"

using namespace hqc;

namespace {

ir::Program compile(const std::string& sql, bool distributed, bool passes = true) {
  ir::BuildOptions options;
  if (distributed) test::partition_tpch_like_ranks(options);
  ir::Program program = test::build_tpch_sql(sql, options);
  if (passes) ir::run_passes(program, ir::default_passes());
  return program;
}

const ir::Pipeline& filler(const ir::Program& p, const std::string& state) {
  for (const ir::Pipeline& q : p.pipelines)
    if (q.sink.kind != ir::SinkKind::Materialize && q.sink.state == state) return q;
  FAIL("no pipeline fills " << state);
  return p.pipelines.front();
}

const ir::Param& slots(const ir::Program& p, const std::string& aggregation) {
  const ir::AggregationTable* a = p.find_aggregation(aggregation);
  REQUIRE(a != nullptr);
  const ir::Param* param = p.find_param(a->slots_param);
  REQUIRE(param != nullptr);
  return *param;
}

std::string counter_of(const ir::Program& p, const std::string& output) {
  const ir::OutputTable* o = p.find_output(output);
  REQUIRE(o != nullptr);
  return o->counter_buffer;
}

// TPC-H Q10's groups by customer from lineitem (partitioned by order key): two-phase under mpirun.
// (Without statistics a decimal SUM is 128-bit, which phase 2 cannot re-sum: a COUNT and a MAX.)
const char* kByCustomer =
    "SELECT c_custkey, count(*) AS lines, max(l_extendedprice) AS most FROM customer, orders, lineitem "
    "WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey AND l_returnflag = 'R' GROUP BY c_custkey";
// TPC-H Q16's distinct pairs, then the count per (brand, type, size): phase 2, then an aggregation of it.
const char* kDistinctPairs =
    "SELECT p_brand, p_type, p_size, count(DISTINCT ps_suppkey) AS supplier_cnt FROM partsupp, part "
    "WHERE p_partkey = ps_partkey AND p_size IN (49, 14, 23) GROUP BY p_brand, p_type, p_size";

}  // namespace

TEST_CASE("phase 2 of a two-phase aggregation is bounded by the partial groups gathered, phase 1 is not") {
  const ir::Program p = compile(kByCustomer, true);
  const ir::Pipeline& combine = filler(p, "agg0");
  REQUIRE_FALSE(combine.source.output.empty());
  const ir::Param& final_slots = slots(p, "agg0");
  CHECK(final_slots.count_buffer == counter_of(p, combine.source.output));
  CHECK(final_slots.count_term.empty());  // the count bounds the groups themselves, no key's values
  CHECK(final_slots.comment.find("at run time at most the slots of the rows of " + combine.source.output) != std::string::npos);
  CHECK(slots(p, "agg0_partial").count_buffer.empty());  // filled from lineitem's share: the statistics' size
}

TEST_CASE("an aggregation of phase 2's groups is bounded by the same gathered rows") {
  const ir::Program p = compile(kDistinctPairs, true);
  const std::string gathered = filler(p, "agg0").source.output;
  REQUIRE_FALSE(gathered.empty());
  const ir::AggregationTable* counts = nullptr;  // the aggregation reading agg0's groups
  for (const ir::Pipeline& q : p.pipelines)
    if (q.source.aggregation == "agg0" && q.sink.kind == ir::SinkKind::Aggregate) counts = p.find_aggregation(q.sink.state);
  REQUIRE(counts != nullptr);
  CHECK(slots(p, "agg0").count_buffer == counter_of(p, gathered));
  CHECK(slots(p, counts->name).count_buffer == counter_of(p, gathered));
}

TEST_CASE("one process: every table is filled from base tables, nothing is bounded by an output") {
  for (const char* sql : {kByCustomer, kDistinctPairs}) {
    CAPTURE(sql);
    const ir::Program p = compile(sql, false);
    for (const ir::Param& param : p.params) CHECK(param.count_buffer.empty());
  }
}

TEST_CASE("a probe that can pass a row more than once keeps the statistics' size") {
  ir::Program p = compile(kByCustomer, true, false);
  // Phase 2's pipeline, given a probe into a table of repeated keys: a gathered row may reach the
  // sink once per match, so the output's rows no longer bound the groups.
  REQUIRE_FALSE(p.hash_tables.empty());
  ir::HashTable& repeated = p.hash_tables.front();
  repeated.unique_keys = false;
  ir::PipelineOp probe;
  probe.kind = ir::PipelineOpKind::Probe;
  probe.hash_table = repeated.name;
  for (ir::Pipeline& q : p.pipelines)
    if (q.sink.state == "agg0" && q.sink.kind == ir::SinkKind::Aggregate) q.ops.push_back(probe);
  ir::output_bounds(p);
  CHECK(slots(p, "agg0").count_buffer.empty());
  // A semi join passes a row at most once: bounded again.
  for (ir::Pipeline& q : p.pipelines)
    if (q.sink.state == "agg0" && q.sink.kind == ir::SinkKind::Aggregate) q.ops.back().join_type = plan::JoinType::Semi;
  ir::output_bounds(p);
  CHECK_FALSE(slots(p, "agg0").count_buffer.empty());
}

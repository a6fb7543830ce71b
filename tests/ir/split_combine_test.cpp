// Pass split_combine (ir/pass_split_combine.cpp): phase 2 of a two-phase aggregation keeps on each
// rank the rows of the rank's range of one key — only where a later aggregation by that key reads it,
// or the result reads it under ORDER BY ... LIMIT; the result reading it without a LIMIT, a join
// building from it or a scalar stage over it keep it whole.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <string>

#include "frontend/sql/sql_frontend.h"
#include "ir/build_pipelines.h"
#include "ir/explain.h"
#include "ir/passes.h"
#include "storage/catalog.h"
#include "tests/ir/ir_test_util.h"

using namespace hqc;

namespace {

ir::Program split(const std::string& sql, bool distributed = true) {
  ir::BuildOptions options;
  if (distributed) test::partition_tpch_like_ranks(options);
  ir::Program program = test::build_tpch_sql(sql, options);
  ir::run_passes(program, ir::default_passes());  // compact_result too: the result's rows are what moves
  return program;
}

const ir::AggregationTable& table(const ir::Program& p, const std::string& name) {
  const ir::AggregationTable* t = p.find_aggregation(name);
  REQUIRE(t != nullptr);
  return *t;
}

const ir::Pipeline& writer(const ir::Program& p, const std::string& state) {
  for (const ir::Pipeline& q : p.pipelines)
    if (q.sink.state == state) return q;
  FAIL("no pipeline fills " << state);
  return p.pipelines.front();
}

size_t split_params(const ir::Program& p) {
  size_t n = 0;
  for (const ir::Param& q : p.params) n += q.split_min_param.empty() ? 0 : 1;
  return n;
}

// TPC-H Q10's groups: by customer, from lineitem (partitioned by order key): two-phase. (Without
// statistics a decimal SUM is 128-bit, which phase 2 cannot re-sum: a COUNT and a MAX instead.)
const char* kQ10 =
    "SELECT c_custkey, c_name, count(*) AS lines, max(l_extendedprice) AS revenue, c_acctbal, n_name "
    "FROM customer, orders, lineitem, nation WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey "
    "AND o_orderdate >= date '1993-10-01' AND o_orderdate < date '1994-01-01' AND l_returnflag = 'R' "
    "AND c_nationkey = n_nationkey GROUP BY c_custkey, c_name, c_acctbal, n_name ORDER BY revenue DESC LIMIT 20";

}  // namespace

TEST_CASE("Q10: the result reads the final table under ORDER BY ... LIMIT — split, each rank's top rows gathered") {
  const ir::Program p = split(kQ10);
  const ir::AggregationTable& t = table(p, "agg0");
  REQUIRE(t.combines == "agg0_partial");
  CHECK(t.split_key == "c_custkey");  // the first of the candidates (without statistics: key order)
  CHECK(t.split_groups);
  CHECK(t.top_k == 20);  // LIMIT 20: what each rank's compacted rows narrow to (runtime StateMerge::top_k)
  CHECK(t.compaction.has_value());
  CHECK(split_params(p) == 2);
  REQUIRE_FALSE(writer(p, "agg0").ops.empty());
  CHECK(writer(p, "agg0").ops.front().kind == ir::PipelineOpKind::Filter);
  CHECK(ir::explain(p).find("agg0 — the rank's part of the groups (by c_custkey), compacted rows (each rank's that can be among the "
                            "first 20) concatenated in rank order") != std::string::npos);
}

TEST_CASE("Q10 without LIMIT: not split, every group would cross to rank 0") {
  std::string sql = kQ10;
  sql = sql.substr(0, sql.find(" LIMIT"));
  const ir::Program p = split(sql);
  const ir::AggregationTable& t = table(p, "agg0");
  REQUIRE(t.combines == "agg0_partial");
  CHECK_FALSE(t.split_candidates.empty());  // c_custkey could split it
  CHECK(t.split_key.empty());
  CHECK_FALSE(t.split_groups);
  CHECK(t.top_k == -1);
  CHECK(split_params(p) == 0);
  CHECK(writer(p, "agg0").ops.empty());  // phase 2 keeps every merged row
}

TEST_CASE("Q16: the distinct pairs are split by a key the counts group by; the counts' compacted groups are gathered") {
  const ir::Program p = split(
      "SELECT p_brand, p_type, p_size, count(DISTINCT ps_suppkey) AS supplier_cnt FROM partsupp, part "
      "WHERE p_partkey = ps_partkey AND p_brand <> 'Brand#45' AND p_size IN (49, 14, 23) "
      "GROUP BY p_brand, p_type, p_size ORDER BY supplier_cnt DESC, p_brand, p_type, p_size");
  const ir::AggregationTable& pairs = table(p, "agg0");
  REQUIRE(pairs.combines == "agg0_partial");
  // Without statistics the candidates keep key order: p_brand is the first the counts group by.
  CHECK(pairs.split_key == "p_brand");
  CHECK(pairs.split_groups);
  const ir::Pipeline& phase2 = writer(p, "agg0");
  CHECK(phase2.source.output == "out0");
  REQUIRE_FALSE(phase2.ops.empty());
  const ir::PipelineOp& filter = phase2.ops.front();
  CHECK(filter.kind == ir::PipelineOpKind::Filter);
  CHECK(filter.predicate->to_string() == "((p_brand >= $agg0_split_p_brand_lo) and (p_brand <= $agg0_split_p_brand_hi))");
  const ir::Param* lo = p.find_param("agg0_split_p_brand_lo");
  const ir::Param* hi = p.find_param("agg0_split_p_brand_hi");
  REQUIRE(lo != nullptr);
  REQUIRE(hi != nullptr);
  // Resolved as one rank's: every key passes; the range the ranks divide is the partial key's.
  CHECK(lo->source == ir::Param::Source::Constant);
  CHECK(lo->value == std::numeric_limits<int32_t>::min());
  CHECK(hi->value == std::numeric_limits<int32_t>::max());
  CHECK_FALSE(lo->split_upper);
  CHECK(hi->split_upper);
  CHECK(lo->split_min_param == table(p, "agg0_partial").keys[0].min_param);
  CHECK(lo->split_domain_param == table(p, "agg0_partial").keys[0].domain_param);
  CHECK(split_params(p) == 2);
  // The counts: split_groups through the pairs, compacted for the result, gathered after that.
  const ir::AggregationTable* counts = nullptr;
  for (const ir::AggregationTable& a : p.aggregations)
    if (a.name != "agg0" && a.name != "agg0_partial") counts = &a;
  REQUIRE(counts != nullptr);
  CHECK(counts->split_groups);
  CHECK(counts->split_key.empty());
  CHECK(counts->compaction.has_value());
  const ir::Pipeline& count_writer = writer(p, counts->name);
  CHECK(ir::explain(p).find("after p" + std::to_string(count_writer.id) + ": " + counts->name +
                            " — the rank's part of the groups (by p_brand, as agg0), compacted rows concatenated in rank order") !=
        std::string::npos);
  CHECK(ir::explain(p).find("after p" + std::to_string(phase2.id) + ": agg0 — none: the rank's part of the groups (by p_brand), read on the rank") !=
        std::string::npos);
  // The partial (phase 1) is untouched.
  CHECK(table(p, "agg0_partial").split_key.empty());
  CHECK_FALSE(table(p, "agg0_partial").split_groups);
}

TEST_CASE("a final table a join builds from, or a scalar stage reads, stays whole on every rank") {
  // Each query has a two-phase table (`combines`), which the pass leaves whole.
  auto whole = [](const ir::Program& p) {
    size_t two_phase = 0;
    for (const ir::AggregationTable& a : p.aggregations) {
      if (a.combines.empty()) continue;
      ++two_phase;
      CHECK_MESSAGE(a.split_key.empty(), a.name);
      CHECK_MESSAGE(!a.split_groups, a.name);
    }
    CHECK(two_phase == 1);
    CHECK(split_params(p) == 0);
  };
  // Groups by (part, supplier) probed by partsupp (Q20's shape): a join builds from them.
  whole(split(
      "SELECT ps_suppkey FROM partsupp, (SELECT l_partkey, l_suppkey, count(*) AS q FROM lineitem "
      "GROUP BY l_partkey, l_suppkey) AS t WHERE ps_partkey = t.l_partkey AND ps_suppkey = t.l_suppkey AND ps_availqty > t.q"));
  // Groups by customer summed into one value by a later stage.
  whole(split(
      "SELECT max(revenue) FROM (SELECT o_custkey, max(l_extendedprice) AS revenue FROM orders, lineitem "
      "WHERE o_orderkey = l_orderkey GROUP BY o_custkey) AS t"));
}

TEST_CASE("one process: no two-phase table, nothing split") {
  const ir::Program p = split(kQ10, false);
  CHECK(split_params(p) == 0);
  for (const ir::AggregationTable& a : p.aggregations) CHECK(a.split_key.empty());
}

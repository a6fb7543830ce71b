// Pass shared_aggregations (ir/pass_shared_aggregations.cpp): an aggregation computed twice from the
// same rows is computed once; what read the second reads the first. Aggregations that differ in
// anything — rows, filters, keys, accumulators — stay two.
#include <doctest/doctest.h>

#include <algorithm>
#include <memory>
#include <set>
#include <string>

#include "frontend/sql/sql_frontend.h"
#include "ir/build_pipelines.h"
#include "ir/passes.h"
#include "ir/verifier.h"
#include "storage/catalog.h"
#include "tests/ir/ir_test_util.h"

using namespace hqc;

namespace {

ir::Program built(const std::string& sql) { return test::build_tpch_sql(sql); }

size_t scans_of(const ir::Program& p, const std::string& table) {
  size_t n = 0;
  for (const ir::Pipeline& q : p.pipelines) n += q.source.table == table ? 1 : 0;
  return n;
}

// TPC-H Q15's shape: a view of revenue per supplier, read for its maximum and joined with supplier.
std::string q15(const std::string& second_filter = "l_shipdate >= date '1996-01-01'") {
  return "WITH revenue0 AS (SELECT l_suppkey AS supplier_no, sum(l_extendedprice) AS total_revenue FROM lineitem "
         "WHERE l_shipdate >= date '1996-01-01' GROUP BY l_suppkey), "
         "revenue1 AS (SELECT l_suppkey AS supplier_no, sum(l_extendedprice) AS total_revenue FROM lineitem "
         "WHERE " + second_filter + " GROUP BY l_suppkey) "
         "SELECT s_suppkey, total_revenue FROM supplier, revenue1 WHERE s_suppkey = supplier_no "
         "AND total_revenue = (SELECT max(total_revenue) FROM revenue0)";
}

}  // namespace

TEST_CASE("Q15's revenue view read twice: one scan of lineitem, both readers read its table") {
  ir::Program p = built(q15());
  REQUIRE(scans_of(p, "lineitem") == 2);
  const size_t tables = p.aggregations.size(), pipelines = p.pipelines.size();
  std::set<std::string> before;
  for (const ir::AggregationTable& a : p.aggregations) before.insert(a.name);
  ir::shared_aggregations(p);
  ir::verify(p);
  CHECK(scans_of(p, "lineitem") == 1);
  CHECK(p.aggregations.size() == tables - 1);
  CHECK(p.pipelines.size() == pipelines - 1);
  const ir::Pipeline* writer = nullptr;
  for (const ir::Pipeline& q : p.pipelines)
    if (q.source.table == "lineitem") writer = &q;
  REQUIRE(writer != nullptr);
  const std::string revenue = writer->sink.state;
  size_t readers = 0;
  for (const ir::Pipeline& q : p.pipelines) {
    CHECK(q.id == static_cast<int>(&q - p.pipelines.data()));  // renumbered in order
    if (q.source.aggregation != revenue) continue;
    ++readers;
    CHECK(q.name.substr(q.name.size() - revenue.size()) == revenue);  // "... from <the table>"
    CHECK(q.source.rows_param == p.find_aggregation(revenue)->slots_param);
    CHECK(std::find(q.depends_on.begin(), q.depends_on.end(), writer->id) != q.depends_on.end());
  }
  CHECK(readers == 2);  // the maximum, and the build the supplier scan probes
  for (const ir::AggregationTable& a : p.aggregations) before.erase(a.name);
  REQUIRE(before.size() == 1);  // the table removed: none of its buffers is left
  for (const ir::Buffer& b : p.buffers) CHECK_MESSAGE(b.name.rfind(*before.begin() + "_", 0) != 0, b.name);
  CHECK_NOTHROW(ir::run_passes(p, ir::default_passes()));
}

TEST_CASE("aggregations over other rows stay two") {
  ir::Program p = built(q15("l_shipdate >= date '1996-02-01'"));
  const size_t pipelines = p.pipelines.size();
  ir::shared_aggregations(p);
  CHECK(p.pipelines.size() == pipelines);
  CHECK(scans_of(p, "lineitem") == 2);
}

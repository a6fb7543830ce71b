// Pass reduce_builds (ir/pass_reduce_builds.cpp): a hash table probed once, on a key that a selective
// table probed in the same pipeline restricts, builds only the rows that can match — its build
// probes that table first (semi), depends on its build, and the pipelines stay in dependency order.
#include <doctest/doctest.h>

#include <algorithm>
#include <memory>
#include <string>

#include "frontend/sql/sql_frontend.h"
#include "frontend/statistics.h"
#include "ir/compile.h"
#include "ir/build_pipelines.h"
#include "ir/passes.h"
#include "ir/verifier.h"
#include "storage/catalog.h"
#include "tests/ir/ir_test_util.h"

using namespace hqc;

namespace {

ir::Program reduced(const std::string& sql) {
  const Catalog catalog = Catalog::tpch();
  auto plan = std::make_shared<plan::LogicalPlan>(parse_sql(sql, "test.sql", catalog, nullptr));
  ir::Program program = ir::build_program(plan, catalog, {});
  ir::reduce_builds(program);
  ir::verify(program);
  return program;
}

const ir::Pipeline& builder_of(const ir::Program& p, const std::string& table) {
  for (const ir::Pipeline& q : p.pipelines)
    if (q.sink.kind == ir::SinkKind::HashBuild && q.source.table == table) return q;
  FAIL("no pipeline builds from " << table);
  return p.pipelines.front();
}

// The semi probes a build pipeline makes, as "hash table(key column)".
std::vector<std::string> semi_probes(const ir::Pipeline& p) {
  std::vector<std::string> out;
  for (const ir::PipelineOp& op : p.ops)
    if (op.kind == ir::PipelineOpKind::Probe && op.join_type == plan::JoinType::Semi)
      out.push_back(op.hash_table + "(" + op.probe_keys.at(0)->column + ")");
  return out;
}

// TPC-H Q9's joins: lineitem probes the green parts by l_partkey and partsupp by (l_suppkey, l_partkey).
const char* kQ9 =
    "SELECT n_name, sum(l_extendedprice * (1 - l_discount) - ps_supplycost * l_quantity) AS amount "
    "FROM part, supplier, lineitem, partsupp, nation "
    "WHERE s_suppkey = l_suppkey AND ps_suppkey = l_suppkey AND ps_partkey = l_partkey AND p_partkey = l_partkey "
    "AND s_nationkey = n_nationkey AND p_name LIKE '%green%' GROUP BY n_name";

}  // namespace

TEST_CASE("Q9's partsupp build keeps only the green parts' rows, after the parts are built") {
  const ir::Program p = reduced(kQ9);
  const ir::Pipeline& parts = builder_of(p, "part");
  const ir::Pipeline& partsupp = builder_of(p, "partsupp");
  CHECK(semi_probes(partsupp) == std::vector<std::string>{parts.sink.state + "(ps_partkey)"});
  CHECK(std::count(partsupp.depends_on.begin(), partsupp.depends_on.end(), parts.id) == 1);
  CHECK(partsupp.id > parts.id);
  // Ids are positions again, and names follow them.
  for (size_t i = 0; i < p.pipelines.size(); ++i) {
    CHECK(p.pipelines[i].id == static_cast<int>(i));
    CHECK(p.pipelines[i].name.rfind("p" + std::to_string(i) + " ", 0) == 0);
  }
  // The other builds are untouched: supplier is probed by l_suppkey, which no selective table restricts.
  CHECK(semi_probes(builder_of(p, "supplier")).empty());
  CHECK(semi_probes(parts).empty());
}

TEST_CASE("no reduction where it could change the answer or gains nothing") {
  // The parts unfiltered: probing them first would drop nothing.
  std::string unfiltered = kQ9;
  unfiltered.replace(unfiltered.find(" AND p_name LIKE '%green%'"), std::string(" AND p_name LIKE '%green%'").size(), "");
  CHECK(semi_probes(builder_of(reduced(unfiltered), "partsupp")).empty());
  // A left outer probe of the parts restricts nothing: every lineitem row goes on.
  const ir::Program outer = reduced(
      "SELECT count(*) FROM lineitem LEFT JOIN part ON l_partkey = p_partkey AND p_size = 15 JOIN partsupp ON ps_partkey = l_partkey "
      "AND ps_suppkey = l_suppkey");
  CHECK(semi_probes(builder_of(outer, "partsupp")).empty());
}

namespace {

// As mpirun's ranks compile (orders + lineitem by order key, partsupp by part key), or one process,
// with the catalog's estimates at `sf` as statistics, through the whole pass pipeline.
ir::Program compiled(const std::string& sql, bool distributed, double sf = 1.0) {
  const Catalog catalog = Catalog::tpch();
  const plan::CatalogStatistics stats(catalog, sf);
  auto plan = std::make_shared<plan::LogicalPlan>(parse_sql(sql, "test.sql", catalog, nullptr));
  ir::BuildOptions options;
  options.stats = &stats;
  if (distributed) {
    test::partition_tpch_like_ranks(options);
    options.join_exchange = ir::JoinExchange::Broadcast;
  }
  return ir::compile_program(plan, catalog, options);
}

const ir::Pipeline& materializer_of(const ir::Program& p, const std::string& table) {
  for (const ir::Pipeline& q : p.pipelines)
    if (q.sink.kind == ir::SinkKind::Materialize && q.source.table == table) return q;
  FAIL("no pipeline materializes " << table);
  return p.pipelines.front();
}

void check_dependency_order(const ir::Program& p) {
  for (size_t i = 0; i < p.pipelines.size(); ++i) {
    CHECK(p.pipelines[i].id == static_cast<int>(i));
    for (int d : p.pipelines[i].depends_on) CHECK(d < static_cast<int>(i));
  }
}

// TPC-H Q3's joins: the orders build is probed by l_orderkey only, but lineitem then probes the
// BUILDING customers with the orders' o_custkey (a payload of the orders table).
const char* kQ3 =
    "SELECT l_orderkey, sum(l_extendedprice * (1 - l_discount)) AS revenue, o_orderdate FROM customer, orders, lineitem "
    "WHERE c_mktsegment = 'BUILDING' AND c_custkey = o_custkey AND l_orderkey = o_orderkey "
    "AND o_orderdate < date '1995-03-15' AND l_shipdate > date '1995-03-15' GROUP BY l_orderkey, o_orderdate";

}  // namespace

TEST_CASE("distributed: the rows of a gathered build are reduced before the gather") {
  // Q9 under mpirun: partsupp is partitioned on another key than lineitem's, so its rows are
  // materialized and gathered to every rank, and the table is built from them. The semi probe of the
  // green parts goes into the materializing pipeline: only those rows travel.
  const ir::Program p = compiled(kQ9, true);
  const ir::Pipeline& parts = builder_of(p, "part");
  const ir::Pipeline& rows = materializer_of(p, "partsupp");
  CHECK(semi_probes(rows) == std::vector<std::string>{parts.sink.state + "(ps_partkey)"});
  CHECK(std::count(rows.depends_on.begin(), rows.depends_on.end(), parts.id) == 1);
  // The build from the gathered output probes nothing more.
  for (const ir::Pipeline& q : p.pipelines)
    if (q.sink.kind == ir::SinkKind::HashBuild && q.source.output == rows.sink.state) CHECK(semi_probes(q).empty());
  check_dependency_order(p);
  // The same query in one process: the build itself probes the parts, as before.
  const ir::Program one = compiled(kQ9, false);
  CHECK(semi_probes(builder_of(one, "partsupp")).size() == 1);
  check_dependency_order(one);
}

TEST_CASE("a payload the probe of a selective table reads restricts the build that carries it, for large tables") {
  // Q3 at SF 1: lineitem probes orders by l_orderkey, then the BUILDING customers by the orders'
  // o_custkey: orders whose customer is not BUILDING can only meet dropped lines.
  const ir::Program p = compiled(kQ3, false, 1.0);
  const ir::Pipeline& customers = builder_of(p, "customer");
  const ir::Pipeline& orders = builder_of(p, "orders");
  CHECK(semi_probes(orders) == std::vector<std::string>{customers.sink.state + "(o_custkey)"});
  CHECK(orders.id > customers.id);
  check_dependency_order(p);
  // Below kPayloadReductionRows orders (SF 0.1: 150 000) the extra wave is not worth it.
  CHECK(semi_probes(builder_of(compiled(kQ3, false, 0.1), "orders")).empty());
  // Without statistics the sizes are unknown: no payload reduction (horseqc-compile's output).
  const Catalog catalog = Catalog::tpch();
  auto plan = std::make_shared<plan::LogicalPlan>(parse_sql(kQ3, "test.sql", catalog, nullptr));
  CHECK(semi_probes(builder_of(ir::compile_program(plan, catalog, {}), "orders")).empty());
  // A left outer join to the customers drops no line: nothing to reduce by.
  std::string outer = kQ3;
  outer.replace(outer.find("FROM customer, orders, lineitem "), std::string("FROM customer, orders, lineitem ").size(),
                "FROM lineitem JOIN orders ON l_orderkey = o_orderkey LEFT JOIN customer ON c_custkey = o_custkey AND c_mktsegment = 'BUILDING' ");
  outer.replace(outer.find("WHERE c_mktsegment = 'BUILDING' AND c_custkey = o_custkey AND l_orderkey = o_orderkey AND "),
                std::string("WHERE c_mktsegment = 'BUILDING' AND c_custkey = o_custkey AND l_orderkey = o_orderkey AND ").size(),
                "WHERE ");
  CHECK(semi_probes(builder_of(compiled(outer, false, 1.0), "orders")).empty());
}

TEST_CASE("Q20 distributed: partsupp's rows probed by the lineitem sums keep only the 'forest%' parts' before the gather") {
  const std::string sql =
      "SELECT s_name FROM supplier, nation WHERE s_suppkey IN (SELECT ps_suppkey FROM partsupp WHERE ps_partkey IN "
      "(SELECT p_partkey FROM part WHERE p_name LIKE 'forest%') AND ps_availqty > (SELECT 0.5 * sum(l_quantity) FROM lineitem "
      "WHERE l_partkey = ps_partkey AND l_suppkey = ps_suppkey AND l_shipdate >= date '1994-01-01' AND l_shipdate < date '1995-01-01')) "
      "AND s_nationkey = n_nationkey AND n_name = 'CANADA' ORDER BY s_name";
  const ir::Program p = compiled(sql, true, 1.0);
  const ir::Pipeline& rows = materializer_of(p, "partsupp");
  REQUIRE(semi_probes(rows).size() == 1);
  CHECK(semi_probes(rows)[0].find("(ps_partkey)") != std::string::npos);
  check_dependency_order(p);
}

TEST_CASE("a table built from groups restricts a build too: Q18's orders keep those whose lines sum past 300") {
  // lineitem probes orders by l_orderkey, then the groups over 300 by the orders' o_orderkey.
  const std::string sql =
      "SELECT c_name, o_orderkey, sum(l_quantity) AS q FROM customer, orders, lineitem WHERE o_orderkey IN "
      "(SELECT l_orderkey FROM lineitem GROUP BY l_orderkey HAVING sum(l_quantity) > 300) AND c_custkey = o_custkey "
      "AND o_orderkey = l_orderkey GROUP BY c_name, o_orderkey";
  const ir::Program p = compiled(sql, false, 1.0);
  const ir::Pipeline& orders = builder_of(p, "orders");
  REQUIRE(semi_probes(orders).size() == 1);
  const std::string groups = semi_probes(orders)[0].substr(0, semi_probes(orders)[0].find('('));
  bool from_groups = false;
  for (const ir::Pipeline& q : p.pipelines)
    if (q.sink.kind == ir::SinkKind::HashBuild && q.sink.state == groups) {
      from_groups = !q.source.aggregation.empty();
      CHECK(orders.id > q.id);
    }
  CHECK(from_groups);
  CHECK(semi_probes(orders)[0] == groups + "(o_orderkey)");
  check_dependency_order(p);
  // Under mpirun those groups stay on their rank (keyed by the order key): no reduction by them.
  CHECK(semi_probes(builder_of(compiled(sql, true, 1.0), "orders")).empty());
}

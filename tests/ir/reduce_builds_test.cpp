// Pass reduce_builds (ir/pass_reduce_builds.cpp): a hash table probed once, on a key that a selective
// table probed in the same pipeline restricts, builds only the rows that can match — its build
// probes that table first (semi), depends on its build, and the pipelines stay in dependency order.
#include <doctest/doctest.h>

#include <algorithm>
#include <memory>
#include <string>

#include "frontend/sql/sql_frontend.h"
#include "ir/build_pipelines.h"
#include "ir/passes.h"
#include "ir/verifier.h"
#include "storage/catalog.h"

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

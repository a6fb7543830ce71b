// Pass shared_builds (ir/pass_shared_builds.cpp): a join table built twice from the same filtered rows
// is built once; the second's probes probe the first, their payload bindings follow its payload.
// Builds over other rows, or needing payload the first lacks, stay two.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <memory>
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

std::map<std::string, size_t> builds_by_table(const ir::Program& p) {
  std::map<std::string, size_t> n;
  for (const ir::Pipeline& q : p.pipelines)
    if (q.sink.kind == ir::SinkKind::HashBuild) ++n[q.source.table];
  return n;
}

// TPC-H Q11's shape: the HAVING subquery joins partsupp, supplier and nation (GERMANY) as the outer
// query does; `nation_filter` changes the subquery's nation.
std::string q11(const std::string& nation_filter = "n_name = 'GERMANY'") {
  return "SELECT ps_partkey, sum(ps_supplycost * ps_availqty) AS value FROM partsupp, supplier, nation "
         "WHERE ps_suppkey = s_suppkey AND s_nationkey = n_nationkey AND n_name = 'GERMANY' GROUP BY ps_partkey "
         "HAVING sum(ps_supplycost * ps_availqty) > (SELECT sum(ps_supplycost * ps_availqty) * 0.0001 "
         "FROM partsupp, supplier, nation WHERE ps_suppkey = s_suppkey AND s_nationkey = n_nationkey AND " +
         nation_filter + ")";
}

}  // namespace

TEST_CASE("Q11: the subquery's nation and supplier builds are the outer query's; their probes probe those") {
  ir::Program p = built(q11());
  REQUIRE(builds_by_table(p) == std::map<std::string, size_t>{{"nation", 2}, {"supplier", 2}});
  ir::shared_builds(p);
  ir::verify(p);
  CHECK(builds_by_table(p) == std::map<std::string, size_t>{{"nation", 1}, {"supplier", 1}});
  CHECK(p.hash_tables.size() == 2);
  // Both partsupp scans probe the one supplier table and the one nation table, after their builders.
  for (const ir::Pipeline& q : p.pipelines) {
    CHECK(q.id == static_cast<int>(&q - p.pipelines.data()));
    if (q.source.table != "partsupp") continue;
    for (const ir::PipelineOp& op : q.ops) {
      if (op.kind != ir::PipelineOpKind::Probe) continue;
      const ir::HashTable* ht = p.find_hash_table(op.hash_table);
      REQUIRE(ht != nullptr);
      for (const ir::Pipeline& b : p.pipelines)
        if (b.sink.state == ht->name) CHECK(std::find(q.depends_on.begin(), q.depends_on.end(), b.id) != q.depends_on.end());
      // Each payload binding reads the column of that name from the table it now probes.
      for (const ir::AttributeBinding& binding : q.attributes) {
        if (binding.origin != ir::AttributeBinding::Origin::ProbePayload || binding.op_id != op.id) continue;
        REQUIRE(binding.payload_index < ht->payload.size());
        CHECK(ht->payload[binding.payload_index].name == binding.attr.name);
      }
    }
  }
  CHECK_NOTHROW(ir::run_passes(p, ir::default_passes()));
}

TEST_CASE("builds over other rows stay two") {
  ir::Program p = built(q11("n_name = 'FRANCE'"));
  ir::shared_builds(p);
  // The nations differ and stay two; the unfiltered supplier builds are one.
  CHECK(builds_by_table(p) == std::map<std::string, size_t>{{"nation", 2}, {"supplier", 1}});
}

// TPC-H Q20: the planner builds the 'forest%' part subquery twice (for partsupp, and again to narrow
// the correlated sum's lineitem scan to those parts), each with the map `sq…_1 := p_partkey`.
std::string q20(const std::string& pattern = "forest%") {
  return "SELECT s_name, s_address FROM supplier, nation WHERE s_suppkey IN (SELECT ps_suppkey FROM partsupp WHERE "
         "ps_partkey IN (SELECT p_partkey FROM part WHERE p_name LIKE '" + pattern + "') AND ps_availqty > "
         "(SELECT 0.5 * sum(l_quantity) FROM lineitem WHERE l_partkey = ps_partkey AND l_suppkey = ps_suppkey AND "
         "l_shipdate >= date '1994-01-01' AND l_shipdate < date '1994-01-01' + interval '1' year)) AND "
         "s_nationkey = n_nationkey AND n_name = 'CANADA' ORDER BY s_name";
}

TEST_CASE("Q20: the two 'forest%' part builds, maps and all, are one") {
  ir::Program p = built(q20());
  REQUIRE(builds_by_table(p)["part"] == 2);
  const size_t pipelines = p.pipelines.size();
  ir::shared_builds(p);
  ir::verify(p);
  CHECK(builds_by_table(p)["part"] == 1);
  CHECK(p.pipelines.size() == pipelines - 1);
  CHECK_NOTHROW(ir::run_passes(p, ir::default_passes()));
}

TEST_CASE("part builds of two different subqueries stay two") {
  ir::Program p = built("SELECT count(*) FROM partsupp WHERE ps_partkey IN (SELECT p_partkey FROM part WHERE p_name LIKE "
                        "'forest%') AND ps_suppkey IN (SELECT p_partkey FROM part WHERE p_name LIKE 'green%')");
  REQUIRE(builds_by_table(p)["part"] == 2);
  ir::shared_builds(p);
  CHECK(builds_by_table(p)["part"] == 2);
}

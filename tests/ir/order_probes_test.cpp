// Pass order_probes (ir/pass_order_probes.cpp): within a run of probes that keep or drop a tuple,
// one-lookup probes go before chain walks and residual tests, a probe stays after those whose payload
// it reads, and outer or multi-match probes end a run. With reduce_builds (the pass before it): TPC-H
// Q21's EXISTS / NOT EXISTS builds keep only the lines of the orders the query keeps.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>

#include "frontend/sql/sql_frontend.h"
#include "ir/compile.h"
#include "ir/verifier.h"
#include "storage/catalog.h"

using namespace hqc;

namespace {

ir::Program compiled(const std::string& sql, bool order = true) {
  const Catalog catalog = Catalog::tpch();
  auto plan = std::make_shared<plan::LogicalPlan>(parse_sql(sql, "test.sql", catalog, nullptr));
  ir::PassOptions options;
  if (!order) options.skip = {"order_probes"};
  ir::Program p = ir::compile_program(plan, catalog, {}, options);
  ir::verify(p);
  return p;
}

std::string tpch_query(int n) {
  const char* dir = std::getenv("HORSEQC_SOURCE_DIR");
  REQUIRE_MESSAGE(dir != nullptr, "HORSEQC_SOURCE_DIR must point at the source tree");
  std::ifstream in(std::string(dir) + "/tpch/queries/" + std::to_string(n) + ".sql");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The probes of the pipeline whose sink is `sink`, in order, as "inner ht2" / "anti ht3".
std::vector<std::string> probes_of(const ir::Program& p, const std::string& sink) {
  for (const ir::Pipeline& q : p.pipelines) {
    if (q.sink.state != sink) continue;
    std::vector<std::string> out;
    for (const ir::PipelineOp& op : q.ops)
      if (op.kind == ir::PipelineOpKind::Probe) out.push_back(std::string(plan::join_type_name(op.join_type)) + " " + op.hash_table);
    return out;
  }
  FAIL("no pipeline sinks into " << sink);
  return {};
}

const ir::HashTable& table_on(const ir::Program& p, const std::string& build_table, bool chained) {
  for (const ir::HashTable& t : p.hash_tables)
    if (t.build_table == build_table && (t.layout == ir::HashLayout::Chained) == chained) return t;
  FAIL("no hash table on " << build_table);
  return p.hash_tables.front();
}

}  // namespace

TEST_CASE("TPC-H Q21: the orders, supplier and nation lookups before the EXISTS and NOT EXISTS chain walks") {
  const ir::Program p = compiled(tpch_query(21));
  const std::string orders = table_on(p, "orders", false).name, supplier = table_on(p, "supplier", false).name;
  const std::string nation = table_on(p, "nation", false).name;
  const std::vector<std::string> order = probes_of(p, p.aggregations.at(0).name);
  REQUIRE(order.size() == 5);
  // One lookup each first, in the builder's order (nation after supplier: it reads s_nationkey).
  CHECK(order[0] == "inner " + orders);
  CHECK(order[1] == "inner " + supplier);
  CHECK(order[2] == "inner " + nation);
  CHECK(order[3].rfind("semi ", 0) == 0);
  CHECK(order[4].rfind("anti ", 0) == 0);
  // reduce_builds: each lineitem build (keyed through a copying Map) keeps the 'F' orders' lines.
  for (const ir::HashTable& t : p.hash_tables) {
    if (t.build_table != "lineitem") continue;
    for (const ir::Pipeline& q : p.pipelines) {
      if (q.sink.kind != ir::SinkKind::HashBuild || q.sink.state != t.name) continue;
      REQUIRE(!q.ops.empty());
      CHECK(q.ops.front().kind == ir::PipelineOpKind::Probe);
      CHECK(q.ops.front().join_type == plan::JoinType::Semi);
      CHECK(q.ops.front().hash_table == orders);
      CHECK(q.ops.front().probe_keys.at(0)->column == "l_orderkey");
    }
  }
}

TEST_CASE("a probe whose key is another probe's payload stays after it; an outer join ends the run") {
  // customer's key is the orders' payload o_custkey: orders first whatever the classes.
  const ir::Program p = compiled(
      "SELECT count(*) AS n FROM lineitem, orders, customer WHERE l_orderkey = o_orderkey AND o_custkey = c_custkey "
      "AND c_mktsegment = 'BUILDING'");
  const std::vector<std::string> order = probes_of(p, p.aggregations.at(0).name);
  REQUIRE(order.size() == 2);
  CHECK(order[0] == "inner " + table_on(p, "orders", false).name);
  // A LEFT JOIN's probe never moves, nor does anything across it: the ops before it are the same
  // with and without the pass.
  const std::string sql =
      "SELECT count(*) AS n FROM lineitem l1 JOIN orders ON l1.l_orderkey = o_orderkey LEFT JOIN part ON l1.l_partkey = p_partkey "
      "AND p_size = 3 WHERE EXISTS (SELECT * FROM lineitem l2 WHERE l2.l_orderkey = l1.l_orderkey AND l2.l_suppkey <> l1.l_suppkey) "
      "AND o_orderstatus = 'F'";
  const ir::Program with = compiled(sql), without = compiled(sql, false);
  bool seen = false;
  for (size_t i = 0; i < with.pipelines.size(); ++i) {
    const std::vector<ir::PipelineOp>& a = with.pipelines[i].ops;
    const std::vector<ir::PipelineOp>& b = without.pipelines.at(i).ops;
    REQUIRE(a.size() == b.size());
    for (size_t k = 0; k < a.size(); ++k) {
      if (a[k].kind != ir::PipelineOpKind::Probe || a[k].join_type != plan::JoinType::LeftOuter) continue;
      seen = true;
      CHECK(b[k].id == a[k].id);
      std::set<int> before_a, before_b;
      for (size_t j = 0; j < k; ++j) {
        before_a.insert(a[j].id);
        before_b.insert(b[j].id);
      }
      CHECK(before_a == before_b);
    }
  }
  CHECK(seen);
}

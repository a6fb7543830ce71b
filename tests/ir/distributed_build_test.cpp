// Distributed compiles (ir::BuildOptions::partitioned_tables / partition_keys): a join build over a
// partitioned table is materialized and built from that output (merged across ranks in between),
// unless the join matches co-partitioned tables on their partition key — then the build stays on
// its rank (HashTable::rank_local) and nothing is materialized; so do groups by the partition key
// built into a join probed by the rank's own keys (ir/rank_local_groups.cpp), and a keys-only
// perfect hash (a semi / anti join asking whether a key exists) is built on each rank from its share
// and merged slot by slot (HashTable::merged_keys). One process: nothing changes.
#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "frontend/sql/sql_frontend.h"
#include "ir/build_pipelines.h"
#include "ir/explain.h"
#include "ir/verifier.h"
#include "storage/catalog.h"
#include "tests/ir/ir_test_util.h"

using namespace hqc;

namespace {

ir::Program compile(const std::string& sql, bool partitioned, bool keys) {
  const Catalog catalog = Catalog::tpch();
  auto plan = std::make_shared<plan::LogicalPlan>(parse_sql(sql, "test.sql", catalog, nullptr));
  ir::BuildOptions options;
  if (partitioned) options.partitioned_tables = {"orders", "lineitem"};
  if (keys) options.partition_keys = {{"orders", "o_orderkey"}, {"lineitem", "l_orderkey"}};
  return ir::build_program(plan, catalog, options);
}

// TPC-H as mpirun runs it: orders and lineitem by order-key ranges (group "orders"), partsupp by
// part-key ranges (group "partsupp").
ir::Program compile_two_groups(const std::string& sql) {
  const Catalog catalog = Catalog::tpch();
  auto plan = std::make_shared<plan::LogicalPlan>(parse_sql(sql, "test.sql", catalog, nullptr));
  ir::BuildOptions options;
  test::partition_tpch_like_ranks(options);
  return ir::build_program(plan, catalog, options);
}

const ir::Pipeline& builder_of(const ir::Program& p, const std::string& hash_table) {
  for (const ir::Pipeline& q : p.pipelines)
    if (q.sink.kind == ir::SinkKind::HashBuild && q.sink.state == hash_table) return q;
  FAIL("no pipeline builds " << hash_table);
  return p.pipelines.front();
}

// Q4's shape: orders EXISTS lineitem on the order key (a decorrelated subquery: the build key is
// the key column under the subquery's name).
const char* kExists =
    "SELECT o_orderpriority, COUNT(*) AS n FROM orders WHERE o_orderdate >= DATE '1993-07-01' AND EXISTS "
    "(SELECT * FROM lineitem WHERE l_orderkey = o_orderkey AND l_commitdate < l_receiptdate) GROUP BY o_orderpriority";
// Orders joined by the customer key: not the partition key.
const char* kByCustomer = "SELECT c_mktsegment, COUNT(*) AS n FROM customer, orders WHERE c_custkey = o_custkey GROUP BY c_mktsegment";

// Orders whose lines sum past a quantity (Q18's subquery), probed by each order's own key.
const char* kBigOrders =
    "SELECT o_orderpriority, COUNT(*) AS n FROM orders WHERE o_orderkey IN "
    "(SELECT l_orderkey FROM lineitem GROUP BY l_orderkey HAVING SUM(l_quantity) > 300) GROUP BY o_orderpriority";
// The same groups probed through the key an inner join made equal to the line's order key, and by NOT IN.
const char* kBigOrderLines =
    "SELECT l_returnflag, COUNT(*) AS n FROM lineitem, orders WHERE l_orderkey = o_orderkey AND o_orderkey IN "
    "(SELECT l_orderkey FROM lineitem GROUP BY l_orderkey HAVING COUNT(*) >= 6) GROUP BY l_returnflag";
const char* kSmallOrders =
    "SELECT o_orderstatus, COUNT(*) AS n FROM orders WHERE o_orderkey NOT IN "
    "(SELECT l_orderkey FROM lineitem GROUP BY l_orderkey HAVING MAX(l_quantity) >= 45) GROUP BY o_orderstatus";
// Near misses: probed by another key (any rank's order keys may equal a customer key); grouped by another key.
const char* kCustomerAsOrder =
    "SELECT o_orderpriority, COUNT(*) AS n FROM orders WHERE o_custkey IN "
    "(SELECT l_orderkey FROM lineitem GROUP BY l_orderkey HAVING SUM(l_quantity) > 100) GROUP BY o_orderpriority";
const char* kPopularParts =
    "SELECT l_shipmode, COUNT(*) AS n FROM lineitem WHERE l_partkey IN "
    "(SELECT l_partkey FROM lineitem GROUP BY l_partkey HAVING COUNT(*) >= 40) GROUP BY l_shipmode";

const ir::AggregationTable* partition_keyed(const ir::Program& p) {
  for (const ir::AggregationTable& a : p.aggregations)
    if (a.partition_keyed) return &a;
  return nullptr;
}

}  // namespace

TEST_CASE("groups by the partition key: kept on the rank and built from there when the probe asks for its own keys") {
  for (const char* sql : {kBigOrders, kBigOrderLines, kSmallOrders}) {
    CAPTURE(sql);
    const ir::Program p = compile(sql, true, true);
    const ir::AggregationTable* groups = partition_keyed(p);
    REQUIRE(groups != nullptr);
    CHECK(groups->rank_local);
    CHECK(groups->combines.empty());
    CHECK(groups->name.find("_partial") == std::string::npos);  // one table: no phase 2
    CHECK(p.outputs.empty());                                   // nothing materialized, nothing exchanged
    const ir::HashTable* built = nullptr;
    for (const ir::HashTable& ht : p.hash_tables)
      if (builder_of(p, ht.name).source.aggregation == groups->name) built = &ht;
    REQUIRE(built != nullptr);
    CHECK(built->rank_local);
    ir::verify(p);
    const std::string text = ir::explain(p);
    CHECK(text.find(groups->name + " — none: groups of the rank's own partition keys, complete there") != std::string::npos);
    CHECK(text.find(built->name + " — none: rank-local build of the rank's own groups") != std::string::npos);
  }
}

TEST_CASE("groups by the partition key: merged as before when the probe or the key is another column, or one process") {
  for (const auto& c : {std::pair{kCustomerAsOrder, true}, std::pair{kPopularParts, true}, std::pair{kBigOrders, false}}) {
    CAPTURE(c.first);
    const ir::Program p = compile(c.first, true, c.second);
    CHECK(partition_keyed(p) == nullptr);
    for (const ir::HashTable& ht : p.hash_tables) CHECK_FALSE(ht.rank_local);
    ir::verify(p);
  }
  const ir::Program one = compile(kBigOrders, false, true);
  CHECK(partition_keyed(one) == nullptr);
  for (const ir::AggregationTable& a : one.aggregations) CHECK_FALSE(a.rank_local);
}

TEST_CASE("partition groups: a key is home only for probes of its own group") {
  // Q2's shape: groups by ps_partkey probed by the rank's own partsupp rows: kept on the rank.
  const ir::Program kept = compile_two_groups(
      "SELECT ps_suppkey, COUNT(*) AS n FROM partsupp WHERE ps_partkey IN "
      "(SELECT ps_partkey FROM partsupp GROUP BY ps_partkey HAVING MIN(ps_supplycost) < 200) GROUP BY ps_suppkey");
  const ir::AggregationTable* groups = partition_keyed(kept);
  REQUIRE(groups != nullptr);
  CHECK(groups->rank_local);
  CHECK(groups->combines.empty());
  bool built_on_rank = false;
  for (const ir::HashTable& ht : kept.hash_tables)
    if (builder_of(kept, ht.name).source.aggregation == groups->name) built_on_rank = ht.rank_local;
  CHECK(built_on_rank);
  ir::verify(kept);
  // Part-key groups probed by order keys, order-key groups probed by part keys, and a join of the two
  // keys: their ranges differ, so nothing stays on a rank.
  for (const char* sql :
       {"SELECT l_shipmode, COUNT(*) AS n FROM lineitem WHERE l_orderkey IN "
        "(SELECT ps_partkey FROM partsupp GROUP BY ps_partkey HAVING SUM(ps_availqty) > 20000) GROUP BY l_shipmode",
        "SELECT ps_suppkey, COUNT(*) AS n FROM partsupp WHERE ps_partkey IN "
        "(SELECT l_orderkey FROM lineitem GROUP BY l_orderkey HAVING COUNT(*) >= 6) GROUP BY ps_suppkey",
        "SELECT l_linenumber, COUNT(*) AS n FROM lineitem, partsupp WHERE l_orderkey = ps_partkey GROUP BY l_linenumber",
        "SELECT ps_suppkey, COUNT(*) AS n FROM partsupp, lineitem WHERE ps_partkey = l_orderkey GROUP BY ps_suppkey"}) {
    CAPTURE(sql);
    const ir::Program p = compile_two_groups(sql);
    CHECK(partition_keyed(p) == nullptr);
    for (const ir::HashTable& ht : p.hash_tables) CHECK_FALSE(ht.rank_local);
    ir::verify(p);
  }
  // Within the order-key group nothing changed: Q4's EXISTS stays on its rank.
  const ir::Program exists = compile_two_groups(kExists);
  REQUIRE(exists.hash_tables.size() == 1);
  CHECK(exists.hash_tables[0].rank_local);
}

TEST_CASE("co-partitioned join: the build stays on its rank, nothing materialized") {
  const ir::Program p = compile(kExists, true, true);
  REQUIRE(p.hash_tables.size() == 1);
  CHECK(p.hash_tables[0].build_table == "lineitem");
  CHECK(p.hash_tables[0].rank_local);
  CHECK(p.outputs.empty());
  CHECK(builder_of(p, p.hash_tables[0].name).source.table == "lineitem");
  // EXPLAIN says where each rank's share flows and what is exchanged.
  const std::string text = ir::explain(p);
  CHECK(text.find("exchanges across ranks (partitioned: lineitem orders):") != std::string::npos);
  CHECK(text.find(p.hash_tables[0].name + " — none: rank-local build of co-partitioned rows") != std::string::npos);
  CHECK(text.find(p.aggregations[0].name + " — ") != std::string::npos);
  CHECK(text.find("[each rank's share]") != std::string::npos);
}

// A semi join whose residual compares a build column: its table holds that column (not keys only).
const char* kExistsOtherSupplier =
    "SELECT COUNT(*) AS n FROM lineitem l1 WHERE EXISTS (SELECT * FROM lineitem l2 WHERE l2.l_orderkey = l1.l_orderkey "
    "AND l2.l_suppkey <> l1.l_suppkey)";

TEST_CASE("partitioned build without co-partitioning: a keys-only perfect hash built on each rank and merged slot by slot") {
  // Q4's EXISTS without partition keys (so not co-partitioned): each rank inserts its share's keys.
  const ir::Program p = compile(kExists, true, false);
  REQUIRE(p.hash_tables.size() == 1);
  const ir::HashTable& ht = p.hash_tables[0];
  CHECK(ht.merged_keys);
  CHECK_FALSE(ht.rank_local);
  CHECK(ht.keys_only);
  CHECK(ht.layout == ir::HashLayout::PerfectHash);
  CHECK(ht.bitmap_buffer.empty());
  CHECK_FALSE(ht.key_bits);  // merged by the maximum of key slots: keys, not bits
  CHECK(builder_of(p, ht.name).source.table == "lineitem");  // its scan of the rank's share, nothing materialized
  CHECK(p.outputs.empty());
  CHECK(ir::explain(p).find("after p0: ht0 — slot by slot (the maximum: every rank's keys)") != std::string::npos);
  // One process: an ordinary table, of key bits.
  CHECK_FALSE(compile(kExists, false, false).hash_tables[0].merged_keys);
  CHECK(compile(kExists, false, false).hash_tables[0].key_bits);
}

TEST_CASE("partitioned build without co-partitioning: materialized, then built from the output") {
  for (const auto& c : {std::pair{kExistsOtherSupplier, false}, std::pair{kByCustomer, true}}) {
    const char* sql = c.first;
    const bool keys = c.second;
    CAPTURE(sql);
    const ir::Program p = compile(sql, true, keys);
    bool partitioned_build = false;
    for (const ir::HashTable& ht : p.hash_tables) {
      CHECK_FALSE(ht.rank_local);
      CHECK_FALSE(ht.merged_keys);
      const ir::Pipeline& b = builder_of(p, ht.name);
      if (ht.build_table != "orders" && ht.build_table != "lineitem") {
        CHECK(b.source.table == ht.build_table);  // a replicated table: built from its scan on every rank
        continue;
      }
      partitioned_build = true;
      CHECK(b.source.table.empty());  // from the materialized rows, merged across ranks
      REQUIRE(p.find_output(b.source.output) != nullptr);
      const ir::Pipeline& writer = p.pipelines.at(static_cast<size_t>(b.depends_on.at(0)));
      CHECK(writer.sink.kind == ir::SinkKind::Materialize);
      CHECK(writer.source.table == ht.build_table);
    }
    CHECK(partitioned_build == (std::string(sql) == kExistsOtherSupplier || p.hash_tables[0].build_table == "orders"));
  }
}

TEST_CASE("one process: the distributed options change nothing") {
  for (const char* sql : {kExists, kByCustomer}) {
    const ir::Program plain = compile(sql, false, false);
    const ir::Program keys_only = compile(sql, false, true);  // keys without partitioned tables: no effect
    CHECK(ir::explain(plain) == ir::explain(keys_only));
    CHECK(ir::explain(plain).find("exchanges across ranks") == std::string::npos);
    CHECK(plain.outputs.empty());
    for (const ir::HashTable& ht : plain.hash_tables) CHECK_FALSE(ht.rank_local);
  }
}

// Join table layouts of TPC-H shapes from SQL (ir/build_state.cpp, make_hash_table): a key that a
// decorrelated subquery renames is still its scan column — its domain makes a perfect hash, its
// distinct count sizes the slots — and non-unique keys where every build row is stored make chained
// tables (a list of entries per distinct key), with perfect-hash slots on a dense key column.
#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "frontend/sql/sql_frontend.h"
#include "ir/build_pipelines.h"
#include "planner/statistics.h"
#include "storage/catalog.h"

using namespace hqc;

namespace {

ir::Program compile(const std::string& sql, ir::HashLayout multimap = ir::HashLayout::Chained) {
  const Catalog catalog = Catalog::tpch();
  auto plan = std::make_shared<plan::LogicalPlan>(parse_sql(sql, "test.sql", catalog, nullptr));
  ir::BuildOptions options;
  options.multimap = multimap;
  return ir::build_program(plan, catalog, options);
}

const ir::HashTable& only_table_on(const ir::Program& p, const std::string& table) {
  const ir::HashTable* found = nullptr;
  for (const ir::HashTable& ht : p.hash_tables) {
    if (ht.build_table != table) continue;
    REQUIRE_MESSAGE(found == nullptr, "two hash tables built on " << table);
    found = &ht;
  }
  REQUIRE_MESSAGE(found != nullptr, "no hash table built on " << table);
  return *found;
}

// The perfect hash's slots are the domain of `table.column`.
void check_domain_of(const ir::Program& p, const ir::HashTable& ht, const std::string& table, const std::string& column) {
  const ir::Param* slots = p.find_param(ht.capacity_param);
  const ir::Param* min = p.find_param(ht.key_min_param);
  REQUIRE(slots);
  REQUIRE(min);
  CHECK(slots->source == ir::Param::Source::ColumnDomain);
  CHECK(slots->table == table);
  CHECK(slots->column == column);
  CHECK(min->table == table);
  CHECK(min->column == column);
}

// The one table built on `table` is chained, every build row an entry, its slots by perfect hash on
// `table.column`.
void check_chained_on(const ir::Program& p, const std::string& table, const std::string& column) {
  const ir::HashTable& ht = only_table_on(p, table);
  CHECK_FALSE(ht.unique_keys);
  CHECK_FALSE(ht.keys_only);
  CHECK(ht.layout == ir::HashLayout::Chained);
  CHECK(ht.perfect_slots);
  check_domain_of(p, ht, table, column);
  CHECK(p.find_buffer(ht.next_buffer)->elements_param == ht.entries_param);
  for (const std::string& b : ht.payload_buffers) CHECK(p.find_buffer(b)->elements_param == ht.entries_param);
}

// Q4: EXISTS over lineitem on the order key, the build key under the subquery's name.
const char* kExists =
    "SELECT o_orderpriority, COUNT(*) AS n FROM orders WHERE o_orderdate >= DATE '1993-07-01' AND EXISTS "
    "(SELECT * FROM lineitem WHERE l_orderkey = o_orderkey AND l_commitdate < l_receiptdate) GROUP BY o_orderpriority";
// Q21's shape: EXISTS with a residual over the build side's supplier (every lineitem row stored).
const char* kExistsResidual =
    "SELECT COUNT(*) AS n FROM lineitem l1 WHERE EXISTS (SELECT * FROM lineitem l2 WHERE l2.l_orderkey = l1.l_orderkey "
    "AND l2.l_suppkey <> l1.l_suppkey)";
// Customers LEFT OUTER JOIN their orders, counted per nation (orders by o_custkey, about ten per
// customer; Q13 itself counts orders per customer before the join: frontend/sql/sql_eager_aggregation.h).
const char* kCustomerOrders =
    "SELECT c_nationkey, COUNT(o_orderkey) AS n FROM customer LEFT OUTER JOIN orders ON c_custkey = o_custkey GROUP BY c_nationkey";

}  // namespace

TEST_CASE("a keys-only table on a renamed key column is a perfect hash over that column's domain") {
  ir::Program p = compile(kExists);
  const ir::HashTable& ht = only_table_on(p, "lineitem");
  CHECK(ht.keys_only);
  CHECK(ht.layout == ir::HashLayout::PerfectHash);
  check_domain_of(p, ht, "lineitem", "l_orderkey");
}

TEST_CASE("a semi join's residual stores every build row: chained, slots by perfect hash on the renamed key column") {
  check_chained_on(compile(kExistsResidual), "lineitem", "l_orderkey");
}

TEST_CASE("orders by o_custkey: chained with perfect-hash slots, or linear probing when asked") {
  check_chained_on(compile(kCustomerOrders), "orders", "o_custkey");
  ir::Program linear = compile(kCustomerOrders, ir::HashLayout::LinearProbing);
  const ir::HashTable& lp = only_table_on(linear, "orders");
  CHECK(lp.layout == ir::HashLayout::LinearProbing);
  CHECK_FALSE(lp.perfect_slots);
  CHECK(lp.head_buffer.empty());
  CHECK(lp.next_buffer.empty());
}

// Pass rank_key_ranges (ir/pass_rank_key_ranges.cpp): in a distributed compile, the key params of a
// table that stays on its rank and places keys by slot = key - min are resolved per rank; those of
// merged or gathered state, and everything in one process, are not.
#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "frontend/sql/sql_frontend.h"
#include "ir/build_pipelines.h"
#include "ir/passes.h"
#include "ir/resolve_parameters.h"
#include "planner/statistics.h"
#include "storage/catalog.h"

using namespace hqc;

namespace {

ir::Program compile(const std::string& sql, bool distributed) {
  const Catalog catalog = Catalog::tpch();
  auto plan = std::make_shared<plan::LogicalPlan>(parse_sql(sql, "test.sql", catalog, nullptr));
  ir::BuildOptions options;
  if (distributed) {
    options.partitioned_tables = {"orders", "lineitem"};
    options.partition_keys = {{"orders", "o_orderkey"}, {"lineitem", "l_orderkey"}};
  }
  ir::Program p = ir::build_program(plan, catalog, options);
  ir::run_passes(p, ir::default_passes());
  return p;
}

const ir::HashTable& only_table(const ir::Program& p) {
  REQUIRE(p.hash_tables.size() == 1);
  return p.hash_tables[0];
}

// Q12's join: orders built, probed by each line's order key (co-partitioned: rank-local).
const char* kLinesOfOrders =
    "SELECT l_shipmode, COUNT(*) AS n FROM orders, lineitem WHERE o_orderkey = l_orderkey AND o_orderpriority = '1-URGENT' "
    "GROUP BY l_shipmode";
// Orders built by the customer key: gathered to every rank and built whole there.
const char* kByCustomer = "SELECT c_mktsegment, COUNT(*) AS n FROM customer, orders WHERE c_custkey = o_custkey GROUP BY c_mktsegment";

// Rows and the order keys' range of TPC-H SF 1 (nothing else has statistics).
class OrderKeys final : public planner::Statistics {
 public:
  uint64_t rows(const std::string& table) const override { return table == "lineitem" ? 6001215 : 1500000; }
  ColumnStats column(const std::string&, const std::string& column) const override {
    ColumnStats s;
    if (column != "o_orderkey" && column != "l_orderkey") return s;
    s.valid = true;
    s.min = 1;
    s.max = 6000000;
    s.distinct = 1500000;
    return s;
  }
  int64_t dictionary_code(const std::string&, const std::string&, const std::string&, plan::DictMatch) const override { return 0; }
};

}  // namespace

TEST_CASE("a rank-local perfect-hash table's key_min and slots are resolved per rank") {
  const ir::Program p = compile(kLinesOfOrders, true);
  const ir::HashTable& ht = only_table(p);
  REQUIRE(ht.rank_local);
  REQUIRE(ht.layout == ir::HashLayout::PerfectHash);
  const ir::Param* min = p.find_param(ht.key_min_param);
  const ir::Param* slots = p.find_param(ht.capacity_param);
  REQUIRE(min != nullptr);
  REQUIRE(slots != nullptr);
  CHECK(min->per_rank_range);
  CHECK(slots->per_rank_range);
  CHECK(min->table == "orders");
  CHECK(min->column == "o_orderkey");
  CHECK(slots->comment.find("each rank: its share's keys") != std::string::npos);

}

TEST_CASE("resolve_parameters hands the per-rank placements to the runtime") {
  const ir::Program p = compile("SELECT COUNT(*) AS n FROM orders, lineitem WHERE o_orderkey = l_orderkey", true);
  const ir::HashTable& ht = only_table(p);
  REQUIRE(ht.rank_local);
  const ir::ParamValues v = ir::resolve_parameters(p, OrderKeys());
  REQUIRE(v.per_rank_ranges.count(ht.key_min_param) == 1);
  REQUIRE(v.per_rank_ranges.count(ht.capacity_param) == 1);
  CHECK_FALSE(v.per_rank_ranges.at(ht.key_min_param).domain);
  CHECK(v.per_rank_ranges.at(ht.capacity_param).domain);
  CHECK(v.per_rank_ranges.at(ht.capacity_param).table == "orders");
  CHECK(v.per_rank_ranges.at(ht.capacity_param).column == "o_orderkey");
  CHECK(v.values.at(ht.capacity_param) == 6000000);  // the whole table's, until rank_plan
}

TEST_CASE("gathered builds and one process keep the whole table's key range") {
  const ir::Program gathered = compile(kByCustomer, true);
  CHECK_FALSE(only_table(gathered).rank_local);
  for (const ir::Param& prm : gathered.params) CHECK_FALSE(prm.per_rank_range);
  const ir::Program one = compile(kLinesOfOrders, false);
  for (const ir::Param& prm : one.params) CHECK_FALSE(prm.per_rank_range);
}

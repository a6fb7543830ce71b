// Shuffle joins (ir/shuffle_join.cpp): a join over a partitioned build side on another key than the
// probe's partition key either gathers the build's rows to every rank (broadcast) or sends both
// sides' rows to the rank their key hashes to (shuffle); the choice, what it does to the pipelines,
// and what no longer counts as rank-local after a shuffle.
#include <doctest/doctest.h>

#include <algorithm>
#include <memory>
#include <string>

#include "frontend/sql/sql_frontend.h"
#include "frontend/statistics.h"
#include "ir/build_pipelines.h"
#include "ir/compile.h"
#include "ir/explain.h"
#include "ir/verifier.h"
#include "storage/catalog.h"
#include "tests/ir/ir_test_util.h"

using namespace hqc;

namespace {

// TPC-H as mpirun runs it (orders + lineitem by order key, partsupp by part key), with catalog
// estimates at SF 1 for Auto.
// `passes`: the whole pass pipeline, without statistics (layouts from the catalog's keys alone).
ir::Program compile(const std::string& sql, ir::JoinExchange exchange, unsigned ranks = 2, bool passes = false) {
  static const Catalog catalog = Catalog::tpch();
  static const plan::CatalogStatistics stats(catalog, 1.0);
  auto plan = std::make_shared<plan::LogicalPlan>(parse_sql(sql, "test.sql", catalog, nullptr));
  ir::BuildOptions options;
  if (!passes) options.stats = &stats;
  test::partition_tpch_like_ranks(options);
  options.join_exchange = exchange;
  options.ranks = ranks;
  return passes ? ir::compile_program(plan, catalog, options) : ir::build_program(plan, catalog, options);
}

size_t shuffled_outputs(const ir::Program& p) {
  return static_cast<size_t>(std::count_if(p.outputs.begin(), p.outputs.end(), [](const ir::OutputTable& o) { return !o.shuffle_columns.empty(); }));
}

const char* kLinesPartsupp =
    "SELECT l_returnflag, COUNT(*) AS n, SUM(ps_supplycost) AS c FROM lineitem, partsupp "
    "WHERE l_partkey = ps_partkey AND l_suppkey = ps_suppkey GROUP BY l_returnflag";
// Equal sides: a broadcast moves B x (N - 1), a shuffle 2B x (N - 1) / N.
const char* kSelfJoin =
    "SELECT COUNT(*) AS n, SUM(a.l_quantity) AS q, SUM(b.l_extendedprice) AS p FROM lineitem a, lineitem b "
    "WHERE a.l_partkey = b.l_partkey AND a.l_suppkey = b.l_suppkey AND a.l_shipmode = 'AIR' AND b.l_shipmode = 'MAIL'";

}  // namespace

TEST_CASE("shuffle: both sides materialized with their key columns, a rank-local build, the probe continues from its rows") {
  const ir::Program p = compile(kLinesPartsupp, ir::JoinExchange::Shuffle);
  CHECK_NOTHROW(ir::verify(p));
  REQUIRE(shuffled_outputs(p) == 2);
  REQUIRE(p.hash_tables.size() == 1);
  const ir::HashTable& ht = p.hash_tables[0];
  CHECK(ht.rank_local);
  CHECK(ht.shuffled);
  CHECK(ht.exchange_note.rfind("shuffled (shuffle", 0) == 0);
  // Each side's shuffle columns are its join keys, in the join's key order.
  for (const ir::OutputTable& o : p.outputs) {
    if (o.shuffle_columns.empty()) continue;
    REQUIRE(o.shuffle_columns.size() == 2);
    const std::string first = o.columns.at(o.shuffle_columns[0]).name, second = o.columns.at(o.shuffle_columns[1]).name;
    CHECK(((first == "ps_partkey" && second == "ps_suppkey") || (first == "l_partkey" && second == "l_suppkey")));
  }
  // The probe scans the lineitem rows sent to the rank; its aggregation is merged (not kept).
  const ir::Pipeline& last = p.pipelines.back();
  REQUIRE_FALSE(last.source.output.empty());
  CHECK_FALSE(p.find_output(last.source.output)->shuffle_columns.empty());
  const std::string explain = ir::explain(p);
  CHECK(explain.find("rows shuffled by key (l_partkey, l_suppkey)") != std::string::npos);
  CHECK(explain.find("rank-local build of the rows shuffled to the rank") != std::string::npos);
}

TEST_CASE("broadcast: the build's rows gathered, the probe untouched; one process: no exchange at all") {
  const ir::Program p = compile(kLinesPartsupp, ir::JoinExchange::Broadcast);
  CHECK(shuffled_outputs(p) == 0);
  CHECK_FALSE(p.hash_tables.at(0).rank_local);
  CHECK(p.pipelines.back().source.table == "lineitem");
  CHECK(p.hash_tables.at(0).exchange_note.rfind("broadcast (broadcast", 0) == 0);

  const Catalog catalog = Catalog::tpch();
  auto plan = std::make_shared<plan::LogicalPlan>(parse_sql(kLinesPartsupp, "test.sql", catalog, nullptr));
  ir::BuildOptions one;
  one.join_exchange = ir::JoinExchange::Shuffle;  // no partitioned tables: nothing to exchange
  const ir::Program single = ir::build_program(plan, catalog, one);
  CHECK(shuffled_outputs(single) == 0);
  CHECK(single.outputs.size() == 0);
  CHECK(single.hash_tables.at(0).exchange_note.empty());
}

TEST_CASE("auto: the fewer bytes moved for the ranks given; no statistics: broadcast") {
  CHECK(shuffled_outputs(compile(kSelfJoin, ir::JoinExchange::Auto, 2)) == 0);  // B x 1 vs 2B x 1/2: a tie, broadcast
  CHECK(shuffled_outputs(compile(kSelfJoin, ir::JoinExchange::Auto, 3)) == 2);  // 2B vs 4B / 3
  // partsupp (0.8 M rows) against all of lineitem (6 M): broadcast until P x w_p < B x w_b x (N - 1).
  CHECK(shuffled_outputs(compile(kLinesPartsupp, ir::JoinExchange::Auto, 4)) == 0);
  CHECK(shuffled_outputs(compile(kLinesPartsupp, ir::JoinExchange::Auto, 64)) == 2);

  const Catalog catalog = Catalog::tpch();
  auto plan = std::make_shared<plan::LogicalPlan>(parse_sql(kSelfJoin, "test.sql", catalog, nullptr));
  ir::BuildOptions options;
  options.partitioned_tables = {"orders", "lineitem", "partsupp"};
  options.ranks = 16;
  const ir::Program p = ir::build_program(plan, catalog, options);
  CHECK(shuffled_outputs(p) == 0);
  CHECK(p.hash_tables.at(0).exchange_note == "broadcast (auto, no statistics)");
}

TEST_CASE("after a shuffle, order keys are no longer their rank's: groups by them merged, a join on them not co-partitioned") {
  // Groups by l_orderkey under HAVING above a shuffled join: two phases (partial groups merged), where
  // a broadcast keeps them complete on their rank.
  const std::string having =
      "SELECT l_orderkey, COUNT(*) AS n FROM lineitem, partsupp WHERE l_partkey = ps_partkey AND l_suppkey = ps_suppkey "
      "GROUP BY l_orderkey HAVING COUNT(*) > 3";
  const ir::Program grouped = compile(having, ir::JoinExchange::Shuffle);
  for (const ir::AggregationTable& a : grouped.aggregations) CHECK_FALSE(a.partition_keyed);
  CHECK(std::any_of(grouped.aggregations.begin(), grouped.aggregations.end(), [](const ir::AggregationTable& a) { return !a.combines.empty(); }));
  const ir::Program broadcast = compile(having, ir::JoinExchange::Broadcast);
  CHECK(std::any_of(broadcast.aggregations.begin(), broadcast.aggregations.end(), [](const ir::AggregationTable& a) { return a.partition_keyed; }));

  // TPC-H Q9's joins: orders joined to the lines above the shuffled partsupp join is shuffled too,
  // where a broadcast keeps it on the rank (co-partitioned).
  const std::string q9 =
      "SELECT n_name, COUNT(*) AS n FROM part, supplier, lineitem, partsupp, orders, nation "
      "WHERE s_suppkey = l_suppkey AND ps_suppkey = l_suppkey AND ps_partkey = l_partkey AND p_partkey = l_partkey "
      "AND o_orderkey = l_orderkey AND s_nationkey = n_nationkey AND p_name LIKE '%green%' GROUP BY n_name";
  const ir::Program shuffled = compile(q9, ir::JoinExchange::Shuffle, 2, true);
  const ir::Program kept = compile(q9, ir::JoinExchange::Broadcast, 2, true);
  auto orders_build = [](const ir::Program& p) -> const ir::HashTable& {
    for (const ir::HashTable& h : p.hash_tables)
      if (h.build_table == "orders") return h;
    FAIL("no orders build");
    return p.hash_tables.front();
  };
  CHECK(orders_build(kept).rank_local);
  CHECK_FALSE(orders_build(kept).shuffled);
  CHECK(orders_build(shuffled).shuffled);
  CHECK(shuffled_outputs(shuffled) == 4);
  // The orders table is placed by slot = key - min (its key column's domain): kept on its rank, its
  // placement is the rank's share's; shuffled, its keys span the whole domain.
  auto per_rank = [](const ir::Program& p, const ir::HashTable& h) {
    bool any = false;
    for (const std::string& name : {h.key_min_param, h.capacity_param})
      if (const ir::Param* param = p.find_param(name)) any = any || param->per_rank_range;
    return any;
  };
  REQUIRE(orders_build(shuffled).layout == ir::HashLayout::PerfectHash);
  CHECK(per_rank(kept, orders_build(kept)));
  CHECK_FALSE(per_rank(shuffled, orders_build(shuffled)));
}

TEST_CASE("auto never shuffles a join whose rows an operator above needs on their rank") {
  // TPC-H Q9's shape: orders joined by the order key above the partsupp join. Shuffling partsupp's
  // join would leave orders to be gathered whole; at any number of ranks auto keeps the broadcast.
  const std::string q9 =
      "SELECT n_name, COUNT(*) AS n FROM part, supplier, lineitem, partsupp, orders, nation "
      "WHERE s_suppkey = l_suppkey AND ps_suppkey = l_suppkey AND ps_partkey = l_partkey AND p_partkey = l_partkey "
      "AND o_orderkey = l_orderkey AND s_nationkey = n_nationkey AND p_name LIKE '%green%' GROUP BY n_name";
  for (unsigned ranks : {2u, 4u, 64u}) {
    const ir::Program p = compile(q9, ir::JoinExchange::Auto, ranks);
    CHECK(shuffled_outputs(p) == 0);
    for (const ir::HashTable& h : p.hash_tables)
      if (h.build_table == "orders") CHECK(h.rank_local);
  }
  // Groups by the order key above: the same.
  const std::string grouped =
      "SELECT l_orderkey, COUNT(*) AS n FROM lineitem, partsupp WHERE l_partkey = ps_partkey AND l_suppkey = ps_suppkey "
      "GROUP BY l_orderkey HAVING COUNT(*) > 3";
  const ir::Program kept = compile(grouped, ir::JoinExchange::Auto, 64);
  CHECK(shuffled_outputs(kept) == 0);
  CHECK(kept.hash_tables.at(0).exchange_note.find("relies on its rows staying on their rank") != std::string::npos);
  // Nothing above relies on them: shuffled at 64 ranks (the same join as in the test above).
  CHECK(shuffled_outputs(compile(kLinesPartsupp, ir::JoinExchange::Auto, 64)) == 2);
}

TEST_CASE("join exchange names") {
  CHECK(ir::parse_join_exchange("shuffle") == ir::JoinExchange::Shuffle);
  CHECK(ir::parse_join_exchange("broadcast") == ir::JoinExchange::Broadcast);
  CHECK(std::string(ir::join_exchange_name(ir::JoinExchange::Auto)) == "auto");
  CHECK_THROWS_WITH(ir::parse_join_exchange("gather"), doctest::Contains("expected auto, broadcast or shuffle"));
}

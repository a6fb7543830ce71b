// Eager aggregation below a LEFT JOIN (frontend/sql/sql_eager_aggregation.h): which GROUP BYs over
// a left outer join are rewritten into an aggregation of the NULL-supplying side before the join,
// and which are left alone. The answers of both forms are checked against DuckDB by
// tests/oracle/sql_breadth.py (the `eager_*` queries) and TPC-H Q13 (tests/oracle/tpch_queries.py).
#include <doctest/doctest.h>

#include <string>

#include "frontend/sql/sql_frontend.h"
#include "storage/catalog.h"

using namespace hqc;

namespace {

std::string explain(const std::string& sql) {
  return plan::explain_logical(parse_sql(sql, "q.sql", Catalog::tpch()), false);
}

bool eager(const std::string& sql) { return explain(sql).find("__eager_key1") != std::string::npos; }

}  // namespace

TEST_CASE("TPC-H Q13's count of orders per customer is aggregated before the join") {
  const std::string plan = explain(
      "select c_custkey, count(o_orderkey) as n from customer left outer join orders "
      "on c_custkey = o_custkey and o_comment not like '%special%requests%' group by c_custkey");
  // The join probes customer into orders counted by o_custkey: a unique build, no aggregate above.
  CHECK(plan ==
        "logical plan q\n"
        "  project [c_custkey := customer.c_custkey, n := __eager_agg_n]\n"
        "    join left_outer probe [customer.c_custkey] = build [__eager_key1] explicit_nulls\n"
        "      scan customer\n"
        "      aggregate group [__eager_key1 := orders.o_custkey] aggregates [__eager_agg_n := count(orders.o_orderkey): int64]\n"
        "        filter (not (orders.o_comment like '%special%requests%'))\n"
        "          scan orders\n");
}

TEST_CASE("SUM, MIN and MAX go below the join with the hidden count that makes them NULL") {
  const std::string plan = explain(
      "select c_custkey, c_name, sum(o_totalprice) as s, min(o_orderdate) as lo, max(o_orderpriority) as p "
      "from customer left join orders on c_custkey = o_custkey group by c_custkey, c_name");
  CHECK(plan.find("aggregate group [__eager_key1 := orders.o_custkey] aggregates [__eager_agg_s := sum(orders.o_totalprice)") !=
        std::string::npos);
  CHECK(plan.find("__eager_agg_s__nonnull := count_star(*)") != std::string::npos);
  CHECK(plan.find("filter (__matched_orders") == std::string::npos);
}

TEST_CASE("COUNT(*) of the joined rows: the matched rows' count, or 1 for a row without a match") {
  const std::string plan = explain("select c_custkey, count(*) as n, count(o_orderkey) as k from customer left join orders "
                                   "on c_custkey = o_custkey group by c_custkey");
  CHECK(plan.find("__eager_agg_n := count_star(*)") != std::string::npos);
  CHECK(plan.find("n := (case when (__eager_agg_n = 0) then 1 else __eager_agg_n)") != std::string::npos);
  CHECK(plan.find("k := __eager_agg_k") != std::string::npos);
}

TEST_CASE("composite keys: partsupp's lines counted per (partkey, suppkey)") {
  const std::string plan = explain(
      "select ps_partkey, ps_suppkey, count(l_orderkey) as n from partsupp left join lineitem "
      "on ps_partkey = l_partkey and ps_suppkey = l_suppkey group by ps_partkey, ps_suppkey");
  CHECK(plan.find("build [__eager_key1, __eager_key2]") != std::string::npos);
}

TEST_CASE("GROUP BYs the rewrite would change are left alone") {
  // AVG of partial AVGs is not the AVG.
  CHECK_FALSE(eager("select c_custkey, avg(o_totalprice) as a from customer left join orders on c_custkey = o_custkey "
                    "group by c_custkey"));
  // Groups of several customers: each would need the partials of all its customers combined.
  CHECK_FALSE(eager("select c_nationkey, count(o_orderkey) as n from customer left join orders on c_custkey = o_custkey "
                    "group by c_nationkey"));
  // A group key of the NULL-supplying side.
  CHECK_FALSE(eager("select c_custkey, o_orderstatus, count(o_orderkey) as n from customer left join orders "
                    "on c_custkey = o_custkey group by c_custkey, o_orderstatus"));
  // An aggregate of the preserved side, and a FILTER clause beyond the NULL skipping.
  CHECK_FALSE(eager("select c_custkey, sum(c_acctbal) as b, count(o_orderkey) as n from customer left join orders "
                    "on c_custkey = o_custkey group by c_custkey"));
  CHECK_FALSE(eager("select c_custkey, count(o_orderkey) filter (where o_totalprice > 1000) as n from customer "
                    "left join orders on c_custkey = o_custkey group by c_custkey"));
  // DISTINCT splits into two aggregations first; an inner join has no NULLs to count.
  CHECK_FALSE(eager("select c_custkey, count(distinct o_orderstatus) as n from customer left join orders "
                    "on c_custkey = o_custkey group by c_custkey"));
  CHECK_FALSE(eager("select c_custkey, count(o_orderkey) as n from customer join orders on c_custkey = o_custkey "
                    "group by c_custkey"));
}

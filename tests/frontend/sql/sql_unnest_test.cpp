// Subquery unnesting (frontend/sql/sql_unnest.h): [NOT] EXISTS and [NOT] IN (subquery) become semi
// and anti joins whose build side is the separately planned subquery; correlated equalities become
// key pairs; subquery tables that repeat an outer alias are renamed.
#include <doctest/doctest.h>

#include "frontend/sql/sql_frontend.h"
#include "storage/catalog.h"
#include "tests/frontend/sql/sql_test_util.h"

using namespace hqc;

namespace {

std::string explain(const std::string& sql) { return plan::explain_logical(parse_sql(sql, "q.sql", Catalog::tpch()), false); }

void check_unsupported(const std::string& sql, const std::string& position, const std::string& fragment) {
  test::Failure f = test::sql_error(sql, Catalog::tpch());
  CAPTURE(sql);
  CAPTURE(f.message);
  REQUIRE(f.thrown);
  CHECK(f.kind == ErrorKind::Unsupported);
  CHECK(f.message.starts_with("q.sql:" + position + ": "));
  CHECK(f.message.find(fragment) != std::string::npos);
}

}  // namespace

TEST_CASE("correlated EXISTS: the equality becomes the key of a semi join, the rest stays in the subquery") {
  CHECK(explain("select count(*) from orders where o_orderdate < date '1995-01-01'\n"
                "and exists (select * from lineitem where l_orderkey = o_orderkey and l_commitdate < l_receiptdate)") ==
        "logical plan q\n"
        "  aggregate group [] aggregates [count(*) := count_star(*): int64]\n"
        "    join semi probe [orders.o_orderkey] = build [sq70_1]\n"
        "      filter (orders.o_orderdate < date(9131))\n"
        "        scan orders\n"
        "      project [sq70_1 := lineitem.l_orderkey]\n"
        "        filter (lineitem.l_commitdate < lineitem.l_receiptdate)\n"
        "          scan lineitem\n");
}

TEST_CASE("NOT EXISTS is an anti join; NOT IN too (no NULLs)") {
  std::string e = explain("select count(*) from orders where not exists (select * from lineitem where l_orderkey = o_orderkey)");
  CHECK(e.find("join anti probe [orders.o_orderkey] = build [sq") != std::string::npos);
  std::string n = explain("select count(*) from partsupp where ps_suppkey not in (select s_suppkey from supplier where s_comment like '%Customer%Complaints%')");
  CHECK(n.find("join anti probe [partsupp.ps_suppkey] = build [sq") != std::string::npos);
  CHECK(n.find("(supplier.s_comment like '%Customer%Complaints%')") != std::string::npos);
}

TEST_CASE("uncorrelated IN with GROUP BY / HAVING (TPC-H Q18's shape) plans the aggregate as the build side") {
  std::string e = explain("select count(*) from orders where o_orderkey in\n"
                          "(select l_orderkey from lineitem group by l_orderkey having sum(l_quantity) > 300)");
  CHECK(e ==
        "logical plan q\n"
        "  aggregate group [] aggregates [count(*) := count_star(*): int64]\n"
        "    join semi probe [orders.o_orderkey] = build [sq45_1]\n"
        "      scan orders\n"
        "      project [sq45_1 := sq45_1]\n"
        "        filter (sum(l_quantity) > 30000:decimal(18,2))\n"
        "          aggregate group [sq45_1 := lineitem.l_orderkey] aggregates [sum(l_quantity) := sum(lineitem.l_quantity): decimal(18,2)]\n"
        "            scan lineitem\n");
}

TEST_CASE("a subquery scanning a table of the outer query gets its own alias") {
  std::string e = explain("select count(*) from lineitem where l_partkey in (select l_partkey from lineitem where lineitem.l_quantity > 40)");
  CAPTURE(e);
  CHECK(e.find("scan lineitem as lineitem_sq46") != std::string::npos);
  CHECK(e.find("(decimal(18,2)(lineitem_sq46.l_quantity) > 4000:decimal(18,2))") != std::string::npos);
  CHECK(e.find("probe [lineitem.l_partkey] = build [sq46_1]") != std::string::npos);
}

TEST_CASE("a correlated condition other than an equality becomes the semi / anti join's residual (TPC-H Q21)") {
  std::string e = explain("select count(*) from lineitem l1 where exists (select * from lineitem l2 where l2.l_orderkey = l1.l_orderkey\n"
                          "and l2.l_suppkey <> l1.l_suppkey) and not exists (select * from lineitem l3 where l3.l_orderkey = l1.l_orderkey\n"
                          "and l3.l_suppkey <> l1.l_suppkey and l3.l_receiptdate > l3.l_commitdate)");
  CAPTURE(e);
  // The build side selects the key, then the column the residual reads; the residual compares it
  // with the outer column. The local condition of l3 stays a filter below the anti join's build.
  CHECK(e.find("join semi probe [l1.l_orderkey] = build [sq39_1] residual (sq39_r1 <> l1.l_suppkey)") != std::string::npos);
  CHECK(e.find("project [sq39_1 := l2.l_orderkey, sq39_r1 := l2.l_suppkey]") != std::string::npos);
  CHECK(e.find("join anti probe [l1.l_orderkey] = build [sq151_1] residual (sq151_r1 <> l1.l_suppkey)") != std::string::npos);
  CHECK(e.find("filter (l3.l_receiptdate > l3.l_commitdate)") != std::string::npos);
}

TEST_CASE("what unnesting does not handle yet is named at its position") {
  check_unsupported("select count(*) from lineitem l1 where l_quantity < (select avg(l2.l_quantity) from lineitem l2\n"
                    "where l2.l_orderkey = l1.l_orderkey and l2.l_suppkey <> l1.l_suppkey)",
                    "2:54", "correlated condition");
  check_unsupported("select count(*) from orders where exists (select * from nation)", "1:35", "does not reference the outer query");
  check_unsupported("select count(*) from part where p_partkey in (select l_partkey from lineitem where l_suppkey = p_size group by l_partkey)",
                    "1:43", "correlated subquery with aggregation");
  check_unsupported("select count(*) from orders where o_orderkey in (select l_orderkey from lineitem) or o_totalprice > 3",
                    "1:46", "IN subquery");
}

TEST_CASE("a subquery in FROM joins like a table whose columns are named <alias>.<column>") {
  CHECK(explain("select y, sum(v) as s from (select extract(year from o_orderdate) as y, o_totalprice as v from orders) as t\n"
                "where y > 1995 group by y") ==
        "logical plan q\n"
        "  aggregate group [y := t.y] aggregates [s := sum(t.v): decimal(18,2)]\n"
        "    filter (t.y > 1995)\n"
        "      project [y := extract(year, orders.o_orderdate), v := orders.o_totalprice]\n"
        "        scan orders\n");
  test::Failure f = test::sql_error("select count(*) from (select o_orderkey from orders) as t, (select o_orderkey from orders) as t", Catalog::tpch());
  CHECK(f.kind == ErrorKind::Input);
  CHECK(f.message.find("specified more than once") != std::string::npos);
}

TEST_CASE("a WITH entry named in FROM is a derived table; its column list renames the output") {
  std::string e = explain("with r (k, total) as (select l_suppkey, sum(l_quantity) from lineitem group by l_suppkey)\n"
                          "select s_name, total from supplier, r where s_suppkey = k");
  CAPTURE(e);
  // r has one row per supplier (its group key, from l_suppkey's foreign key): as many rows as
  // supplier, so the FROM order decides and r builds a unique-key table.
  CHECK(e.find("join inner probe [supplier.s_suppkey] = build [r.k]") != std::string::npos);
  CHECK(e.find("project [k := l_suppkey, total := sum(l_quantity)]") != std::string::npos);
  test::Failure f = test::sql_error("with r (a, b) as (select l_suppkey from lineitem) select count(*) from r", Catalog::tpch());
  CHECK(f.kind == ErrorKind::Input);
  CHECK(f.message.find("names 2 columns but its query has 1") != std::string::npos);
}

TEST_CASE("scalar subqueries: correlated aggregates are grouped by the correlation key and joined back") {
  std::string e = explain("select count(*) from part, lineitem where p_partkey = l_partkey\n"
                          "and l_quantity < (select 0.2 * avg(l_quantity) from lineitem where l_partkey = p_partkey)");
  CAPTURE(e);
  CHECK(e.find("filter (float64(lineitem.l_quantity) < sq") != std::string::npos);
  CHECK(e.find("join inner probe [part.p_partkey] = build [sq") != std::string::npos);
  CHECK(e.find("aggregate group [k1 := lineitem_sq") != std::string::npos);
  // `x = (subquery)` with an uncorrelated subquery stays a filter over the keyless join (TPC-H
  // Q15): the value reaches the kernels as a parameter, with its validity (a MAX over no rows is
  // NULL, which no comparison is TRUE for).
  std::string eq = explain("select count(*) from part where p_retailprice = (select max(p_retailprice) from part)");
  CAPTURE(eq);
  CHECK(eq.find("__valid1 <> 0) and (decimal(18,2)(part.p_retailprice) = sq") != std::string::npos);
  CHECK(eq.find("value__nonnull := count_star(*)") != std::string::npos);
  CHECK(eq.find("join inner probe [] = build []") != std::string::npos);
  CHECK(eq.find("scan part as part_sq") != std::string::npos);
  // With a correlated one it is one more join key (TPC-H Q2).
  std::string corr = explain("select count(*) from part, partsupp where p_partkey = ps_partkey and\n"
                             "ps_supplycost = (select min(ps_supplycost) from partsupp where ps_partkey = p_partkey)");
  CAPTURE(corr);
  CHECK(corr.find("= build [sq") != std::string::npos);
  CHECK(corr.find(".value") != std::string::npos);
}

TEST_CASE("HAVING: an uncorrelated scalar subquery joins the aggregate's output without keys (TPC-H Q11)") {
  std::string e = explain("select l_suppkey, sum(l_quantity) as value from lineitem group by l_suppkey\n"
                          "having sum(l_quantity) > (select avg(l_quantity) * 100 from lineitem)");
  CAPTURE(e);
  // The aggregate's alias stays unambiguous; the subquery's AVG over no rows would be NULL, which
  // its validity tells.
  CHECK(e.find("filter ((__valid_sq") != std::string::npos);
  CHECK(e.find(" <> 0) and (float64(value) > sq") != std::string::npos);
  CHECK(e.find("_value))") != std::string::npos);
  CHECK(e.find("join inner probe [] = build []") != std::string::npos);
  CHECK(e.find("project [sq") != std::string::npos);
  // A correlated one, grouped by its keys, joins the groups on them as a left outer join (NULL
  // where it has no group; HAVING keeps the groups where the comparison is TRUE).
  std::string corr = explain("select l_suppkey from lineitem l1 group by l_suppkey having count(*) > "
                             "(select sum(l2.l_quantity) from lineitem l2 where l2.l_suppkey = l1.l_suppkey)");
  CAPTURE(corr);
  CHECK(corr.find("join left_outer probe [l_suppkey] = build [sq71.sq71_k1] explicit_nulls") != std::string::npos);
  CHECK(corr.find("filter ((__matched_sq71 <> 0) and ") != std::string::npos);
  CHECK(corr.find("map [__matched_sq71 := 1]") != std::string::npos);
}

TEST_CASE("an uncorrelated scalar subquery is a single-row relation joined without keys") {
  std::string e = explain("select count(*) from customer where c_acctbal > (select avg(c_acctbal) from customer where c_acctbal > 0.00)");
  CAPTURE(e);
  CHECK(e.find("join inner probe [] = build []") != std::string::npos);
  CHECK(e.find("aggregate group [] aggregates [value := avg(customer_sq") != std::string::npos);
  check_unsupported("select count(*) from customer where c_acctbal > (select c_acctbal from customer)", "1:49", "not a single aggregate");
}

TEST_CASE("a WHERE scalar subquery joins inner only where its NULL value would drop the row anyway") {
  // `x < (subquery)` is not TRUE for a NULL value: an outer row without a group may be dropped.
  std::string strict = explain("select count(*) from orders where o_totalprice < (select sum(l_extendedprice) from lineitem "
                               "where l_orderkey = o_orderkey and l_quantity > 45)");
  CAPTURE(strict);
  CHECK(strict.find("join inner probe [orders.o_orderkey] = build [sq") != std::string::npos);
  // IS NULL, COALESCE, OR, CASE: the row without a group must still be tested, with a NULL value
  // (a COUNT's 0): the subquery is the NULL-supplying side of a left outer join.
  for (const char* sql : {"select count(*) from orders where (select sum(l_quantity) from lineitem where l_orderkey = o_orderkey) is null",
                          "select count(*) from orders where coalesce((select max(l_quantity) from lineitem where l_orderkey = o_orderkey), 0) = 0",
                          "select count(*) from orders where (select sum(l_quantity) from lineitem where l_orderkey = o_orderkey) > 40 or o_orderkey < 9",
                          "select count(*) from orders where not (o_orderkey > 5 and (select sum(l_quantity) from lineitem where l_orderkey = o_orderkey) > 9)",
                          "select count(*) from orders where 3 < (select count(*) from lineitem where l_orderkey = o_orderkey)"}) {
    std::string e = explain(sql);
    CAPTURE(e);
    CHECK(e.find("join left_outer probe [orders.o_orderkey] = build [sq") != std::string::npos);
  }
  std::string count = explain("select count(*) from orders where 3 < (select count(*) from lineitem where l_orderkey = o_orderkey)");
  CAPTURE(count);
  CHECK(count.find("(3 < (case when (__matched_sq") != std::string::npos);
  CHECK(count.find(".value else 0)") != std::string::npos);
}

TEST_CASE("a correlated scalar subquery keeps only the groups the outer filters of its key's table allow") {
  // TPC-H Q17's shape: the outer query keeps the parts of one brand and container; the subquery's
  // AVG per l_partkey is only read for those, so it aggregates only their lineitem rows.
  std::string e = explain("select count(*) from part, lineitem where p_partkey = l_partkey and p_brand = 'Brand#23'\n"
                          "and p_container = 'MED BOX' and l_quantity < (select 0.2 * avg(l_quantity) from lineitem where l_partkey = p_partkey)");
  CAPTURE(e);
  CHECK(e.find("join semi probe [lineitem_sq") != std::string::npos);
  CHECK(e.find("scan part as part_sw") != std::string::npos);
  CHECK(e.find("filter ((part_sw") != std::string::npos);
  CHECK(e.find(".p_brand = dict_eq(part.p_brand, 'Brand#23')) and (part_sw") != std::string::npos);
  // Only conjuncts of the key's table alone, without subqueries: the join and the comparison with
  // the subquery stay out, and without such a conjunct nothing is added.
  CHECK(e.find("part_sw123.p_partkey = ") == std::string::npos);
  std::string none = explain("select count(*) from part, lineitem where p_partkey = l_partkey and l_quantity > 5\n"
                             "and l_quantity < (select 0.2 * avg(l_quantity) from lineitem where l_partkey = p_partkey)");
  CAPTURE(none);
  CHECK(none.find("_sw") == std::string::npos);
  CHECK(none.find("join semi") == std::string::npos);
  // An aliased outer table: the copied conjuncts follow the subquery's own alias for it.
  std::string aliased = explain("select count(*) from part p, partsupp ps where p.p_partkey = ps.ps_partkey and p.p_size = 15\n"
                                "and ps.ps_supplycost = (select min(ps_supplycost) from partsupp where ps_partkey = p.p_partkey)");
  CAPTURE(aliased);
  CHECK(aliased.find("scan part as p_sw") != std::string::npos);
  CHECK(aliased.find("filter (p_sw") != std::string::npos);
  // TPC-H Q20's shape: the outer relation is restricted by a flat uncorrelated IN on its column,
  // copied with aliases of its own; only the first key (the part key) gets a filter.
  std::string q20 = explain("select count(*) from partsupp where ps_partkey in (select p_partkey from part where p_name like 'forest%')\n"
                            "and ps_availqty > (select 0.5 * sum(l_quantity) from lineitem where l_partkey = ps_partkey and l_suppkey = ps_suppkey)");
  CAPTURE(q20);
  CHECK(q20.find("scan partsupp as partsupp_sw") != std::string::npos);
  CHECK(q20.find("scan part as part_sw") != std::string::npos);
  CHECK(q20.find("join semi probe [lineitem.l_partkey]") != std::string::npos);
  CHECK(q20.find("join semi probe [lineitem.l_suppkey]") == std::string::npos);
  // A correlated IN (p_size = ps_availqty) is not copied, and then nothing is.
  std::string correlated = explain("select count(*) from partsupp where ps_partkey in (select p_partkey from part where p_size = ps_availqty)\n"
                                   "and ps_availqty > (select 0.5 * sum(l_quantity) from lineitem where l_partkey = ps_partkey)");
  CAPTURE(correlated);
  CHECK(correlated.find("_sw") == std::string::npos);
  // A derived outer table gets none (its rows are not a base table's).
  std::string derived = explain("select count(*) from (select p_partkey as k from part where p_size = 15) d, lineitem\n"
                                "where d.k = l_partkey and l_quantity < (select avg(l_quantity) from lineitem where l_partkey = d.k)");
  CAPTURE(derived);
  CHECK(derived.find("_sw") == std::string::npos);
}

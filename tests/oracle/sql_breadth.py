#!/usr/bin/env python3
"""End-to-end oracle test of the SQL analysts write that the benchmark texts do not use (issue 12's
breadth list, growing with it): SELECT DISTINCT over columns and expressions, decimal literals of any
scale and constant arithmetic, derived tables with column lists, views in a script, `IS [NOT] NULL` on
the NULL-supplying table of a LEFT JOIN (an anti / inner join), UNION [ALL] / INTERSECT / EXCEPT of
operands that filter, compute and aggregate, derived tables and set operations inside IN / EXISTS
subqueries, scalar subqueries in the select list, SQL's NULLs over LEFT JOINs (grouped, compared, IS
[NOT] NULL, COALESCE, NULLIF, IS [NOT] DISTINCT FROM, aggregates skipping NULLs, CASE without ELSE,
FILTER), window functions (ranks, running and partition aggregates, frames), heap strings of the
table scanned most (also streamed in chunks: sql_breadth_streamed) — each through `horseqc-run tpch --plan FILE.sql` against DuckDB running the same text on the same .tbl files
(dbgen's data, as tests/oracle/tpch_queries.py makes it). Comparison as tests/oracle/query_oracle.py
says; every query must select rows.

usage: sql_breadth.py --bin BUILD/bin --work DIR [--sf 0.01]... [--model resolution]... [--device opencl]
                      [--query NAME]... [--no-statistics]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tpch_queries import sql_queries_main  # noqa: E402

# (name, SQL). ORDER BY keys that are not output columns must leave no ties (the rows are compared in
# the oracle's order then).
QUERIES = [
    # Window functions (computed on the device over the query's result, runtime/execution/window_stage.h).
    ("window_rank_over_aggregate", "select n_name, sum(o_totalprice) as total, rank() over (order by sum(o_totalprice) desc) as r "
                                   "from orders, customer, nation where o_custkey = c_custkey and c_nationkey = n_nationkey "
                                   "group by n_name order by r, n_name"),
    ("window_row_number_partition", "select o_orderkey, o_custkey, row_number() over (partition by o_custkey order by o_orderdate, "
                                    "o_orderkey) as rn from orders where o_custkey < 60 order by o_custkey, rn"),
    ("window_rank_dense_rank_ties", "select l_orderkey, l_linenumber, l_quantity, rank() over (partition by l_orderkey order by "
                                    "l_quantity) as r, dense_rank() over (partition by l_orderkey order by l_quantity) as d, "
                                    "row_number() over (partition by l_orderkey order by l_quantity desc, l_linenumber) as rn "
                                    "from lineitem where l_orderkey < 400 and l_linenumber < 6 "
                                    "order by l_orderkey, l_linenumber"),
    ("window_running_sum_peers", "select l_orderkey, l_linenumber, sum(l_quantity) over (partition by l_orderkey order by "
                                 "l_quantity) as s, count(*) over (partition by l_orderkey order by l_quantity) as c, "
                                 "max(l_discount) over (partition by l_orderkey order by l_quantity) as m from lineitem "
                                 "where l_orderkey < 500 order by l_orderkey, l_linenumber"),
    ("window_running_sum_rows", "select l_orderkey, l_linenumber, sum(l_extendedprice) over (partition by l_orderkey order by "
                                "l_linenumber rows between unbounded preceding and current row) as s, min(l_shipdate) over "
                                "(partition by l_orderkey order by l_linenumber rows unbounded preceding) as first_ship "
                                "from lineitem where l_orderkey < 500 order by l_orderkey, l_linenumber"),
    ("window_partition_totals", "select c_custkey, c_nationkey, c_acctbal, sum(c_acctbal) over (partition by c_nationkey) as nat, "
                                "avg(c_acctbal) over (partition by c_nationkey) as a, min(c_acctbal) over (partition by "
                                "c_mktsegment, c_nationkey) as lo, max(c_name) over (partition by c_nationkey) as last_name, "
                                "count(*) over () as everyone from customer where c_custkey < 300 order by c_custkey"),
    ("window_whole_partition_frame", "select o_orderkey, sum(o_totalprice) over (partition by o_orderpriority order by o_orderdate "
                                     "rows between unbounded preceding and unbounded following) as s, o_orderpriority from orders "
                                     "where o_orderkey < 2000 order by o_orderkey"),
    ("window_strings_desc_limit", "select s_name, n_name, s_acctbal, rank() over (partition by n_name order by s_acctbal desc) as r "
                                  "from supplier, nation where s_nationkey = n_nationkey order by n_name, r, s_name limit 40"),
    ("window_left_join_nulls", "select c_custkey, o_totalprice, count(o_totalprice) over (partition by c_nationkey) as n, "
                               "sum(o_totalprice) over (partition by c_nationkey order by o_totalprice) as s, "
                               "rank() over (partition by c_nationkey order by o_totalprice desc) as r from customer left join "
                               "orders on c_custkey = o_custkey and o_totalprice > 250000 where c_custkey < 400 "
                               "order by c_custkey, o_totalprice"),
    ("window_expression_keys", "select extract(year from o_orderdate) as y, o_orderstatus, count(*) as n, rank() over (partition "
                               "by extract(year from o_orderdate) order by count(*) desc, o_orderstatus) as r, sum(count(*)) over "
                               "(partition by extract(year from o_orderdate)) as per_year from orders group by "
                               "extract(year from o_orderdate), o_orderstatus order by y, r"),
    ("window_lag_lead", "select o_custkey, o_orderkey, o_orderdate, lag(o_totalprice) over (partition by o_custkey order by "
                        "o_orderdate, o_orderkey) as prev, lead(o_orderdate, 2) over (partition by o_custkey order by o_orderdate, "
                        "o_orderkey) as next2, lag(o_orderpriority, 0) over (order by o_orderkey) as same, lead(o_clerk) over "
                        "(order by o_orderkey) as next_clerk from orders where o_custkey < 40 order by o_custkey, o_orderdate, o_orderkey"),
    ("window_lag_double", "select l_returnflag, l_linestatus, avg(l_quantity) as a, lag(avg(l_quantity)) over (order by l_returnflag, "
                          "l_linestatus) as prev_a from lineitem group by l_returnflag, l_linestatus order by l_returnflag, l_linestatus"),
    ("window_order_by_window", "select p_partkey, p_retailprice, row_number() over (order by p_retailprice desc, p_partkey) as rn "
                                "from part where p_size = 7 order by rn desc"),
    ("distinct_columns", "select distinct l_returnflag, l_linestatus from lineitem order by l_returnflag, l_linestatus"),
    ("distinct_expression", "select distinct extract(year from o_orderdate) as y, o_orderpriority from orders "
                            "where o_totalprice > 100000.00 order by y, o_orderpriority"),
    ("distinct_join_limit", "select distinct c_mktsegment, n_name from customer, nation where c_nationkey = n_nationkey "
                            "and n_regionkey = 1 order by n_name, c_mktsegment limit 7"),
    ("distinct_decimal", "select distinct l_discount, l_tax from lineitem where l_quantity < 3 order by l_discount, l_tax"),
    ("literal_scales", "select count(*) as n from lineitem where l_discount between .02 + 0.0100 and 0.0800000 - .01 "
                       "and l_extendedprice * 1.000 > 1000.5000 and l_tax <= 0.08 * 1"),
    ("constant_folding", "select l_returnflag, sum(l_quantity * (2 - 1.5)) as half, count(*) as n from lineitem "
                         "where l_shipdate < date '1995-01-01' + interval '10' day group by l_returnflag order by l_returnflag"),
    ("derived_column_list", "select k, count(*) as n from (select o_custkey, o_orderstatus from orders) as t (c, k) "
                            "group by k order by k"),
    ("left_join_is_null", "select c_mktsegment, count(*) as n from customer left join orders on c_custkey = o_custkey "
                          "where o_orderkey is null group by c_mktsegment order by c_mktsegment"),
    ("left_join_is_not_null", "select c_mktsegment, count(*) as n from customer left outer join orders "
                              "on c_custkey = o_custkey and o_orderpriority = '1-URGENT' where o_custkey is not null "
                              "group by c_mktsegment order by c_mktsegment"),
    # Found by the fuzzer: groups of a heap-string key merge on the host by every key, selected or not.
    ("heap_key_not_selected", "select sum(l_discount) as s, count(*) as n from lineitem where l_quantity < 5 "
                              "group by l_comment order by s desc, n"),
    ("heap_and_int_key_one_selected", "select c_nationkey, count(*) as n from customer group by c_comment, c_nationkey "
                                      "order by c_nationkey, n"),
    ("avg_heap_key_not_selected", "select avg(c_acctbal) as a, count(*) as n from customer where c_acctbal > 9000.00 "
                                  "group by c_comment order by a, n"),
    ("count_distinct_dictionary", "select count(distinct l_shipmode) as modes, count(*) as n from lineitem where l_quantity < 4"),
    # Found by the fuzzer: libpg_query writes a negated integer constant as 0 ("ival": {}).
    ("negative_integer_literals", "select count(*) as n from partsupp where (100 - ps_availqty) > -5667 "
                                  "and ps_suppkey > - 1 and ps_partkey <> -(3) and ps_availqty - 10000 < -20"),
    # Found by the fuzzer: HAVING over a heap-string group key looked up statistics of table "". With
    # the table's primary key in the GROUP BY, groups are exact on the device; without it (groups
    # merged by text on the host) a HAVING is refused.
    ("having_heap_key", "select c_name, sum(c_acctbal) as s from customer group by c_name, c_custkey "
                        "having sum(c_acctbal) > 9000.0 order by c_name"),
    # Division is floating point (as in DuckDB): x / 0 is inf or -inf, 0 / 0 is nan, and ORDER BY puts
    # nan after +inf. Issue 18.
    ("division_by_zero", "select l_orderkey, l_linenumber, l_quantity / (l_linenumber - 1) as q, "
                         "(0 - l_quantity) / (l_linenumber - 1) as m, (l_linenumber - 1) / (l_linenumber - 1) as z "
                         "from lineitem where l_orderkey < 40 order by z, q desc, l_orderkey, l_linenumber"),
    ("division_by_zero_aggregate", "select l_returnflag, sum(l_quantity) / (count(*) - count(*)) as s, "
                                   "avg(l_discount) / min(l_linenumber - 1) as a, count(*) as n from lineitem "
                                   "group by l_returnflag order by a, l_returnflag"),
    # date - date: the days between them, an integer (issue 18).
    ("date_minus_date", "select l_shipmode, count(*) as n, sum(l_receiptdate - l_shipdate) as d, "
                        "min(l_commitdate - l_shipdate) as lo, max(date '1998-12-01' - l_shipdate) as hi from lineitem "
                        "where l_receiptdate - l_shipdate > 10 and date '1995-01-10' - date '1995-01-01' = 9 "
                        "group by l_shipmode order by l_shipmode"),
    # A SUBSTRING group key (packed on the device) inside a probe that matches several rows, in a
    # kernel with barriers (C3): PoCL counted one match in four before hqc_str_pack's loop stopped
    # at the string's end (templates/device/base.h, the rule on counted loops). Fuzzer, seed 5.
    ("substring_key_multi_match", "select substring(p1.p_name from 1 for 2) as a1, count(*) as a3 from part p1 "
                                  "join lineitem l3 on l3.l_partkey = p1.p_partkey join partsupp ps4 "
                                  "on ps4.ps_partkey = p1.p_partkey where p1.p_type = 'SMALL POLISHED COPPER' "
                                  "group by a1 order by a1"),
    # IN lists of decimal literals of any scale on a decimal column: rescaled exactly; a value no
    # decimal(15,2) can equal (0.055) is dropped, and a list of only such values is false.
    ("in_decimal_scales", "select l_returnflag, count(*) as n, sum(l_quantity) as q from lineitem "
                          "where l_discount in (0.07, .060, 0.055, 0) and l_quantity not in (1, 2.50, 3.0) "
                          "and l_tax not in (0.015) group by l_returnflag order by l_returnflag"),
    ("in_nothing_matches", "select p_size, count(*) as n from part where p_retailprice in (901.005, 1000.001) "
                           "or p_size in (2.5) or p_size = 3 group by p_size"),
    ("view_script", "create view big_orders (okey, price) as select o_orderkey, o_totalprice from orders "
                    "where o_totalprice > 300000.00;\n"
                    "select count(*) as n, min(price) as lo from big_orders;\n"
                    "drop view big_orders;"),
    # Set operations: each operand its own pipeline writing one shared output, then a grouping for the
    # DISTINCT forms; INTERSECT / EXCEPT count each row's operands.
    ("union_all", "select l_returnflag as f, l_quantity as q from lineitem where l_quantity < 2 union all "
                  "select l_returnflag, l_quantity + 1 from lineitem where l_quantity > 49 order by f, q"),
    ("union_distinct", "select o_orderpriority as p, o_orderstatus as s from orders where o_totalprice < 10000 union "
                       "select o_orderpriority, o_orderstatus from orders where o_totalprice > 400000 order by p, s"),
    ("intersect", "select p_type as t from part where p_size < 10 intersect select p_type from part "
                  "where p_retailprice > 1500 order by t"),
    ("except", "select p_type as t from part where p_size < 30 except select p_type from part "
               "where p_retailprice > 1700 order by t"),
    ("union_in_derived_table", "select k, count(*) as n, sum(v) as s, min(v) as lo from ("
                               "select 1 as k, l_extendedprice as v from lineitem where l_quantity = 1 union all "
                               "select 2, o_totalprice from orders where o_orderstatus = 'P' union all "
                               "select 3, ps_supplycost * 2 from partsupp where ps_availqty < 50) as t "
                               "group by k order by k"),
    ("union_decimal_scales", "select x from (select l_discount as x from lineitem where l_quantity = 1 union "
                             "select c_acctbal from customer where c_acctbal < -990) as t order by x"),
    ("union_heap_strings", "select c_name as name, 'low' as band from customer where c_acctbal < -900 union all "
                           "select c_name, 'high' from customer where c_acctbal > 9900 order by name"),
    ("union_cte_twice", "with big as (select o_custkey as c from orders where o_totalprice > 350000) "
                        "select c, count(*) as n from (select c from big union all select c from big) as u "
                        "group by c order by c"),
    ("in_union", "select o_orderpriority, count(*) as n from orders where o_custkey in (select c_custkey from "
                 "customer where c_nationkey = 1 union select s_suppkey from supplier where s_nationkey = 2) "
                 "group by o_orderpriority order by o_orderpriority"),
    ("in_derived_table", "select c_mktsegment, count(*) as n from customer where c_custkey in (select k from "
                         "(select o_custkey as k, sum(o_totalprice) as t from orders group by o_custkey) as x "
                         "where t > 500000) group by c_mktsegment order by c_mktsegment"),
    ("exists_derived_table", "select p_size, count(*) as n from part where exists (select * from (select ps_partkey "
                             "as k from partsupp where ps_availqty < 100) as y where y.k = p_partkey) group by p_size "
                             "order by p_size"),
    # Scalar subqueries in the select list: correlated ones are left outer joins (NULL without a group).
    ("select_scalar_correlated", "select c_custkey, c_name, (select max(o_totalprice) from orders where "
                                 "o_custkey = c_custkey) as m from customer where c_nationkey = 3 order by c_custkey"),
    ("select_scalar_correlated_null_order", "select p_partkey, (select min(ps_supplycost) from partsupp where "
                                            "ps_partkey = p_partkey and ps_availqty > 5000) as c from part "
                                            "where p_size = 7 order by c, p_partkey"),
    ("select_scalar_uncorrelated", "select o_orderkey, o_totalprice - (select avg(o_totalprice) from orders) as d, "
                                   "(select count(*) from region) as r from orders where o_orderkey < 100 "
                                   "order by o_orderkey"),
    ("select_scalar_in_aggregating_query", "select n_regionkey, count(*) as n, (select count(*) from region) as r, "
                                           "count(*) * 100.0 / (select count(*) from nation) as pct from nation "
                                           "group by n_regionkey order by n_regionkey"),
    ("select_scalar_in_scalar_aggregate_no_rows", "select count(*) as c, (select max(r_regionkey) from region) as m "
                                                  "from nation where n_nationkey > 100"),
    # Found by the long fuzz run (bench/results/2026-11-26-h200-sql-fuzz): a set operation nested in
    # another's operand (their side markers once shared a name); COUNTs of a DISTINCT aggregation
    # over no rows (0, not NULL); AVG of decimals rounded once as DuckDB does, compared exactly.
    ("set_operation_nested", "select n_name from nation where n_regionkey = 1 except (select n_name from nation "
                             "where n_nationkey < 5 intersect select n_name from nation where n_nationkey > 2) "
                             "order by n_name"),
    ("avg_next_to_distinct", "select l_returnflag, avg(l_extendedprice) as a, count(distinct l_suppkey) as s, "
                             "avg(l_quantity) as q, count(*) as n from lineitem group by l_returnflag order by l_returnflag"),
    # A SUM that may leave 64 bits (always without statistics: --no-statistics) is 128-bit in every
    # operand of a UNION ALL, the others widened (a top refusal of the long fuzz runs).
    ("union_wide_sum", "select l_linestatus as f, sum(l_extendedprice) as s from lineitem group by l_linestatus "
                       "union all select l_linestatus, l_extendedprice from lineitem where l_orderkey < 10 order by f, s"),
    ("count_distinct_no_rows", "select count(*) + 1 as n, count(distinct l_shipmode) + 1 as m, sum(l_quantity) as s "
                               "from lineitem where l_quantity < 0"),
    ("avg_equals_decimal", "select count(*) as n from (select l_orderkey, avg(l_tax) as t from lineitem "
                           "group by l_orderkey) as d where t in (0.03, 0.052)"),
    ("avg_compared_with_decimal", "select count(*) as n from lineitem l1 where l1.l_discount > (select "
                                  "avg(ls.l_discount) from lineitem ls where ls.l_suppkey = l1.l_suppkey and "
                                  "ls.l_shipmode = 'MAIL')"),
    # Found by the long fuzz run (seed 1010 TPC-H 1454): three structures estimated far too small
    # (an IN list of 5 of 10,000 balances) needed more doublings together than one query was given;
    # each structure now has its own budget of rebuilds (runtime/execution/plan_state.h RebuildBudget).
    ("rebuild_budget_per_structure", "select sum(distinct s5.s_nationkey) as a2, c3.c_acctbal as a4, max(s5.s_nationkey) as a5, "
                                     "l2.l_shipdate as a6 from orders o1, lineitem l2, customer c3, nation n4, supplier s5 "
                                     "where l2.l_orderkey = o1.o_orderkey and o1.o_custkey = c3.c_custkey and "
                                     "n4.n_nationkey = c3.c_nationkey and n4.n_nationkey = s5.s_nationkey and "
                                     "s5.s_acctbal in (7040.8, 1309.700, 1467.77, 3556.5, 6565) group by 4, c3.c_acctbal "
                                     "order by a6, a4"),
    # SQL's NULLs (frontend/sql/sql_nulls.h): the NULL-supplying side of a LEFT JOIN grouped,
    # compared, tested, coalesced and aggregated (NULLs skipped; an aggregate of only NULLs is NULL).
    ("left_join_group_null_side", "select c_mktsegment, o_orderpriority, count(*) as n, count(o_orderkey) as k "
                                  "from customer left join orders on c_custkey = o_custkey and o_totalprice > 300000 "
                                  "group by c_mktsegment, o_orderpriority order by c_mktsegment, o_orderpriority"),
    ("left_join_coalesce_sum", "select c_custkey, coalesce(sum(o_totalprice), 0) as s, count(o_orderkey) as n, "
                               "max(o_orderdate) as last from customer left join orders on c_custkey = o_custkey "
                               "and o_orderstatus = 'F' group by c_custkey order by s desc, c_custkey limit 20"),
    ("left_join_where_null_side", "select count(*) as n, count(o_orderkey) as k from customer left join orders "
                                  "on c_custkey = o_custkey and o_totalprice > 300000 "
                                  "where o_totalprice > 350000 or c_acctbal < 0"),
    ("left_join_rows_with_nulls", "select c_custkey, o_orderkey, o_totalprice * 2 as t, o_orderkey is null as missing "
                                  "from customer left join orders on c_custkey = o_custkey and o_totalprice > 350000 "
                                  "where c_custkey < 100 order by t desc, c_custkey"),
    ("left_join_having_null", "select c_nationkey, sum(o_totalprice) as s, avg(o_totalprice) as a, "
                              "min(o_orderpriority) as p, count(*) as n from customer left join orders "
                              "on c_custkey = o_custkey and o_totalprice > 350000 group by c_nationkey "
                              "having sum(o_totalprice) > 400000 or sum(o_totalprice) is null order by c_nationkey"),
    ("left_join_all_null_groups", "select n_name, avg(s_acctbal) as a, min(s_acctbal) as lo, max(s_suppkey) as hi, "
                                  "count(s_suppkey) as n from nation left join supplier on s_nationkey = n_nationkey "
                                  "and s_acctbal > 9500 group by n_name order by n_name"),
    ("left_join_chained", "select c_custkey, count(o_orderkey) as o, count(l_linenumber) as l, sum(l_quantity) as q "
                          "from customer left join orders on c_custkey = o_custkey and o_totalprice > 300000 "
                          "left join lineitem on l_orderkey = o_orderkey and l_quantity > 45 where c_custkey < 300 "
                          "group by c_custkey order by c_custkey"),
    ("left_join_derived", "select n_name, t.total, t.n from nation left join (select c_nationkey, sum(c_acctbal) as total, "
                          "count(*) as n from customer where c_mktsegment = 'AUTOMOBILE' and c_acctbal > 9000 "
                          "group by c_nationkey) t on n_nationkey = t.c_nationkey order by n_name"),
    ("derived_null_columns", "select c_nationkey, count(*) as n, count(s) as k, max(s) as m, min(s) as lo from "
                             "(select c_custkey, c_nationkey, sum(o_totalprice) as s from customer left join orders "
                             "on c_custkey = o_custkey and o_totalprice > 300000 group by c_custkey, c_nationkey) t "
                             "group by c_nationkey order by c_nationkey"),
    ("cte_null_columns", "with t as (select c_custkey, max(o_orderdate) as last from customer left join orders on "
                         "c_custkey = o_custkey and o_orderpriority = '1-URGENT' group by c_custkey) select count(*) as n, "
                         "count(last) as k from t where last is null or last < date '1993-01-01'"),
    ("derived_star_nulls", "select * from (select n_name, s_suppkey, s_acctbal * 2 as b from nation left join supplier "
                           "on s_nationkey = n_nationkey and s_acctbal > 9900) t order by n_name, s_suppkey"),
    ("left_join_derived_with_nulls", "select n_name, x.s from nation left join (select s_nationkey, sum(s_acctbal) as s "
                                     "from supplier left join partsupp on ps_suppkey = s_suppkey and ps_availqty < 10 "
                                     "where s_acctbal > 9000 group by s_nationkey) x on x.s_nationkey = n_nationkey "
                                     "order by n_name"),
    ("left_join_on_nullable_derived_filter", "select n_name, count(t.s_nationkey) as k, count(t.m) as km from nation left join "
                                             "(select s_nationkey, max(ps_availqty) as m from supplier left join partsupp "
                                             "on ps_suppkey = s_suppkey and ps_availqty < 30 group by s_nationkey) t "
                                             "on t.s_nationkey = n_nationkey and t.m < 100 group by n_name order by n_name"),
    ("join_on_nullable_derived", "select count(*) as n, sum(c_acctbal) as b from (select n_name, max(s_suppkey) as y "
                                 "from nation left join supplier on s_nationkey = n_nationkey and s_acctbal > 9000 "
                                 "group by n_name) t join customer on c_custkey = t.y"),
    # ORDER BY a heap string (runtime/execution/result_assembly.cpp rank_heap_rows: each text's rank
    # among the rows read): ties broken by the next key, NULLs last, with and without LIMIT.
    ("order_by_heap_ties_limit", "select c_name, o_orderkey from customer, orders where c_custkey = o_custkey and c_custkey < 300 "
                                 "order by c_name desc, o_orderkey limit 25"),
    ("order_by_heap_nulls", "select s_name, n_name from nation left join supplier on s_nationkey = n_nationkey "
                            "and s_acctbal > 8000 order by s_name, n_name"),
    # Under a LIMIT, a heap string after other keys is ranked only for the rows those keys leave in
    # reach (result_assembly.cpp heap_key_candidates): the first k by the keys before it and every row
    # tied with the k-th on them — here a whole nation's suppliers, a segment's customers, and a NULL
    # tie (suppliers of no nation), with OFFSET.
    ("order_by_heap_after_ties", "select s_nationkey, s_name, s_acctbal from supplier order by s_nationkey, s_name desc limit 7"),
    ("order_by_heap_after_two_keys", "select c_mktsegment, c_nationkey, c_name from customer "
                                     "order by c_mktsegment desc, c_nationkey, c_name desc limit 12 offset 3"),
    ("order_by_heap_after_null_key", "select n_name, s_name from nation left join supplier on s_nationkey = n_nationkey "
                                     "and s_acctbal > 9900 order by s_acctbal desc, s_name limit 4"),
    # GROUP BY a heap string that repeats (l_comment: ~1,300 texts on several lines at SF 0.01): the
    # device groups by row, the host merges the groups of equal texts (result_assembly.cpp
    # merge_equal_groups), their sums, counts and minima combined.
    ("group_by_repeated_heap_text", "select l_comment, count(*) as n, sum(l_quantity) as q, min(l_shipdate) as d from lineitem "
                                    "where l_orderkey < 20000 group by l_comment order by n desc, l_comment limit 40"),
    # Eager aggregation (frontend/sql/sql_eager_aggregation.h): a GROUP BY whose groups are the
    # preserved side's rows aggregates the NULL-supplying side by the join key first; customers
    # without a match read 0 counts and NULL sums / minima / maxima (an empty build side included).
    ("eager_count_sum_min_max", "select c_custkey, c_name, count(o_orderkey) as n, sum(o_totalprice) as s, "
                                "min(o_orderdate) as lo, max(o_orderpriority) as p, coalesce(sum(o_totalprice), 0) as s0 "
                                "from customer left join orders on c_custkey = o_custkey and o_orderstatus = 'F' "
                                "group by c_custkey, c_name having count(o_orderkey) < 3 order by n desc, c_custkey limit 40"),
    ("eager_nothing_matches", "select c_custkey, count(o_orderkey) as k, max(o_totalprice) as m from customer left join orders "
                              "on c_custkey = o_custkey and o_totalprice < 0 group by c_custkey order by c_custkey limit 10"),
    ("eager_composite_key", "select n, count(*) as parts, sum(q) as q from (select ps_partkey, ps_suppkey, count(l_orderkey) as n, "
                            "sum(l_quantity) as q from partsupp left join lineitem on ps_partkey = l_partkey "
                            "and ps_suppkey = l_suppkey group by ps_partkey, ps_suppkey) t group by n order by n"),
    # COUNT(*) over the join: the matched orders' count, or 1 for a customer without one (n = 1, k = 0).
    ("eager_count_star", "select n, k, count(*) as customers from (select c_custkey, count(*) as n, "
                         "count(o_orderkey) as k from customer left join orders on c_custkey = o_custkey "
                         "and o_orderpriority = '1-URGENT' group by c_custkey) t group by n, k order by n, k"),
    # A derived table's computed column that may be NULL reads the same value in every NULL row, so
    # the enclosing GROUP BY makes one NULL group (c_custkey + o_orderkey was c_custkey there).
    ("derived_null_computed_group", "select k, count(*) as n from (select c_custkey + o_orderkey as k from customer "
                                    "left join orders on o_custkey = c_custkey and o_orderkey < 100) t group by k "
                                    "order by n desc, k limit 5"),
    # Set operations over columns that may be NULL (LEFT JOIN sides, typed NULLs): NULLs are values
    # alike there (UNION / INTERSECT / EXCEPT), and they pass on as NULLs (derived tables, results).
    ("union_all_nullable", "select n_nationkey as k, s_suppkey as s, s_acctbal as b from nation left join supplier on "
                           "s_nationkey = n_nationkey and s_acctbal > 9000 union all select r_regionkey, r_regionkey * 100, "
                           "cast(null as decimal(15,2)) from region order by k, s, b"),
    ("union_nullable_distinct", "select c_nationkey as n, o_orderpriority as p from customer left join orders on "
                                "c_custkey = o_custkey and o_totalprice > 400000 union select c_nationkey, o_orderpriority "
                                "from customer join orders on c_custkey = o_custkey where o_totalprice < 2000 order by n, p"),
    ("except_nullable", "select n_regionkey as r, s_nationkey as k from nation left join supplier on s_nationkey = n_nationkey "
                        "and s_acctbal > 9000 except select n_regionkey, n_nationkey from nation where n_nationkey < 10 "
                        "order by r, k"),
    ("intersect_nullable_computed", "select n_regionkey as r, s_acctbal * 2 + n_nationkey as v from nation left join supplier "
                                    "on s_nationkey = n_nationkey and s_acctbal > 9000 intersect select r_regionkey, "
                                    "cast(null as decimal(15,2)) from region order by r, v"),
    ("union_nullable_in_derived", "select k, count(*) as n, count(v) as c, sum(v) as s from (select n_regionkey as k, s_acctbal "
                                  "as v from nation left join supplier on s_nationkey = n_nationkey and s_acctbal > 5000 "
                                  "union all select r_regionkey, cast(null as decimal(15,2)) from region) t group by k order by k"),
    ("set_operation_nested_nullable", "select n_regionkey as r, max(s_acctbal) as m from nation left join supplier on "
                                      "s_nationkey = n_nationkey and s_acctbal > 9500 group by n_regionkey union all select "
                                      "r_regionkey, cast(null as decimal(15,2)) from region except select r_regionkey, null "
                                      "from region where r_regionkey = 0 order by r, m"),
    # FULL OUTER JOIN: the UNION ALL of both LEFT JOINs' rows, the second keeping only its unmatched
    # rows (frontend/sql/sql_join_tree.cpp add_full_join); both sides' columns may be NULL.
    ("full_join", "select n_nationkey, n_name, s_suppkey, s_acctbal from (select * from nation where n_regionkey = 1) n "
                  "full join (select * from supplier where s_acctbal > 8000) s on s.s_nationkey = n.n_nationkey "
                  "order by n_nationkey, s_suppkey"),
    ("full_outer_join_grouped", "select coalesce(n_regionkey, -1) as r, count(*) as n, count(s_suppkey) as k, sum(s_acctbal) "
                                "as b, count(n_name) as m from (select * from nation where n_nationkey < 12) n full outer join "
                                "(select * from supplier where s_acctbal > 5000) s on s.s_nationkey = n.n_nationkey "
                                "group by coalesce(n_regionkey, -1) order by r"),
    ("full_join_then_inner", "select r_name, count(*) as n, count(s_suppkey) as k from (select * from nation where "
                             "n_nationkey < 15) n full join (select * from supplier where s_acctbal < 0) s on "
                             "s_nationkey = n_nationkey join region on r_regionkey = n_regionkey group by r_name order by r_name"),
    ("full_join_star", "select * from (select r_regionkey, r_name from region where r_regionkey < 3) a full join "
                       "(select n_regionkey, n_name from nation where n_nationkey > 20) b on a.r_regionkey = b.n_regionkey "
                       "order by r_regionkey, n_name"),
    ("full_join_self_where", "select a.n_name as l, b.n_name as m, a.k + b.k as s from (select n_nationkey + 1 as k, n_name from "
                             "nation where n_regionkey = 0) a full join (select n_nationkey as k, n_name from nation where "
                             "n_regionkey = 1) b on a.k = b.k where a.n_name is null or b.k > 3 order by l, m"),
    ("full_join_aggregated_sides", "select coalesce(c.k, o.k) as k, c.n as customers, o.n as orders from (select c_nationkey "
                                   "as k, count(*) as n from customer where c_acctbal > 9000 group by c_nationkey) c full join "
                                   "(select c_nationkey as k, count(*) as n from orders join customer on c_custkey = o_custkey "
                                   "where o_totalprice > 400000 group by c_nationkey) o on c.k = o.k order by k"),
    ("full_join_tables_cte", "with rich as (select c_custkey, c_nationkey from customer where c_acctbal > 9500) select "
                             "n_name, count(c_custkey) as k, count(*) as n from nation full join rich on c_nationkey = "
                             "n_nationkey group by n_name order by n_name"),
    # Correlated scalar subqueries over an aggregate's groups: a left outer join of the aggregate's
    # output with the subquery grouped by its keys (NULL where it has no group).
    ("select_correlated_in_aggregate", "select c_nationkey, count(*) as n, (select max(s_acctbal) from supplier where "
                                       "s_nationkey = c_nationkey and s_acctbal > 8000) as best from customer where "
                                       "c_acctbal > 9000 group by c_nationkey order by c_nationkey"),
    ("having_correlated", "select o_custkey, count(*) as n, sum(o_totalprice) as s from orders where o_custkey < 300 group by "
                          "o_custkey having sum(o_totalprice) > (select 3 * avg(o2.o_totalprice) from orders o2 where "
                          "o2.o_custkey = orders.o_custkey) order by o_custkey"),
    ("having_correlated_nulls", "select o_orderkey, sum(o_totalprice) - coalesce((select sum(l_extendedprice) from lineitem "
                                "where l_orderkey = o_orderkey and l_quantity > 48), 0) as rest from orders where o_orderkey "
                                "< 2000 group by o_orderkey having (select max(l_quantity) from lineitem where l_orderkey = "
                                "o_orderkey and l_quantity > 45) is null order by o_orderkey"),
    # A union output that outgrows its estimate (a LEFT JOIN that matches several rows) grows with
    # the pipeline reading it (the params computed from its capacity grow too).
    ("union_grown_read_later", "select a1, a2 from (select 0 as a1, l_suppkey as a2 from lineitem union all select o_orderkey, "
                               "l_linenumber from orders left join lineitem on l_orderkey = o_orderkey where o_orderkey < 30000) t "
                               "where a2 > 1 order by a1 desc, a2 limit 20"),
    # SUM/MIN/MAX/AVG without GROUP BY over no rows are NULL in a derived table, a WITH query and a set
    # operand too (they read MAX's identity, or refused, before: exit 4).
    ("derived_scalar_aggregate_no_rows", "select count(*) as c, count(s) as cs, sum(t) as st from (select max(l_quantity) as s, "
                                         "sum(l_extendedprice) as t, count(*) as n from lineitem where l_quantity > 1000) d "
                                         "where s is null and n = 0"),
    ("derived_scalar_aggregate_no_rows_arithmetic", "select s + 1 as t, a, k from (select max(l_quantity) as s, avg(l_discount) as a, "
                                                    "count(*) as k from lineitem where l_quantity > 1000) d"),
    ("with_scalar_aggregate_no_rows", "with w as (select min(o_totalprice) as m, count(*) as k from orders where o_totalprice < 0) "
                                      "select m, coalesce(m, -1) as cm, k, case when m > 0 then 1 else 2 end as pos from w"),
    ("union_all_scalar_aggregate_no_rows", "select sum(l_quantity) as s, min(l_shipdate) as d from lineitem where l_quantity > 1000 "
                                           "union all select sum(l_quantity), min(l_shipdate) from lineitem where l_quantity < 2 "
                                           "order by s"),
    ("union_scalar_aggregate_no_rows_grouped", "select max(o_totalprice) as m from orders where o_orderdate < date '1990-01-01' "
                                               "union select max(o_totalprice) from orders where o_orderdate > date '2000-01-01' "
                                               "union select max(o_totalprice) from orders order by m"),
    # IN / EXISTS over a subquery column that may be NULL: a NULL key matches nothing.
    ("in_scalar_aggregate_no_rows", "select count(*) as c, sum(n_nationkey) as s from nation where n_nationkey in "
                                    "(select max(l_linenumber) from lineitem where l_quantity > 1000)"),
    ("in_scalar_aggregate", "select n_name from nation where n_nationkey in (select max(l_linenumber) from lineitem "
                            "where l_quantity < 10) order by n_name"),
    ("in_left_join_nulls", "select c_nationkey, count(*) as k from customer where c_custkey in (select o_custkey from nation "
                           "left join orders on n_nationkey = o_orderkey) group by c_nationkey order by c_nationkey"),
    ("exists_left_join_null_key", "select o_orderpriority, count(*) as k from orders o where exists (select * from customer c "
                                  "left join nation n on c.c_nationkey = n.n_nationkey and n.n_regionkey = 1 "
                                  "where n.n_nationkey = o.o_custkey) group by o_orderpriority order by o_orderpriority"),
    ("not_exists_left_join_null_key", "select count(*) as k from orders o where not exists (select * from customer c "
                                      "left join nation n on c.c_nationkey = n.n_nationkey and n.n_regionkey = 1 "
                                      "where n.n_nationkey = o.o_custkey)"),
    ("in_union_with_null", "select p_brand, count(*) as k from part where p_partkey in (select p_partkey from part where "
                           "p_size < 5 union select cast(null as integer) from nation) group by p_brand order by p_brand"),
    ("derived_null_boolean", "select d.big, count(*) as n from (select c_custkey, o_totalprice > 200000 as big from customer "
                             "left join orders on c_custkey = o_custkey and o_orderpriority = '1-URGENT' where c_custkey < 400) d "
                             "group by d.big order by big"),
    ("right_join", "select n_name, count(s_suppkey) as n, sum(s_acctbal) as b from supplier right join nation "
                   "on s_nationkey = n_nationkey and s_acctbal > 9000 group by n_name order by n_name"),
    # The DISTINCT rewrite's partial aggregates keep their NULL filters (count(o_orderkey) counted
    # the unmatched customers once).
    ("left_join_count_next_to_distinct", "select c_nationkey, count(distinct c_mktsegment) as m, count(o_orderkey) as k, "
                                         "max(o_totalprice) as s from customer left join orders on c_custkey = o_custkey "
                                         "and o_totalprice > 300000 group by c_nationkey order by c_nationkey"),
    ("left_join_distinct_null", "select distinct o_orderpriority from customer left join orders on c_custkey = o_custkey "
                                "and o_totalprice > 400000 order by o_orderpriority"),
    ("conditional_aggregates", "select o_orderpriority, sum(case when o_orderstatus = 'F' then o_totalprice end) as f, "
                               "count(case when o_totalprice > 200000 then 1 end) as big, "
                               "count(*) filter (where o_shippriority = 0) as z, avg(o_totalprice) filter "
                               "(where o_orderdate < date '1993-01-01') as a93 from orders group by o_orderpriority "
                               "order by o_orderpriority"),
    ("coalesce_no_rows", "select coalesce(sum(l_quantity), 0) as s, sum(l_quantity) is null as z, count(*) as c "
                         "from lineitem where l_quantity > 100"),
    ("select_scalar_correlated_expression", "select c_custkey, coalesce((select max(o_totalprice) from orders where "
                                            "o_custkey = c_custkey), 0) as m, (select max(o_totalprice) from orders "
                                            "where o_custkey = c_custkey) * 2 as d from customer where c_custkey < 50 "
                                            "order by c_custkey"),
    ("nullif_distinct_from", "select c_custkey, nullif(c_nationkey, 3) as k, c_nationkey is distinct from 5 as d, "
                             "nullif(c_nationkey, 3) is not distinct from null as same from customer "
                             "where c_custkey < 20 order by c_custkey"),
    # ORDER BY what the select list does not show (a hidden sort column), positions, OFFSET.
    ("order_by_not_selected", "select c_name, c_acctbal from customer where c_nationkey = 3 order by c_custkey desc"),
    ("order_by_not_selected_expression", "select o_orderkey from orders where o_orderkey < 2000 "
                                         "order by o_totalprice * 2 - o_orderkey desc limit 7"),
    ("order_by_not_selected_aggregate", "select c_nationkey, count(*) as n from customer group by c_nationkey "
                                        "order by sum(c_acctbal) desc, c_nationkey"),
    ("order_by_not_selected_group_key", "select c_nationkey, count(*) as n from customer group by c_nationkey, c_mktsegment "
                                        "order by c_mktsegment, c_nationkey limit 12"),
    ("order_by_not_selected_null", "select n_name from nation left join region on n_regionkey = r_regionkey "
                                   "and r_name < 'C' order by r_name desc, n_name"),
    ("order_by_positions", "select p_type, count(*) as n from part where p_type like '%BRASS' group by p_type "
                           "order by 2 desc, 1"),
    ("limit_offset", "select c_custkey, sum(o_totalprice) as spent from customer join orders on c_custkey = o_custkey "
                     "group by c_custkey order by spent desc, c_custkey limit 10 offset 5"),
    ("offset_without_limit", "select n_name, n_regionkey from nation order by n_regionkey desc, n_nationkey offset 20"),
    ("offset_past_the_end_of_a_window", "select o_orderkey, rank() over (order by o_totalprice desc) as r from orders "
                                        "order by r, o_orderkey limit 3 offset 10"),
    # ROUND: halves away from zero; decimals to fewer digits or tens, doubles, integers, aggregates.
    ("round_decimal", "select o_orderkey, round(o_totalprice, 1) as a, round(o_totalprice) as b, round(o_totalprice, -2) as c, "
                      "round(o_totalprice, 5) as d, round(0 - o_totalprice, -1) as e from orders where o_orderkey < 300 "
                      "order by o_orderkey"),
    ("round_double_and_aggregates", "select l_returnflag, round(avg(l_discount), 4) as a, round(avg(l_quantity)) as q, "
                                    "round(sum(l_extendedprice), -3) as s, round(avg(l_extendedprice) / 7, -1) as t "
                                    "from lineitem group by l_returnflag order by l_returnflag"),
    ("round_group_key_and_literals", "select round(l_quantity, -1) as q, round(12.345, 2) as a, round(-12.345, 2) as b, "
                                     "round(2.5) as c, round(-2.5) as d, round(17, -1) as f, count(*) as n from lineitem "
                                     "group by 1 order by 1"),
    ("round_in_where", "select count(*) as n from lineitem where round(l_extendedprice * l_discount, 0) > 3000 "
                       "and round(l_tax * 100) = 4"),
    # Dates: date_trunc, date_part and EXTRACT of quarter, day of week and of year.
    ("date_trunc_month_group", "select date_trunc('month', o_orderdate) as m, count(*) as n, sum(o_totalprice) as s from orders "
                               "group by m order by m"),
    ("date_trunc_all_parts", "select o_orderkey, o_orderdate, date_trunc('year', o_orderdate) as y, date_trunc('quarter', o_orderdate) as q, "
                             "date_trunc('week', o_orderdate) as w, date_trunc('day', o_orderdate) as d from orders "
                             "where o_orderkey < 500 order by o_orderkey"),
    ("extract_quarter_dow_doy", "select extract(quarter from l_shipdate) as q, extract(dow from l_shipdate) as dw, "
                                "date_part('doy', l_shipdate) > 180 as late, year(l_shipdate) as y, count(*) as n from lineitem "
                                "where l_shipdate >= date_trunc('year', date '1996-03-10') group by 1, 2, 3, 4 order by 1, 2, 3, 4"),
    # Correlated COUNT subqueries: a key without rows counts 0.
    ("select_correlated_count", "select n_name, (select count(*) from customer where c_nationkey = n_nationkey and c_acctbal > 9000) "
                                "as rich, (select count(o_orderkey) from orders where o_custkey = n_nationkey) as n from nation "
                                "order by n_name"),
    ("having_correlated_count", "select c_nationkey, count(*) as n from customer group by c_nationkey having count(*) > "
                                "(select count(*) from supplier where s_nationkey = c_nationkey) * 10 order by c_nationkey"),
    # WHERE scalar subqueries whose value is NULL (no group for the row's keys, or an aggregate over
    # no rows): a row is kept wherever the conjunct is TRUE for that NULL (a COUNT's 0); once three of
    # these silently dropped every such row.
    ("where_correlated_is_null", "select o_orderpriority, count(*) as n from orders where (select sum(l_quantity) from lineitem "
                                 "where l_orderkey = o_orderkey and l_quantity > 48) is null group by o_orderpriority "
                                 "order by o_orderpriority"),
    ("where_correlated_or", "select o_orderstatus, count(*) as n from orders where (select sum(l_quantity) from lineitem where "
                            "l_orderkey = o_orderkey and l_quantity > 45) > 40 or o_orderkey < 200 group by o_orderstatus "
                            "order by o_orderstatus"),
    ("where_correlated_coalesce_not", "select count(*) as n, sum(o_totalprice) as s from orders where coalesce((select "
                                      "max(l_discount) from lineitem where l_orderkey = o_orderkey and l_quantity > 49), 0.5) = 0.5 "
                                      "and not (o_custkey < 100 and (select min(l_tax) from lineitem where l_orderkey = o_orderkey "
                                      "and l_shipmode = 'AIR') > 0.02)"),
    ("where_correlated_count", "select c_mktsegment, count(*) as n from customer where (select count(*) from orders where "
                               "o_custkey = c_custkey and o_orderstatus = 'F') < 2 group by c_mktsegment order by c_mktsegment"),
    ("where_uncorrelated_no_rows", "select count(*) as n from orders where coalesce((select max(l_quantity) from lineitem where "
                                   "l_quantity > 100), 7) = 7 and (select sum(l_tax) from lineitem where l_quantity < 0) is null "
                                   "and o_totalprice > coalesce((select avg(o_totalprice) from orders where o_orderkey < 0), 1000)"),
    # The remainder of an integer by a literal: the sign of the dividend, as in C, PostgreSQL, DuckDB.
    ("modulo_literal", "select o_orderkey % 7 as m, (-o_custkey) % 3 as n, o_custkey % -4 as k, count(*) as c, "
                       "sum(o_shippriority % 2) as s from orders where o_orderkey % 10 <> 3 group by 1, 2, 3 order by 1, 2, 3"),
    # Decimals cast to a smaller scale or an integer round halves away from zero (0.05 * 10 is 1).
    ("cast_decimal_rounding", "select l_orderkey, l_linenumber, cast(l_extendedprice as integer) as i, cast(l_discount * 10 as integer) "
                              "as h, cast(-l_discount * 10 as bigint) as nh, cast(l_extendedprice * l_discount as decimal(18,1)) as d, "
                              "cast(2.45 as decimal(5,1)) as lit from lineitem where l_orderkey < 40 order by l_orderkey, l_linenumber"),
    # Months and years added to a date column: the day clamped to the target month (month ends, the
    # leap days of 1992 and 1996), in the select list, a predicate, a group key and a join condition.
    # DuckDB's date + interval is a timestamp: the CASTs make both sides dates.
    ("add_months_columns", "select o_orderkey, o_orderdate, cast(o_orderdate + interval '1' month as date) as m1, "
                           "cast(o_orderdate - interval '13' month as date) as m13, cast(o_orderdate + interval '4' year as date) as y4 "
                           "from orders where extract(day from o_orderdate) >= 28 and o_orderdate + interval '2' month < date '1997-01-01' "
                           "order by o_orderkey limit 200"),
    ("add_months_group_join", "select cast(l_shipdate - interval '1' year as date) as d, count(*) as n from lineitem, orders "
                              "where l_orderkey = o_orderkey and l_shipdate < o_orderdate + interval '2' month and "
                              "l_shipdate >= date '1996-02-01' and l_shipdate < date '1996-04-01' group by 1 order by 1"),
    # SUBSTRING from position 0 takes one byte fewer from position 1 (PostgreSQL and DuckDB agree):
    # of a heap column, of a dictionary column, as a group key and in a predicate.
    ("substring_start_zero", "select substring(c_phone from 0 for 3) as p, substring(c_mktsegment from 0 for 4) as m, count(*) as n "
                             "from customer where substring(c_name from 0 for 9) = 'Customer' group by 1, 2 order by 1, 2"),
    ("having_uncorrelated_no_rows", "select o_orderstatus, count(*) as n from orders group by o_orderstatus having (select sum(l_tax) "
                                    "from lineitem where l_quantity < 0) is null and count(*) > coalesce((select max(l_quantity) "
                                    "from lineitem where l_quantity > 100), 5) order by o_orderstatus"),
    ("having_uncorrelated_or", "select o_orderstatus, count(*) as n from orders group by o_orderstatus having (select sum(l_tax) "
                               "from lineitem where l_quantity < 0) > 1 or count(*) > 1000 order by o_orderstatus"),
    # DISTINCT aggregates over a LEFT JOIN's NULL side and with FILTER: NULLs and filtered rows are
    # not counted; a group whose values are all NULL counts 0 (SUM: NULL).
    ("distinct_count_left_join_nulls", "select n_name, count(distinct c_custkey) as customers, count(o_orderkey) as n from nation "
                                       "left join customer on c_nationkey = n_nationkey and c_acctbal > 9000 left join orders "
                                       "on o_custkey = c_custkey and o_orderstatus = 'F' group by n_name order by n_name"),
    ("distinct_sum_left_join_nulls", "select r_name, sum(distinct n_regionkey * 10 + 1) as s, count(distinct n_regionkey * 10 + 1) as k, "
                                     "count(*) as n from region left join nation on n_regionkey = r_regionkey and n_name < 'F' "
                                     "group by r_name order by r_name"),
    ("distinct_count_filter", "select c_nationkey, count(distinct o_orderpriority) filter (where o_totalprice > 100000) as p, "
                              "count(*) as n from customer join orders on o_custkey = c_custkey group by c_nationkey "
                              "order by c_nationkey"),
    # ROWS BETWEEN frames with offsets: moving sums, averages, counts, MIN / MAX.
    ("window_rows_moving", "select o_orderdate, count(*) as n, sum(count(*)) over (order by o_orderdate rows between 6 preceding "
                           "and current row) as week, avg(sum(o_totalprice)) over (order by o_orderdate rows 2 preceding) as a3 "
                           "from orders where o_orderdate < date '1992-04-01' group by o_orderdate order by o_orderdate"),
    ("window_rows_centered_min_max", "select l_orderkey, l_linenumber, min(l_quantity) over (partition by l_orderkey order by "
                                     "l_linenumber rows between 1 preceding and 1 following) as lo, max(l_extendedprice) over "
                                     "(partition by l_orderkey order by l_linenumber rows between current row and 2 following) as hi, "
                                     "count(*) over (partition by l_orderkey order by l_linenumber rows between 2 following and "
                                     "unbounded following) as n, sum(l_quantity) over (partition by l_orderkey order by l_linenumber "
                                     "rows between unbounded preceding and 1 preceding) as before from lineitem where l_orderkey < 200 "
                                     "order by l_orderkey, l_linenumber"),
    # Probes that match several times feeding a reduction: under multi_pass / operator_at_a_time the
    # lanes' capacity (the probe side's rows) is exceeded on the device and grown (one rebuild).
    ("multi_match_scalar_aggregate", "select count(*) as n, sum(c_acctbal) as s, max(s_acctbal) as m from supplier, customer "
                                     "where s_nationkey = c_nationkey"),
    ("multi_match_grouped_aggregate", "select c_mktsegment, count(*) as n, sum(s_acctbal) as s from supplier, customer "
                                      "where s_nationkey = c_nationkey group by c_mktsegment order by c_mktsegment"),
    ("multi_match_materialize", "select c_custkey, s_suppkey from supplier, customer where s_nationkey = c_nationkey "
                                "and c_custkey < 40 order by c_custkey, s_suppkey"),
    # MIN and MAX of sums that are 128-bit without statistics (the library models sort the values).
    ("wide_min_max", "select min(s) as lo, max(s) as hi, count(*) as n from (select l_suppkey, sum(l_extendedprice) as s "
                     "from lineitem group by l_suppkey) as t"),
    # Heap strings of the table a query scans most (its rows' texts, LIKE and SUBSTRING over their
    # bytes, joined on): sql_breadth_streamed runs them streamed in chunks, where each chunk's texts
    # are its rows' references from the chunk's first row and its bytes a slice of the heap.
    ("scanned_heap_text", "select l_orderkey, l_linenumber, l_comment from lineitem where l_quantity = 50 and l_discount = 0.10 "
                          "order by l_orderkey, l_linenumber"),
    ("scanned_heap_like", "select l_returnflag, count(*) as n, sum(l_quantity) as q from lineitem where l_comment like "
                          "'%furiously%ironic%' or l_comment like 'quick%' or l_comment like '%s' group by l_returnflag "
                          "order by l_returnflag"),
    ("scanned_heap_substring_join", "select o_orderpriority, substring(l_comment, 1, 3) as c3, count(*) as n from orders, lineitem "
                                    "where o_orderkey = l_orderkey and substring(l_comment, 1, 3) in ('the', 'sly', 'reg') "
                                    "and l_comment not like '%deposits%' group by o_orderpriority, substring(l_comment, 1, 3) "
                                    "order by o_orderpriority, c3"),
    ("scanned_heap_text_joined", "select o_orderkey, o_orderdate, l_comment from orders, lineitem where o_orderkey = l_orderkey "
                                 "and o_totalprice > 400000 and l_comment like '%carefully%' order by o_orderkey, l_comment"),
    # A key modulo a literal: at most that many groups (the resolution model privatises them).
    ("group_by_modulo", "select o_orderkey % 7 as g, count(*) as n, sum(o_totalprice) as s from orders group by o_orderkey % 7 "
                        "order by g"),
]

if __name__ == "__main__":
    sys.exit(sql_queries_main(QUERIES, "sql_breadth", __doc__.split("\n")[0]))

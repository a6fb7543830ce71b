#!/usr/bin/env python3
"""End-to-end oracle test of multi-stage queries over TPC-H data: aggregation results feeding later
operators (HAVING, expressions over aggregates, an aggregate as a join's build side, aggregates of
aggregates), uncorrelated scalar subqueries passed to later kernels as parameters, and ORDER BY ...
LIMIT over large results (top-k). Each query runs through horseqc (`horseqc-run tpch --sql`, OpenCL on
PoCL) and through DuckDB on the same .tbl files (tests/oracle/tpch_queries.py makes and loads them).

The queries use only what these mechanisms need (no LIKE, no multi-key hashed GROUP BY, no heap
strings in results), so they test the stages themselves; the TPC-H queries that also need other
features are checked by tests/oracle/tpch_queries.py as they become runnable. Every ORDER BY here is a
total order, so rows under LIMIT are determined. Comparison as tests/oracle/query_oracle.py says.
Exit code 0 when everything matches, 1 otherwise.

usage: tpch_stages.py --bin BUILD/bin --work DIR [--data dbgen|horseqc]... [--sf 0.01] [--model resolution]...
                      [--only NAME]...
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from query_oracle import compare, run_horseqc  # noqa: E402
from tpch_queries import make_data, oracle_connection  # noqa: E402

# (name, SQL). ORDER BY keys are output column names (or positions) so the order can be checked.
QUERIES = [
    # A map over a single-tuple aggregate (TPC-H Q14's shape: promotion share).
    ("map_over_scalar", """
select 100.00 * sum(case when p_size < 10 then l_extendedprice * (1 - l_discount) else 0 end)
       / sum(l_extendedprice * (1 - l_discount)) as promo_revenue
from lineitem, part
where l_partkey = p_partkey and l_shipdate >= date '1995-09-01' and l_shipdate < date '1995-10-01';"""),
    # The same over no rows: SUM is NULL, COUNT(*) is 0.
    ("map_over_empty_scalar", """
select sum(l_quantity) / 2 as half, count(*) as n, count(*) + 1 as n1 from lineitem where l_quantity < 0;"""),
    # Per-group ratio of two aggregates (Q8's shape) with a dictionary key.
    ("map_per_group", """
select o_orderpriority, sum(case when o_orderstatus = 'F' then o_totalprice else 0 end) / sum(o_totalprice) as share
from orders group by o_orderpriority order by o_orderpriority;"""),
    # HAVING on a direct-indexed (dictionary) key, AVG rebuilt in the later stage.
    ("having_direct", """
select l_returnflag, l_linestatus, avg(l_quantity) as avg_qty, count(*) as n
from lineitem group by l_returnflag, l_linestatus having avg(l_quantity) > 25.49 and count(*) > 100
order by l_returnflag, l_linestatus;"""),
    # HAVING on a hashed key (Q18's inner query), ORDER BY ... LIMIT over its groups.
    ("having_hashed_topk", """
select l_orderkey, sum(l_quantity) as qty from lineitem group by l_orderkey having sum(l_quantity) > 250
order by qty desc, l_orderkey limit 7;"""),
    # Q18's IN (group by ... having ...): an aggregate as the build side of a semi join.
    ("in_having", """
select o_orderkey, o_totalprice, o_orderdate from orders
where o_orderkey in (select l_orderkey from lineitem group by l_orderkey having sum(l_quantity) > 280)
order by o_totalprice desc, o_orderkey;"""),
    # An aggregate over an aggregate (Q13's count of counts, without its outer join).
    ("count_of_counts", """
select c_count, count(*) as custdist
from (select o_custkey, count(*) as c_count from orders where o_orderpriority <> '1-URGENT' group by o_custkey) as c_orders
group by c_count order by custdist desc, c_count desc;"""),
    # Q15: a grouped aggregate (the view) as a join's build side, and the max over it as a scalar
    # subquery (an aggregate of an aggregate, evaluated once and passed as a parameter).
    ("view_and_max", """
with revenue0 as (
  select l_suppkey as supplier_no, sum(l_extendedprice * (1 - l_discount)) as total_revenue
  from lineitem where l_shipdate >= date '1996-01-01' and l_shipdate < date '1996-04-01' group by l_suppkey)
select s_suppkey, s_nationkey, total_revenue from supplier, revenue0
where s_suppkey = supplier_no and total_revenue = (select max(total_revenue) from revenue0)
order by s_suppkey;"""),
    # Q17's correlated AVG per part: a grouped aggregate joined on its key, then a map over the sum.
    ("correlated_avg", """
select sum(l_extendedprice) / 7.0 as avg_yearly from lineitem, part
where p_partkey = l_partkey and p_container = 'MED BOX'
  and l_quantity < (select 0.2 * avg(l_quantity) from lineitem where l_partkey = p_partkey);"""),
    # Q2's correlated MIN per part (<= rather than =: an equality with a correlated value is one more
    # join key, and multi-key joins are another feature), ORDER BY ... LIMIT.
    ("correlated_min_topk", """
select p_partkey, ps_suppkey, ps_supplycost from part, partsupp
where p_partkey = ps_partkey and p_size = 15
  and ps_supplycost <= (select min(ps_supplycost) from partsupp where ps_partkey = p_partkey)
order by ps_supplycost desc, p_partkey, ps_suppkey limit 10;"""),
    # Q22's AVG(c_acctbal) with a filter: a float64 scalar subquery as a kernel parameter.
    ("scalar_avg_param", """
select c_mktsegment, count(*) as numcust, sum(c_acctbal) as totacctbal from customer
where c_acctbal > (select avg(c_acctbal) from customer where c_acctbal > 0.00 and c_mktsegment = 'BUILDING')
group by c_mktsegment order by c_mktsegment;"""),
    # Q11 itself: HAVING against a scalar subquery.
    ("q11", """
select ps_partkey, sum(ps_supplycost * ps_availqty) as value
from partsupp, supplier, nation
where ps_suppkey = s_suppkey and s_nationkey = n_nationkey and n_name = 'GERMANY'
group by ps_partkey
having sum(ps_supplycost * ps_availqty) > (
  select sum(ps_supplycost * ps_availqty) * 0.0001 from partsupp, supplier, nation
  where ps_suppkey = s_suppkey and s_nationkey = n_nationkey and n_name = 'GERMANY')
order by value desc, ps_partkey;"""),
    # ORDER BY ... LIMIT over a large grouped result (Q3/Q10's shape): top-k on the host.
    ("topk_large", """
select l_orderkey, sum(l_extendedprice * (1 - l_discount)) as revenue from lineitem
group by l_orderkey order by revenue desc, l_orderkey limit 10;"""),
    ("topk_dictionary_key", """
select c_custkey, c_mktsegment, c_acctbal from customer order by c_mktsegment desc, c_acctbal, c_custkey limit 5;"""),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--data", action="append", choices=["dbgen", "horseqc"], help="default dbgen; repeatable")
    ap.add_argument("--sf", default="0.01")
    ap.add_argument("--model", action="append", help="resolution (default), pipelined, multi_pass or operator_at_a_time; repeatable")
    ap.add_argument("--only", action="append", help="run only these query names")
    args = ap.parse_args()

    failures = []
    queries = [(n, q.strip()) for n, q in QUERIES if not args.only or n in args.only]
    for kind in args.data or ["dbgen"]:
        data = os.path.join(args.work, f"tpch-{kind}-sf{args.sf}")
        make_data(kind, args.sf, data, args.bin)
        con = oracle_connection(data)
        oracle = {}
        for name, sql in queries:
            res = con.execute(sql)
            oracle[name] = ([d[0] for d in res.description], res.fetchall())
        con.close()
        for model in args.model or ["resolution"]:
            for name, sql in queries:
                label = f"{kind} sf {args.sf} {model} {name}"
                out = run_horseqc(args.bin, "tpch", [], ["--data", data, "--device", "opencl", "--model", model, "--sql", sql])
                if out is None:
                    failures.append(f"{label}: horseqc-run failed")
                    continue
                ours = out["queries"][0]
                if "unsupported" in ours:
                    failures.append(f"{label}: unsupported: {ours['unsupported']}")
                    print(f"{label}: UNSUPPORTED")
                    continue
                cols, rows = oracle[name]
                errs = compare(label, sql, ours, cols, rows)
                failures += errs
                print(f"{label}: {'OK' if not errs else 'MISMATCH'} ({len(rows)} rows)")
    for f in failures:
        print("FAIL", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

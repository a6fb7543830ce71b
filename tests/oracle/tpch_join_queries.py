#!/usr/bin/env python3
"""End-to-end oracle test of joins on TPC-H data: join shapes of TPC-H queries whose full text still
needs constructs other than joins (LIKE on heap strings, nested aggregation, heap strings in hash
tables), run through horseqc-run tpch --sql on OpenCL and compared with DuckDB on the same .tbl
files (dbgen's data, tests/oracle/tpch_queries.py makes it).

Covered: repeated build keys (the probe visits every match; a materialized result larger than its
probe side), composite keys (Q9's partsupp (ps_partkey, ps_suppkey)), LEFT OUTER JOIN with COUNT of
the NULL-able column (Q13's inner query) and NULL result columns, EXISTS / NOT EXISTS with a correlated <> (Q21's core).

usage: tpch_join_queries.py --bin BUILD/bin --work DIR [--sf 0.01] [--model resolution]...
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from query_oracle import check_run, run_horseqc  # noqa: E402
from tpch_queries import make_data, oracle_connection  # noqa: E402

QUERIES = {
    # Q21 without s_name (a heap string cannot be a hash-table payload yet): the semi and anti
    # joins on l_orderkey with the residual l_suppkey <> l1.l_suppkey.
    "q21_core": """
select s_suppkey, count(*) as numwait
from supplier, lineitem l1, orders, nation
where s_suppkey = l1.l_suppkey and o_orderkey = l1.l_orderkey and o_orderstatus = 'F'
  and l1.l_receiptdate > l1.l_commitdate
  and exists (select * from lineitem l2 where l2.l_orderkey = l1.l_orderkey and l2.l_suppkey <> l1.l_suppkey)
  and not exists (select * from lineitem l3 where l3.l_orderkey = l1.l_orderkey and l3.l_suppkey <> l1.l_suppkey
                  and l3.l_receiptdate > l3.l_commitdate)
  and s_nationkey = n_nationkey and n_name = 'SAUDI ARABIA'
group by s_suppkey
order by numwait desc, s_suppkey""",
    # The same residuals without the nation filter, counted per order status of the line's order.
    "q21_all_nations": """
select o_orderstatus, count(*) as numwait
from lineitem l1, orders
where o_orderkey = l1.l_orderkey and l1.l_receiptdate > l1.l_commitdate
  and exists (select * from lineitem l2 where l2.l_orderkey = l1.l_orderkey and l2.l_suppkey <> l1.l_suppkey)
  and not exists (select * from lineitem l3 where l3.l_orderkey = l1.l_orderkey and l3.l_suppkey <> l1.l_suppkey
                  and l3.l_receiptdate > l3.l_commitdate)
group by o_orderstatus
order by o_orderstatus""",
    # Q13's inner query with a decimal condition in ON instead of NOT LIKE (LIKE on a heap string
    # has no device form yet), and without the count of counts (nested aggregation).
    "q13_inner": """
select c_custkey, count(o_orderkey) as c_count
from customer left outer join orders on c_custkey = o_custkey and o_totalprice > 100000
group by c_custkey""",
    # Left outer join as rows: customers without such an order come out once with NULL order columns.
    "left_outer_rows": """
select c_custkey, o_orderkey, o_orderdate
from customer left outer join orders on c_custkey = o_custkey and o_totalprice > 300000""",
    # Left outer join on unique build keys: every customer once, suppliers 1..100 match.
    "left_outer_unique": """
select count(*) as n, count(s_suppkey) as m, sum(c_acctbal) as b
from customer left outer join supplier on c_custkey = s_suppkey""",
    # Q9 without LIKE and EXTRACT: partsupp joins on its composite primary key.
    "q9_composite": """
select n_name, sum(l_extendedprice * (1 - l_discount) - ps_supplycost * l_quantity) as amount
from part, supplier, lineitem, partsupp, orders, nation
where s_suppkey = l_suppkey and ps_suppkey = l_suppkey and ps_partkey = l_partkey and p_partkey = l_partkey
  and o_orderkey = l_orderkey and s_nationkey = n_nationkey and p_size < 10
group by n_name
order by n_name""",
    # A non-key join: every customer meets every supplier of its nation (build keys repeat), as
    # rows (more than there are customers: the output grows) and aggregated per nation.
    "many_rows": """
select c_custkey, s_suppkey, s_acctbal
from customer, supplier
where c_nationkey = s_nationkey and c_mktsegment = 'BUILDING'""",
    "many_grouped": """
select n_name, count(*) as pairs, sum(c_acctbal + s_acctbal) as total
from customer, supplier, nation
where c_nationkey = s_nationkey and s_nationkey = n_nationkey
group by n_name
order by n_name""",
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--sf", default="0.01")
    ap.add_argument("--model", action="append", help="resolution (default), pipelined, multi_pass or operator_at_a_time; repeatable")
    args = ap.parse_args()

    data = os.path.join(args.work, f"tpch-dbgen-sf{args.sf}")
    make_data("dbgen", args.sf, data, args.bin)
    con = oracle_connection(data)
    failures = []
    for name, sql in QUERIES.items():
        res = con.execute(sql)
        cols, rows = [d[0] for d in res.description], res.fetchall()
        if not rows:
            failures.append(f"{name}: the oracle returns no rows; the query checks nothing")
            continue
        for model in args.model or ["resolution"]:
            label = f"dbgen sf {args.sf} opencl {model}"
            out = run_horseqc(args.bin, "tpch", [], ["--sql", sql, "--data", data, "--device", "opencl", "--model", model])
            if out is None:
                failures.append(f"{label} {name}: horseqc-run failed")
                continue
            out["queries"][0]["query"] = name
            errs, _ = check_run(label, out, {name: (sql, cols, rows)})
            failures += errs
    con.close()
    for f in failures:
        print("FAIL", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

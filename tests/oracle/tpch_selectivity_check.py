#!/usr/bin/env python3
"""Selectivity oracle for the TPC-H generator: horseqc-gen's data against DuckDB's dbgen.

Generates TPC-H with horseqc-gen (.tbl files) and loads it into DuckDB next to the data of DuckDB's
tpch extension (dbgen) at the same scale factor, then computes the fraction of rows that the main
predicates of the 22 queries select (single-table filters, the joined filters of the multi-table
queries, Q13's comment pattern, Q14's promotion share, Q16's supplier complaints, Q19's combinations,
...) on both and compares them. A check passes when the two fractions agree within 10 % of dbgen's,
or, for predicates that select few rows (where sampling noise at a small scale factor exceeds 10 %),
within four standard deviations of the difference of two binomial counts.

usage: tpch_selectivity_check.py --gen BUILD/bin/horseqc-gen --work DIR [--sf 0.1] [--seed S]
Exit code 0 when every check passes, 1 when one fails (all are printed), 2 on usage errors.
"""
import argparse
import math
import os
import shutil
import subprocess
import sys

import duckdb

TABLES = ["part", "supplier", "partsupp", "customer", "orders", "lineitem", "nation", "region"]

# (name, numerator SQL, denominator SQL[, units SQL]); evaluated in the schema of one data set. The
# numerator counts selected rows (or sums a measure), the denominator the rows (or measure) it is a share
# of. Where rows are not selected independently (a supplier's nation decides for all its partsupp and
# lineitem rows, a customer's segment for all its orders), the units SQL counts the independent units
# (suppliers, customers, orders, parts), and the statistical tolerance uses that sample size.
CHECKS = [
    ("Q1 l_shipdate <= 1998-09-02",
     "select count(*) from lineitem where l_shipdate <= date '1998-09-02'", "select count(*) from lineitem"),
    ("Q1 returnflag R", "select count(*) from lineitem where l_returnflag = 'R'", "select count(*) from lineitem"),
    ("Q1 linestatus O", "select count(*) from lineitem where l_linestatus = 'O'", "select count(*) from lineitem"),
    ("Q2 p_size = 15 and p_type like '%BRASS'",
     "select count(*) from part where p_size = 15 and p_type like '%BRASS'", "select count(*) from part"),
    ("Q2 partsupp of EUROPE suppliers",
     "select count(*) from partsupp, supplier, nation, region where ps_suppkey = s_suppkey and "
     "s_nationkey = n_nationkey and n_regionkey = r_regionkey and r_name = 'EUROPE'", "select count(*) from partsupp", "select count(*) from supplier"),
    ("Q3 BUILDING, orders < 1995-03-15, ship > 1995-03-15",
     "select count(*) from customer, orders, lineitem where c_mktsegment = 'BUILDING' and c_custkey = o_custkey and "
     "l_orderkey = o_orderkey and o_orderdate < date '1995-03-15' and l_shipdate > date '1995-03-15'",
     "select count(*) from lineitem", "select count(*) from customer"),
    ("Q3 c_mktsegment = 'BUILDING'", "select count(*) from customer where c_mktsegment = 'BUILDING'",
     "select count(*) from customer"),
    ("Q3 lines shipped after 1995-03-15 of orders before it",
     "select count(*) from orders, lineitem where l_orderkey = o_orderkey and o_orderdate < date '1995-03-15' and "
     "l_shipdate > date '1995-03-15'", "select count(*) from lineitem", "select count(*) from orders"),
    ("Q4 orders 1993Q3 with a late line",
     "select count(*) from orders where o_orderdate >= date '1993-07-01' and o_orderdate < date '1993-10-01' and "
     "exists (select * from lineitem where l_orderkey = o_orderkey and l_commitdate < l_receiptdate)",
     "select count(*) from orders"),
    ("Q4 lines with commitdate < receiptdate",
     "select count(*) from lineitem where l_commitdate < l_receiptdate", "select count(*) from lineitem"),
    ("Q5 ASIA, 1994, local supplier",
     "select count(*) from customer, orders, lineitem, supplier, nation, region where c_custkey = o_custkey and "
     "l_orderkey = o_orderkey and l_suppkey = s_suppkey and c_nationkey = s_nationkey and s_nationkey = n_nationkey "
     "and n_regionkey = r_regionkey and r_name = 'ASIA' and o_orderdate >= date '1994-01-01' and "
     "o_orderdate < date '1995-01-01'", "select count(*) from lineitem", "select count(*) from supplier"),
    ("Q6 shipdate 1994, discount .05-.07, quantity < 24",
     "select count(*) from lineitem where l_shipdate >= date '1994-01-01' and l_shipdate < date '1995-01-01' and "
     "l_discount between 0.05 and 0.07 and l_quantity < 24", "select count(*) from lineitem"),
    ("Q6 revenue share",
     "select sum(l_extendedprice * l_discount) from lineitem where l_shipdate >= date '1994-01-01' and "
     "l_shipdate < date '1995-01-01' and l_discount between 0.05 and 0.07 and l_quantity < 24",
     "select sum(l_extendedprice) from lineitem"),
    ("Q7 FRANCE/GERMANY shipping 1995-1996",
     "select count(*) from supplier, lineitem, orders, customer, nation n1, nation n2 where s_suppkey = l_suppkey and "
     "o_orderkey = l_orderkey and c_custkey = o_custkey and s_nationkey = n1.n_nationkey and "
     "c_nationkey = n2.n_nationkey and ((n1.n_name = 'FRANCE' and n2.n_name = 'GERMANY') or "
     "(n1.n_name = 'GERMANY' and n2.n_name = 'FRANCE')) and l_shipdate between date '1995-01-01' and "
     "date '1996-12-31'", "select count(*) from lineitem", "select count(*) from supplier"),
    ("Q8 ECONOMY ANODIZED STEEL, AMERICA, 1995-1996",
     "select count(*) from part, lineitem, orders, customer, nation, region where p_partkey = l_partkey and "
     "l_orderkey = o_orderkey and o_custkey = c_custkey and c_nationkey = n_nationkey and n_regionkey = r_regionkey "
     "and r_name = 'AMERICA' and o_orderdate between date '1995-01-01' and date '1996-12-31' and "
     "p_type = 'ECONOMY ANODIZED STEEL'", "select count(*) from lineitem", "select count(*) from customer"),
    ("Q9 p_name like '%green%'", "select count(*) from part where p_name like '%green%'", "select count(*) from part"),
    ("Q10 1993Q4 orders, returned lines",
     "select count(*) from orders, lineitem where l_orderkey = o_orderkey and o_orderdate >= date '1993-10-01' and "
     "o_orderdate < date '1994-01-01' and l_returnflag = 'R'", "select count(*) from lineitem", "select count(*) from orders"),
    ("Q11 partsupp of GERMANY suppliers",
     "select count(*) from partsupp, supplier, nation where ps_suppkey = s_suppkey and s_nationkey = n_nationkey and "
     "n_name = 'GERMANY'", "select count(*) from partsupp", "select count(*) from supplier"),
    ("Q12 MAIL/SHIP late lines received 1994",
     "select count(*) from lineitem where l_shipmode in ('MAIL', 'SHIP') and l_commitdate < l_receiptdate and "
     "l_shipdate < l_commitdate and l_receiptdate >= date '1994-01-01' and l_receiptdate < date '1995-01-01'",
     "select count(*) from lineitem"),
    ("Q12 high-priority share",
     "select count(*) from orders, lineitem where o_orderkey = l_orderkey and l_shipmode in ('MAIL', 'SHIP') and "
     "o_orderpriority in ('1-URGENT', '2-HIGH')", "select count(*) from lineitem where l_shipmode in ('MAIL', 'SHIP')", "select count(*) from orders"),
    ("Q13 o_comment like '%special%requests%'",
     "select count(*) from orders where o_comment like '%special%requests%'", "select count(*) from orders"),
    ("Q13 customers without orders",
     "select count(*) from customer where not exists (select * from orders where o_custkey = c_custkey)",
     "select count(*) from customer"),
    ("Q14 promo revenue share, 1995-09",
     "select sum(l_extendedprice * (1 - l_discount)) from lineitem, part where l_partkey = p_partkey and "
     "p_type like 'PROMO%' and l_shipdate >= date '1995-09-01' and l_shipdate < date '1995-10-01'",
     "select sum(l_extendedprice * (1 - l_discount)) from lineitem where l_shipdate >= date '1995-09-01' and "
     "l_shipdate < date '1995-10-01'", "select count(*) from part"),
    ("Q15 shipdate 1996Q1",
     "select count(*) from lineitem where l_shipdate >= date '1996-01-01' and l_shipdate < date '1996-04-01'",
     "select count(*) from lineitem"),
    ("Q16 part filter",
     "select count(*) from part where p_brand <> 'Brand#45' and p_type not like 'MEDIUM POLISHED%' and "
     "p_size in (49, 14, 23, 45, 19, 3, 36, 9)", "select count(*) from part"),
    ("Q16 suppliers with complaints",
     "select count(*) from supplier where s_comment like '%Customer%Complaints%'", "select count(*) from supplier"),
    ("Q17 Brand#23 MED BOX",
     "select count(*) from part where p_brand = 'Brand#23' and p_container = 'MED BOX'", "select count(*) from part"),
    ("Q18 orders with more than 300 units",
     "select count(*) from (select l_orderkey from lineitem group by l_orderkey having sum(l_quantity) > 300)",
     "select count(*) from orders"),
    ("Q18 orders with more than 250 units (shape of the tail)",
     "select count(*) from (select l_orderkey from lineitem group by l_orderkey having sum(l_quantity) > 250)",
     "select count(*) from orders"),
    ("Q19 brand/container/quantity/size combinations",
     "select count(*) from lineitem, part where p_partkey = l_partkey and l_shipmode in ('AIR', 'AIR REG') and "
     "l_shipinstruct = 'DELIVER IN PERSON' and ((p_brand = 'Brand#12' and p_container in ('SM CASE', 'SM BOX', "
     "'SM PACK', 'SM PKG') and l_quantity between 1 and 11 and p_size between 1 and 5) or (p_brand = 'Brand#23' and "
     "p_container in ('MED BAG', 'MED BOX', 'MED PKG', 'MED PACK') and l_quantity between 10 and 20 and p_size "
     "between 1 and 10) or (p_brand = 'Brand#34' and p_container in ('LG CASE', 'LG BOX', 'LG PACK', 'LG PKG') and "
     "l_quantity between 20 and 30 and p_size between 1 and 15))", "select count(*) from lineitem"),
    ("Q19 shipmode AIR/AIR REG and DELIVER IN PERSON",
     "select count(*) from lineitem where l_shipmode in ('AIR', 'AIR REG') and l_shipinstruct = 'DELIVER IN PERSON'",
     "select count(*) from lineitem"),
    ("Q20 p_name like 'forest%'", "select count(*) from part where p_name like 'forest%'", "select count(*) from part"),
    ("Q20 CANADA suppliers' 1994 lines of forest parts",
     "select count(*) from lineitem, part, supplier, nation where l_partkey = p_partkey and l_suppkey = s_suppkey and "
     "s_nationkey = n_nationkey and n_name = 'CANADA' and p_name like 'forest%' and l_shipdate >= date '1994-01-01' "
     "and l_shipdate < date '1995-01-01'", "select count(*) from lineitem", "select count(*) from supplier"),
    ("Q21 SAUDI ARABIA late lines of F orders",
     "select count(*) from supplier, lineitem, orders, nation where s_suppkey = l_suppkey and o_orderkey = l_orderkey "
     "and o_orderstatus = 'F' and l_receiptdate > l_commitdate and s_nationkey = n_nationkey and "
     "n_name = 'SAUDI ARABIA'", "select count(*) from lineitem", "select count(*) from supplier"),
    ("Q21 orders with status F", "select count(*) from orders where o_orderstatus = 'F'", "select count(*) from orders"),
    ("Q21 orders with status P", "select count(*) from orders where o_orderstatus = 'P'", "select count(*) from orders"),
    ("Q22 rich idle customers of seven country codes",
     "select count(*) from customer where substring(c_phone, 1, 2) in ('13', '31', '23', '29', '30', '18', '17') and "
     "c_acctbal > (select avg(c_acctbal) from customer where c_acctbal > 0.00 and substring(c_phone, 1, 2) in "
     "('13', '31', '23', '29', '30', '18', '17')) and not exists (select * from orders where o_custkey = c_custkey)",
     "select count(*) from customer"),
]


def compare(name, a, a_rows, b, b_rows):
    """a: horseqc fraction over a_rows independent units, b: dbgen's over b_rows. Returns (ok, tolerance)."""
    # The standard deviation of the difference of two independent binomial fractions; measures that are
    # sums (revenue shares) get the same treatment, which is conservative for them.
    sigma = math.sqrt(max(a * (1 - a), 1e-12) / a_rows + max(b * (1 - b), 1e-12) / b_rows)
    tolerance = max(0.10 * b, 4 * sigma)
    return abs(a - b) <= tolerance, tolerance


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gen", required=True, help="the horseqc-gen binary")
    ap.add_argument("--work", required=True, help="a scratch directory (its tpch_sf* subdirectory is replaced)")
    ap.add_argument("--sf", default="0.1")
    ap.add_argument("--seed", default=None)
    args = ap.parse_args()

    data = os.path.join(args.work, f"tpch_sf{args.sf}")
    shutil.rmtree(data, ignore_errors=True)
    os.makedirs(args.work, exist_ok=True)
    gen = [args.gen, "tpch", "--sf", args.sf, "--out", data, "--quiet"]
    if args.seed is not None:
        gen += ["--seed", args.seed]
    if subprocess.run(gen, stdout=subprocess.DEVNULL).returncode != 0:
        print("FAIL: " + " ".join(gen), file=sys.stderr)
        return 1

    con = duckdb.connect()
    import duckdb_ext  # the duckdb-ext-tpch package: DuckDB's tpch extension, which carries dbgen

    ext = os.path.join(list(duckdb_ext.__path__)[0], f"extensions/v{duckdb.__version__}/linux_amd64/tpch.duckdb_extension")
    con.execute(f"load '{ext}'")
    con.execute(f"call dbgen(sf={float(args.sf)})")
    # horseqc's data in its own schema, with dbgen's column types (the schema is DuckDB's, not horseqc's).
    con.execute("create schema hqc")
    for t in TABLES:
        con.execute(f"create table hqc.{t} as select * from main.{t} limit 0")
        con.execute(f"copy hqc.{t} from '{os.path.join(data, t + '.tbl')}' (delimiter '|', header false)")

    failures = 0
    print(f"{'check':58} {'horseqc':>10} {'dbgen':>10} {'tol':>9}")
    for name, num_sql, den_sql, *units_sql in CHECKS:
        values = {}
        for schema in ("hqc", "main"):
            con.execute(f"set schema '{schema}'")
            num = float(con.execute(num_sql).fetchone()[0] or 0)
            den = float(con.execute(den_sql).fetchone()[0] or 0)
            rows = con.execute(den_sql.replace("sum(", "count(", 1) if "sum(" in den_sql else den_sql).fetchone()[0]
            if units_sql:
                rows = min(rows, con.execute(units_sql[0]).fetchone()[0])
            values[schema] = (num / den if den else 0.0, max(int(rows), 1))
        (a, a_rows), (b, b_rows) = values["hqc"], values["main"]
        ok, tol = compare(name, a, a_rows, b, b_rows)
        failures += not ok
        print(f"{name[:58]:58} {a:10.6f} {b:10.6f} {tol:9.6f} {'ok' if ok else 'FAIL'}")
    con.execute("set schema 'main'")
    # Cardinalities: the fixed tables exactly, lineitem within 1 % (it is random, about 4 lines per order).
    for t in TABLES:
        a = con.execute(f"select count(*) from hqc.{t}").fetchone()[0]
        b = con.execute(f"select count(*) from main.{t}").fetchone()[0]
        ok = abs(a - b) <= 0.01 * b if t == "lineitem" else a == b
        failures += not ok
        print(f"{'rows of ' + t:58} {a:10d} {b:10d} {'':9} {'ok' if ok else 'FAIL'}")
    print(f"{failures} of {len(CHECKS) + len(TABLES)} checks failed" if failures else "all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

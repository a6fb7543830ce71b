#!/usr/bin/env python3
"""End-to-end oracle test of computed strings as values (packed strings, ir/state.h): SUBSTRINGs of at
most 7 bytes and CASEs of short string literals as group keys, ORDER BY keys, MIN/MAX arguments,
projected columns and join keys; compared in filters and IN lists after a derived table made them
values; SUBSTRINGs of dictionary columns; TPC-H Q22. Each query runs through `horseqc-run tpch --plan
FILE.sql` against DuckDB running the same text on the same .tbl files: a small hand-written data set
(strings shorter than the substring, empty results, prefixes shared by different dictionary strings,
bytes ordered around digits, dashes and letters) and dbgen's SF 0.01 (as tests/oracle/tpch_queries.py
makes it). Also SUBSTRINGs of heap strings a join's build side brings (read at the matched row). A
computed string longer than 7 bytes where a value is needed must fail with exit code 4
(unsupported) and a message naming the query position.

Comparison as tests/oracle/query_oracle.py says. Every query selects rows on the hand-written data
(checked on DuckDB's answer), so a predicate that is always false cannot pass unnoticed.

usage: computed_strings.py --bin BUILD/bin --work DIR [--model resolution]... [--device opencl] [--query NAME]...
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tpch_queries import TABLES, check_sql_queries, check_sql_refusals, make_data  # noqa: E402

# Hand-written rows, '|'-separated in each table's column order (dbgen's schema).
SMALL = {
    "region": ["0|AFRICA|r0", "1|AMERICA|r1"],
    "nation": ["0|ALGERIA|0|n0", "1|ARGENTINA|1|n1", "2|BRAZIL|1|n2"],
    "supplier": [
        "1|Supplier#1|addr|0|13-555-0001|100.00|s1",
        "2|Supplier#2|addr|1|31-555-0002|-20.50|s2",
        "3|Supplier#3|addr|2|13-999-0003|7.25|s3",
        "4|Supplier#4|addr|2|7|0.00|s4",
    ],
    "customer": [
        "1|Customer#000000001|a1|0|13-719-748-3364|711.56|BUILDING|c1",
        "2|Customer#000000002|a2|1|31-423-790-3665|121.65|AUTOMOBILE|c2",
        "3|Customer#000000003|a3|2|13-719-000-0000|7498.12|BUILDER|c3",
        "4|Customer#000000004|a4|0|23-768-687-3665|2866.83|MACHINERY|c4",
        "5|Customer#000000005|a5|1|29-|794.47|HOUSEHOLD|c5",
        "6|Customer#000000006|a6|2|30-114-968-4951|7638.57|AUTOMOBILE|c6",
        "7|Customer#000000007|a7|0|7|9561.95|AUTOMOBILE|c7",
        "8|Customer#000000008|a8|1|17-221-123-9999|6819.74|BUILDING|c8",
        "9|Customer#000000009|a9|2|18-338-906-3675|8324.07|FURNITURE|c9",
        "10|Customer#000000010|a10|0|13-0|-272.60|HOUSEHOLD|c10",
        "11|Customer#000000011|a11|1|17-221-123-9998|-999.99|BUILDER|c11",
        "12|Customer#000000012|a12|2|AB-CDE-FGH|3396.49|MACHINERY|c12",
    ],
    "part": ["1|part one|Manufacturer#1|Brand#13|PROMO BRUSHED TIN|7|JUMBO PKG|901.00|p1"],
    "partsupp": ["1|1|100|10.00|ps1"],
    "orders": [
        "1|1|O|100.00|1996-01-02|5-LOW|Clerk#1|0|o1",
        "2|3|F|200.00|1996-02-02|1-URGENT|Clerk#2|0|o2",
        "3|3|O|300.00|1996-03-02|2-HIGH|Clerk#3|0|o3",
        "4|8|F|400.00|1996-04-02|5-LOW|Clerk#4|0|o4",
        "5|12|O|500.00|1996-05-02|3-MEDIUM|Clerk#5|0|o5",
    ],
    "lineitem": ["1|1|1|1|17.00|901.00|0.04|0.02|N|O|1996-03-13|1996-02-12|1996-03-22|DELIVER IN PERSON|TRUCK|l1"],
}

# (name, SQL). Counts are named n; ORDER BY keys are output columns.
QUERIES = [
    # A SUBSTRING as a group key (a derived table's column, as in Q22), ordered by it.
    ("prefix_groups", "select cc, count(*) as n, sum(c_acctbal) as bal from "
                      "(select substring(c_phone from 1 for 2) as cc, c_acctbal from customer) as t group by cc order by cc"),
    # Grouped by the expression itself; descending with LIMIT (the host's top-k over packed keys).
    ("prefix_top", "select substring(c_phone from 4 for 3) as mid, count(*) as n from customer "
                   "group by substring(c_phone from 4 for 3) order by mid desc limit 3"),
    # Two keys, one of them computed; strings shorter than the range give '' or a shorter string.
    ("two_keys", "select c_nationkey, tail, count(*) as n from "
                 "(select c_nationkey, substring(c_phone from 3 for 7) as tail from customer) as t "
                 "group by c_nationkey, tail order by c_nationkey, tail"),
    # SUBSTRING of a dictionary column: a per-code table; BUILDING and BUILDER share 'BUILD'.
    ("segment_prefix", "select seg, count(*) as n, sum(c_acctbal) as bal from "
                       "(select substring(c_mktsegment from 1 for 5) as seg, c_acctbal from customer) as t group by seg order by seg"),
    ("segment_middle", "select substring(c_mktsegment from 3 for 2) as mid, count(*) as n from customer "
                       "group by substring(c_mktsegment from 3 for 2) order by mid"),
    # A CASE of string literals as a group key (literals of different lengths; order follows bytes).
    ("balance_class", "select class, count(*) as n, sum(c_acctbal) as bal from "
                      "(select case when c_acctbal > 5000 then 'rich' when c_acctbal > 0 then 'ok' else 'debt' end as class, "
                      "c_acctbal from customer) as t group by class order by class"),
    # Packed values compared after a derived table: IN list, ranges, a literal longer than 7 bytes.
    ("packed_filters", "select cc, count(*) as n from (select substring(c_phone from 1 for 2) as cc, "
                       "substring(c_phone from 1 for 6) as p6 from customer) as t "
                       "where (cc in ('13', '31', '17') or cc >= 'AB') and p6 < '17-221-123' group by cc order by cc"),
    # SUBSTRING of a packed value (narrowed on the device).
    ("nested", "select x, count(*) as n from (select substring(p6 from 4 for 2) as x from "
               "(select substring(c_phone from 1 for 6) as p6 from customer) as a) as b group by x order by x"),
    # Packed strings as projected columns and as MIN/MAX arguments.
    ("projected", "select c_custkey, substring(c_phone from 1 for 3) as p3, substring(c_mktsegment from 1 for 3) as s3 "
                  "from customer where c_acctbal > 0 order by c_custkey"),
    ("min_max", "select c_nationkey, min(substring(c_phone from 1 for 4)) as lo, max(substring(c_phone from 1 for 4)) as hi, "
                "count(*) as n from customer group by c_nationkey order by c_nationkey"),
    # A SUBSTRING compared in a join: keys on both sides are packed values (many matches per key).
    ("prefix_join", "select count(*) as n, sum(c_acctbal) as bal from customer, supplier "
                    "where substring(c_phone from 1 for 2) = substring(s_phone from 1 for 2)"),
    # A SUBSTRING of a join's build side (a heap string reached through the hash table: its bytes are
    # read at the matched row) as a group key, a join key and under LIKE.
    ("build_side_prefix", "select substring(s_phone from 1 for 2) as sc, count(*) as n, sum(c_acctbal) as bal "
                          "from customer, supplier where c_custkey = s_suppkey group by sc order by sc"),
    ("build_side_join_key", "select cc, count(*) as n from customer, supplier, "
                            "(select substring(c_phone from 1 for 2) as cc from customer where c_acctbal > 0 group by cc) as p "
                            "where c_custkey = s_suppkey and substring(s_phone from 1 for 2) = cc group by cc order by cc"),
    ("build_side_like", "select substring(n_comment from 1 for 3) as nc, count(*) as n from customer, nation "
                        "where c_nationkey = n_nationkey and n_comment like '%n%' group by nc order by nc"),
    # A derived table grouped by a packed key, joined on it.
    ("prefix_join_groups", "select cc, count(*) as n, sum(s_acctbal) as bal from supplier, "
                           "(select substring(c_phone from 1 for 2) as cc from customer where c_acctbal > 0 group by cc) as p "
                           "where substring(s_phone from 1 for 2) = cc group by cc order by cc"),
]

# The query TPC-H Q22 is (tpch/queries/22.sql), here on the hand-written data too.
Q22 = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tpch", "queries", "22.sql")

# (name, SQL, text the error must contain). A computed string longer than 7 bytes has no device value.
ERRORS = [
    ("long_group_key", "select s, count(*) as n from (select substring(c_name from 1 for 12) as s from customer) as t group by s",
     "of up to 12 bytes has no device value"),
    ("long_case", "select case when c_acctbal > 0 then 'positive balance' else 'none' end as k, count(*) as n from customer group by k",
     "CASE over strings"),
]


def write_small(path):
    if os.path.exists(os.path.join(path, "lineitem.tbl")):
        return
    os.makedirs(path + ".tmp", exist_ok=True)
    for t in TABLES:
        with open(os.path.join(path + ".tmp", t + ".tbl"), "w") as f:
            f.write("".join(row + "\n" for row in SMALL[t]))
    os.rename(path + ".tmp", path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--model", action="append", help="resolution (default), pipelined, multi_pass or operator_at_a_time; repeatable")
    ap.add_argument("--device", default="opencl")
    ap.add_argument("--query", action="append", help="names from QUERIES, q22 or ERRORS (default all)")
    args = ap.parse_args()
    with open(Q22) as f:
        q22 = f.read()
    queries = [(n, q) for n, q in QUERIES + [("q22", q22)] if not args.query or n in args.query]
    errors = [e for e in ERRORS if not args.query or e[0] in args.query]
    query_dir = os.path.join(args.work, "computed_strings")
    os.makedirs(query_dir, exist_ok=True)

    failures = []
    small = os.path.join(args.work, "tpch-computed-strings-small")
    write_small(small)
    dbgen = os.path.join(args.work, "tpch-dbgen-sf0.01")
    make_data("dbgen", "0.01", dbgen, args.bin)
    for label, data in (("small", small), ("dbgen sf 0.01", dbgen)):
        failures += check_sql_queries(args.bin, queries, data, label, args.model or ["resolution"], args.device, query_dir)

    failures += check_sql_refusals(args.bin, errors, small, args.device, query_dir)

    for f in failures:
        print("FAIL", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

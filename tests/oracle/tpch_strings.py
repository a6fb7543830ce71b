#!/usr/bin/env python3
"""End-to-end oracle test of strings and dates on the device: queries of our own over TPC-H data that
use LIKE / NOT LIKE (heap strings in the compound kernel, dictionary columns as code ranges and code
sets), SUBSTRING, string comparisons and IN lists, and EXTRACT, each through `horseqc-run tpch --plan
FILE.sql` against DuckDB running the same text on the same .tbl files (dbgen's data, as
tests/oracle/tpch_queries.py makes it). They are the string predicates of TPC-H Q2, Q9, Q13, Q14, Q16,
Q20 and Q22 and the date grouping of Q7, Q8 and Q9, in queries that need no other feature.

Comparison as tests/oracle/query_oracle.py says. Every query must also select rows on both sides of
its string predicate (checked on DuckDB's answer where a count is selected), so a predicate that is
always true or always false cannot pass unnoticed.

usage: tpch_strings.py --bin BUILD/bin --work DIR [--sf 0.01]... [--model resolution]... [--device opencl]
                       [--query NAME]...
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tpch_queries import sql_queries_main  # noqa: E402

# (name, SQL). Counts are named n; ORDER BY keys are output columns.
QUERIES = [
    # Q9: p_name like '%green%' (heap, infix)
    ("green_parts", "select count(*) as n, sum(p_retailprice) as price from part where p_name like '%green%'"),
    # Q13: o_comment not like '%special%requests%' (heap, two infix segments, negated)
    ("order_comments", "select count(*) as n from orders where o_comment not like '%special%requests%'"),
    ("order_comments_like", "select o_orderpriority, count(*) as n from orders where o_comment like '%special%requests%' "
                            "group by o_orderpriority order by o_orderpriority"),
    # Q16: s_comment like '%Customer%Complaints%'; p_type not like 'MEDIUM POLISHED%' (dictionary prefix)
    ("supplier_complaints", "select count(*) as n from supplier where s_comment like '%Customer%Complaints%' or s_comment like '%iron%'"),
    ("q16_part_filter", "select p_size, count(*) as n from part where p_brand <> 'Brand#45' and p_type not like 'MEDIUM POLISHED%' "
                        "and p_size in (49, 14, 23, 45, 19, 3, 36, 9) group by p_size order by p_size"),
    # Q20: p_name like 'forest%' (heap prefix)
    ("forest_parts", "select count(*) as n, sum(p_size) as s from part where p_name like 'forest%'"),
    # Q2: p_type like '%BRASS' (dictionary, general pattern: a code set)
    ("brass_parts", "select p_size, count(*) as n from part where p_type like '%BRASS' and p_size < 10 group by p_size order by p_size"),
    # Q14: case when p_type like 'PROMO%' (dictionary prefix inside CASE)
    ("promo_share", "select sum(case when p_type like 'PROMO%' then p_retailprice else 0 end) as promo, "
                    "sum(p_retailprice) as total, count(*) as n from part"),
    ("promo_revenue", "select sum(case when p_type like 'PROMO%' then l_extendedprice * (1 - l_discount) else 0 end) as promo, "
                      "count(*) as n from lineitem, part where l_partkey = p_partkey "
                      "and l_shipdate >= date '1995-09-01' and l_shipdate < date '1995-10-01'"),
    # Q22: substring(c_phone from 1 for 2) in (...)
    ("phone_prefixes", "select c_nationkey, count(*) as n, sum(c_acctbal) as bal from customer "
                       "where substring(c_phone from 1 for 2) in ('13', '31', '23', '29', '30', '18', '17') and c_acctbal > 0.00 "
                       "group by c_nationkey order by c_nationkey"),
    ("phone_middle", "select count(*) as n from customer where substring(c_phone from 5 for 3) >= '500' "
                     "and substring(c_phone from 14 for 5) <> '1'"),
    # Q7, Q8, Q9: group by extract(year from date)
    ("order_years", "select extract(year from o_orderdate) as o_year, count(*) as n, sum(o_totalprice) as total "
                    "from orders group by o_year order by o_year"),
    ("ship_years", "select extract(year from l_shipdate) as l_year, sum(l_extendedprice * (1 - l_discount)) as revenue, count(*) as n "
                   "from lineitem where l_shipmode in ('MAIL', 'SHIP') and l_comment like '%fur%' group by l_year order by l_year"),
    ("date_parts", "select count(*) as n from lineitem where extract(year from l_shipdate) = 1995 "
                   "and extract(month from l_shipdate) between 3 and 5 and extract(day from l_receiptdate) <= 10"),
    # Heap strings against literals: =, <>, <, >=, BETWEEN, IN
    ("name_ranges", "select count(*) as n from customer where c_name < 'Customer#000000500' and c_address >= 'M'"),
    ("supplier_lookup", "select count(*) as n, sum(s_acctbal) as bal from supplier where s_name = 'Supplier#000000007' "
                        "or s_phone between '20' and '25' or s_name in ('Supplier#000000011', 'Supplier#000000099')"),
    ("clerks", "select count(*) as n from orders where o_clerk <> 'Clerk#000000951' and o_clerk > 'Clerk#000000900'"),
    # '_' wildcards over heap strings and dictionaries; dictionary IN / NOT IN lists
    ("wildcards", "select count(*) as n from part where (p_container like 'SM%' and p_name like '%a_e%') "
                  "or p_mfgr like 'Manufacturer#_' and p_container like '%_BOX'"),
    ("ship_modes", "select l_shipmode, count(*) as n from lineitem where l_shipmode in ('MAIL', 'SHIP') "
                   "and l_shipinstruct not in ('NONE') group by l_shipmode order by l_shipmode"),
    # Heap LIKE on both sides of a join: the build side (part) and the probe side (orders)
    ("green_lineitems", "select count(*) as n, sum(l_quantity) as q from lineitem, part where l_partkey = p_partkey "
                        "and p_name like '%green%'"),
    ("building_orders", "select count(*) as n from orders, customer where o_custkey = c_custkey "
                        "and o_comment not like '%special%requests%' and c_mktsegment = 'BUILDING'"),
]


def main():
    return sql_queries_main(QUERIES, "tpch_strings", __doc__.split("\n")[0])


if __name__ == "__main__":
    sys.exit(main())

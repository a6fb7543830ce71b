#!/usr/bin/env python3
"""End-to-end oracle test of device-side compaction of result group tables (ir/pass_compact_result.cpp,
templates/compact/compact.h): group-bys whose hashed or direct-indexed table has far more slots than
groups — a heap-string LIKE the planner cannot estimate (selectivity 1) keeps few rows — with several
keys, 128-bit sums, AVG (sum + count), heap-string keys merged on the host, dictionary keys, EXTRACT
keys, COUNT(DISTINCT) (two aggregation stages) and ORDER BY ... LIMIT (the host top-k over the dense
rows; over many groups, only the chosen rows' slots read back), each through `horseqc-run tpch --plan FILE.sql` against DuckDB running the same text on the
same .tbl files (dbgen's data, as tests/oracle/tpch_queries.py makes it). Comparison as
tests/oracle/query_oracle.py says; every query must count rows.

usage: tpch_compaction.py --bin BUILD/bin --work DIR [--sf 0.01]... [--model resolution]... [--device opencl]
                          [--query NAME]...
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tpch_queries import sql_queries_main  # noqa: E402

# (name, SQL). Counts are named n; ORDER BY keys are output columns.
QUERIES = [
    # Three keys (hashed: a lane each), a 128-bit sum (price^2 x (1 - discount) can leave 64 bits),
    # AVG; every group in key order.
    ("multi_key_wide", "select l_orderkey, l_returnflag, extract(year from l_shipdate) as y, "
                       "sum(l_extendedprice * l_extendedprice * (1 - l_discount)) as wide, avg(l_quantity) as q, count(*) as n "
                       "from lineitem where l_comment like '%fur%' group by l_orderkey, l_returnflag, y "
                       "order by l_orderkey, l_returnflag, y"),
    # The same groups through the host top-k (ORDER BY ... LIMIT) over the dense rows.
    ("multi_key_top", "select l_orderkey, l_linestatus, sum(l_extendedprice * (1 - l_discount)) as revenue, count(*) as n "
                      "from lineitem where l_comment like '%fur%' group by l_orderkey, l_linestatus "
                      "order by revenue desc, l_orderkey limit 20"),
    # Heap-string key without the primary key: rows grouped on the device, equal names merged on the
    # host; plus a dictionary key.
    ("string_keys", "select c_name, c_mktsegment, count(*) as n, sum(o_totalprice) as total "
                    "from customer, orders where c_custkey = o_custkey and o_comment like '%special%' "
                    "group by c_name, c_mktsegment order by c_name, c_mktsegment"),
    # COUNT(DISTINCT): an inner aggregation a later stage reads (stays sparse), the outer compacted.
    ("count_distinct", "select o_orderpriority, count(distinct o_custkey) as n from orders "
                       "where o_comment like '%special%' group by o_orderpriority order by o_orderpriority"),
    # Direct-indexed keys (supplier key x line status): slots = domain product, few occupied.
    ("direct_indexed", "select l_suppkey, l_linestatus, count(*) as n, sum(l_quantity) as qty "
                       "from lineitem where l_comment like '%furious%' group by l_suppkey, l_linestatus "
                       "order by l_suppkey, l_linestatus"),
    # ORDER BY ... LIMIT k over at least 64 k groups: the host reads only the k chosen rows' slots, one
    # download each (runtime/execution/result_assembly.cpp, ColumnReader::sparse) — key lanes, a
    # 128-bit sum's two words, AVG's halves; then heap-string keys (row references) and a dictionary key.
    # Ordered by one aggregate alone (no ties among the first rows of this data), so the keys too are
    # read per chosen slot.
    ("top_of_many_groups", "select l_orderkey, l_returnflag, extract(year from l_shipdate) as y, "
                           "sum(l_extendedprice * l_extendedprice * (1 - l_discount)) as wide, avg(l_quantity) as q, "
                           "sum(l_extendedprice) as price, count(*) as n from lineitem group by l_orderkey, l_returnflag, y "
                           "order by price desc limit 10"),
    ("top_customers", "select c_custkey, c_name, c_address, n_name, sum(o_totalprice) as total, count(*) as n "
                      "from customer, orders, nation where c_custkey = o_custkey and c_nationkey = n_nationkey "
                      "group by c_custkey, c_name, c_address, n_name order by total desc limit 5"),
]


def main():
    return sql_queries_main(QUERIES, "tpch_compaction", __doc__.split("\n")[0])


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Distributed runs (docs/distributed.md) of queries whose group tables or join builds the compiler
keeps on each rank (ir/rank_local_groups.cpp) or combines on the device (ir/two_phase_aggregation.cpp),
and of near misses that must not be kept: `mpirun -np N horseqc-run tpch --plan FILE.sql` against
DuckDB running the same text on the same .tbl files (dbgen's data, as tests/oracle/tpch_queries.py
makes it). TPC-H partitions orders and lineitem by order key, so groups by the order key are complete
on one rank; a join may use them there only when its probe asks for the same rank's order keys.
partsupp is split at its part keys' boundaries: groups by ps_partkey likewise, for probes of part keys.
Comparison as tests/oracle/query_oracle.py says; every query must count rows.

usage: tpch_rank_local.py --bin BUILD/bin --work DIR --ranks N [--ranks N]... [--sf 0.01]... [--partition-weights W,W,...]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tpch_queries import sql_queries_main  # noqa: E402

# (name, SQL). Counts are named n; ORDER BY keys are output columns.
QUERIES = [
    # Kept on the rank: groups by l_orderkey (HAVING), probed by each order's own key (Q18's shape).
    ("big_orders", "select o_orderpriority, count(*) as n, sum(o_totalprice) as price from orders "
                   "where o_orderkey in (select l_orderkey from lineitem group by l_orderkey having sum(l_quantity) > 150) "
                   "group by o_orderpriority order by o_orderpriority"),
    # The same groups probed through an inner join's build key (orders joined to each line: o_orderkey
    # is the line's own order key), and by an anti join.
    ("big_orders_lines", "select l_returnflag, count(*) as n, sum(o_totalprice) as price from lineitem, orders "
                         "where l_orderkey = o_orderkey and o_orderkey in (select l_orderkey from lineitem "
                         "group by l_orderkey having count(*) >= 6) group by l_returnflag order by l_returnflag"),
    ("small_orders", "select o_orderstatus, count(*) as n from orders where o_orderkey not in "
                     "(select l_orderkey from lineitem group by l_orderkey having max(l_quantity) >= 45) "
                     "group by o_orderstatus order by o_orderstatus"),
    # Near misses, merged as before: the probe is the customer key (any rank's order keys may equal
    # it), and groups by the part key (not the partition key) probed by a line's part key.
    ("customer_as_order", "select o_orderpriority, count(*) as n from orders where o_custkey in "
                          "(select l_orderkey from lineitem group by l_orderkey having sum(l_quantity) > 100) "
                          "group by o_orderpriority order by o_orderpriority"),
    ("popular_parts", "select l_shipmode, count(*) as n from lineitem where l_partkey in "
                      "(select l_partkey from lineitem group by l_partkey having count(*) >= 40) "
                      "group by l_shipmode order by l_shipmode"),
    # partsupp is split at ps_partkey's boundaries: groups by the part key probed by the rank's own
    # partsupp rows stay there (Q2's cheapest supplier per part); the part-key ranges are not the
    # order-key ranges, so groups by one probed by the other, and a join of the two keys, are merged.
    ("cheapest_suppliers", "select ps_suppkey % 7 as m, count(*) as n, sum(ps_availqty) as q from partsupp "
                           "where ps_partkey in (select ps_partkey from partsupp group by ps_partkey "
                           "having min(ps_supplycost) < 200) group by m order by m"),
    ("parts_as_orders", "select l_shipmode, count(*) as n from lineitem where l_orderkey in "
                        "(select ps_partkey from partsupp group by ps_partkey having sum(ps_availqty) > 20000) "
                        "group by l_shipmode order by l_shipmode"),
    ("orders_as_parts", "select ps_suppkey, count(*) as n from partsupp where ps_partkey in "
                        "(select l_orderkey from lineitem group by l_orderkey having count(*) >= 6) "
                        "group by ps_suppkey order by n desc, ps_suppkey limit 20"),
    ("order_key_part_key", "select l_linenumber, count(*) as n, sum(ps_supplycost) as c from lineitem, partsupp "
                           "where l_orderkey = ps_partkey group by l_linenumber order by l_linenumber"),
    # Combined on the device: text keys of a replicated table (Q21's s_name), as row references.
    ("supplier_names", "select s_name, count(*) as n, sum(l_quantity) as q from supplier, lineitem "
                       "where s_suppkey = l_suppkey and l_shipmode = 'AIR' group by s_name order by n desc, s_name limit 25"),
]


def main():
    return sql_queries_main(QUERIES, "tpch_rank_local", __doc__.split("\n")[0])


if __name__ == "__main__":
    sys.exit(main())

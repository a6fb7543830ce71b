#!/usr/bin/env python3
"""Shuffle joins (ir/shuffle_join.cpp, docs/distributed.md): `mpirun -np N horseqc-run tpch --plan FILE.sql
--join-exchange E` against DuckDB running the same text on the same .tbl files, for joins whose build
side scans a partitioned table on another key than the probe's partition key. Under `shuffle` every such
join sends both sides' rows to the rank their key hashes to; the run's JSON must show those exchanges
("shuffled by key" merges), so a run that quietly broadcast instead fails. Under `auto` the planner
weighs the bytes moved: the self join below is shuffled from 3 ranks on (equal sides, so a broadcast
moves (N - 1) x B against a shuffle's 2B x (N - 1) / N), and must say so too.

usage: tpch_shuffle_joins.py --bin BUILD/bin --work DIR --ranks N [--ranks N]... [--sf 0.01]... [--partition-weights W,W,...]
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from query_oracle import check_run, mpirun, run_horseqc  # noqa: E402
from tpch_queries import duckdb_answer, make_data, oracle_connection  # noqa: E402

# (name, SQL, shuffled joins under --join-exchange shuffle, shuffled under auto from 3 ranks on).
# Counts are named n; ORDER BY keys are output columns.
QUERIES = [
    # Q9's join: every line with its supplier's cost for the part.
    ("lines_partsupp", "select l_returnflag, count(*) as n, sum(ps_supplycost * l_quantity) as c from lineitem, partsupp "
                       "where l_partkey = ps_partkey and l_suppkey = ps_suppkey group by l_returnflag order by l_returnflag", 1, 0),
    # With orders by order key: the join order probes orders first, on the lines' own rank
    # (co-partitioned, before the shuffle), then partsupp after it.
    ("lines_partsupp_orders", "select o_orderpriority, count(*) as n, sum(ps_supplycost) as c from lineitem, partsupp, orders "
                              "where l_partkey = ps_partkey and l_suppkey = ps_suppkey and o_orderkey = l_orderkey "
                              "and o_orderdate < date '1995-01-01' group by o_orderpriority order by o_orderpriority", 1, 0),
    # Groups by the order key after a shuffle: no longer complete on one rank, so merged.
    ("orders_by_cost", "select l_orderkey, count(*) as n, sum(ps_supplycost * l_quantity) as c from lineitem, partsupp "
                       "where l_partkey = ps_partkey and l_suppkey = ps_suppkey group by l_orderkey "
                       "order by c desc, l_orderkey limit 15", 1, 0),
    # A self join of lineitem on two keys (n:m), equal sides.
    ("self_join", "select count(*) as n, sum(a.l_quantity) as q, sum(b.l_extendedprice) as p from lineitem a, lineitem b "
                  "where a.l_partkey = b.l_partkey and a.l_suppkey = b.l_suppkey and a.l_shipmode = 'AIR' and b.l_shipmode = 'MAIL'", 1, 1),
    # Anti and semi joins (two keys; one key with a residual), and a left outer join.
    ("no_cheap_supply", "select l_linestatus, count(*) as n from lineitem where not exists (select * from partsupp "
                        "where ps_partkey = l_partkey and ps_suppkey = l_suppkey and ps_availqty < 3000) "
                        "group by l_linestatus order by l_linestatus", 1, 0),
    ("other_supplier_stocked", "select l_shipmode, count(*) as n from lineitem where exists (select * from partsupp "
                               "where ps_partkey = l_partkey and ps_suppkey <> l_suppkey and ps_availqty > 9900) "
                               "group by l_shipmode order by l_shipmode", 1, 0),
    ("lines_left_partsupp", "select l_returnflag, count(*) as n, count(ps_availqty) as matched from lineitem left join partsupp "
                            "on l_partkey = ps_partkey and l_suppkey = ps_suppkey and ps_availqty < 5000 "
                            "group by l_returnflag order by l_returnflag", 1, 0),
]


def shuffles(query_json):
    """The exchanges of rows by key among a query's launches (the merges of its shuffled outputs)."""
    return sum(1 for p in query_json["stats"].get("pipelines", []) for launch in p.get("launches", [])
               if launch.get("library_call", "").startswith("merge ") and "shuffled by key" in launch["library_call"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--sf", action="append", help="default 0.01; repeatable")
    ap.add_argument("--ranks", action="append", type=int, required=True, help="mpirun -np N; repeatable")
    ap.add_argument("--partition-weights", help="horseqc-run --partition-weights W,W,...")
    ap.add_argument("--query", action="append", help="names from QUERIES (default all)")
    args = ap.parse_args()
    chosen = [q for q in QUERIES if not args.query or q[0] in args.query]
    failures = []
    for sf in args.sf or ["0.01"]:
        data = os.path.join(args.work, f"tpch-dbgen-sf{sf}")
        make_data("dbgen", sf, data, args.bin)
        con = oracle_connection(data)
        oracle = {name: duckdb_answer(con, sql) for name, sql, _, _ in chosen}
        con.close()
        query_dir = os.path.join(args.work, "tpch_shuffle_joins")
        os.makedirs(query_dir, exist_ok=True)
        for name, sql, forced, automatic in chosen:
            cols, rows, select = oracle[name]
            if not rows or ("n" in cols and sum(r[cols.index("n")] or 0 for r in rows) == 0):
                failures.append(f"sf {sf} {name}: the oracle selects no rows; the query tests nothing")
            path = os.path.join(query_dir, name + ".sql")
            with open(path, "w") as f:
                f.write(sql + "\n")
            for ranks in args.ranks:
                for exchange in ["shuffle", "auto"]:
                    label = f"dbgen sf {sf} np {ranks} {exchange}"
                    options = ["--plan", path, "--data", data, "--device", "opencl", "--join-exchange", exchange]
                    if args.partition_weights:
                        options += ["--partition-weights", args.partition_weights]
                    out = run_horseqc(args.bin, "tpch", [], options, launcher=mpirun(ranks))
                    if out is None:
                        failures.append(f"{label} {name}: horseqc-run failed")
                        continue
                    errs, _ = check_run(label, out, {name: (select, cols, rows)})
                    failures += errs
                    if errs or ranks < 2:
                        continue
                    # Each shuffled join exchanges its two sides.
                    want = 2 * (forced if exchange == "shuffle" else automatic if ranks >= 3 else 0)
                    got = shuffles(out["queries"][0])
                    if got != want:
                        failures.append(f"{label} {name}: {got} exchanges of rows by key, expected {want}: "
                                        + json.dumps([p.get("name") for p in out["queries"][0]["stats"].get("pipelines", [])]))
    for f in failures:
        print("FAIL", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

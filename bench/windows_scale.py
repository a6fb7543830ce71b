#!/usr/bin/env python3
"""Window functions at scale on the GPU machine: a few window queries over TPC-H data of a larger
scale factor, each through `horseqc-run tpch --sql` (best of --repeat runs of the kernels; the window
stage is part of the `finalize` phase) and through DuckDB on the same .tbl files, compared as
tests/oracle/query_oracle.py compares (so the device's sorts and scans are checked on millions of
rows, not only on the fuzzer's SF 0.01), with both engines' times. Prints one line per query and a
JSON summary to --report.

usage: windows_scale.py --bin BUILD_BIN --data TPCH_TBL_DIR --device cuda [--report FILE]
"""
import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "oracle"))
from query_oracle import compare  # noqa: E402
from tpch_queries import oracle_connection  # noqa: E402

QUERIES = [
    ("rank_suppliers_by_revenue",
     "select l_suppkey, sum(l_extendedprice) as rev, rank() over (order by sum(l_extendedprice) desc) as r "
     "from lineitem group by l_suppkey order by r, l_suppkey limit 20"),
    ("row_number_orders_per_customer",
     "select o_custkey, o_orderkey, o_totalprice, row_number() over (partition by o_custkey order by o_totalprice desc, "
     "o_orderkey) as rn, sum(o_totalprice) over (partition by o_custkey) as spent from orders "
     "order by o_custkey, rn limit 50"),
    ("running_quantity_per_order",
     "select l_orderkey, l_linenumber, sum(l_quantity) over (partition by l_orderkey order by l_linenumber) as q, "
     "dense_rank() over (partition by l_orderkey order by l_quantity desc) as d from lineitem "
     "where l_shipdate < date '1993-01-01' order by l_orderkey, l_linenumber limit 50"),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--report")
    args = ap.parse_args()
    t0 = time.time()
    con = oracle_connection(args.data)
    print(f"DuckDB loaded {args.data} in {time.time() - t0:.1f} s", flush=True)
    results, failures = [], 0
    for name, sql in QUERIES:
        t0 = time.time()
        res = con.execute(sql)
        cols, rows = [d[0] for d in res.description], res.fetchall()
        duck_ms = (time.time() - t0) * 1000
        t0 = time.time()
        p = subprocess.run([os.path.join(args.bin, "horseqc-run"), "tpch", "--data", args.data, "--device", args.device,
                            "--sql", sql, "--format", "json", "--quiet", "--repeat", str(args.repeat)],
                           capture_output=True, text=True)
        wall_ms = (time.time() - t0) * 1000
        if p.returncode != 0:
            print(f"{name}: horseqc-run exit {p.returncode}: {p.stderr.strip()[-800:]}", flush=True)
            failures += 1
            continue
        doc = json.loads(p.stdout)
        ours = doc["queries"][0]
        errs = compare(name, sql, ours, cols, rows)
        failures += bool(errs)
        phases = ours.get("phases", {})
        line = {"query": name, "ok": not errs, "rows": len(rows), "duckdb_ms": round(duck_ms, 1),
                "horseqc_process_ms": round(wall_ms, 1), "phases": phases}
        results.append(line)
        print(f"{name}: {'OK' if not errs else 'MISMATCH ' + errs[0]} ({len(rows)} rows); DuckDB {duck_ms:.0f} ms; "
              f"horseqc " + ", ".join(f"{k} {v:.1f}" for k, v in phases.items() if isinstance(v, (int, float))) +
              f" ms (process {wall_ms:.0f} ms)", flush=True)
    if args.report:
        with open(args.report, "w") as f:
            json.dump({"device": args.device, "data": args.data, "results": results}, f, indent=1)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

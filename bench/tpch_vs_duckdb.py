#!/usr/bin/env python3
"""TPC-H: horseqc on a device vs DuckDB on the same host, same .tbl files, same SQL text.

For each scale factor: dbgen's data (DuckDB's tpch extension, exported to .tbl once, as the oracle test
does) is loaded into an in-memory DuckDB; each query runs there --repeat times (hot, all host threads)
and its best wall time is kept. horseqc-run runs the same queries on the same files with --repeat (best
kernel time; data resident on the device after the first transfer). Prints a CSV, one row per query:

  sf,query,duckdb_ms,hqc_kernels_ms,hqc_finalize_ms,hqc_hot_ms,hqc_transfer_ms,hqc_total_ms,speedup_hot

hqc_hot_ms = kernels + finalize (what a query costs with its columns already on the device, compiled
kernels cached); speedup_hot = duckdb_ms / hqc_hot_ms. Transfer (first use of each column) is listed
apart: it is paid once per column, not per query; hqc_total_ms is the whole first run of the query in
the process (plan, codegen, kernel-cache lookup, transfer, every repeat of the kernels, finalize). A benchmark, not a test: timings vary run to run.

usage: tpch_vs_duckdb.py --bin BUILD/bin --work DIR [--sf 1]... [--device cuda] [--repeat 3] [--csv FILE]
"""
import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "oracle"))
from tpch_queries import ALL, make_data, oracle_connection  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--sf", action="append", help="default 1; repeatable")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--csv", help="also write the CSV here")
    args = ap.parse_args()
    lines = ["sf,query,duckdb_ms,hqc_kernels_ms,hqc_finalize_ms,hqc_hot_ms,hqc_transfer_ms,hqc_total_ms,speedup_hot"]
    for sf in args.sf or ["1"]:
        data = os.path.join(args.work, f"tpch-dbgen-sf{sf}")
        make_data("dbgen", sf, data, args.bin)
        con = oracle_connection(data)
        duck = {}
        for q in ALL:
            with open(os.path.join(ROOT, "tpch", "queries", q[1:] + ".sql")) as f:
                sql = f.read()
            best = None
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                con.execute(sql).fetchall()
                ms = 1e3 * (time.perf_counter() - t0)
                best = ms if best is None else min(best, ms)
            duck[q] = best
        con.close()
        run = subprocess.run([os.path.join(args.bin, "horseqc-run"), "tpch", "--data", data, "--device", args.device,
                              "--repeat", str(args.repeat), "--format", "json", "--quiet"], capture_output=True, text=True)
        if run.returncode not in (0, 4):
            print(run.stderr, file=sys.stderr)
            return 1
        doc = json.loads(run.stdout)
        print(f"# sf {sf}: horseqc on {doc['device']}; DuckDB on the host, best of {args.repeat}", flush=True)
        for entry in doc["queries"]:
            q = entry["query"]
            if "unsupported" in entry:
                lines.append(f"{sf},{q},{duck[q]:.2f},,,,,,")
                continue
            p = entry["phases"]
            hot = p["kernels_ms"] + p["finalize_ms"]
            lines.append(f"{sf},{q},{duck[q]:.2f},{p['kernels_ms']:.3f},{p['finalize_ms']:.2f},{hot:.2f},"
                         f"{p['transfer_ms']:.2f},{p['total_ms']:.2f},{duck[q] / hot if hot > 0 else 0:.1f}")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if args.csv:
        with open(args.csv, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""End-to-end oracle test: all 13 SSB queries through horseqc (OpenCL on PoCL) against DuckDB running
the same SQL text on the same .tbl files.

Comparison as tests/oracle/query_oracle.py says (integers and decimals exactly, rows in ORDER BY
order). Exit code 0 when everything matches, 1 otherwise.

usage: ssb_queries.py --bin BUILD/bin --work DIR --sf 0.01 [--sf 0.1] [--model resolution] [--model pipelined]
                      [--device opencl] [--device cuda] [--from plan|sql] [--save DIR]
"""
import argparse
import os
import subprocess
import sys

import duckdb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from query_oracle import check_run, mpirun, run_horseqc  # noqa: E402
from ssb_schema import load_ssb  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
QUERIES = ["q1.1", "q1.2", "q1.3", "q2.1", "q2.2", "q2.3", "q3.1", "q3.2", "q3.3", "q3.4",
           "q4.1", "q4.2", "q4.3"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--sf", action="append", required=True)
    ap.add_argument("--model", action="append", help="resolution (default), pipelined, multi_pass or operator_at_a_time; repeatable")
    ap.add_argument("--from", dest="source", default="plan", choices=["plan", "sql"])
    ap.add_argument("--device", action="append", help="opencl (default), cuda, auto; repeatable")
    ap.add_argument("--save", help="directory to keep horseqc's JSON output of every run in")
    ap.add_argument("--ranks", action="append", type=int,
                    help="run under `mpirun -np N` (a distributed run, docs/distributed.md); repeatable")
    ap.add_argument("--partition-weights", help="with --ranks: horseqc-run --partition-weights W,W,...")
    ap.add_argument("--stream-chunks", type=int,
                    help="horseqc-run --stream --chunks N: lineorder streamed in N chunks (under --ranks: each rank's share)")
    args = ap.parse_args()

    failures = []
    for sf in args.sf:
        data = os.path.join(args.work, f"ssb-sf{sf}")
        if not os.path.exists(os.path.join(data, "lineorder.tbl")):
            subprocess.run([os.path.join(args.bin, "horseqc-gen"), "ssb", "--sf", sf, "--out", data], check=True)
        con = duckdb.connect()
        load_ssb(con, data)
        oracle = {}
        for q in QUERIES:
            with open(os.path.join(ROOT, "ssb", "queries", q + ".sql")) as f:
                sql = f.read()
            res = con.execute(sql)
            oracle[q] = (sql, [d[0] for d in res.description], res.fetchall())
        con.close()
        for device, model, ranks in [(d, m, r) for d in args.device or ["opencl"] for m in args.model or ["resolution"]
                                     for r in args.ranks or [0]]:
                label = f"sf {sf} {device} {model}" + (f" np {ranks}" if ranks else "") + (
                    f" streamed in {args.stream_chunks} chunks" if args.stream_chunks else "")
                save = os.path.join(args.save, f"ssb-sf{sf}-{device}-{model}" + (f"-np{ranks}" if ranks else "") + ".json") if args.save else None
                weights = ["--partition-weights", args.partition_weights] if ranks and args.partition_weights else []
                if args.stream_chunks:
                    weights += ["--stream", "--chunks", str(args.stream_chunks)]
                out = run_horseqc(args.bin, "ssb", [], ["--data", data, "--device", device, "--model", model,
                                                        f"--from-{args.source}", *weights], save, mpirun(ranks) if ranks else ())
                if out is None:
                    failures.append(f"{label}: horseqc-run failed")
                    continue
                failures += check_run(label, out, oracle)[0]
    for f in failures:
        print("FAIL", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

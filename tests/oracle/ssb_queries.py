#!/usr/bin/env python3
"""End-to-end oracle test: all 13 SSB queries through horseqc (OpenCL on PoCL) against DuckDB running
the same SQL text on the same .tbl files.

Integers and decimals must be equal exactly; rows must come in the order ORDER BY defines (rows whose
ORDER BY keys tie may come in any order). Exit code 0 when everything matches, 1 otherwise.

usage: ssb_queries.py --bin BUILD/bin --work DIR --sf 0.01 [--sf 0.1] [--model resolution] [--model pipelined]
                      [--device opencl] [--device cuda] [--from plan|sql] [--save DIR]
"""
import argparse
import json
import os
import re
import subprocess
import sys

import duckdb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ssb_schema import load_ssb  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
QUERIES = ["q1.1", "q1.2", "q1.3", "q2.1", "q2.2", "q2.3", "q3.1", "q3.2", "q3.3", "q3.4",
           "q4.1", "q4.2", "q4.3"]


def order_by_columns(sql):
    m = re.search(r"order\s+by\s+(.*?);", sql, re.S | re.I)
    if not m:
        return []
    return [re.sub(r"\s+(asc|desc)$", "", k.strip(), flags=re.I) for k in m.group(1).split(",")]


def normalize(value):
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if hasattr(value, "as_integer_ratio") and not isinstance(value, (int, float)):  # Decimal
        return str(value)
    return value


def compare(name, sql, ours, theirs_cols, theirs_rows):
    errors = []
    our_cols = [c["name"] for c in ours["columns"]]
    if len(our_cols) != len(theirs_cols):
        return [f"{name}: {len(our_cols)} columns, oracle has {len(theirs_cols)}"]
    our_rows = [tuple(normalize(v) for v in r) for r in ours["rows"]]
    their_rows = [tuple(normalize(v) for v in r) for r in theirs_rows]
    if sorted(map(repr, our_rows)) != sorted(map(repr, their_rows)):
        missing = set(their_rows) - set(our_rows)
        extra = set(our_rows) - set(their_rows)
        errors.append(f"{name}: results differ: {len(our_rows)} rows vs oracle {len(their_rows)}; "
                      f"missing {sorted(missing)[:3]} extra {sorted(extra)[:3]}")
        return errors
    keys = order_by_columns(sql)
    idx = [theirs_cols.index(k) for k in keys if k in theirs_cols]
    if len(idx) != len(keys):
        errors.append(f"{name}: cannot map ORDER BY keys {keys} to output columns {theirs_cols}")
    ours_keys = [tuple(r[i] for i in idx) for r in our_rows]
    theirs_keys = [tuple(r[i] for i in idx) for r in their_rows]
    if ours_keys != theirs_keys:
        errors.append(f"{name}: rows are not in ORDER BY order ({keys})")
    return errors


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--sf", action="append", required=True)
    ap.add_argument("--model", action="append", help="resolution (default) and/or pipelined")
    ap.add_argument("--from", dest="source", default="plan", choices=["plan", "sql"])
    ap.add_argument("--device", action="append", help="opencl (default), cuda, auto; repeatable")
    ap.add_argument("--save", help="directory to keep horseqc's JSON output of every run in")
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
        for device in args.device or ["opencl"]:
            for model in args.model or ["resolution"]:
                label = f"sf {sf} {device} {model}"
                run = subprocess.run([os.path.join(args.bin, "horseqc-run"), "ssb", "--data", data, "--format", "json",
                                      "--device", device, "--model", model, "--quiet"]
                                     + [f"--from-{args.source}"],
                                     capture_output=True, text=True)
                if run.returncode != 0:
                    print(run.stderr, file=sys.stderr)
                    failures.append(f"{label}: horseqc-run exited with {run.returncode}")
                    continue
                out = json.loads(run.stdout)
                if args.save:
                    os.makedirs(args.save, exist_ok=True)
                    with open(os.path.join(args.save, f"ssb-sf{sf}-{device}-{model}.json"), "w") as f:
                        f.write(run.stdout)
                print(f"{label}: {out['device']}")
                ours = {q["query"]: q for q in out["queries"]}
                for q in QUERIES:
                    sql, cols, rows = oracle[q]
                    if q not in ours:
                        failures.append(f"{label} {q}: missing from horseqc's output")
                        continue
                    errs = compare(f"{label} {q}", sql, ours[q], cols, rows)
                    failures += errs
                    print(f"{label} {q}: {'OK' if not errs else 'MISMATCH'} ({len(rows)} rows)")
    for f in failures:
        print("FAIL", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Bytes of the columns every SSB or TPC-H query moves and scans, at their full width and as stored
(ir/pass_narrow_columns.cpp: a column kept in the 1, 2 or 4 bytes its statistics' range needs).

For each query, `horseqc-compile QUERY --data DIR --emit explain` gives the kernels' column arguments
("arg column col_x = lineitem.l_discount: i64 stored as i8"); the data's row counts come from
`horseqc-run --stats` (one load of DIR). Per query:
  transfer  the distinct columns of all its kernels (what horseqc-run uploads: its transfer line's MiB
            but for heap strings' bytes), full width vs stored;
  scanned   per pipeline, the distinct columns its kernels read (the bound of bench/bandwidth_bound.cpp
            but for heap strings' bytes), summed over the pipelines.
A heap string's offsets count 8 bytes a row and its bytes are left out (they are never narrowed).
Counts bytes only: no device runs a kernel; the times these bytes take are measured on the GPU machine
(bench/gpu_ab.sh, bench/gpu_first_query.sh).

usage: stored_bytes.py --bin BUILD/bin --data DIR ssb|tpch [--csv FILE]
"""
import argparse
import csv
import math
import os
import re
import subprocess
import sys

WIDTH = {"i32": 4, "u32": 4, "i64": 8, "u64": 8, "f64": 8, "bytes": 0}  # a heap's bytes: left out
ARG = re.compile(r"^\s+arg column \S+ = (\w+)\.(\w+): (\w+)(?: stored as i(\d+))?$")
KERNEL = re.compile(r"^kernel \S+ \(p(\d+)\)")
TABLE = re.compile(r"^(\w+): (\d+) rows, \d+ columns")


def table_rows(bin_dir, data, schema):
    p = subprocess.run([os.path.join(bin_dir, "horseqc-run"), schema, "--data", data, "--stats", "--device", "opencl",
                        "--sql", "select count(*) as n from " + ("region" if schema == "tpch" else "supplier")],
                       capture_output=True, text=True)
    rows = {m.group(1): int(m.group(2)) for m in map(TABLE.match, (p.stdout + p.stderr).splitlines()) if m}
    if not rows:
        sys.exit("horseqc-run --stats printed no tables:\n" + p.stderr)
    return rows


def queries(schema):
    here = os.path.dirname(os.path.abspath(__file__))
    folder = os.path.join(here, "..", schema, "queries")
    names = [f for f in os.listdir(folder) if f.endswith(".sql")]
    key = (lambda f: [int(x) for x in re.findall(r"\d+", f)])
    return [os.path.join(folder, f) for f in sorted(names, key=key)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("schema", choices=["ssb", "tpch"])
    ap.add_argument("--csv")
    args = ap.parse_args()
    rows = table_rows(args.bin, args.data, args.schema)
    out = []
    for path in queries(args.schema):
        p = subprocess.run([os.path.join(args.bin, "horseqc-compile"), path, "--data", args.data, "--emit", "explain"],
                           capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"horseqc-compile {path} failed ({p.returncode}): {p.stderr}")
        pipeline = None
        per_pipeline = {}  # pipeline -> {(table, column): (full, stored)}
        for line in p.stdout.splitlines():
            m = KERNEL.match(line)
            if m:
                pipeline = int(m.group(1))
                continue
            m = ARG.match(line)
            if m and pipeline is not None:
                table, column, ty, stored = m.group(1), m.group(2), m.group(3), m.group(4)
                full = WIDTH[ty]
                per_pipeline.setdefault(pipeline, {})[(table, column)] = (full, int(stored) // 8 if stored else full)
        moved, scanned = {}, [0, 0]
        for cols in per_pipeline.values():
            for (table, column), (full, stored) in cols.items():
                moved[(table, column)] = (full, stored)
                scanned[0] += rows[table] * full
                scanned[1] += rows[table] * stored
        transfer = [sum(rows[t] * w[i] for (t, _), w in moved.items()) for i in (0, 1)]
        name = os.path.splitext(os.path.basename(path))[0]
        out.append({"query": name, "transfer_full": transfer[0], "transfer_stored": transfer[1],
                    "scanned_full": scanned[0], "scanned_stored": scanned[1]})
    mib = 1 << 20
    print(f"{'query':8} {'transfer MiB full':>18} {'stored':>10} {'ratio':>7} {'scanned MiB full':>17} {'stored':>10} {'ratio':>7}")
    for r in out:
        print(f"{r['query']:8} {r['transfer_full'] / mib:18.1f} {r['transfer_stored'] / mib:10.1f} "
              f"{r['transfer_stored'] / r['transfer_full']:7.3f} {r['scanned_full'] / mib:17.1f} "
              f"{r['scanned_stored'] / mib:10.1f} {r['scanned_stored'] / r['scanned_full']:7.3f}")
    for what in ("transfer", "scanned"):
        g = math.exp(sum(math.log(r[what + "_stored"] / r[what + "_full"]) for r in out) / len(out))
        tot = sum(r[what + "_stored"] for r in out) / sum(r[what + "_full"] for r in out)
        print(f"{what}: stored / full, geometric mean over {len(out)} queries {g:.3f}, all queries' bytes together {tot:.3f}")
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(out[0].keys()))
            w.writeheader()
            w.writerows(out)


if __name__ == "__main__":
    main()

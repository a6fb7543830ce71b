#!/usr/bin/env python3
"""Finalize time (result assembly on the host after the kernels) of two horseqc-run builds, A/B on the
same data: every TPC-H query resident in one process per run (`horseqc-run tpch --data DIR --device D
--repeat 3 --format json`), the builds alternating RUNS times; per query the median finalize and
kernel time of each build, the answers compared between them.

  bench/finalize_ab.py --data DIR --bin NEW_RUN --before OLD_RUN [--runs 3] [--device cuda] --out DIR

Writes finalize.csv (query, build, finalize_ms median, kernel_ms median, runs) and prints a table.
Exit 1 when the two builds' answers differ for a query.
"""
import argparse
import csv
import json
import statistics
import subprocess
import sys


def run(binary, data, device, path):
    with open(path + ".json", "w") as out, open(path + ".err", "w") as err:
        subprocess.run([binary, "tpch", "--data", data, "--device", device, "--repeat", "3", "--format", "json"],
                       stdout=out, stderr=err, check=True)
    with open(path + ".json") as f:
        return {q["query"]: q for q in json.load(f)["queries"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--bin", required=True, help="the new horseqc-run")
    ap.add_argument("--before", required=True, help="the earlier horseqc-run")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    builds = {"before": a.before, "now": a.bin}
    seen = {b: [] for b in builds}
    for r in range(a.runs):
        for name, binary in builds.items():
            seen[name].append(run(binary, a.data, a.device, f"{a.out}/{name}-{r}"))
    failed = False
    rows = []
    queries = list(seen["now"][0].keys())
    print(f"{'query':6} {'finalize before':>16} {'finalize now':>13} {'kernels before':>15} {'kernels now':>12}")
    for q in queries:
        if seen["before"][0][q].get("rows") != seen["now"][0][q].get("rows"):
            print(f"{q}: the builds' answers differ", file=sys.stderr)
            failed = True
        line = [q]
        for name in builds:
            fin = statistics.median(s[q]["phases"]["finalize_ms"] for s in seen[name])
            ker = statistics.median(s[q]["phases"]["kernels_ms"] for s in seen[name])
            rows.append({"query": q, "build": name, "finalize_ms": round(fin, 3), "kernel_ms": round(ker, 3), "runs": a.runs})
            line += [fin, ker]
        print(f"{q:6} {line[1]:16.2f} {line[3]:13.2f} {line[2]:15.2f} {line[4]:12.2f}")
    with open(f"{a.out}/finalize.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["query", "build", "finalize_ms", "kernel_ms", "runs"])
        w.writeheader()
        w.writerows(rows)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

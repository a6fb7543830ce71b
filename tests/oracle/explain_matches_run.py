#!/usr/bin/env python3
"""What `horseqc-compile --data DIR` explains is what `horseqc-run --data DIR` runs: for every TPC-H and
SSB query (the built-in SQL texts), the pipelines of the compile's EXPLAIN, in order and by name, are the
pipelines the run's JSON statistics list, in one process and (with --distributed --ranks 2) under
`mpirun -np 2`. With the data, both order SQL's joins by its statistics; a compile that left them out
explained another plan than the one run (TPC-H Q20: its partsupp builds in another order).

usage: explain_matches_run.py --bin BUILD/bin --work DIR
"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from query_oracle import mpirun, run_horseqc  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SSB = ["q1.1", "q1.2", "q1.3", "q2.1", "q2.2", "q2.3", "q3.1", "q3.2", "q3.3", "q3.4", "q4.1", "q4.2", "q4.3"]


def explained(bin_dir, sql_path, data, distributed):
    args = [os.path.join(bin_dir, "horseqc-compile"), sql_path, "--data", data, "--emit", "explain"]
    if distributed:
        args += ["--distributed", "--ranks", "2"]
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        raise AssertionError(f"{' '.join(args)}: exit {p.returncode}\n{p.stderr[-2000:]}")
    # "pipeline p3 hash_build ht2 from out0 [each rank's share]": the run's name is "p3 hash_build ht2 from out0".
    return [re.sub(r" \[[^\]]*\]$", "", line[len("pipeline "):]) for line in p.stdout.splitlines() if line.startswith("pipeline p")]


def ran(bin_dir, benchmark, queries, data, launcher):
    out = run_horseqc(bin_dir, benchmark, queries, ["--data", data, "--device", "opencl"], launcher=launcher)
    if out is None:
        raise AssertionError(f"horseqc-run {benchmark} failed (above)")
    return {q["query"]: [p["name"] for p in q["stats"]["pipelines"]] for q in out["queries"]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    failures, compared = [], 0
    for benchmark, queries, sql_of in [
        ("tpch", [f"q{i}" for i in range(1, 23)], lambda q: os.path.join(ROOT, "tpch", "queries", q[1:] + ".sql")),
        ("ssb", SSB, lambda q: os.path.join(ROOT, "ssb", "queries", q + ".sql")),
    ]:
        data = os.path.join(args.work, f"{benchmark}-sf0.01-columnar")
        if not os.path.isdir(data):
            subprocess.run([os.path.join(args.bin, "horseqc-gen"), benchmark, "--sf", "0.01", "--out", data, "--format", "columnar",
                            "--quiet"], check=True)
        for distributed, launcher in [(False, ()), (True, mpirun(2))]:
            runs = ran(args.bin, benchmark, queries, data, launcher)
            for q in queries:
                want = explained(args.bin, sql_of(q), data, distributed)
                got = runs.get(q)
                compared += 1
                if not want:
                    failures.append(f"{benchmark} {q}: the EXPLAIN lists no pipelines")
                elif got != want:
                    where = "mpirun -np 2" if distributed else "one process"
                    failures.append(f"{benchmark} {q} ({where}):\n  explained: {want}\n  ran:       {got}")
    for f in failures:
        print(f, file=sys.stderr)
    print(f"{compared - len(failures)} of {compared} EXPLAINs list the pipelines their run ran")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

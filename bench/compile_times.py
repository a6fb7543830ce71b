#!/usr/bin/env python3
"""Summarises bench/gpu_compile.sh's runs: RUNS/<bench>-<whole|split>-<cold|warm>.json (horseqc-run --format json).

Prints a CSV, one row per query: cold and warm compile ms of both configurations, the cold ratio,
kernel ms of both (best of --repeat, from the cold runs) and whether their rows are identical; then
'#' lines with the medians and maxima over all queries.

usage: compile_times.py RUNS_DIR
"""
import json
import os
import statistics
import sys


def load(runs, bench, config, run):
    path = os.path.join(runs, f"{bench}-{config}-{run}.json")
    return {q["query"]: q for q in json.load(open(path))["queries"] if "phases" in q}


def main():
    runs = sys.argv[1]
    print("benchmark,query,whole_cold_ms,split_cold_ms,cold_ratio,whole_warm_ms,split_warm_ms,"
          "whole_kernels_ms,split_kernels_ms,rows_identical")
    cold = {"whole": [], "split": []}
    warm = {"whole": [], "split": []}
    hits = {"whole": 0, "split": 0}
    identical = 0
    total = 0
    for bench in ("tpch", "ssb"):
        r = {(c, p): load(runs, bench, c, p) for c in ("whole", "split") for p in ("cold", "warm")}
        for name, wc in r[("whole", "cold")].items():
            sc = r[("split", "cold")].get(name)
            ww = r[("whole", "warm")].get(name)
            sw = r[("split", "warm")].get(name)
            if not (sc and ww and sw):
                continue
            total += 1
            for c, q in (("whole", wc), ("split", sc)):
                cold[c].append(q["phases"]["compile_ms"])
            for c, q in (("whole", ww), ("split", sw)):
                warm[c].append(q["phases"]["compile_ms"])
                hits[c] += bool(q["phases"]["compile_cache_hit"])
            same = wc["rows"] == sc["rows"] == ww["rows"] == sw["rows"]
            identical += same
            wcm, scm = wc["phases"]["compile_ms"], sc["phases"]["compile_ms"]
            print(f'{bench},{name},{wcm:.1f},{scm:.1f},{scm / wcm if wcm else 0:.3f},{ww["phases"]["compile_ms"]:.2f},'
                  f'{sw["phases"]["compile_ms"]:.2f},{wc["phases"]["kernels_ms"]:.3f},{sc["phases"]["kernels_ms"]:.3f},{same}')
    for c in ("whole", "split"):
        if cold[c]:
            print(f"# {c}: cold compile median {statistics.median(cold[c]):.1f} ms, max {max(cold[c]):.1f} ms; "
                  f"warm median {statistics.median(warm[c]):.2f} ms, max {max(warm[c]):.2f} ms, cache hits {hits[c]}/{len(warm[c])}")
    print(f"# rows identical across the four runs: {identical}/{total}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

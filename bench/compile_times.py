#!/usr/bin/env python3
"""Summarises bench/gpu_compile.sh's runs: RUNS/<bench>-<config>-<cold|warm>.json (horseqc-run --format json).

CONFIGS (comma-separated, default before,whole) name the configurations; the first is the
baseline. Prints a CSV, one row per query present in every run: per configuration its cold and warm
compile ms and kernel ms (best of --repeat, cold run), the cold compile's ratio to the baseline, the
cold run's transfer and total ms (the whole first run of the query: plan, codegen, compile, transfer,
every repeat, finalize), and whether all runs' rows are identical; then '#' lines with each configuration's medians and maxima.

usage: compile_times.py RUNS_DIR [CONFIGS]
"""
import json
import os
import statistics
import sys


def load(runs, bench, config, run):
    path = os.path.join(runs, f"{bench}-{config}-{run}.json")
    if not os.path.exists(path):
        return None
    return {q["query"]: q for q in json.load(open(path))["queries"] if "phases" in q}


def main():
    runs = sys.argv[1]
    wanted = (sys.argv[2] if len(sys.argv) > 2 else "before,whole").split(",")
    configs = [c for c in wanted if load(runs, "tpch", c, "cold") is not None]
    header = ["benchmark", "query"]
    for c in configs:
        header += [f"{c}_cold_ms", f"{c}_cold_ratio", f"{c}_warm_ms", f"{c}_kernels_ms", f"{c}_cold_transfer_ms", f"{c}_cold_total_ms"]
    print(",".join(header + ["rows_identical"]))
    cold = {c: [] for c in configs}
    warm = {c: [] for c in configs}
    kernels = {c: [] for c in configs}
    totals = {c: [] for c in configs}
    hits = {c: 0 for c in configs}
    identical = total = 0
    for bench in ("tpch", "ssb"):
        r = {(c, p): load(runs, bench, c, p) or {} for c in configs for p in ("cold", "warm")}
        for name in r[(configs[0], "cold")]:
            entries = {(c, p): r[(c, p)].get(name) for c in configs for p in ("cold", "warm")}
            if not all(entries.values()):
                continue
            total += 1
            base = entries[(configs[0], "cold")]["phases"]["compile_ms"]
            row = [bench, name]
            for c in configs:
                cq, wq = entries[(c, "cold")]["phases"], entries[(c, "warm")]["phases"]
                cold[c].append(cq["compile_ms"])
                warm[c].append(wq["compile_ms"])
                kernels[c].append(cq["kernels_ms"])
                totals[c].append(cq["total_ms"])
                hits[c] += bool(wq["compile_cache_hit"])
                row += [f'{cq["compile_ms"]:.1f}', f'{cq["compile_ms"] / base if base else 0:.3f}', f'{wq["compile_ms"]:.2f}',
                        f'{cq["kernels_ms"]:.3f}', f'{cq["transfer_ms"]:.1f}', f'{cq["total_ms"]:.1f}']
            rows = [e["rows"] for e in entries.values()]
            same = all(x == rows[0] for x in rows)
            identical += same
            print(",".join(row + [str(same)]))
    for c in configs:
        if cold[c]:
            ratio = statistics.geometric_mean([k / b for k, b in zip(kernels[c], kernels[configs[0]]) if b > 0])
            print(f"# {c}: cold compile median {statistics.median(cold[c]):.1f} ms, max {max(cold[c]):.1f} ms; "
                  f"warm median {statistics.median(warm[c]):.2f} ms, max {max(warm[c]):.2f} ms, cache hits {hits[c]}/{len(warm[c])}; "
                  f"kernel time vs {configs[0]} (geometric mean) {ratio:.3f}; cold run's total median {statistics.median(totals[c]):.1f} ms, "
                  f"sum {sum(totals[c]):.0f} ms")
    print(f"# rows identical across all runs: {identical}/{total}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

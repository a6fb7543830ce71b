#!/usr/bin/env python3
"""Distributed scaling from horseqc-run's JSON (bench/gpu_distributed.sh): for each query, whether the
answer of every rank count equals the one-rank answer (the same rows in the same order; doubles within
1e-9 relative), and rank 0's kernel time (best of --repeat, the merges included), end-to-end time and
merge time per rank count; speedups against the first rank count and their geometric mean. Appends to
OUT/scaling.csv and prints a table.

usage: distributed_scaling.py OUT BENCHMARK SF RANKS...
"""
import csv
import json
import math
import os
import sys


def close(a, b):
    if isinstance(a, float) or isinstance(b, float):
        try:
            a, b = float(a), float(b)
        except (TypeError, ValueError):
            return a == b
        return a == b or abs(a - b) <= 1e-9 * max(abs(a), abs(b))
    return a == b


def same_rows(x, y):
    return len(x) == len(y) and all(len(r) == len(s) and all(close(u, v) for u, v in zip(r, s)) for r, s in zip(x, y))


def merge_ms(q):
    return sum(l.get("ms", 0) for p in q["stats"]["pipelines"] for l in p["launches"]
               if l.get("library_call", "").startswith("merge "))


def stream_ratio(q):
    """(GB moved, PCIe bound ms, measured / bound) of a streamed query on rank 0, or None."""
    st = q.get("concurrent", {}).get("stream") or {}
    if not st.get("streamed") or not st.get("h2d_bytes_per_s"):
        return None
    bound = st["bytes_transferred"] / st["h2d_bytes_per_s"] * 1e3
    return st["bytes_transferred"] / 1e9, bound, st["measured_ms"] / bound


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def main():
    out, bench, sf, ranks = sys.argv[1], sys.argv[2], sys.argv[3], [int(r) for r in sys.argv[4:]]
    runs = {}
    for n in ranks:
        path = os.path.join(out, f"{bench}-sf{sf}-np{n}.json")
        try:
            with open(path) as f:
                text = f.read()
            # NCCL may print its version line on stdout before horseqc-run's JSON (NCCL_DEBUG).
            runs[n] = {q["query"]: q for q in json.loads(text[text.index("{"):])["queries"]}
        except (OSError, ValueError) as e:
            print(f"{bench} np {n}: no result ({e})")
    if ranks[0] not in runs:
        return 1
    base = runs[ranks[0]]
    rows, speedups, streams = [], {n: [] for n in ranks}, {n: [] for n in ranks}
    print(f"{bench} SF {sf}: kernel ms (merge ms) per rank count; speedup against {ranks[0]} rank(s)")
    for name, q0 in base.items():
        line = [name]
        for n in ranks:
            q = runs.get(n, {}).get(name)
            if q is None or "rows" not in q or "rows" not in q0:
                line.append("n/a")
                continue
            same = same_rows(q["rows"], q0["rows"])
            k, t, m = q["phases"]["kernels_ms"], q["phases"]["total_ms"], merge_ms(q)
            s = q0["phases"]["kernels_ms"] / k if k > 0 else float("nan")
            speedups[n].append(s)
            sr = stream_ratio(q)
            stream_cells = ["", "", ""] if sr is None else [f"{sr[0]:.3f}", f"{sr[1]:.1f}", f"{sr[2]:.3f}"]
            rows.append([bench, sf, name, n, same, f"{k:.3f}", f"{m:.3f}", f"{t:.1f}", f"{s:.3f}"] + stream_cells)
            streamed = "" if sr is None else f" [{sr[0]:.1f} GB, {sr[2]:.2f}x PCIe]"
            if sr is not None:
                streams[n].append(sr[2])
            line.append(f"{k:.2f} ({m:.2f}) x{s:.2f}{streamed}{'' if same else ' DIFFERENT ANSWER'}")
        print("  " + " | ".join(line))
    for n in ranks:
        if speedups[n]:
            g = geomean([s for s in speedups[n] if s > 0])
            print(f"  geomean speedup with {n} rank(s): {g:.3f} over {len(speedups[n])} queries")
        if streams[n]:
            print(f"  streamed with {n} rank(s): rank 0's time / its PCIe bound, geomean {geomean(streams[n]):.3f}"
                  f" over {len(streams[n])} queries (max {max(streams[n]):.3f})")
    new = not os.path.exists(os.path.join(out, "scaling.csv"))
    with open(os.path.join(out, "scaling.csv"), "a", newline="") as f:
        w = csv.writer(f)
        if new:
            w.writerow(["benchmark", "sf", "query", "ranks", "same_answer", "kernel_ms", "merge_ms", "total_ms", "speedup",
                        "stream_gb", "pcie_bound_ms", "stream_ratio"])
        w.writerows(rows)
    return 0 if all(r[4] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

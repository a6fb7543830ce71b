#!/usr/bin/env python3
"""Plots of the HorseQC paper's Experiments 1-3 from the CSVs bench/gpu_models.sh writes, one PNG beside each
(axes and legends as in the paper's Figures 17-19):

  experiment1.png  kernel time (ms) over selectivity per model, the memory bound (solid) and the PCIe time (dashed)
  experiment2.png  kernel time (ms) over the number of groups (log2 axis) per model, memory bound and PCIe time
  experiment3.png  kernel time per SSB query and model (bars), the PCIe time of its columns (dashes);
                   with dram.csv a second panel of DRAM bytes read + written per query and model

usage: plot_models.py DIR     (matplotlib: pip install matplotlib)
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def line_plot(d, name, x_key, models_of, title, xlabel, log_x=False):
    """One line per model of kernel time over x_key, with the memory bound (solid) and PCIe (dashed)."""
    data = rows(os.path.join(d, name + ".csv"))
    fig, ax = plt.subplots(figsize=(6, 4))
    for model in dict.fromkeys(r["model"] for r in data):
        pts = sorted((float(r[x_key]), float(r["kernel_ms"])) for r in data if r["model"] == model)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=model)
    ref = sorted({(float(r[x_key]), float(r["memory_bound_ms"]), float(r["pcie_ms"])) for r in data if r["model"] == models_of})
    ax.plot([p[0] for p in ref], [p[1] for p in ref], "k-", label="memory bound")
    ax.plot([p[0] for p in ref], [p[2] for p in ref], "k--", label="PCIe transfer")
    if log_x:
        ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("execution time (ms)")
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(d, name + ".png"), dpi=120)


def experiment1(d):
    line_plot(d, "experiment1", "selectivity", "pipelined", "Experiment 1: selection + projection on lineorder", "selectivity")


def experiment2(d):
    line_plot(d, "experiment2", "groups", "resolution", "Experiment 2: grouped aggregation of lineorder",
              "x (groups: lo_orderkey % x)", log_x=True)


def experiment3(d):
    data = rows(os.path.join(d, "experiment3.csv"))
    dram_path = os.path.join(d, "dram.csv")
    dram = {(r["query"], r["model"]): r for r in rows(dram_path)} if os.path.exists(dram_path) else {}
    queries = list(dict.fromkeys(r["query"] for r in data))
    models = list(dict.fromkeys(r["model"] for r in data))
    fig, axes = plt.subplots(2 if dram else 1, 1, figsize=(10, 7 if dram else 4), squeeze=False)
    width = 0.8 / len(models)
    ax = axes[0][0]
    for i, model in enumerate(models):
        ms = [next(float(r["kernel_ms"]) for r in data if r["query"] == q and r["model"] == model) for q in queries]
        ax.bar([x + i * width for x in range(len(queries))], ms, width, label=model)
    pcie = [next(float(r["pcie_ms"]) for r in data if r["query"] == q) for q in queries]
    for x, p in enumerate(pcie):
        ax.hlines(p, x - width / 2, x + 0.8 - width / 2, colors="k", linestyles="dashed", label="PCIe transfer" if x == 0 else None)
    ax.set_xticks([x + 0.4 - width / 2 for x in range(len(queries))], queries)
    ax.set_yscale("log")
    ax.set_ylabel("kernel time (ms)")
    ax.set_title("Experiment 3: Star Schema Benchmark")
    ax.legend(fontsize=8)
    if dram:
        ax = axes[1][0]
        for i, model in enumerate(models):
            gb = [(float(dram[(q, model)]["dram_bytes_read"]) + float(dram[(q, model)]["dram_bytes_write"])) / 1e9
                  if (q, model) in dram else 0 for q in queries]
            ax.bar([x + i * width for x in range(len(queries))], gb, width, label=model)
        ax.set_xticks([x + 0.4 - width / 2 for x in range(len(queries))], queries)
        ax.set_ylabel("DRAM read + written (GB, Nsight Compute)")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(d, "experiment3.png"), dpi=120)


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    d = sys.argv[1]
    for name, plot in (("experiment1.csv", experiment1), ("experiment2.csv", experiment2), ("experiment3.csv", experiment3)):
        if os.path.exists(os.path.join(d, name)):
            plot(d)
    return 0


if __name__ == "__main__":
    sys.exit(main())

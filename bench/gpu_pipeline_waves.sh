#!/usr/bin/env bash
# Pipelines of one query in waves (--pipelines concurrent, the default) vs one after the other
# (--pipelines sequential) on the GPU machine: TPC-H and SSB at SF $SF (default 10), generated as
# columnar files, every query with a multi-pipeline plan, --repeat 5 (best kernel time of each).
# Prints per query: waves, kernel ms both ways, the ratio, and whether the rows are identical.
# Output (JSON of every run, waves.csv, log) goes to $OUT (or ./gpu-out).
#
#   bench/gpu_pipeline_waves.sh BUILD_BIN_DIR [DEVICE]     (DEVICE: cuda (default) or opencl)
set -uo pipefail
bin=${1:?usage: gpu_pipeline_waves.sh BUILD_BIN_DIR [cuda|opencl]}
device=${2:-cuda}
SF=${SF:-10}
out=${OUT:-gpu-out}
log=log-pipeline-waves.txt
source "$(dirname "${BASH_SOURCE[0]}")/gpu_env.sh"
mkdir -p "$out/runs"
for bench in tpch ssb; do
  [ -d "$w/$bench-sf$SF" ] || "$bin/horseqc-gen" $bench --sf "$SF" --out "$w/$bench-sf$SF" --format columnar --quiet
  for mode in sequential concurrent; do
    "$bin/horseqc-run" $bench --data "$w/$bench-sf$SF" --device "$device" --pipelines $mode --repeat 5 --format json \
      --quiet > "$out/runs/$bench-$device-$mode.json" || echo "run failed: $bench $mode"
  done
done
python3 - "$out" "$device" <<'PY' | tee "$out/waves.csv"
import json, sys
out, device = sys.argv[1], sys.argv[2]
print("benchmark,query,pipelines,waves,sequential_ms,concurrent_ms,ratio,rows_identical")
for bench in ("tpch", "ssb"):
    runs = {}
    for mode in ("sequential", "concurrent"):
        runs[mode] = {q["query"]: q for q in json.load(open(f"{out}/runs/{bench}-{device}-{mode}.json"))["queries"]}
    for name, c in runs["concurrent"].items():
        s = runs["sequential"][name]
        cs, ss = c["stats"], s["stats"]
        if len(cs["pipelines"]) < 2:
            continue
        ratio = cs["kernel_ms"] / ss["kernel_ms"] if ss["kernel_ms"] else 0
        print(f'{bench},{name},{len(cs["pipelines"])},{cs.get("waves", "")},{ss["kernel_ms"]:.3f},{cs["kernel_ms"]:.3f},'
              f'{ratio:.3f},{c["rows"] == s["rows"]}')
PY

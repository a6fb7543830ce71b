#!/usr/bin/env bash
# Block size experiment on the GPU machine: every SSB query at SF $SF (default 10) with the occupancy
# model's block sizes ("model") and with every launch forced to 64, 128, 256, 512 and 1024 threads
# (HORSEQC_BLOCK_SIZE), CUDA, best kernel time of --repeat 5. blocks.csv: query,block,kernels_ms,
# model_blocks (the sizes the model chose, per launch); the log shows the table per query. Tells
# whether the model's tie-break (the smallest block of the highest predicted occupancy) costs time.
#
#   bench/gpu_block_sizes.sh BUILD_BIN_DIR
#
# Expects: Release binaries in BUILD_BIN_DIR (horseqc-run, horseqc-gen). Environment: SF, DEVICE.
set -uo pipefail
bin=${1:?usage: gpu_block_sizes.sh BUILD_BIN_DIR}
out=${OUT:-gpu-out}
log=log-block-sizes.txt
source "$(dirname "${BASH_SOURCE[0]}")/gpu_env.sh"   # log, OpenCL registration, kernel cache, $root, $w
SF=${SF:-10}
DEVICE=${DEVICE:-cuda}
mkdir -p "$out/runs"
[ -d "$w/ssb-sf$SF" ] || /usr/bin/time -f "generate SSB SF $SF (columnar): %e s" \
  "$bin/horseqc-gen" ssb --sf "$SF" --out "$w/ssb-sf$SF" --format columnar --quiet
echo "query,block,kernels_ms,blocks" > "$out/blocks.csv"
for b in model 64 128 256 512 1024; do
  f="$out/runs/blocks-$b.json"
  if [ "$b" = model ]; then unset HORSEQC_BLOCK_SIZE; else export HORSEQC_BLOCK_SIZE=$b; fi
  "$bin/horseqc-run" ssb --data "$w/ssb-sf$SF" --device "$DEVICE" --repeat 5 --format json --quiet > "$f" \
    || { echo "run failed: block $b"; continue; }
  python3 - "$f" "$b" >> "$out/blocks.csv" <<'PY'
import json, sys
for q in json.load(open(sys.argv[1]))["queries"]:
    sizes = "/".join(str(l["block_size"]) for p in q["stats"]["pipelines"] for l in p["launches"])
    print(f'{q["query"]},{sys.argv[2]},{q["phases"]["kernels_ms"]:.3f},{sizes}')
PY
done
unset HORSEQC_BLOCK_SIZE
python3 - "$out/blocks.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
blocks = ["model", "64", "128", "256", "512", "1024"]
t = {(r["query"], r["block"]): float(r["kernels_ms"]) for r in rows}
print("query  " + "  ".join(f"{b:>8}" for b in blocks) + "   best/model")
for q in dict.fromkeys(r["query"] for r in rows):
    vals = [t.get((q, b)) for b in blocks]
    best = min(v for v in vals if v is not None)
    print(f"{q:6} " + "  ".join(f"{v:8.3f}" if v is not None else "       -" for v in vals) +
          f"   {best / t[(q, 'model')]:.2f}" if (q, "model") in t else "")
tot = {b: sum(t.get((q, b), 0) for q in dict.fromkeys(r["query"] for r in rows)) for b in blocks}
print("total  " + "  ".join(f"{tot[b]:8.3f}" for b in blocks))
PY

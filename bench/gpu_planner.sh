#!/usr/bin/env bash
# Planner experiments on the GPU machine: concurrent queries with knapsack launch parameters, the
# stream/chunk model, and SSB larger than the device memory horseqc may use. Results (JSON of every
# run, CSV summaries, log) go to $OUT (or ./gpu-out); copy them under bench/results/.
#
#   bench/gpu_planner.sh BUILD_BIN_DIR [a|b|c|d1|d2|synthetic|occupancy|all]
#                                            (default all = a b c; each part fits one device call)
#
#   a  seed 002 Fig. 6–8 analogue: the 13 SSB queries (SF $SF_A, default 10) run concurrently, each in
#      its own CUDA stream, with knapsack launch parameters, with random ones (seeds 1..$SEEDS,
#      default 20), one kernel at a time ("sequential") and auto (the schedule model's choice per
#      phase); --repeat 5 each, best wall time of the kernels. concurrent.csv: params,seed,kernels_ms,
#      schedule,predicted_knapsack_ms,predicted_sequential_ms; concurrent-summary.txt: the share of
#      random seeds the knapsack beats, its speedup over sequential, and what auto chose.
#   b  seed 001 Fig. 5 analogue: q1.1 and q4.1 (SF $SF_A) streamed from pinned host memory in N
#      chunks, N = 1..128 and the stream model's own choice; chunks.csv: query,chunks,measured_ms,
#      predicted_ms,model_chunks,h2d_GBps,kernel_GBps,overhead_us (measured = wall time of the
#      streamed phase; predicted = planner::streamed_seconds with the run's calibration).
#   c  SSB at SF $SF_STREAM (default 50) under --gpu-memory-limit $LIMIT (default 4GiB): every query
#      alone (streaming chosen automatically) and all 13 at once with one shared scan; pcie.csv:
#      query,streamed,chunks,bytes,measured_ms,pcie_bound_ms,ratio (bound = bytes transferred ÷ the
#      measured H→D bandwidth; target ratio ≤ 1.10).
#   synthetic  seed 002 Table I / Figs. 10–11 analogue: bench/synthetic-mix, $SYN_RUNS (default 20)
#      random mixes of $SYN_STREAMS (default 16) Table I kernels and the fixed set, knapsack vs
#      sequential vs random parameters (seeds 1..$SYN_SEEDS, default 5); outputs checked identical
#      across modes; each kind alone, measured vs predicted. synthetic-random.csv,
#      synthetic-fixed.csv (run,set,kernels,mode,seed,ms,predicted_ms), synthetic-summary.txt.
#   occupancy  bench/occupancy-vs-driver: the planner's blocks per SM against
#      cuOccupancyMaxActiveBlocksPerMultiprocessor for every SSB/TPC-H compound kernel and Table I
#      kernel over block sizes and dynamic shared sizes; occupancy.txt (table + mismatches),
#      occupancy.csv (every point). Exit status of the tool in the log (1 = a mismatch).
#
#   d  SSB at SF $SF_HUGE (default 200), generated straight into host memory with only the columns
#      the 13 queries read (horseqc-run --in-memory; SF 200's full lineorder would not fit 125 GiB) and
#      streamed from pinned host memory (--stream): every query alone, then all 13 with one shared
#      scan; huge.csv as pcie.csv. Two generations of ~1.2 billion rows: one device call each
#      (d1: each query alone, d2: shared scan).
#
# Expects: Release binaries in BUILD_BIN_DIR (horseqc-run, horseqc-gen), python3, ~40 GB of disk for
# part c (columnar data); no DuckDB (results are checked by the test suite, not here).
# Environment: SF_A, SF_STREAM, LIMIT, SEEDS, DEVICE (default cuda), SYN_RUNS, SYN_STREAMS, SYN_SEEDS.
set -uo pipefail
bin=${1:?usage: gpu_planner.sh BUILD_BIN_DIR [a|b|c|d1|d2|synthetic|occupancy|all]}
part=${2:-all}
out=${OUT:-gpu-out}
log=log-planner-$part.txt
source "$(dirname "${BASH_SOURCE[0]}")/gpu_env.sh"   # log, OpenCL registration, kernel cache, $root, $w
mkdir -p "$out/runs"
SF_A=${SF_A:-10}
SF_STREAM=${SF_STREAM:-50}
LIMIT=${LIMIT:-4GiB}
SEEDS=${SEEDS:-20}
SF_HUGE=${SF_HUGE:-200}
DEVICE=${DEVICE:-cuda}
echo "# part $part"

gen() {  # gen SF: columnar SSB at SF into $w/ssb-sfSF (once)
  [ -d "$w/ssb-sf$1" ] || /usr/bin/time -f "generate SSB SF $1 (columnar): %e s" \
    "$bin/horseqc-gen" ssb --sf "$1" --out "$w/ssb-sf$1" --format columnar --quiet
}

# json FIELD... : prints the named fields of the JSON document on stdin (python expressions over d).
json() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(",".join(str(eval(e)) for e in sys.argv[1:]))' "$@"; }

# pcie_table EACH.json SHARED.json: CSV of every streamed query (each alone, then the shared scan) against
# the PCIe bound (bytes transferred ÷ the H→D bandwidth measured in the same run).
pcie_table() {
  python3 - "$1" "$2" <<'EOF'
import json, sys
print("query,streamed,chunks,bytes,measured_ms,pcie_bound_ms,ratio,end_to_end_ms")
def row(name, c):
    s = c["stream"]
    bound = 1e3 * s["bytes_transferred"] / s["h2d_bytes_per_s"] if s["h2d_bytes_per_s"] else 0
    ratio = s["measured_ms"] / bound if bound else 0
    print(f'{name},{s["streamed"]},{s["chunks"]},{s["bytes_transferred"]},{s["measured_ms"]:.3f},{bound:.3f},{ratio:.3f},{c["kernels_ms"]:.3f}')
try:
    for q in json.load(open(sys.argv[1]))["queries"]:
        if "concurrent" in q: row(q["query"], q["concurrent"])
        else: print(f'{q["query"]},False,0,0,{q["stats"]["kernel_ms"]:.3f},0,0,{q["stats"]["kernel_ms"]:.3f}')
except Exception as e: print("# each-query run unreadable:", e)
try: row("all (shared scan)", json.load(open(sys.argv[2]))["concurrent"])
except Exception as e: print("# shared-scan run unreadable:", e)
EOF
}

if [ "$part" = a ] || [ "$part" = all ]; then
  gen "$SF_A"
  echo "== (a) concurrent SSB SF $SF_A: knapsack vs random vs sequential launch parameters"
  echo "params,seed,kernels_ms,schedule,predicted_knapsack_ms,predicted_sequential_ms,read_GBps,compute_Tops" > "$out/concurrent.csv"
  run_a() {  # run_a PARAMS SEED
    local f="$out/runs/concurrent-$1-$2.json"
    "$bin/horseqc-run" ssb --data "$w/ssb-sf$SF_A" --device "$DEVICE" --concurrent all --launch-params "$1" \
      --seed "$2" --repeat 5 --format json --quiet > "$f" || { echo "run failed: $1 $2"; return; }
    echo "$1,$2,$(json 'd["concurrent"]["kernels_ms"]' 'd["concurrent"]["schedule"]' \
      'd["concurrent"]["predicted_knapsack_ms"]' 'd["concurrent"]["predicted_sequential_ms"]' \
      'd["concurrent"]["schedule_bandwidth_bytes_per_s"] / 1e9' 'd["concurrent"]["schedule_compute_ops_per_s"] / 1e12' \
      < "$f")" >> "$out/concurrent.csv"
  }
  run_a knapsack 0
  run_a sequential 0
  run_a auto 0
  for s in $(seq 1 "$SEEDS"); do run_a random "$s"; done
  python3 - "$out/concurrent.csv" > "$out/concurrent-summary.txt" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
k = [float(r["kernels_ms"]) for r in rows if r["params"] == "knapsack"][0]
seq = [float(r["kernels_ms"]) for r in rows if r["params"] == "sequential"][0]
rnd = [float(r["kernels_ms"]) for r in rows if r["params"] == "random"]
wins = sum(1 for x in rnd if k < x)
print(f"knapsack {k:.3f} ms, sequential {seq:.3f} ms (speedup {seq / k:.2f}x), "
      f"random mean {sum(rnd) / len(rnd):.3f} ms; knapsack wins {wins}/{len(rnd)} random runs ({100 * wins / len(rnd):.0f}%)")
auto = [r for r in rows if r["params"] == "auto"]
if auto:
    a = auto[0]
    print(f"auto: {float(a['kernels_ms']):.3f} ms, ran {a['schedule']} (predicted knapsack {float(a['predicted_knapsack_ms']):.3f} ms, "
          f"sequential {float(a['predicted_sequential_ms']):.3f} ms); measured faster: {'knapsack' if k < seq else 'sequential'}")
for mode, key in (("knapsack", "predicted_knapsack_ms"), ("sequential", "predicted_sequential_ms")):
    r = [r for r in rows if r["params"] == mode][0]
    print(f"{mode}: predicted {float(r[key]):.3f} ms, measured {float(r['kernels_ms']):.3f} ms "
          f"(read {float(r['read_GBps']):.0f} GB/s, compute {float(r['compute_Tops']):.2f} T ops/s)")
EOF
  cat "$out/concurrent-summary.txt"
fi

if [ "$part" = b ] || [ "$part" = all ]; then
  gen "$SF_A"
  echo "== (b) streamed SSB SF $SF_A vs number of chunks: measured vs predicted"
  echo "query,chunks,measured_ms,predicted_ms,model_chunks,h2d_GBps,kernel_GBps,overhead_us" > "$out/chunks.csv"
  for q in q1.1 q4.1; do
    for n in model 1 2 4 8 16 32 64 128; do
      f="$out/runs/stream-$q-$n.json"
      extra=(--stream); [ "$n" = model ] || extra+=(--chunks "$n")
      "$bin/horseqc-run" ssb "$q" --data "$w/ssb-sf$SF_A" --device "$DEVICE" "${extra[@]}" --repeat 3 --format json \
        --quiet > "$f" || { echo "run failed: $q $n"; continue; }
      python3 - "$f" "$q" >> "$out/chunks.csv" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))["queries"][0]["concurrent"]["stream"]
print(f'{sys.argv[2]},{s["chunks"]},{s["measured_ms"]:.3f},{s["predicted_ms"]:.3f},{s["model_chunks"]},'
      f'{s["h2d_bytes_per_s"] / 1e9:.2f},{s["kernel_bytes_per_s"] / 1e9:.2f},{s["per_chunk_overhead_s"] * 1e6:.1f}')
EOF
    done
  done
  cat "$out/chunks.csv"
fi

if [ "$part" = c ] || [ "$part" = all ]; then
  gen "$SF_STREAM"
  echo "== (c) SSB SF $SF_STREAM under --gpu-memory-limit $LIMIT vs the PCIe bound"
  f="$out/runs/pcie-sf$SF_STREAM-each.json"
  "$bin/horseqc-run" ssb --data "$w/ssb-sf$SF_STREAM" --device "$DEVICE" --gpu-memory-limit "$LIMIT" --repeat 3 \
    --format json --quiet > "$f" || echo "run failed: each query alone"
  g="$out/runs/pcie-sf$SF_STREAM-shared.json"
  "$bin/horseqc-run" ssb --data "$w/ssb-sf$SF_STREAM" --device "$DEVICE" --gpu-memory-limit "$LIMIT" --concurrent all \
    --repeat 3 --format json --quiet > "$g" || echo "run failed: shared scan"
  pcie_table "$f" "$g" > "$out/pcie.csv"
  cat "$out/pcie.csv"
fi

if [ "$part" = d1 ] || [ "$part" = d2 ]; then
  echo "== (d) SSB SF $SF_HUGE generated in memory (only the columns read), streamed from pinned host memory"
  f="$out/runs/huge-sf$SF_HUGE-each.json"
  g="$out/runs/huge-sf$SF_HUGE-shared.json"
  if [ "$part" = d1 ]; then
    /usr/bin/time -f "each query alone: %e s wall, %M KiB max resident" "$bin/horseqc-run" ssb --sf "$SF_HUGE" \
      --in-memory --device "$DEVICE" --stream --repeat 3 --format json > "$f" 2> "$out/huge-each.stderr" || echo "run failed: each query alone"
    grep -E "^data:|device:|wall" "$out/huge-each.stderr"
  else
    /usr/bin/time -f "shared scan: %e s wall, %M KiB max resident" "$bin/horseqc-run" ssb --sf "$SF_HUGE" \
      --in-memory --device "$DEVICE" --concurrent all --stream --repeat 3 --format json > "$g" 2> "$out/huge-shared.stderr" || echo "run failed: shared scan"
    grep -E "^data:|device:|wall" "$out/huge-shared.stderr"
  fi
  pcie_table "$f" "$g" > "$out/huge-$part.csv"
  cat "$out/huge-$part.csv"
fi

if [ "$part" = synthetic ]; then
  echo "== (synthetic) seed 002 Table I kernels: knapsack vs sequential vs random launch parameters"
  SYN_RUNS=${SYN_RUNS:-20}
  SYN_STREAMS=${SYN_STREAMS:-16}
  SYN_SEEDS=${SYN_SEEDS:-5}
  : > "$out/synthetic-summary.txt"
  for set in random fixed; do
    runs=$SYN_RUNS; [ "$set" = fixed ] && runs=3
    "$bin/synthetic-mix" --device "$DEVICE" --set "$set" --streams "$SYN_STREAMS" --runs "$runs" --seeds "$SYN_SEEDS" \
      --repeat 3 --csv "$out/synthetic-$set.csv" > "$out/runs/synthetic-$set.txt" 2>&1
    echo "synthetic-mix --set $set: exit $?" | tee -a "$out/synthetic-summary.txt"
    sed -n '/^device:/,/^$/p;/^summary:/,$p' "$out/runs/synthetic-$set.txt" | tee -a "$out/synthetic-summary.txt"
  done
fi

if [ "$part" = occupancy ]; then
  echo "== (occupancy) planner::compute_occupancy vs cuOccupancyMaxActiveBlocksPerMultiprocessor"
  "$bin/occupancy-vs-driver" --csv "$out/occupancy.csv" > "$out/occupancy.txt" 2>&1
  echo "occupancy-vs-driver: exit $? (0 no mismatch, 1 mismatch, 5 no CUDA device)"
  tail -n 40 "$out/occupancy.txt"
fi

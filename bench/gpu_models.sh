#!/usr/bin/env bash
# The HorseQC paper's Experiments 1–3 on the GPU machine (bench/README.md): SSB at SF (default 10)
# generated there; every model's rows of the 13 SSB queries at SF 1 through CUDA compared with the
# resolution model's (whose rows earlier runs checked against DuckDB), and the device primitives'
# tests on CUDA when test_runtime is in BUILD_BIN_DIR; models-bench's three CSVs; Nsight Compute's
# DRAM bytes of every SSB query under every model (dram.csv). Plot here afterwards:
# bench/plot_models.py DIR.
#
#   bench/gpu_models.sh BUILD_BIN_DIR [SF] [EXPERIMENTS]     EXPERIMENTS: any of "check 1 2 3 ncu why" (default all)
#
# Expects: binaries built here (Release) in BUILD_BIN_DIR, DuckDB wheels in .whl/ or .site/ (bench/README.md).
set -uo pipefail
bin=${1:?usage: gpu_models.sh BUILD_BIN_DIR [SF] [EXPERIMENTS]}
sf=${2:-10}
what=${3:-check 1 2 3 ncu why}
out=${OUT:-gpu-out}
log=log.txt
source "$(dirname "${BASH_SOURCE[0]}")/gpu_env.sh"
has() { [[ " $what " == *" $1 "* ]]; }
/usr/bin/time -f "generate SSB SF $sf (.tbl): %e s" "$bin/horseqc-gen" ssb --sf $sf --out $w/ssb-sf$sf --quiet
if has check; then
  [ -x "$bin/test_runtime" ] && HORSEQC_TEST_DEVICE=cuda "$bin/test_runtime" -ts=device_primitives 2>&1 | tail -3
  /usr/bin/time -f "generate SSB SF 1 (.tbl): %e s" "$bin/horseqc-gen" ssb --sf 1 --out $w/ssb-sf1 --quiet
  /usr/bin/time -f "generate TPC-H SF 1 (.tbl): %e s" "$bin/horseqc-gen" tpch --sf 1 --out $w/tpch-sf1 --quiet
  for b in ssb tpch; do
    for m in resolution resolution:simd pipelined multi_pass operator_at_a_time; do
      opts="--model ${m%%:*}"; [ "$m" = resolution:simd ] && opts="$opts --local-resolution simd"
      "$bin/horseqc-run" $b --data $w/$b-sf1 --device cuda $opts --format csv --quiet > $w/rows-$b-$m.csv 2> $w/err-$b-$m.txt
      echo "check: $b SF 1 $m (CUDA): exit $?, rows $(md5sum < $w/rows-$b-$m.csv | cut -c1-12)," \
        "$(cmp -s $w/rows-$b-$m.csv $w/rows-$b-resolution.csv && echo "equal to resolution" || echo "DIFFERENT from resolution")"
    done
  done
fi
for e in 1 2 3; do
  has $e || continue
  echo "== experiment $e (SSB SF $sf, CUDA)"
  /usr/bin/time -f "experiment $e: %e s" "$bin/models-bench" --data $w/ssb-sf$sf --experiment $e --device cuda --repeat 5 --csv "$out/experiment$e.csv"
  cat "$out/experiment$e.csv"
done
if has why; then
  # Where Experiment 2's resolution time goes at few and at many groups: Nsight Compute's speed of
  # light, warp stalls and memory workload of its compound kernel.
  for g in 2 1024; do
    ncu --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy \
      --kernel-name regex:exp2_p0 "$bin/models-bench" --data $w/ssb-sf$sf --experiment 2 --groups $g --model resolution --device cuda \
      --repeat 1 --csv /dev/null > "$out/why-exp2-resolution-$g.txt" 2>&1
    grep -E "Duration|Memory Throughput|DRAM Throughput|Compute \(SM\)|Achieved Occupancy|Stall|Shared|Block Size|Registers" "$out/why-exp2-resolution-$g.txt" | head -40
  done
fi
if has ncu; then
  # DRAM bytes of each query's kernels (the library's included), one process per query and model.
  echo "query,model,kernels,dram_bytes_read,dram_bytes_write" > "$out/dram.csv"
  for q in q1.1 q1.2 q1.3 q2.1 q2.2 q2.3 q3.1 q3.2 q3.3 q3.4 q4.1 q4.2 q4.3; do
    for m in operator_at_a_time multi_pass pipelined resolution; do
      ncu --metrics dram__bytes_read.sum,dram__bytes_write.sum --csv --print-units base --log-file $w/ncu.csv \
        "$bin/models-bench" --data $w/ssb-sf$sf --experiment 3 --device cuda --repeat 1 --query $q --model $m --csv /dev/null > /dev/null 2>&1 \
        || { echo "ncu $q $m failed"; continue; }
      python3 - "$q" "$m" $w/ncu.csv >> "$out/dram.csv" <<'PY'
import csv, sys
q, m, path = sys.argv[1:]
rows = [r for r in csv.reader(l for l in open(path) if l.startswith('"'))]
head, body = rows[0], rows[1:]
name, value, kid = head.index("Metric Name"), head.index("Metric Value"), head.index("ID")
read = sum(float(r[value].replace(",", "")) for r in body if r[name] == "dram__bytes_read.sum")
write = sum(float(r[value].replace(",", "")) for r in body if r[name] == "dram__bytes_write.sum")
print(f"{q},{m},{len({r[kid] for r in body})},{read:.0f},{write:.0f}")
PY
      tail -1 "$out/dram.csv"
    done
  done
fi

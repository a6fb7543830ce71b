#!/usr/bin/env bash
# Window functions and the device primitives on the GPU machine (one `device` call): the primitives'
# tests (tests/runtime/device_primitives_test.cpp) on CUDA (CUB) and on NVIDIA's OpenCL
# (Boost.Compute's GPU algorithms), the window cases of tests/oracle/sql_breadth.py on both, then
# random queries with window functions (tests/oracle/sql_fuzz.py --window-share 1) on CUDA against
# DuckDB for the rest of SECONDS (every query's outcome in fuzz-windows-SEED.txt; the run's summary
# here). Everything it prints goes to $OUT (or ./gpu-out).
#
#   bench/gpu_windows.sh BUILD_BIN_DIR TEST_RUNTIME_BINARY SEED SECONDS [JOBS]
#
# Expects binaries built here (Release, stripped) and the DuckDB wheels in .whl/ (bench/README.md).
set -uo pipefail
bin=${1:?usage: gpu_windows.sh BUILD_BIN_DIR TEST_RUNTIME_BINARY SEED SECONDS [JOBS]}
test_runtime=${2:?test_runtime binary}
seed=${3:?seed}
seconds=${4:?seconds}
jobs=${5:-$(nproc)}
out=${OUT:-gpu-out}
log=log-windows-$seed.txt
source "$(dirname "${BASH_SOURCE[0]}")/gpu_env.sh"
start=$(date +%s)
status=0
echo "== device primitives: CUDA (CUB)"
HORSEQC_TEST_DEVICE=cuda "$test_runtime" -ts=device_primitives || status=1
echo "== device primitives: NVIDIA OpenCL (Boost.Compute)"
HORSEQC_OPENCL_DEVICE=nvidia "$test_runtime" -ts=device_primitives || status=1
cases=$(grep -o '"window_[a-z_]*"' "$root/tests/oracle/sql_breadth.py" | tr -d '"' | sed 's/^/--query /')
for device in cuda opencl; do
  echo "== sql_breadth window cases, $device"
  HORSEQC_OPENCL_DEVICE=nvidia python3 "$root/tests/oracle/sql_breadth.py" --bin "$bin" --work $w/breadth --sf 0.01 \
    --device $device $cases || status=1
done
left=$((seconds - ($(date +%s) - start)))
echo "== sql_fuzz, window functions only, tpch seed $seed, $left s"
PYTHONUNBUFFERED=1 python3 "$root/tests/oracle/sql_fuzz.py" --bin "$bin" --work $w --benchmark tpch --seed "$seed" \
  --queries 1000000 --time-budget "$left" --jobs "$jobs" --device cuda --window-share 1 --batch 10 --timeout 30 \
  --reduce-total 30 --verbose --report "$out/report-windows-$seed.json" > "$out/fuzz-windows-$seed.txt" 2>&1 || status=1
grep -v '^\[' "$out/fuzz-windows-$seed.txt" | grep -v '^    '
echo "queries run: $(grep -c '^\[' "$out/fuzz-windows-$seed.txt")"
echo "== exit $status"
exit $status

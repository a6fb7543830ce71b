#!/usr/bin/env bash
# The differential SQL fuzzer's long run on the GPU machine (one `device` call per seed): random TPC-H
# and SSB queries (tests/oracle/sql_fuzz.py, the generator CI runs 2,000 of) through horseqc-run on the
# CUDA device, each against DuckDB running the same text on the same .tbl files, many horseqc-run
# processes at a time (NVRTC compiles on the host's cores; the GPU is shared). Everything it prints
# goes to $OUT (or ./gpu-out), with one JSON report per benchmark (--report).
#
#   bench/gpu_sql_fuzz.sh BUILD_BIN_DIR SEED SECONDS [JOBS [QUERIES]]
#
# Runs TPC-H and then SSB for SECONDS/2 each (--time-budget: queries are started until the budget is
# spent; the report counts those that ran), or, with SECONDS 0, QUERIES queries each (CI's seed 2026
# and 1000 replay what CI runs on PoCL, here on CUDA). Expects binaries built here (Release) in BUILD_BIN_DIR and
# the duckdb and duckdb-ext-tpch wheels for CPython 3.12 in .whl/ (see bench/README.md).
set -uo pipefail
bin=${1:?usage: gpu_sql_fuzz.sh BUILD_BIN_DIR SEED SECONDS [JOBS]}
seed=${2:?seed}
seconds=${3:?seconds}
jobs=${4:-$(nproc)}
queries=${5:-1000000}
out=${OUT:-gpu-out}
log=log-sql-fuzz-$seed.txt
source "$(dirname "${BASH_SOURCE[0]}")/gpu_env.sh"
status=0
for benchmark in tpch ssb; do
  echo "== $benchmark seed $seed, $jobs jobs, $((seconds / 2)) s (0: no limit), at most $queries queries"
  PYTHONUNBUFFERED=1 python3 "$root/tests/oracle/sql_fuzz.py" --bin "$bin" --work $w --benchmark $benchmark \
    --seed "$seed" --queries "$queries" --time-budget $((seconds / 2)) --jobs "$jobs" --device cuda \
    --batch 10 --reduce-total 30 --report "$out/report-$benchmark-$seed.json" || status=1
done
echo "== exit $status"
exit $status

#!/usr/bin/env bash
# The first query of a fresh process on the GPU machine: TPC-H at SF $SF (default 10), every query in a
# process of its own — horseqc with a cold then a warm kernel cache, DuckDB opening its database file
# (bench/first_query.py says what is timed). Needs DuckDB and its tpch extension as carried wheels
# (.site/site.tar.xz or .whl/, bench/README.md). Output (first-query.csv, log) goes to $OUT (or ./gpu-out).
#
#   bench/gpu_first_query.sh BUILD_BIN_DIR [BEFORE_BIN_DIR]     (QUERIES=q1,q6 REPS=2 SF=10 to narrow it;
#                                                                NO_DUCKDB=1: horseqc alone)
set -uo pipefail
bin=${1:?usage: gpu_first_query.sh BUILD_BIN_DIR [BEFORE_BIN_DIR]}
before=${2:-}
out=${OUT:-gpu-out}
log=log-first-query.txt
source "$(dirname "${BASH_SOURCE[0]}")/gpu_env.sh"
echo "# $(nproc) host threads"
python3 "$root/bench/first_query.py" --bin "$bin" --work $w --sf "${SF:-10}" ${QUERIES:+--queries "$QUERIES"} \
  --reps "${REPS:-2}" --out "$out" ${before:+--before "$before"} ${NO_DUCKDB:+--skip-duckdb}

#!/usr/bin/env bash
# The TPC-H run on the GPU machine (one `device` call): all 22 queries on dbgen's data (DuckDB's tpch
# extension, exported to .tbl) at SF 1 and SF 10 through CUDA and NVIDIA OpenCL, checked against DuckDB
# (queries horseqc does not support yet are listed, not hidden); then horseqc vs DuckDB on the same host
# (bench/tpch_vs_duckdb.py: vs-duckdb.csv), the generator's speed (TPC-H SF 10 into memory) and the SQL
# frontend's planning time. Everything it prints goes to $OUT (or ./gpu-out).
#
#   bench/gpu_tpch.sh BUILD_BIN_DIR [SF...]      (default SFs: 1 10)
#
# Expects: binaries built here (Release) in BUILD_BIN_DIR; the duckdb and duckdb-ext-tpch wheels for
# CPython 3.12 in .whl/ (see bench/README.md).
set -uo pipefail
bin=${1:?usage: gpu_tpch.sh BUILD_BIN_DIR [SF...]}
shift
sfs=("$@")
[ ${#sfs[@]} -eq 0 ] && sfs=(1 10)
out=${OUT:-gpu-out}
log=log-tpch.txt
source "$(dirname "${BASH_SOURCE[0]}")/gpu_env.sh"
sf_args=()
for sf in "${sfs[@]}"; do sf_args+=(--sf "$sf"); done
PYTHONUNBUFFERED=1 python3 "$root/tests/oracle/tpch_queries.py" --bin "$bin" --work $w --data dbgen "${sf_args[@]}" \
  --device cuda --device opencl --allow-unsupported --save "$out/runs"
echo "== horseqc (CUDA, data resident) vs DuckDB on this host, same files and SQL"
PYTHONUNBUFFERED=1 python3 "$root/bench/tpch_vs_duckdb.py" --bin "$bin" --work $w "${sf_args[@]}" --device cuda \
  --repeat 3 --csv "$out/vs-duckdb.csv"
echo "== TPC-H generation into memory"
"$bin/tpch-gen-bench" --sf 10 --threads 16 --repeat 2
echo "== planning time (parse + bind + optimize, one thread)"
"$bin/plan-time-bench" --repeat 200 --json "$out/plan-time.json"
tar czf "$out/runs-tpch.tgz" -C "$out" runs && rm -rf "$out/runs"

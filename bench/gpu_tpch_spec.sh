#!/usr/bin/env bash
# The TPC-H specification's own texts on the GPU machine (one `device` call): the 22 queries exactly as
# qgen prints them (tests/oracle/tpch_spec/) on dbgen's data through CUDA and NVIDIA OpenCL, with the
# data's statistics and without, each checked against DuckDB running the same text on the same files
# (tests/oracle/tpch_spec_queries.py). Everything it prints goes to $OUT (or ./gpu-out).
#
#   bench/gpu_tpch_spec.sh BUILD_BIN_DIR [SF...]      (default SFs: 1 10)
#
# Expects: binaries built here (Release) in BUILD_BIN_DIR; the duckdb and duckdb-ext-tpch wheels for
# CPython 3.12 in .whl/ (see bench/README.md).
set -uo pipefail
bin=${1:?usage: gpu_tpch_spec.sh BUILD_BIN_DIR [SF...]}
shift
sfs=("$@")
[ ${#sfs[@]} -eq 0 ] && sfs=(1 10)
out=${OUT:-gpu-out}
log=log-tpch-spec.txt
source "$(dirname "${BASH_SOURCE[0]}")/gpu_env.sh"
status=0
for sf in "${sfs[@]}"; do
  for device in cuda opencl; do
    for stats in "" --no-statistics; do
      echo "== SF $sf, $device ${stats:-with statistics}"
      PYTHONUNBUFFERED=1 python3 "$root/tests/oracle/tpch_spec_queries.py" --bin "$bin" --work $w --sf "$sf" \
        --device "$device" $stats || status=1
    done
  done
done
echo "== exit $status"
exit $status

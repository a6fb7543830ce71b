#!/usr/bin/env bash
# The SSB run on the GPU machine (one `device` call): generates SSB SF 1 and SF 10, checks all 13
# queries through CUDA and NVIDIA OpenCL against DuckDB, then measures kernel time vs the
# memory-bandwidth bound and the generator's speed. Everything it prints goes to $OUT (or ./gpu-out).
#
#   bench/gpu_ssb.sh BUILD_BIN_DIR
#
# Expects: binaries built here (Release) in BUILD_BIN_DIR, DuckDB wheels in .whl/ (see bench/README.md).
set -uo pipefail
bin=${1:?usage: gpu_ssb.sh BUILD_BIN_DIR}
out=${OUT:-gpu-out}
log=log.txt
source "$(dirname "${BASH_SOURCE[0]}")/gpu_env.sh"
for sf in 1 10; do
  /usr/bin/time -f "generate SSB SF $sf (.tbl): %e s" "$bin/horseqc-gen" ssb --sf $sf --out $w/ssb-sf$sf --quiet
done
# Columnar cache vs parsing (.tbl → columns): a load without <table>.tbl.hqc parses and writes it, the
# next loads read it. load_ms from horseqc-run's JSON output: two parses, then three cache reads.
load_ms() { "$bin/horseqc-run" ssb q1.1 --data "$1" --quiet --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["load_ms"])'; }
for sf in 1 10; do
  for how in parse parse cache cache cache; do
    [ $how = parse ] && rm -f $w/ssb-sf$sf/*.hqc
    echo "load SSB SF $sf: $how $(load_ms $w/ssb-sf$sf) ms"
  done
done
PYTHONUNBUFFERED=1 python3 "$root/tests/oracle/ssb_queries.py" --bin "$bin" --work $w --sf 1 --sf 10 \
  --device cuda --device opencl --model resolution --model pipelined --save "$out/runs"
for dev in cuda opencl; do
  echo "== horseqc-run ssb SF 10 --device $dev --repeat 5"
  "$bin/horseqc-run" ssb --data $w/ssb-sf10 --device $dev --repeat 5 --quiet | grep -E "^q[0-9]|^==" 
  echo "== bandwidth-bound ssb SF 10 --device $dev"
  "$bin/bandwidth-bound" ssb --data $w/ssb-sf10 --device $dev --repeat 10 --json "$out/bandwidth-$dev.json"
done
echo "== SSB generation into memory"
"$bin/ssb-gen-bench" --sf 10 --threads 1,4,16 --repeat 2
tar czf "$out/runs.tgz" -C "$out" runs && rm -rf "$out/runs"

#!/usr/bin/env bash
# The differential SQL fuzzer's long run on the GPU machine (one `device` call): random TPC-H and SSB
# queries (tests/oracle/sql_fuzz.py, the generator CI runs 2,000 of) through horseqc-run on the CUDA
# device, each against DuckDB running the same text on the same .tbl files. One fuzzer per seed and
# benchmark runs at a time, all in parallel: a fuzzer generates its queries (DuckDB) on one thread,
# which bounds it at ~20 queries/s, so several at once use the host's cores (NVRTC compiles there;
# the GPU is shared). Everything it prints goes to $OUT (or ./gpu-out), with one JSON report per
# seed and benchmark (--report) and every query's outcome (fuzz-BENCHMARK-SEED.txt), archived in
# sql-fuzz-SEEDS.tar.gz at the end.
#
#   bench/gpu_sql_fuzz.sh BUILD_BIN_DIR SEEDS SECONDS [JOBS [QUERIES]]
#
# SEEDS: one seed or a comma-separated list ("1013,1014"); every seed runs TPC-H and SSB for SECONDS
# (--time-budget: queries are started until it is spent; the report counts those that ran), or,
# with SECONDS 0, QUERIES queries each (CI's seed 2026 and 1000 replay what CI runs on PoCL, here on
# CUDA). JOBS: horseqc-run processes per fuzzer (default: the cores / the fuzzers, at least 4).
# On a machine of several GPUs the fuzzers take them in turn (CUDA_VISIBLE_DEVICES), one GPU each.
# HQC_FUZZ_BATCH (default 10): queries per horseqc-run process (--batch). The log ends with the host's
# CPU use over the run (from /proc/stat), which says whether the host's cores or something else bound
# the throughput.
# Expects binaries built here (Release) in BUILD_BIN_DIR and the duckdb and duckdb-ext-tpch wheels for
# CPython 3.12 in .whl/ (see bench/README.md).
set -uo pipefail
bin=${1:?usage: gpu_sql_fuzz.sh BUILD_BIN_DIR SEEDS SECONDS [JOBS [QUERIES]]}
seeds=${2:?seeds}
seconds=${3:?seconds}
queries=${5:-1000000}
out=${OUT:-gpu-out}
log=log-sql-fuzz-${seeds//,/-}.txt
source "$(dirname "${BASH_SOURCE[0]}")/gpu_env.sh"
IFS=, read -ra seed_list <<< "$seeds"
runs=$((2 * ${#seed_list[@]}))
jobs=${4:-$(( $(nproc) / runs > 4 ? $(nproc) / runs : 4 ))}
gpus=$(nvidia-smi -L | grep -c '^GPU')
gpus=$(( gpus > 0 ? gpus : 1 ))
batch=${HQC_FUZZ_BATCH:-10}
echo "== seeds $seeds, tpch and ssb, $runs fuzzers of $jobs jobs (batches of $batch) on $gpus GPU(s), $seconds s each (0: no limit), at most $queries queries"
cpu_ticks() { awk '/^cpu /{print $2+$3, $4, $5+$6, $2+$3+$4+$5+$6+$7+$8+$9}' /proc/stat; }
read -r user0 sys0 idle0 all0 <<< "$(cpu_ticks)"
pids=()
k=0
for seed in "${seed_list[@]}"; do
  for benchmark in tpch ssb; do
    CUDA_VISIBLE_DEVICES=$(( k++ % gpus )) PYTHONUNBUFFERED=1 python3 "$root/tests/oracle/sql_fuzz.py" --bin "$bin" --work $w/$benchmark-$seed --benchmark $benchmark \
      --seed "$seed" --queries "$queries" --time-budget "$seconds" --jobs "$jobs" --device cuda --batch "$batch" --timeout 60 \
      --reduce-total 30 --verbose --report "$out/report-$benchmark-$seed.json" > "$out/fuzz-$benchmark-$seed.txt" 2>&1 &
    pids+=($!)
  done
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
read -r user1 sys1 idle1 all1 <<< "$(cpu_ticks)"
awk -v u=$((user1 - user0)) -v s=$((sys1 - sys0)) -v i=$((idle1 - idle0)) -v a=$((all1 - all0)) -v n="$(nproc)" \
  'BEGIN { if (a > 0) printf "== host CPU over the run (%d cores): user %.0f%%, system %.0f%%, idle and I/O wait %.0f%%\n", n, 100*u/a, 100*s/a, 100*i/a }'
for seed in "${seed_list[@]}"; do
  for benchmark in tpch ssb; do
    echo "== $benchmark seed $seed"
    grep -v '^\[' "$out/fuzz-$benchmark-$seed.txt" | grep -v '^    ' | grep -v '^$'
  done
done
# One archive of every fuzzer's report and outcome log (the device tool returns few files).
(cd "$out" && tar czf "sql-fuzz-${seeds//,/-}.tar.gz" fuzz-*.txt report-*.json && rm -f fuzz-*.txt report-*.json)
echo "== exit $status"
exit $status

#!/usr/bin/env bash
# Distributed runs on a multi-GPU machine (one `device` call, kind nvidia-h100-x4 or larger): SSB and
# TPC-H generated as columnar files, then every query under `mpirun -np N horseqc-run` for each N
# (one rank per GPU, NCCL between them), data resident, --repeat 3; the answers of every N compared
# with one rank's, and per query rank 0's kernel time (merges included), total time and merge time
# into $OUT/scaling.csv (bench/distributed_scaling.py). Everything it prints goes to $OUT too.
#
#   bench/gpu_distributed.sh CARRY_DIR [SSB_SF] [TPCH_SF]     (defaults 100 and 30, 0 skips; RANKS="1 2 4")
#
# CARRY_DIR: made here by `bench/gpu_mpi_runtime.sh pack --out CARRY_DIR build/bin/horseqc-run
# build/bin/horseqc-gen` (Open MPI's runtime and the stripped programs; the GPU image has NCCL).
set -uo pipefail
carry=${1:?usage: gpu_distributed.sh CARRY_DIR [SSB_SF] [TPCH_SF]}
ssb_sf=${2:-100}
tpch_sf=${3:-30}
ranks=${RANKS:-1 2 4}
out=${OUT:-gpu-out}
mkdir -p "$out"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
exec > >(tee -a "$out/log.txt") 2>&1
# shellcheck disable=SC1091
. "$carry/gpu_mpi_runtime.sh" unpack "$carry"
export NCCL_NVLS_ENABLE=0
unset NCCL_DEBUG  # its version line would go to stdout, before the JSON
date -u; nvidia-smi -L; nproc; free -g | head -2; df -h /tmp | tail -1
echo "commit: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
data=/tmp/hqc-distributed
mkdir -p "$data"
gen() {  # benchmark sf
  local start=$SECONDS
  "$carry/horseqc-gen" "$1" --sf "$2" --format columnar --out "$data/$1-sf$2" --quiet || return 1
  echo "generated $1 SF $2 in $((SECONDS - start)) s ($(du -sh "$data/$1-sf$2" | cut -f1))"
}
run_all() {  # benchmark sf
  local bench=$1 sf=$2 np
  for np in $ranks; do
    local start=$SECONDS
    mpirun -np "$np" --bind-to none "$carry/horseqc-run" "$bench" --data "$data/$bench-sf$sf" --device cuda --repeat 3 \
      --format json > "$out/$bench-sf$sf-np$np.json" 2> "$out/$bench-sf$sf-np$np.err"
    echo "$bench SF $sf np $np: exit $? in $((SECONDS - start)) s"
    grep -m1 -A5 "^device" "$out/$bench-sf$sf-np$np.err" | head -6
    grep -i "error\|unsupported" "$out/$bench-sf$sf-np$np.err" | head -5
  done
}
if [ "$ssb_sf" != 0 ]; then  # 0: skip
  gen ssb "$ssb_sf" && run_all ssb "$ssb_sf"
  python3 "$root/bench/distributed_scaling.py" "$out" ssb "$ssb_sf" $ranks
  rm -rf "$data/ssb-sf$ssb_sf"
fi
if [ "$tpch_sf" != 0 ]; then
  gen tpch "$tpch_sf" && run_all tpch "$tpch_sf"
  python3 "$root/bench/distributed_scaling.py" "$out" tpch "$tpch_sf" $ranks
fi
# One archive instead of a file per run (the device tool returns a limited number of files).
(cd "$out" && tar czf runs.tgz ./*.json ./*.err 2>/dev/null && rm -f ./*.json ./*.err)

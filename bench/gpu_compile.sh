#!/usr/bin/env bash
# Cold and warm kernel compile on the GPU machine (one NVRTC program per query, its optimizer and
# ptxas on every core: nvrtc_compile_module): TPC-H (22) and SSB (13) at SF $SF (default 10)
# generated as columnar files; per configuration a fresh kernel cache, a cold run (every query
# compiles) and a warm run (every query a cache hit), both with --repeat 3. NVRTC's own cache (the
# driver's compute cache, which NVRTC uses since 12.9 unless told --no-cache) starts empty too
# (CUDA_CACHE_PATH per configuration), so cold is cold.
# compile.csv: per query, cold and warm compile ms and kernel ms of each configuration and whether
# their rows are identical; then the medians. (Until 2026-11-28 a third configuration, `split`, ran the
# opt-in HORSEQC_COMPILE_THREADS: kernels compiled apart and linked by nvJitLink, since removed.)
# Output (JSON of every run, compile.csv, log) goes to $OUT (or ./gpu-out).
#
# With a second directory, its horseqc-run is a third configuration, `before` (e.g. a build of the
# commit before a change, run in the same call: the baseline of compile_times.py).
#
#   bench/gpu_compile.sh BUILD_BIN_DIR [BEFORE_BIN_DIR]
set -uo pipefail
bin=${1:?usage: gpu_compile.sh BUILD_BIN_DIR [BEFORE_BIN_DIR]}
before=${2:-}
SF=${SF:-10}
out=${OUT:-gpu-out}
mkdir -p "$out/runs"
exec > >(tee "$out/log-compile.txt") 2>&1
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
echo "# $(date -u +%Y-%m-%dT%H:%MZ) checkout ${HQC_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null)}, $(nproc) host threads"
for b in "$bin" ${before:+"$before"}; do  # the builds name their own commits (the checkout's HEAD can be stale)
  echo "# $b: $("$b/horseqc-run" --version 2>/dev/null || echo 'no --version (an older build)')"
done
nvidia-smi -L
w=/tmp/w
mkdir -p $w
for bench in tpch ssb; do
  [ -d "$w/$bench-sf$SF" ] || "$bin/horseqc-gen" $bench --sf "$SF" --out "$w/$bench-sf$SF" --format columnar --quiet
done
for config in ${before:+before} whole; do
  run=$([ $config = before ] && echo "$before" || echo "$bin")
  rm -rf "/tmp/hqc-kernels-$config" "/tmp/cuda-cache-$config"
  for pass in cold warm; do
    for bench in tpch ssb; do
      CUDA_CACHE_PATH="/tmp/cuda-cache-$config" HORSEQC_KERNEL_CACHE="/tmp/hqc-kernels-$config" \
        "$run/horseqc-run" $bench --data "$w/$bench-sf$SF" --device cuda --repeat 3 --format json --quiet \
        > "$out/runs/$bench-$config-$pass.json" || echo "run failed: $bench $config $pass"
    done
  done
done
python3 "$root/bench/compile_times.py" "$out/runs" "${before:+before,}whole" | tee "$out/compile.csv"

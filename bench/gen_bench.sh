#!/usr/bin/env bash
# Times SSB or TPC-H generation into memory (bench/gen_bench_harness.cpp, through ssb-gen-bench or
# tpch-gen-bench) at SF 10 with 1, 4 and all hardware threads, 3 runs each, and prints rows/s.
# Build first (Release): cmake --build BUILD --target ssb-gen-bench tpch-gen-bench.
#
#   bench/gen_bench.sh ssb|tpch [BUILD_DIR] [extra options of the bench binary, e.g. --sf 1]
#   (bench/ssb_gen.sh and bench/tpch_gen.sh call this with the benchmark filled in.)
#
# Exit codes: 0 success, 1 the benchmark failed, 2 the binary is missing or the benchmark is unknown.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bench=${1:-}
case "$bench" in
  ssb | tpch) shift ;;
  *) echo "gen_bench.sh: expected ssb or tpch as the first argument, found \"$bench\"" >&2; exit 2 ;;
esac
build=${1:-$root/build}
[ $# -gt 0 ] && shift
bin=$build/bin/$bench-gen-bench
if [ ! -x "$bin" ]; then
  echo "gen_bench.sh: $bin not found; build it with: cmake --build $build --target $bench-gen-bench" >&2
  exit 2
fi
hw=$(nproc)
threads="1,4,$hw"
[ "$hw" -le 4 ] && threads="1,$hw"
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -n) commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
"$bin" --sf 10 --threads "$threads" --repeat 3 "$@" || exit 1

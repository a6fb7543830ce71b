#!/usr/bin/env bash
# Times TPC-H generation into memory (bench/tpch_gen_bench.cpp) at SF 10 with 1, 4 and all hardware
# threads, 3 runs each, and prints rows/s. Build first (Release): cmake --build BUILD --target tpch-gen-bench.
#
#   bench/tpch_gen.sh [BUILD_DIR] [extra tpch-gen-bench options, e.g. --sf 1]
#
# Exit codes: 0 success, 1 the benchmark failed, 2 the binary is missing.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
[ $# -gt 0 ] && shift
bin=$build/bin/tpch-gen-bench
if [ ! -x "$bin" ]; then
  echo "tpch_gen.sh: $bin not found; build it with: cmake --build $build --target tpch-gen-bench" >&2
  exit 2
fi
hw=$(nproc)
threads="1,4,$hw"
[ "$hw" -le 4 ] && threads="1,$hw"
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -n) commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
"$bin" --sf 10 --threads "$threads" --repeat 3 "$@" || exit 1

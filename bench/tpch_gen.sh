#!/usr/bin/env bash
# Times TPC-H generation into memory at SF 10 (1, 4 and all hardware threads, 3 runs each): bench/gen_bench.sh
# with the benchmark filled in; its header lists the options and exit codes.
#
#   bench/tpch_gen.sh [BUILD_DIR] [extra tpch-gen-bench options, e.g. --sf 1]
exec "$(dirname "${BASH_SOURCE[0]}")/gen_bench.sh" tpch "$@"

#!/usr/bin/env bash
# ncu on the five slowest TPC-H SF 10 kernels (bench/results/2026-11-27-h100-tpch-bound).
cd "$(dirname "$0")"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 HORSEQC_KERNEL_CACHE=/tmp/kc
./horseqc-gen tpch --sf 10 --out /tmp/tp10 --format columnar --quiet
M=dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum,lts__t_requests_op_atom.sum,lts__t_requests_op_red.sum,l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum,gpu__time_duration.sum
for spec in "21:_21_p4_build" "21:_21_p3_build" "13:_13_p0_build" "18:_18_p1_aggregate" "18:_18_p3_build" "1:_1_p0_aggregate"; do
  q=${spec%%:*}; k=${spec#*:}
  ./horseqc-run tpch $q --data /tmp/tp10 --device cuda --quiet > /dev/null 2>&1
  timeout 150 ncu --kernel-name "$k" --launch-count 1 --section SpeedOfLight --section Occupancy --section LaunchStats \
    --section WarpStateStats --metrics $M ./horseqc-run tpch $q --data /tmp/tp10 --device cuda --quiet > "$OUT/ncu-$k.txt" 2>&1
  echo "== $k rc=$?"
  grep -E "Duration|Achieved Occupancy|Registers Per|Block Size|Grid Size|dram__bytes|smsp__inst_executed.sum|op_atom|op_red|Memory Throughput|Compute \(SM\)|Stall" "$OUT/ncu-$k.txt" | head -16
done

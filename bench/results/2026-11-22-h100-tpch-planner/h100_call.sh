set -uo pipefail
export HQC_COMMIT=4c90fc3
b=build-rel/bin
bench/gpu_tpch.sh $b 1 10 > /dev/null 2>&1
grep -v ": OK" $OUT/log-tpch.txt | grep -v "^WARNING" | head -12; echo "OK runs: $(grep -c ': OK' $OUT/log-tpch.txt)"
mkdir -p /tmp/p && OUT=/tmp/p bench/gpu_planner.sh $b occupancy > /dev/null 2>&1
OUT=/tmp/p bench/gpu_planner.sh $b synthetic > /dev/null 2>&1
SEEDS=5 OUT=/tmp/p bench/gpu_planner.sh $b a > /dev/null 2>&1
grep -E "total ms|predicted total|beats|faster|picked" /tmp/p/synthetic-summary.txt
tail -1 /tmp/p/occupancy.txt; cat /tmp/p/concurrent-summary.txt
(cd /tmp/p && tar czf $OUT/planner-all.tgz *)
ls $OUT

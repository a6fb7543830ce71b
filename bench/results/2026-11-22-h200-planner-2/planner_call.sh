set -uo pipefail
export HQC_COMMIT=a477b6d
b=build-rel/bin
bench/gpu_planner.sh $b occupancy > /dev/null 2>&1
bench/gpu_planner.sh $b synthetic > /dev/null 2>&1
SEEDS=5 bench/gpu_planner.sh $b a > /dev/null 2>&1
grep -A12 "summary" $OUT/log-planner-synthetic.txt | head -60
grep -iE "mismatch|points" $OUT/occupancy.txt | head -5
cat $OUT/concurrent-summary.txt
echo "== streamed SSB SF 20 (--in-memory): pinned in place vs resident"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
$b/horseqc-run ssb --sf 20 --in-memory --device cuda --stream --concurrent all --repeat 3 --format json --quiet > $OUT/pin-stream.json 2> $OUT/pin-stream.err
$b/horseqc-run ssb --sf 20 --in-memory --device cuda --format json --quiet > $OUT/pin-resident.json 2> $OUT/pin-resident.err
python3 - $OUT <<'PY'
import json, sys
o = sys.argv[1]
s = json.load(open(f"{o}/pin-stream.json")); r = json.load(open(f"{o}/pin-resident.json"))
rows = lambda d: {q["query"]: q["rows"] for q in d["queries"]}
print("rows identical:", rows(s) == rows(r), len(rows(s)), "queries")
st = s["concurrent"]["stream"]
print({k: st[k] for k in ("streamed", "chunks", "bytes_transferred", "h2d_bytes_per_s", "kernel_bytes_per_s", "measured_ms", "pin_ms", "pinned_in_place_bytes", "pinned_copied_bytes")})
print("ratio to PCIe bound:", st["measured_ms"] / (1e3 * st["bytes_transferred"] / st["h2d_bytes_per_s"]))
PY
echo "== 128-bit MIN/MAX template test on NVIDIA OpenCL"
build-rel/tests/test_templates -tc="128-bit MIN*" 2>&1 | tail -5
cd $OUT && tar czf /tmp/planner-all.tgz * && rm -rf ./* && mv /tmp/planner-all.tgz . && ls

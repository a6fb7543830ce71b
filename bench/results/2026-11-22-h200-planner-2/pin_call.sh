set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export HORSEQC_KERNEL_CACHE=/tmp/hqc-kernels
for b in build-rel/ab/horseqc-run-9b4a019 build-rel/bin/horseqc-run; do
  n=$(basename $b)
  /usr/bin/time -v $b ssb --sf 20 --in-memory --device cuda --stream --concurrent all --format json --quiet > $OUT/$n.json 2> $OUT/$n.err
  grep -E "Maximum resident|Elapsed" $OUT/$n.err
  python3 - $OUT/$n.json $n <<'PY'
import json, sys
st = json.load(open(sys.argv[1]))["concurrent"]["stream"]
print(sys.argv[2], {k: st.get(k) for k in ("chunks", "bytes_transferred", "measured_ms", "pin_ms", "pinned_in_place_bytes", "pinned_copied_bytes")},
      "ratio to PCIe bound %.3f" % (st["measured_ms"] / (1e3 * st["bytes_transferred"] / st["h2d_bytes_per_s"])))
PY
done
python3 - $OUT <<'PY'
import json, sys
o = sys.argv[1]
rows = lambda f: {q["query"]: q["rows"] for q in json.load(open(f))["queries"]}
print("rows identical between the builds:", rows(f"{o}/horseqc-run-9b4a019.json") == rows(f"{o}/horseqc-run.json"))
PY
cd $OUT && tar czf /tmp/pin.tgz * && rm -rf ./* && mv /tmp/pin.tgz .

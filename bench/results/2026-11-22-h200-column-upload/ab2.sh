#!/usr/bin/env bash
# Transfer phase at TPC-H SF 1 and SF 10: horseqc-run at 9b4a019 (pageable copies) vs now (staging
# only for columns >= 192 MiB, fast 8-byte fills). Rows compared with 9b4a019's.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export HORSEQC_KERNEL_CACHE=/tmp/hqc-kernels
o=$OUT; w=/tmp/w; mkdir -p $w
for sf in 1 10; do
  build-rel/bin/horseqc-gen tpch --sf $sf --out $w/tpch$sf --format columnar --threads 16 --quiet
  for b in build-rel/ab/horseqc-run-9b4a019 build-rel/bin/horseqc-run; do
    n=$(basename $b)-sf$sf
    $b tpch --data $w/tpch$sf --device cuda --format json --quiet > $o/$n.json 2> $o/$n.err || echo "$n failed"
    python3 - $o/$n.json $n <<'PY'
import json,sys
d=json.load(open(sys.argv[1]))
t=sum(q['stats']['transfer_ms'] for q in d['queries']); by=sum(q['stats'].get('transfer_bytes',0) for q in d['queries'])
print(f"{sys.argv[2]}: transfer {t:.1f} ms for {by/1e9:.2f} GB; per query:", " ".join(f"{q['query']}={q['stats']['transfer_ms']:.0f}" for q in d['queries']))
PY
  done
  python3 - $o $sf <<'PY'
import json,sys
o,sf=sys.argv[1],sys.argv[2]
rows=lambda f:{q['query']:q['rows'] for q in json.load(open(f))['queries']}
a=rows(f'{o}/horseqc-run-9b4a019-sf{sf}.json'); b=rows(f'{o}/horseqc-run-sf{sf}.json')
print(f'sf {sf}: rows identical for', sum(a[q]==b.get(q) for q in a), 'of', len(a))
PY
done
cd $o && tar czf /tmp/ab2.tgz * && rm -rf ./* && mv /tmp/ab2.tgz .

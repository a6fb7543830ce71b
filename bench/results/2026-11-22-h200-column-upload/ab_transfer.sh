#!/usr/bin/env bash
# A/B/C of the transfer phase: horseqc-run at 9b4a019 (pageable copies), at ea3823e (pinned staging
# slots: -staged) and now (plus 8-byte fills by doubling device copies).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export HORSEQC_KERNEL_CACHE=/tmp/hqc-kernels
o=$OUT; w=/tmp/w; mkdir -p $w
nvidia-smi -L
/usr/bin/time -v build-rel/bin/horseqc-gen tpch --sf 10 --out $w/tpch10 --format columnar --threads 16 2>&1 | grep -E "Elapsed|Maximum resident" 
for round in 1 2; do
for b in build-rel/ab/horseqc-run-9b4a019 build-rel/ab/horseqc-run-staged build-rel/bin/horseqc-run; do
  n=$(basename $b)
  $b tpch --data $w/tpch10 --device cuda --format json --quiet > $o/$n-r$round.json 2> $o/$n-r$round.err || echo "$n failed"
  python3 - $o/$n-r$round.json $n <<'PY'
import json,sys
d=json.load(open(sys.argv[1]))
t=sum(q['stats']['transfer_ms'] for q in d['queries']); by=sum(q['stats'].get('transfer_bytes',0) for q in d['queries'])
print(f"{sys.argv[2]}: transfer {t:.1f} ms for {by/1e9:.2f} GB = {by/1e6/t:.2f} GB/s; per query:", " ".join(f"{q['query']}={q['stats']['transfer_ms']:.0f}" for q in d['queries']))
PY
done
done
python3 - $o <<'PY'
import json,sys,glob
o=sys.argv[1]
base={q['query']:q['rows'] for q in json.load(open(f'{o}/horseqc-run-9b4a019-r1.json'))['queries']}
for f in sorted(glob.glob(f'{o}/*.json')):
    d={q['query']:q['rows'] for q in json.load(open(f))['queries']}
    diff=[q for q in base if d.get(q)!=base[q]]
    print(f.split('/')[-1], 'rows identical to 9b4a019 for', len(base)-len(diff), 'of', len(base), 'queries', diff)
PY
cd $o && tar czf ab.tgz *.json *.err && rm -f *.json *.err

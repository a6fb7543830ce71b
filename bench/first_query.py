#!/usr/bin/env python3
"""TPC-H: the first query of a fresh process — horseqc from its columnar files vs DuckDB from its database file.

Each query runs in a process of its own, as a user's first query would:
  - horseqc cold: `horseqc-run tpch Q --data COLUMNAR --device cuda`, with an empty kernel cache and an
    empty NVRTC/driver compute cache (every kernel compiles);
  - horseqc warm: the same again, its kernel cache now holding the module (a later day's first query);
  - DuckDB: a fresh python3 that imports duckdb, opens the database file read-only (16 threads, or all
    the host has) and runs the query; then runs it twice more in the same process (hot, best of two).
Both systems read their data from files the OS has cached (a warm-up pass runs every query of both once
first), so neither pays the disk. Wall = the whole process, from start to exit, as a shell would time it.
horseqc's JSON says where its wall went: load (mapping the columnar files), device_open (the driver's
initialisation and the primary context), the query's phases (compile overlapped with transfer, kernels,
finalize); elapsed (main() up to the print); after main = wall - elapsed - the wall of `horseqc-run --help`
(process start and exit alone): the teardown (device memory, the context).

Data: horseqc-gen's TPC-H at --sf, written twice (columnar for horseqc, .tbl loaded once into a DuckDB
file with dbgen's column types). A benchmark, not a test: timings vary run to run.

usage: first_query.py --bin BUILD/bin --work DIR [--sf 10] [--queries q1,q6] [--reps 2] [--out DIR] [--device cuda]
                      [--before OTHER_BUILD/bin] [--skip-duckdb]
"""
import argparse
import csv
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

ALL = [f"q{i}" for i in range(1, 23)]
TABLES = ["part", "supplier", "partsupp", "customer", "orders", "lineitem", "nation", "region"]

# dbgen's column types as DuckDB's tpch extension declares them (`call dbgen(sf=0)`; the oracle tests
# load that extension, this benchmark carries DuckDB without it to the GPU machine).
DUCK_SCHEMA = """
CREATE TABLE customer(c_custkey BIGINT NOT NULL, c_name VARCHAR NOT NULL, c_address VARCHAR NOT NULL, c_nationkey INTEGER NOT NULL, c_phone VARCHAR NOT NULL, c_acctbal DECIMAL(15,2) NOT NULL, c_mktsegment VARCHAR NOT NULL, c_comment VARCHAR NOT NULL);
CREATE TABLE lineitem(l_orderkey BIGINT NOT NULL, l_partkey BIGINT NOT NULL, l_suppkey BIGINT NOT NULL, l_linenumber BIGINT NOT NULL, l_quantity DECIMAL(15,2) NOT NULL, l_extendedprice DECIMAL(15,2) NOT NULL, l_discount DECIMAL(15,2) NOT NULL, l_tax DECIMAL(15,2) NOT NULL, l_returnflag VARCHAR NOT NULL, l_linestatus VARCHAR NOT NULL, l_shipdate DATE NOT NULL, l_commitdate DATE NOT NULL, l_receiptdate DATE NOT NULL, l_shipinstruct VARCHAR NOT NULL, l_shipmode VARCHAR NOT NULL, l_comment VARCHAR NOT NULL);
CREATE TABLE nation(n_nationkey INTEGER NOT NULL, n_name VARCHAR NOT NULL, n_regionkey INTEGER NOT NULL, n_comment VARCHAR NOT NULL);
CREATE TABLE orders(o_orderkey BIGINT NOT NULL, o_custkey BIGINT NOT NULL, o_orderstatus VARCHAR NOT NULL, o_totalprice DECIMAL(15,2) NOT NULL, o_orderdate DATE NOT NULL, o_orderpriority VARCHAR NOT NULL, o_clerk VARCHAR NOT NULL, o_shippriority INTEGER NOT NULL, o_comment VARCHAR NOT NULL);
CREATE TABLE part(p_partkey BIGINT NOT NULL, p_name VARCHAR NOT NULL, p_mfgr VARCHAR NOT NULL, p_brand VARCHAR NOT NULL, p_type VARCHAR NOT NULL, p_size INTEGER NOT NULL, p_container VARCHAR NOT NULL, p_retailprice DECIMAL(15,2) NOT NULL, p_comment VARCHAR NOT NULL);
CREATE TABLE partsupp(ps_partkey BIGINT NOT NULL, ps_suppkey BIGINT NOT NULL, ps_availqty BIGINT NOT NULL, ps_supplycost DECIMAL(15,2) NOT NULL, ps_comment VARCHAR NOT NULL);
CREATE TABLE region(r_regionkey INTEGER NOT NULL, r_name VARCHAR NOT NULL, r_comment VARCHAR NOT NULL);
CREATE TABLE supplier(s_suppkey BIGINT NOT NULL, s_name VARCHAR NOT NULL, s_address VARCHAR NOT NULL, s_nationkey INTEGER NOT NULL, s_phone VARCHAR NOT NULL, s_acctbal DECIMAL(15,2) NOT NULL, s_comment VARCHAR NOT NULL);
"""

# Run by a fresh python3 per query: DuckDB's side of a first query (timings on stdout as JSON).
DUCK_CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import duckdb
t1 = time.perf_counter()
con = duckdb.connect(sys.argv[1], read_only=True)
t2 = time.perf_counter()
# Whole-line comments dropped first (a comment may hold a ';').
sql = "\n".join(l for l in open(sys.argv[2]).read().splitlines() if not l.strip().startswith("--"))
def run():
    rows = None
    for s in (s.strip() for s in sql.split(";")):
        if not s:
            continue
        r = con.execute(s)
        if s.lower().startswith(("select", "with")) and rows is None:
            rows = r.fetchall()
    return rows
a = time.perf_counter(); rows = run(); b = time.perf_counter()
hot = []
for _ in range(2):
    c = time.perf_counter(); run(); hot.append(1e3 * (time.perf_counter() - c))
print(json.dumps({"import_ms": 1e3 * (t1 - t0), "connect_ms": 1e3 * (t2 - t1), "first_ms": 1e3 * (b - a),
                  "hot_ms": min(hot), "rows": len(rows)}))
"""


def duck_sql(q):
    """The query text as DuckDB takes it (the oracle's one rewrite: Q1's interval precision)."""
    import re
    with open(os.path.join(ROOT, "tpch", "queries", q[1:] + ".sql")) as f:
        sql = f.read()
    return re.sub(r"(interval\s+'[^']*'\s+(?:day|month|year))\s*\(\s*\d+\s*\)", r"\1", sql, flags=re.I)


def timed(cmd, env=None):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    return 1e3 * (time.perf_counter() - t0), p


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--sf", default="10")
    ap.add_argument("--queries", default=",".join(ALL))
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--out", default=".")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--before", help="a second BUILD/bin whose horseqc-run also runs every query cold and warm (A/B)")
    ap.add_argument("--skip-duckdb", action="store_true", help="horseqc alone (no .tbl files, no DuckDB file)")
    args = ap.parse_args()
    queries = args.queries.split(",")
    os.makedirs(args.out, exist_ok=True)
    gen = os.path.join(args.bin, "horseqc-gen")
    run_bin = os.path.join(args.bin, "horseqc-run")
    col = os.path.join(args.work, f"tpch-sf{args.sf}-columnar")
    tbl = os.path.join(args.work, f"tpch-sf{args.sf}-tbl")
    duck_file = os.path.join(args.work, f"tpch-sf{args.sf}.duckdb")
    for path, fmt in ((col, "columnar"),) + (() if args.skip_duckdb else ((tbl, "tbl"),)):
        if not os.path.isdir(path):
            t, p = timed([gen, "tpch", "--sf", args.sf, "--out", path, "--format", fmt, "--quiet"])
            if p.returncode != 0:
                sys.exit(f"horseqc-gen {fmt} failed: {p.stderr}")
            print(f"# generated {fmt} in {t / 1e3:.1f} s", flush=True)
    if not args.skip_duckdb and not os.path.exists(duck_file):
        import duckdb
        t0 = time.perf_counter()
        con = duckdb.connect(duck_file + ".tmp")
        con.execute(DUCK_SCHEMA)
        for t in TABLES:
            con.execute(f"copy {t} from '{os.path.join(tbl, t + '.tbl')}' (delimiter '|', header false)")
        con.close()
        os.rename(duck_file + ".tmp", duck_file)
        print(f"# DuckDB database file loaded in {time.perf_counter() - t0:.1f} s", flush=True)
    sqldir = os.path.join(args.work, "duck-sql")
    os.makedirs(sqldir, exist_ok=True)
    for q in queries:
        with open(os.path.join(sqldir, q + ".sql"), "w") as f:
            f.write(duck_sql(q))
    if not args.skip_duckdb:
        import duckdb
        print(f"# DuckDB {duckdb.__version__}, {os.cpu_count()} host threads", flush=True)
    # A process that starts and exits without a device or data: what every run pays outside main().
    start_exit = min(timed([run_bin, "--help"])[0] for _ in range(5))
    print(f"# horseqc-run --help (process start and exit): {start_exit:.1f} ms, best of 5", flush=True)
    # What was measured, as the builds say it (the device copy's git HEAD can be stale).
    for label, where in (("horseqc", args.bin), ("before", args.before)):
        if where:
            v = subprocess.run([os.path.join(where, "horseqc-run"), "--version"], capture_output=True, text=True)
            print(f"# {label}: {v.stdout.strip() if v.returncode == 0 else 'no --version (an older build)'}", flush=True)

    def horseqc(q, cache, cold, binary=run_bin):
        if cold:
            shutil.rmtree(cache, ignore_errors=True)
        env = dict(os.environ, HORSEQC_KERNEL_CACHE=os.path.join(cache, "kernels"),
                   CUDA_CACHE_PATH=os.path.join(cache, "cuda"))
        wall, p = timed([binary, "tpch", q, "--data", col, "--device", args.device, "--format", "json", "--quiet"], env)
        if p.returncode != 0:
            raise SystemExit(f"horseqc-run {q} failed ({p.returncode}): {p.stderr}")
        doc = json.loads(p.stdout)
        ph = doc["queries"][0]["phases"]
        return {"wall": wall, "elapsed": doc.get("elapsed_ms", float("nan")), "load": doc["load_ms"], "device_open": doc.get("device_open_ms", float("nan")),
                "compile": ph["compile_ms"], "hit": ph["compile_cache_hit"], "transfer": ph["transfer_ms"],
                "kernels": ph["kernels_ms"], "finalize": ph["finalize_ms"], "total": ph["total_ms"],
                "rows": len(doc["queries"][0].get("rows", [])), "device": doc["device"]}

    def duck(q):
        if args.skip_duckdb:
            return {"wall": float("nan"), "import_ms": float("nan"), "connect_ms": float("nan"), "first_ms": float("nan"),
                    "hot_ms": float("nan"), "rows": -1}
        wall, p = timed([sys.executable, "-c", DUCK_CHILD, duck_file, os.path.join(sqldir, q + ".sql")])
        if p.returncode != 0:
            raise SystemExit(f"DuckDB {q} failed: {p.stderr}")
        d = json.loads(p.stdout)
        d["wall"] = wall
        return d

    # Warm-up: every file of both systems in the OS cache.
    for q in queries:
        horseqc(q, os.path.join(args.work, "cache-warmup"), cold=False)
        duck(q)
    print("# warm-up done", flush=True)

    rows = []
    for rep in range(args.reps):
        for q in queries:
            cache = os.path.join(args.work, f"cache-{q}")
            c = horseqc(q, cache, cold=True)
            w = horseqc(q, cache, cold=False)
            d = duck(q)
            if c["hit"] or not w["hit"]:
                raise SystemExit(f"{q}: expected a cold compile then a cache hit")
            if args.before:
                before_bin = os.path.join(args.before, "horseqc-run")
                bc = horseqc(q, cache + "-before", cold=True, binary=before_bin)
                bw = horseqc(q, cache + "-before", cold=False, binary=before_bin)
            row = {"rep": rep, "query": q,
                   "hqc_cold_wall_ms": c["wall"], "hqc_warm_wall_ms": w["wall"], "duck_fresh_wall_ms": d["wall"],
                   "duck_import_ms": d["import_ms"], "duck_connect_ms": d["connect_ms"],
                   "duck_first_ms": d["first_ms"], "duck_hot_ms": d["hot_ms"],
                   "load_ms": c["load"], "device_open_ms": c["device_open"], "compile_ms": c["compile"],
                   "transfer_ms": c["transfer"], "kernels_ms": c["kernels"], "finalize_ms": c["finalize"],
                   "query_total_ms": c["total"], "warm_device_open_ms": w["device_open"],
                   "warm_query_total_ms": w["total"], "rows_hqc": c["rows"], "rows_duck": d["rows"],
                   "cold_elapsed_ms": c["elapsed"], "warm_elapsed_ms": w["elapsed"], "start_exit_ms": start_exit}
            if args.before:
                row.update({"before_cold_wall_ms": bc["wall"], "before_warm_wall_ms": bw["wall"], "before_load_ms": bc["load"],
                            "before_device_open_ms": bc["device_open"], "before_compile_ms": bc["compile"]})
                print(f"{q} rep {rep}: before: cold {bc['wall']:.0f} ms (load {bc['load']:.0f}, device {bc['device_open']:.0f}, "
                      f"compile {bc['compile']:.0f}), warm {bw['wall']:.0f} ms", flush=True)
            rows.append(row)
            print(f"{q} rep {rep}: horseqc cold {c['wall']:.0f} ms (in main {c['elapsed']:.0f}: load {c['load']:.0f}, device {c['device_open']:.0f}, "
                  f"query {c['total']:.0f}: compile {c['compile']:.0f}, transfer {c['transfer']:.0f}, kernels "
                  f"{c['kernels']:.1f}; after main {c['wall'] - c['elapsed'] - start_exit:.0f}), warm {w['wall']:.0f} ms (in main "
                  f"{w['elapsed']:.0f}, query {w['total']:.0f}); DuckDB fresh "
                  f"{d['wall']:.0f} ms (import {d['import_ms']:.0f}, first {d['first_ms']:.0f}, hot {d['hot_ms']:.0f})",
                  flush=True)
    with open(os.path.join(args.out, "first-query.csv"), "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        wr.writeheader()
        wr.writerows(rows)
    med = lambda key: statistics.median(r[key] for r in rows)
    print(f"# medians over {len(rows)} runs: horseqc cold wall {med('hqc_cold_wall_ms'):.0f} ms, warm wall "
          f"{med('hqc_warm_wall_ms'):.0f} ms; DuckDB fresh wall {med('duck_fresh_wall_ms'):.0f} ms, first query "
          f"{med('duck_first_ms'):.0f} ms, hot {med('duck_hot_ms'):.0f} ms; horseqc load {med('load_ms'):.0f}, device open "
          f"{med('device_open_ms'):.0f}, compile {med('compile_ms'):.0f}, transfer {med('transfer_ms'):.0f} ms")
    if args.before:
        print(f"# before: cold wall {med('before_cold_wall_ms'):.0f} ms, warm wall {med('before_warm_wall_ms'):.0f} ms, load "
              f"{med('before_load_ms'):.0f}, device open {med('before_device_open_ms'):.0f}, compile {med('before_compile_ms'):.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())

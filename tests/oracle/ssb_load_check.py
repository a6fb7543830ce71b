#!/usr/bin/env python3
"""Load oracle for the SSB generator and the .tbl loader.

Generates SSB with horseqc-gen into a fresh directory, then reads the same .tbl files twice:
with horseqc (hqc_table_stats, which uses storage/load_database) and with DuckDB (read_csv with
the independent schema of ssb_schema.py). For every column of every table it compares the row
count, the distinct count and min/max, and for integer columns the sum. Also checks a few facts of
the data that DuckDB can state independently of horseqc's code: no orphan foreign keys and the
lo_revenue formula.

usage: ssb_load_check.py --gen BUILD/bin/horseqc-gen --stats BUILD/tests/hqc_table_stats
                         --work DIR [--sf 0.01] [--seed S]
Exit code 0 when everything matches, 1 on a mismatch (each one is printed), 2 on usage errors.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

import duckdb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ssb_schema import SSB_TABLES, load_ssb  # noqa: E402


def duckdb_stats(con, table, columns):
    """{column: {sum?, min, max, distinct}} plus the row count, computed by DuckDB."""
    parts = ["count(*)"]
    for name, typ in columns:
        parts += [f"min({name})", f"max({name})", f"count(DISTINCT {name})"]
        if typ != "VARCHAR":
            parts.append(f"sum({name})::HUGEINT")
    row = con.execute(f'SELECT {", ".join(parts)} FROM "{table}"').fetchone()
    rows, i, stats = row[0], 1, {}
    for name, typ in columns:
        s = {"min": row[i], "max": row[i + 1], "distinct": row[i + 2]}
        i += 3
        if typ != "VARCHAR":
            s["sum"] = int(row[i]) if row[i] is not None else 0
            i += 1
        stats[name] = s
    return rows, stats


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gen", required=True)
    ap.add_argument("--stats", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--sf", default="0.01")
    ap.add_argument("--seed", default=None)
    args = ap.parse_args()

    data = os.path.join(args.work, f"ssb_sf{args.sf}")
    shutil.rmtree(data, ignore_errors=True)
    os.makedirs(args.work, exist_ok=True)
    gen = [args.gen, "ssb", "--sf", args.sf, "--out", data, "--quiet"]
    if args.seed is not None:
        gen += ["--seed", args.seed]
    subprocess.run(gen, check=True, stdout=subprocess.DEVNULL)
    hqc = json.loads(subprocess.run([args.stats, "ssb", data], check=True, capture_output=True, text=True).stdout)

    con = duckdb.connect()
    load_ssb(con, data)
    failures = []

    def expect(what, ours, theirs):
        if ours != theirs:
            failures.append(f"{what}: horseqc {ours!r}, duckdb {theirs!r}")

    compared = 0
    for table, columns in SSB_TABLES.items():
        if table not in hqc:
            failures.append(f"{table}: not loaded by horseqc")
            continue
        rows, stats = duckdb_stats(con, table, columns)
        expect(f"{table} rows", hqc[table]["rows"], rows)
        for name, typ in columns:
            ours = hqc[table]["columns"].get(name)
            if ours is None:
                failures.append(f"{table}.{name}: missing on the horseqc side")
                continue
            for key, theirs in stats[name].items():
                mine = int(ours[key]) if key == "sum" else ours.get(key)
                expect(f"{table}.{name} {key}", mine, theirs)
                compared += 1

    # Facts about the data itself, stated in SQL.
    checks = {
        "orphan lo_custkey": "SELECT count(*) FROM lineorder LEFT JOIN customer ON lo_custkey = c_custkey WHERE c_custkey IS NULL",
        "orphan lo_partkey": "SELECT count(*) FROM lineorder LEFT JOIN part ON lo_partkey = p_partkey WHERE p_partkey IS NULL",
        "orphan lo_suppkey": "SELECT count(*) FROM lineorder LEFT JOIN supplier ON lo_suppkey = s_suppkey WHERE s_suppkey IS NULL",
        "orphan lo_orderdate": 'SELECT count(*) FROM lineorder LEFT JOIN "date" ON lo_orderdate = d_datekey WHERE d_datekey IS NULL',
        "orphan lo_commitdate": 'SELECT count(*) FROM lineorder LEFT JOIN "date" ON lo_commitdate = d_datekey WHERE d_datekey IS NULL',
        "lo_revenue formula": "SELECT count(*) FROM lineorder WHERE lo_revenue <> lo_extendedprice * (100 - lo_discount) // 100",
        "duplicate (lo_orderkey, lo_linenumber)":
            "SELECT count(*) - count(DISTINCT (lo_orderkey, lo_linenumber)) FROM lineorder",
    }
    for what, sql in checks.items():
        expect(what, 0, con.execute(sql).fetchone()[0])

    for f in failures:
        print("MISMATCH", f)
    print(f"ssb_load_check: SF {args.sf}: {compared} column statistics and {len(checks)} data checks, "
          f"{len(failures)} mismatches")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

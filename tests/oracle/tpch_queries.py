#!/usr/bin/env python3
"""End-to-end oracle test: TPC-H queries through horseqc against DuckDB running the same SQL text
(tpch/queries/N.sql) on the same .tbl files.

Data sets: `dbgen` is TPC-H's own dbgen (DuckDB's tpch extension) exported to .tbl; `horseqc` is
horseqc-gen's TPC-H. Both are loaded into DuckDB from the .tbl files horseqc reads, with dbgen's column
types, so both sides answer over the same bytes.

Comparison: integers, decimals, dates and strings exactly; floating-point values to a relative 1e-9
(a decimal horseqc prints against a float DuckDB computes: to half a unit of its last digit); NULL
only against NULL. Rows as a multiset, then the ORDER BY keys in ORDER BY order (rows whose keys tie
may come in any order). Exit code 0 when every checked query matches, 1 otherwise.

A query horseqc reports as unsupported (exit 4, "unsupported" in its JSON output) fails the run unless
--allow-unsupported is given, which reports it and goes on (the GPU runs use it to record coverage).

usage: tpch_queries.py --bin BUILD/bin --work DIR [--data dbgen|horseqc]... [--sf 0.01]... [--query q1]...
                       [--device opencl] [--model resolution] [--save DIR] [--allow-unsupported]
"""
import argparse
import datetime
import decimal
import json
import os
import re
import subprocess
import sys

import duckdb

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TABLES = ["region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"]
ALL = [f"q{i}" for i in range(1, 23)]


def tpch_extension(con):
    """Loads DuckDB's tpch extension from the duckdb-ext-tpch package (works offline)."""
    import duckdb_ext  # the duckdb-ext-tpch package: DuckDB's tpch extension, which carries dbgen
    ext = os.path.join(list(duckdb_ext.__path__)[0],
                       f"extensions/v{duckdb.__version__}/linux_amd64/tpch.duckdb_extension")
    con.execute(f"load '{ext}'")


def make_data(kind, sf, path, bin_dir):
    """Writes the eight .tbl files of data set `kind` at `sf` into `path` (once; renamed into place)."""
    if os.path.exists(os.path.join(path, "lineitem.tbl")):
        return
    tmp = path + ".tmp"
    subprocess.run(["rm", "-rf", tmp], check=True)
    if kind == "horseqc":
        subprocess.run([os.path.join(bin_dir, "horseqc-gen"), "tpch", "--sf", sf, "--out", tmp, "--quiet"], check=True)
    else:
        os.makedirs(tmp)
        con = duckdb.connect()
        tpch_extension(con)
        con.execute(f"call dbgen(sf={float(sf)})")
        for t in TABLES:
            # dbgen's text has no '|' and no quotes, so the CSV writer writes each value as it is.
            con.execute(f"copy {t} to '{os.path.join(tmp, t + '.tbl')}' (delimiter '|', header false, quote '')")
        con.close()
    os.rename(tmp, path)


def oracle_connection(path):
    """DuckDB with the eight tables loaded from the .tbl files in `path`, with dbgen's types."""
    con = duckdb.connect()
    tpch_extension(con)
    con.execute("call dbgen(sf=0)")  # the schema with dbgen's column types, no rows
    for t in TABLES:
        con.execute(f"copy {t} from '{os.path.join(path, t + '.tbl')}' (delimiter '|', header false)")
    return con


def order_by_keys(sql):
    """[(output column, descending)] of the outermost ORDER BY."""
    m = re.search(r"order\s+by\s+(.*?)(?:\blimit\b.*)?;?\s*$", sql, re.S | re.I)
    if not m:
        return []
    keys = []
    for k in m.group(1).split(","):
        k = k.strip()
        desc = bool(re.search(r"\s+desc$", k, re.I))
        keys.append((re.sub(r"\s+(asc|desc)$", "", k, flags=re.I), desc))
    return keys


def ours_value(v, type_name):
    if v is None:
        return None
    if type_name.startswith("decimal"):
        return decimal.Decimal(v)
    return v


def theirs_value(v):
    if isinstance(v, (datetime.date, datetime.datetime)):
        return v.isoformat()[:10]
    return v


def equal(a, b):
    """a: horseqc's value, b: DuckDB's."""
    if a is None or b is None:
        return a is None and b is None
    if isinstance(b, float) or isinstance(a, float):
        if isinstance(a, decimal.Decimal):
            return abs(float(a) - b) <= float(decimal.Decimal(1).scaleb(a.as_tuple().exponent)) / 2 + 1e-12 * abs(b)
        return abs(float(a) - float(b)) <= 1e-9 * max(1.0, abs(float(b)))
    if isinstance(a, (int, decimal.Decimal)) and isinstance(b, (int, decimal.Decimal)):
        return decimal.Decimal(a) == decimal.Decimal(b)
    return a == b


def sort_key(row):
    # Rounded so that float rows sort alike on both sides; equal() decides equality afterwards.
    return tuple((0, "") if v is None else (1, round(float(v), 4)) if isinstance(v, (int, float, decimal.Decimal))
                 else (2, str(v)) for v in row)


def compare(name, sql, ours, cols, rows):
    types = [c["type"] for c in ours["columns"]]
    if len(types) != len(cols):
        return [f"{name}: {len(types)} columns, oracle has {len(cols)}"]
    a = [tuple(ours_value(v, t) for v, t in zip(r, types)) for r in ours["rows"]]
    b = [tuple(theirs_value(v) for v in r) for r in rows]
    if len(a) != len(b):
        return [f"{name}: {len(a)} rows, oracle has {len(b)}; first rows {a[:2]} vs {b[:2]}"]
    for x, y in zip(sorted(a, key=sort_key), sorted(b, key=sort_key)):
        if not all(equal(u, v) for u, v in zip(x, y)):
            return [f"{name}: row {x} differs from the oracle's {y}"]
    keys = order_by_keys(sql)
    idx = [cols.index(k) for k, _ in keys if k in cols]
    if len(idx) != len(keys):
        return [f"{name}: cannot map ORDER BY keys {keys} to output columns {cols}"]
    for i, (x, y) in enumerate(zip(a, b)):
        if not all(equal(x[j], y[j]) for j in idx):
            return [f"{name}: row {i} is out of ORDER BY order: ORDER BY keys {[x[j] for j in idx]}, "
                    f"oracle {[y[j] for j in idx]}"]
    return []


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--data", action="append", choices=["dbgen", "horseqc"], help="default dbgen; repeatable")
    ap.add_argument("--sf", action="append", help="default 0.01; repeatable")
    ap.add_argument("--query", action="append", help="q1 ... q22 (default all); repeatable")
    ap.add_argument("--device", action="append", help="opencl (default), cuda, auto; repeatable")
    ap.add_argument("--model", action="append", help="resolution (default) and/or pipelined")
    ap.add_argument("--save", help="directory to keep horseqc's JSON output of every run in")
    ap.add_argument("--allow-unsupported", action="store_true",
                    help="report queries horseqc does not support yet instead of failing on them")
    args = ap.parse_args()
    queries = [q if q.startswith("q") else "q" + q for q in (args.query or ALL)]

    failures, unsupported = [], set()
    for kind in args.data or ["dbgen"]:
        for sf in args.sf or ["0.01"]:
            data = os.path.join(args.work, f"tpch-{kind}-sf{sf}")
            make_data(kind, sf, data, args.bin)
            con = oracle_connection(data)
            oracle = {}
            for q in queries:
                with open(os.path.join(ROOT, "tpch", "queries", q[1:] + ".sql")) as f:
                    sql = f.read()
                res = con.execute(sql)
                oracle[q] = (sql, [d[0] for d in res.description], res.fetchall())
            con.close()
            for device in args.device or ["opencl"]:
                for model in args.model or ["resolution"]:
                    label = f"{kind} sf {sf} {device} {model}"
                    run = subprocess.run([os.path.join(args.bin, "horseqc-run"), "tpch", *queries, "--data", data,
                                          "--format", "json", "--device", device, "--model", model, "--quiet"],
                                         capture_output=True, text=True)
                    if run.returncode == 4 and not run.stdout.strip() and len(queries) == 1:
                        # One query alone: horseqc-run exits with the error instead of a JSON entry.
                        run.stdout = json.dumps({"device": "(none)", "queries": [
                            {"query": queries[0], "unsupported": run.stderr.strip()}]})
                    if run.returncode not in (0, 4) or not run.stdout.strip():
                        print(run.stderr, file=sys.stderr)
                        failures.append(f"{label}: horseqc-run exited with {run.returncode}")
                        continue
                    out = json.loads(run.stdout)
                    if args.save:
                        os.makedirs(args.save, exist_ok=True)
                        with open(os.path.join(args.save, f"tpch-{kind}-sf{sf}-{device}-{model}.json"), "w") as f:
                            f.write(run.stdout)
                    print(f"{label}: {out['device']}")
                    ours = {q["query"]: q for q in out["queries"]}
                    for q in queries:
                        sql, cols, rows = oracle[q]
                        if q not in ours:
                            failures.append(f"{label} {q}: missing from horseqc's output")
                        elif "unsupported" in ours[q]:
                            print(f"{label} {q}: UNSUPPORTED: {ours[q]['unsupported']}")
                            unsupported.add(q)
                            if not args.allow_unsupported:
                                failures.append(f"{label} {q}: unsupported: {ours[q]['unsupported']}")
                        else:
                            errs = compare(f"{label} {q}", sql, ours[q], cols, rows)
                            failures += errs
                            print(f"{label} {q}: {'OK' if not errs else 'MISMATCH'} ({len(rows)} rows)")
    if unsupported:
        print(f"unsupported: {' '.join(sorted(unsupported, key=lambda q: int(q[1:])))}")
    for f in failures:
        print("FAIL", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

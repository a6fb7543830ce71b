#!/usr/bin/env python3
"""End-to-end oracle test: TPC-H queries through horseqc against DuckDB running the same SQL text
(tpch/queries/N.sql) on the same .tbl files.

Data sets: `dbgen` is TPC-H's own dbgen (DuckDB's tpch extension) exported to .tbl; `horseqc` is
horseqc-gen's TPC-H. Both are loaded into DuckDB from the .tbl files horseqc reads, with dbgen's column
types, so both sides answer over the same bytes.

Comparison as tests/oracle/query_oracle.py says. Exit code 0 when every checked query matches, 1
otherwise.

A query horseqc reports as unsupported (exit 4, "unsupported" in its JSON output) fails the run unless
--allow-unsupported is given, which reports it and goes on (the GPU runs use it to record coverage).

usage: tpch_queries.py --bin BUILD/bin --work DIR [--data dbgen|horseqc]... [--sf 0.01]... [--query q1]...
                       [--device opencl] [--model resolution] [--save DIR] [--allow-unsupported]
                       [--no-statistics]

--no-statistics compiles as horseqc-compile does, without the data's statistics: every decimal SUM is
128-bit, also where later stages read it (Q8's share, Q11's HAVING, Q17's average), and layouts are
chosen without sizes.
"""
import argparse
import os
import re
import subprocess
import sys

import duckdb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from query_oracle import check_run, mpirun, run_horseqc  # noqa: E402

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


def duckdb_answer(con, sql):
    """Runs `sql` — one SELECT, or a script of statements around one SELECT (TPC-H Q15: CREATE VIEW;
    SELECT; DROP VIEW) — statement by statement; returns (column names, rows, text) of the SELECT."""
    answer = None
    for statement in (s.strip() for s in sql.split(";")):
        if not statement or all(line.strip().startswith("--") or not line.strip() for line in statement.splitlines()):
            continue
        # DuckDB lacks the SQL standard's leading field precision of an interval (TPC-H Q1's
        # `interval '90' day (3)`); the oracle drops it.
        statement = re.sub(r"(interval\s+'[^']*'\s+(?:day|month|year))\s*\(\s*\d+\s*\)", r"\1", statement, flags=re.I)
        res = con.execute(statement)
        code = "\n".join(line for line in statement.splitlines() if not line.strip().startswith("--")).strip().lower()
        if code.startswith(("select", "with")) and answer is None:
            answer = ([d[0] for d in res.description], res.fetchall(), statement)
    return answer


def check_sql_queries(bin_dir, queries, data, label, models, device, query_dir, extra_options=(), launcher=()):
    """Runs each (name, sql) of `queries` on the .tbl files in `data` through DuckDB and through
    horseqc-run --plan under every model in `models` (after `launcher`: mpirun for a distributed run);
    returns the failures. An oracle result with no rows, or whose column "n" sums to 0, is a failure
    too: such a query tests nothing."""
    failures = []
    con = oracle_connection(data)
    oracle = {}
    for name, sql in queries:
        cols, rows, select = duckdb_answer(con, sql)
        oracle[name] = (select, cols, rows)
        if not rows or ("n" in cols and sum(r[cols.index("n")] or 0 for r in rows) == 0):
            failures.append(f"{label} {name}: the oracle selects no rows; the query tests nothing")
    con.close()
    os.makedirs(query_dir, exist_ok=True)
    for model in models:
        for name, sql in queries:
            path = os.path.join(query_dir, name + ".sql")
            with open(path, "w") as f:
                f.write(sql + "\n")
            run_label = f"{label} {device} {model}" + (f" np {launcher[-1]}" if launcher else "")
            out = run_horseqc(bin_dir, "tpch", [], ["--plan", path, "--data", data, "--device", device, "--model", model,
                                                    *extra_options], launcher=launcher)
            if out is None:
                failures.append(f"{run_label} {name}: horseqc-run failed")
                continue
            errs, _ = check_run(run_label, out, {name: oracle[name]})
            failures += errs
    return failures


def check_sql_refusals(bin_dir, errors, data, device, query_dir):
    """Runs each (name, sql, expected text) of `errors` through horseqc-run --plan on `data`; each must
    fail with exit code 4 (unsupported) and a message that contains the text and names a position in
    the query file. Returns the failures."""
    failures = []
    os.makedirs(query_dir, exist_ok=True)
    for name, sql, expected in errors:
        path = os.path.join(query_dir, name + ".sql")
        with open(path, "w") as f:
            f.write(sql + "\n")
        run = subprocess.run([os.path.join(bin_dir, "horseqc-run"), "tpch", "--plan", path, "--data", data, "--quiet",
                              "--device", device], capture_output=True, text=True)
        where = f"{path}:1:"
        if run.returncode != 4 or expected not in run.stderr or where not in run.stderr:
            failures.append(f"{name}: expected exit 4 with '{expected}' at {where}, got {run.returncode}: {run.stderr.strip()}")
        else:
            print(f"{name}: unsupported as expected: {run.stderr.strip()}")
    return failures


def sql_queries_main(queries, work_name, description):
    """The command line of a test that checks a list of (name, sql) on dbgen data (tpch_strings.py,
    tpch_compaction.py): --bin --work [--sf X]… [--model M]… [--device D] [--query NAME]… [--ranks N]…
    (under `mpirun -np N`, every N given) [--partition-weights W,W,…] [--stream-chunks N]; returns the exit status."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--sf", action="append", help="default 0.01; repeatable")
    ap.add_argument("--model", action="append", help="resolution (default), pipelined, multi_pass or operator_at_a_time; repeatable")
    ap.add_argument("--device", default="opencl")
    ap.add_argument("--query", action="append", help="names from QUERIES (default all)")
    ap.add_argument("--no-statistics", action="store_true", help="horseqc-run --no-statistics (128-bit decimal sums)")
    ap.add_argument("--ranks", action="append", type=int, help="run under mpirun -np N (docs/distributed.md); repeatable")
    ap.add_argument("--partition-weights", help="with --ranks: horseqc-run --partition-weights W,W,...")
    ap.add_argument("--join-exchange", choices=["auto", "broadcast", "shuffle"], help="with --ranks: horseqc-run --join-exchange")
    ap.add_argument("--stream-chunks", type=int,
                    help="horseqc-run --stream --chunks N: the table scanned most streamed in N chunks (under --ranks: each rank's share)")
    args = ap.parse_args()
    if (args.partition_weights or args.join_exchange) and not args.ranks:
        ap.error("--partition-weights and --join-exchange need --ranks")
    chosen = [(n, q) for n, q in queries if not args.query or n in args.query]
    failures = []
    for sf in args.sf or ["0.01"]:
        data = os.path.join(args.work, f"tpch-dbgen-sf{sf}")
        make_data("dbgen", sf, data, args.bin)
        for launcher in [mpirun(n) for n in args.ranks] if args.ranks else [()]:
            failures += check_sql_queries(args.bin, chosen, data, f"dbgen sf {sf}", args.model or ["resolution"], args.device,
                                          os.path.join(args.work, work_name),
                                          (["--no-statistics"] if args.no_statistics else []) +
                                          (["--partition-weights", args.partition_weights] if args.partition_weights else []) +
                                          (["--join-exchange", args.join_exchange] if args.join_exchange else []) +
                                          (["--stream", "--chunks", str(args.stream_chunks)] if args.stream_chunks else []),
                                          launcher)
    for f in failures:
        print("FAIL", f, file=sys.stderr)
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--data", action="append", choices=["dbgen", "horseqc"], help="default dbgen; repeatable")
    ap.add_argument("--sf", action="append", help="default 0.01; repeatable")
    ap.add_argument("--query", action="append", help="q1 ... q22 (default all); repeatable")
    ap.add_argument("--device", action="append", help="opencl (default), cuda, auto; repeatable")
    ap.add_argument("--model", action="append", help="resolution (default), pipelined, multi_pass or operator_at_a_time; repeatable")
    ap.add_argument("--save", help="directory to keep horseqc's JSON output of every run in")
    ap.add_argument("--ranks", action="append", type=int,
                    help="run under `mpirun -np N` (a distributed run, docs/distributed.md); repeatable")
    ap.add_argument("--partition-weights", help="with --ranks: horseqc-run --partition-weights W,W,...")
    ap.add_argument("--join-exchange", choices=["auto", "broadcast", "shuffle"],
                    help="with --ranks: horseqc-run --join-exchange (shuffle: every join over a partitioned build side on another key shuffled)")
    ap.add_argument("--allow-unsupported", action="store_true",
                    help="report queries horseqc does not support yet instead of failing on them")
    ap.add_argument("--no-statistics", action="store_true", help="horseqc-run --no-statistics (see above)")
    ap.add_argument("--stream-chunks", type=int,
                    help="horseqc-run --stream --chunks N: the fact table streamed in N chunks (under --ranks: each rank's share)")
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
            for device, model, ranks in [(d, m, r) for d in args.device or ["opencl"] for m in args.model or ["resolution"]
                                         for r in args.ranks or [0]]:
                    label = f"{kind} sf {sf} {device} {model}" + (" no-statistics" if args.no_statistics else "") + (f" np {ranks}" if ranks else "")
                    save = os.path.join(args.save, f"tpch-{kind}-sf{sf}-{device}-{model}" + (f"-np{ranks}" if ranks else "") + ".json") if args.save else None
                    options = ["--data", data, "--device", device, "--model", model]
                    if ranks and args.partition_weights:
                        options += ["--partition-weights", args.partition_weights]
                    if ranks and args.join_exchange:
                        options += ["--join-exchange", args.join_exchange]
                        label += f" join exchange {args.join_exchange}"
                    if args.stream_chunks:
                        options += ["--stream", "--chunks", str(args.stream_chunks)]
                        label += f" streamed in {args.stream_chunks} chunks"
                    out = run_horseqc(args.bin, "tpch", queries, options + (["--no-statistics"] if args.no_statistics else []), save,
                                      mpirun(ranks) if ranks else ())
                    if out is None:
                        failures.append(f"{label}: horseqc-run failed")
                        continue
                    errs, unsup = check_run(label, out, oracle, args.allow_unsupported)
                    failures += errs
                    unsupported.update(unsup)
    if unsupported:
        print(f"unsupported: {' '.join(sorted(unsupported, key=lambda q: int(q[1:])))}")
    for f in failures:
        print("FAIL", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

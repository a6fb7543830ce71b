"""What the end-to-end oracle tests share (tests/oracle/ssb_queries.py, tpch_queries.py): running
horseqc-run with JSON output, and comparing its results with DuckDB's.

Comparison: integers, decimals, dates and strings exactly; floating-point values to a relative 1e-9
(a decimal horseqc prints against a float DuckDB computes: to half a unit of its last digit); NULL
only against NULL. Rows as a multiset, then the ORDER BY keys in ORDER BY order (rows whose keys tie
may come in any order); when a key is not an output column, the rows in the oracle's order.
"""
import argparse
import datetime
import decimal
import math
import json
import os
import re
import subprocess
import sys


def order_by_keys(sql):
    """[(output column, descending)] of the outermost ORDER BY (the last one outside parentheses:
    not a window's OVER (ORDER BY ...) nor a subquery's)."""
    outer = None
    for m in re.finditer(r"\border\s+by\s+", sql, re.I):
        depth = sql[:m.start()].count("(") - sql[:m.start()].count(")")
        if depth == 0:
            outer = m
    if outer is None:
        return []
    m = re.match(r"(.*?)(?:\b(?:limit|offset)\b.*)?;?\s*$", sql[outer.end():], re.S | re.I)
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
    if type_name == "float64" and isinstance(v, str):  # JSON's spelling of x / 0: "inf", "-inf", "nan"
        return float(v)
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
        if not (math.isfinite(float(a)) and math.isfinite(float(b))):  # x / 0: inf, -inf, nan
            return float(a) == float(b) or (math.isnan(float(a)) and math.isnan(float(b)))
        if isinstance(a, decimal.Decimal):
            return abs(float(a) - b) <= float(decimal.Decimal(1).scaleb(a.as_tuple().exponent)) / 2 + 1e-12 * abs(b)
        return abs(float(a) - float(b)) <= 1e-9 * max(1.0, abs(float(b)))
    if isinstance(a, (int, decimal.Decimal)) and isinstance(b, (int, decimal.Decimal)):
        return decimal.Decimal(a) == decimal.Decimal(b)
    return a == b


def sort_key(row):
    # Every column rounded first, so that float rows sort alike on both sides (equal() decides
    # equality afterwards); then the numbers themselves, so that rows whose rounded keys all tie
    # (AVGs 0.04965 and 0.04968) keep one order on both sides instead of their input order. The exact
    # values come last: a float that differs between the engines in its last bit must not reorder
    # rows that another column tells apart.
    def coarse(v):
        if v is None:
            return (0, "")
        if isinstance(v, float) and math.isnan(v):
            return (3, "")
        if isinstance(v, (int, float, decimal.Decimal)):
            return (1, round(float(v), 4))
        return (2, str(v))
    exact = tuple(float(v) if isinstance(v, (int, float, decimal.Decimal)) and not (isinstance(v, float) and math.isnan(v))
                  else 0.0 for v in row)
    return tuple(coarse(v) for v in row) + exact


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
    idx = [output_index(k, cols) for k, _ in keys]
    if None in idx:
        # ORDER BY a value the result does not show: rows in the oracle's order (write such queries
        # with an order that has no ties).
        for i, (x, y) in enumerate(zip(a, b)):
            if not all(equal(u, v) for u, v in zip(x, y)):
                return [f"{name}: row {i} is {x}, the oracle's is {y} (ORDER BY {keys}, not all of them output columns)"]
        return []
    for i, (x, y) in enumerate(zip(a, b)):
        if not all(equal(x[j], y[j]) for j in idx):
            # Floats that differ in their last bits between the engines (a SUM or AVG of doubles adds
            # in another order) tie on one side and not on the other, so the rows they order may come
            # in another order: ours is right if it is in ORDER BY order of its own values (the rows
            # are the oracle's, equal() said above).
            bad = out_of_order(a, idx, [d for _, d in keys])
            if bad is None:
                return []
            return [f"{name}: row {bad} is out of ORDER BY order: ORDER BY keys {[a[bad][j] for j in idx]} after "
                    f"{[a[bad - 1][j] for j in idx]} (oracle's row {i}: {[y[j] for j in idx]})"]
    return []


def output_index(key, cols):
    """The output column an ORDER BY key names (its name or its 1-based position), or None."""
    if key in cols:
        return cols.index(key)
    if re.fullmatch(r"\d+", key) and 1 <= int(key) <= len(cols):
        return int(key) - 1
    return None


def out_of_order(rows, idx, descending):
    """The first row (> 0) that does not follow its predecessor in the order of columns `idx` (NULLs
    last in both directions, equal values tie), or None."""
    def before(x, y, desc):  # x strictly before y
        if x is None or y is None:
            return y is None and x is not None
        if isinstance(x, (int, float, decimal.Decimal)) and isinstance(y, (int, float, decimal.Decimal)):
            x, y = float(x), float(y)
        return x > y if desc else x < y
    for r in range(1, len(rows)):
        for j, desc in zip(idx, descending):
            u, v = rows[r - 1][j], rows[r][j]
            if (u is None and v is None) or (u is not None and v is not None and not before(u, v, desc) and not before(v, u, desc)):
                continue
            if not before(u, v, desc):
                return r
            break
    return None


def mpirun(ranks):
    """The launcher of a distributed run of `ranks` processes (Open MPI's mpirun; more ranks than cores
    allowed, and as root, which CI is)."""
    return ["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", str(ranks)]


def run_horseqc(bin_dir, benchmark, queries, options, save=None, launcher=()):
    """Runs `[LAUNCHER] horseqc-run BENCHMARK QUERIES... --format json --quiet OPTIONS`; returns its JSON
    output (a query horseqc does not support carries "unsupported"), or None after printing why it failed."""
    run = subprocess.run([*launcher, os.path.join(bin_dir, "horseqc-run"), benchmark, *queries, "--format", "json", "--quiet",
                          *options], capture_output=True, text=True)
    if run.returncode == 4 and not run.stdout.strip() and len(queries) == 1:
        # One query alone: horseqc-run exits with the error instead of a JSON entry.
        run.stdout = json.dumps({"device": "(none)", "queries": [{"query": queries[0], "unsupported": run.stderr.strip()}]})
    if run.returncode not in (0, 4) or not run.stdout.strip():
        print(run.stderr, file=sys.stderr)
        return None
    if save:
        os.makedirs(os.path.dirname(save), exist_ok=True)
        with open(save, "w") as f:
            f.write(run.stdout)
    return json.loads(run.stdout)


def check_run(label, out, oracle, allow_unsupported=False):
    """Compares horseqc's output `out` with `oracle` {query: (sql, columns, rows)}, printing a line per
    query. Returns (failures, unsupported queries)."""
    failures, unsupported = [], []
    print(f"{label}: {out['device']}")
    ours = {q["query"]: q for q in out["queries"]}
    for q, (sql, cols, rows) in oracle.items():
        if q not in ours:
            failures.append(f"{label} {q}: missing from horseqc's output")
        elif "unsupported" in ours[q]:
            print(f"{label} {q}: UNSUPPORTED: {ours[q]['unsupported']}")
            unsupported.append(q)
            if not allow_unsupported:
                failures.append(f"{label} {q}: unsupported: {ours[q]['unsupported']}")
        else:
            errs = compare(f"{label} {q}", sql, ours[q], cols, rows)
            failures += errs
            print(f"{label} {q}: {'OK' if not errs else 'MISMATCH'} ({len(rows)} rows)")
    return failures, unsupported


def run_cli(bin_dir, *args, expect=0):
    """Runs `horseqc-run ARGS...`; raises AssertionError unless it exits with `expect`."""
    p = subprocess.run([os.path.join(bin_dir, "horseqc-run"), *args], capture_output=True, text=True)
    if p.returncode != expect:
        raise AssertionError(f"horseqc-run {' '.join(args)}: exit {p.returncode}, expected {expect}\n{p.stderr[-3000:]}")
    return p


def rows_by_query(doc):
    """{query: (columns, rows)} of a horseqc-run --format json document."""
    return {q["query"]: (q["columns"], q["rows"]) for q in doc["queries"]}


def cli_test_args():
    """--bin BUILD/bin --work DIR: what every command-line test takes."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True)
    return ap.parse_args()


class CliChecks:
    """The expectations of one command-line test: calling it with (condition, what) records and
    prints a failure (and, when verbose, a pass); finish() prints the verdict and returns the exit
    status."""

    def __init__(self, name, verbose=False):
        self.name, self.verbose, self.failures = name, verbose, []

    def __call__(self, cond, what):
        if not cond:
            self.failures.append(what)
            print("FAIL:", what)
        elif self.verbose:
            print("ok:", what)

    def finish(self):
        print(f"{self.name}:", "FAILED" if self.failures else "ok", f"({len(self.failures)} failure(s))")
        return 1 if self.failures else 0

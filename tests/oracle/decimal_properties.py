#!/usr/bin/env python3
"""Property test of decimal arithmetic and comparison against Python's `decimal` (exact).

A TPC-H data set whose lineitem carries random decimal(15,2) values — small ones, and ones near the
column's 13 integer digits, so that products and raised scales leave 64 bits — and random integers
(the other seven tables are the fixtures of tests/data/tpch). Random expressions over those columns
and decimal literals of random scales (0 to 10 fractional digits, trailing zeros included, `.5`
without a leading zero, constant sub-expressions) with + - *, and random comparisons between
expressions of different scales, run through horseqc-run (OpenCL on PoCL) with and without
statistics. For every row Python computes each node's exact value and the scale horseqc gives it
(docs/sql.md "Decimal arithmetic"): + and - at the larger scale, * at the sum, a literal at the scale
of its last nonzero digit.

The property: horseqc's answer is exactly Python's; or horseqc refuses with exit 4 and a message
naming an overflow or the 18-digit scale limit, and Python confirms a live row where some value (or
an operand raised to the larger scale) leaves int64 at its scale, or a scale above 18. A SUM itself
never justifies a refusal: 128 bits hold any sum of these rows (integer sums included). A different
answer, any other failure, or a refusal Python cannot justify fails the test.

usage: decimal_properties.py --bin BUILD/bin --work DIR [--seed N] [--cases N] [--device opencl]
"""
import argparse
import decimal
import json
import os
import random
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "tests", "data", "tpch")
INT64_MAX = 2**63 - 1
decimal.getcontext().prec = 200  # every value here is exact
D = decimal.Decimal

# lineitem's numeric columns as horseqc types them: name -> scale (l_linenumber is int32).
COLUMNS = {"l_quantity": 2, "l_extendedprice": 2, "l_discount": 2, "l_tax": 2, "l_linenumber": 0}


def random_decimal(rng, big):
    """A decimal(15,2) value: small, or near the column's limit when `big`."""
    digits = rng.randint(10, 13) if big else rng.randint(0, 4)
    whole = rng.randint(0, 10**digits - 1)
    return D(rng.choice([1, -1]) * (whole * 100 + rng.randint(0, 99))).scaleb(-2)


def write_data(path, rng, rows):
    """The fixtures' tables, lineitem replaced by `rows` random rows; returns {column: [values]}."""
    os.makedirs(path, exist_ok=True)
    for name in os.listdir(FIXTURES):
        if name.endswith(".tbl") and name != "lineitem.tbl":
            shutil.copy(os.path.join(FIXTURES, name), path)
    values = {c: [] for c in COLUMNS}
    lines = []
    for i in range(rows):
        big = rng.random() < 0.1
        row = {c: random_decimal(rng, big) for c in ("l_quantity", "l_extendedprice", "l_discount", "l_tax")}
        row["l_linenumber"] = D(rng.randint(-2**31, 2**31 - 1) if big else rng.randint(-50, 50))
        for c in COLUMNS:
            values[c].append(row[c])
        lines.append(f"{i + 1}|1|1|{row['l_linenumber']}|{row['l_quantity']}|{row['l_extendedprice']}|{row['l_discount']}|"
                     f"{row['l_tax']}|N|O|1996-03-13|1996-02-12|1996-03-22|NONE|MAIL|c{i}|\n")
    with open(os.path.join(path, "lineitem.tbl"), "w") as f:
        f.writelines(lines)
    for cache in os.listdir(path):  # stale columnar caches of an earlier data set
        if cache.endswith(".hqc"):
            os.remove(os.path.join(path, cache))
    return values


class Node:
    """An expression: its SQL text, its sub-expressions, and evaluate(row) -> (exact value, horseqc's
    scale, [(operand value, the larger scale)] for the operands + and - raise)."""

    def __init__(self, sql, evaluate, constant, children=()):
        self.sql, self.evaluate, self.constant, self.children = sql, evaluate, constant, list(children)


def literal(rng, ints=False):
    scale = 0 if ints else rng.randint(0, 10)
    unscaled = rng.choice([rng.randint(0, 99), rng.randint(0, 10**6), rng.randint(0, 10**rng.randint(1, 12))])
    v = D(unscaled).scaleb(-scale)
    text = f"{v:f}" if scale else str(unscaled)
    if scale and rng.random() < 0.3:
        text += "0" * rng.randint(1, 4)  # trailing zeros: the value's scale is still its last nonzero digit
    if text.startswith("0.") and rng.random() < 0.3:
        text = text[1:]  # .5
    exact = D(text)
    norm = exact.normalize()
    lit_scale = max(0, -norm.as_tuple().exponent) if "." in text else 0
    return Node(text, lambda row, v=exact, s=lit_scale: (v, s, []), True)


def column(rng, ints=False):
    name = "l_linenumber" if ints else rng.choice(list(COLUMNS))
    return Node(name, lambda row, n=name: (row[n], COLUMNS[n], []), False)


def expression(rng, depth, ints=False):
    """A random expression; `ints`: integers only (l_linenumber and integer literals)."""
    if depth == 0 or rng.random() < 0.3:
        return literal(rng, ints) if rng.random() < 0.3 else column(rng, ints)
    op = rng.choice("+-*")
    a, b = expression(rng, depth - 1, ints), expression(rng, depth - 1, ints)

    def evaluate(row, a=a, b=b, op=op):
        (x, sx, _), (y, sy, _) = a.evaluate(row), b.evaluate(row)
        if op == "*":
            return x * y, sx + sy, []
        s = max(sx, sy)
        # The lower-scale operand is raised to the larger scale: that value must fit as well.
        return (x + y if op == "+" else x - y), s, [(x, s), (y, s)]
    return Node(f"({a.sql} {op} {b.sql})", evaluate, a.constant and b.constant, [a, b])


def leaves_int64(node_values):
    """Whether any (value, scale) leaves int64 at its scale or has a scale above 18."""
    for v, s in node_values:
        if s > 18 or abs(v.scaleb(s)) > INT64_MAX:
            return True
    return False


def run(bin_dir, data, sql, device, extra):
    p = subprocess.run([os.path.join(bin_dir, "horseqc-run"), "tpch", "--data", data, "--device", device, "--format", "json",
                        "--quiet", "--sql", sql, *extra], capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=60)
    ap.add_argument("--rows", type=int, default=200)
    ap.add_argument("--device", default="opencl")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    data = os.path.join(args.work, f"decimal-properties-seed{args.seed}")
    values = write_data(data, rng, args.rows)
    rows = [{c: values[c][i] for c in COLUMNS} for i in range(args.rows)]

    counts = {"exact": 0, "refused": 0}
    failures = []
    for case in range(args.cases):
        extra = ["--no-statistics"] if case % 2 else []
        kind = rng.choice(["value", "compare", "sum", "integer sum"])
        ints = kind == "integer sum"
        e = expression(rng, rng.randint(1, 3), ints)
        while e.constant:
            e = expression(rng, rng.randint(1, 3), ints)
        f = expression(rng, rng.randint(0, 2))
        cmp = rng.choice(["<", "<=", ">", ">=", "=", "<>"])
        if kind == "value":
            sql = f"select l_orderkey, {e.sql} as v from lineitem order by l_orderkey"
        elif kind == "compare":
            sql = f"select count(*) as n from lineitem where {e.sql} {cmp} {f.sql}"
        elif kind == "integer sum":  # 64-bit products of int32 columns whose sum leaves 64 bits
            sql = f"select sum({e.sql}) as v, count(*) as n from lineitem"
        else:
            sql = f"select sum({e.sql}) as v from lineitem"
        code, out, err = run(args.bin, data, sql, args.device, extra)
        # What Python says, and whether a refusal would be justified.
        overflow = False
        expected = None
        if kind == "value":
            expected = [e.evaluate(r)[0] for r in rows]
            overflow = any(leaves_int64(tree_values(e, r)) for r in rows)
        elif kind == "compare":
            ops = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
                   ">=": lambda a, b: a >= b, "=": lambda a, b: a == b, "<>": lambda a, b: a != b}
            expected = sum(1 for r in rows if ops[cmp](e.evaluate(r)[0], f.evaluate(r)[0]))
            overflow = any(leaves_int64(tree_values(e, r)) or leaves_int64(tree_values(f, r)) for r in rows)
        else:
            expected = sum((e.evaluate(r)[0] for r in rows), D(0))
            overflow = any(leaves_int64(tree_values(e, r)) for r in rows)
        label = f"case {case} ({'no statistics' if extra else 'statistics'}): {sql}"
        if code == 4:
            message = (err + out).lower()
            justified = overflow and ("overflow" in message or "exceeds 18" in message or "18 digits" in message or
                                      "fractional digits" in message)
            if justified:
                counts["refused"] += 1
            else:
                failures.append(f"{label}: refused without an overflow Python confirms ({overflow=}): {(err or out).strip()[:300]}")
            continue
        if code != 0:
            failures.append(f"{label}: exit {code}: {err.strip()[:300]}")
            continue
        result = json.loads(out)["queries"][0]
        got_rows = result["rows"]
        if kind == "value":
            got = [D(str(r[1])) for r in got_rows]
            bad = [(i, g, x) for i, (g, x) in enumerate(zip(got, expected)) if g != x]
            if len(got) != len(expected) or bad:
                failures.append(f"{label}: {len(got)} rows (expected {len(expected)}); first difference "
                                f"{bad[0] if bad else None} (row, horseqc, exact)")
                continue
        elif kind == "compare":
            if int(got_rows[0][0]) != expected:
                failures.append(f"{label}: count {got_rows[0][0]}, exact {expected}")
                continue
        else:
            got = D(str(got_rows[0][0]))
            if got != expected:
                failures.append(f"{label}: sum {got}, exact {expected}")
                continue
        counts["exact"] += 1
    print(f"decimal properties, seed {args.seed}: {counts['exact']} exact, {counts['refused']} refused with a confirmed overflow, "
          f"{len(failures)} failures")
    for f in failures:
        print("FAIL", f, file=sys.stderr)
    return 1 if failures else 0


def tree_values(node, row):
    """(value, scale) of `node` and of every intermediate under it (raised operands included); a
    constant sub-expression only by its folded result."""
    out = []

    def walk(n):
        v, s, raised = n.evaluate(row)
        out.append((v, s))
        if n.constant:
            return
        out.extend(raised)
        for child in n.children:
            walk(child)
    walk(node)
    return out


if __name__ == "__main__":
    sys.exit(main())

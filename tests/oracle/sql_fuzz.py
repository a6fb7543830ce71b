#!/usr/bin/env python3
"""Differential SQL fuzzer (SQLsmith / SQLancer style): random queries over the TPC-H schema, run
through horseqc-run (`--device opencl`, PoCL in CI) and through DuckDB (the oracle) on the same .tbl
files (tests/oracle/tpch_queries.py makes and loads them); results compared by
tests/oracle/query_oracle.py's compare() (rows as a multiset, then the ORDER BY keys in order).

The generator uses only what docs/sql.md says horseqc supports: joins along primary / foreign keys
(comma joins with equalities, JOIN ... ON, CROSS JOIN with the keys in WHERE, self joins, a few
many-to-many key joins), filters (comparisons with literals sampled from the data, BETWEEN, IN lists,
LIKE / NOT LIKE with literal patterns, SUBSTRING, the string functions upper / lower / trim / length /
position / replace / || and ILIKE in the shapes docs/sql.md supports, AND / OR / NOT, date literals and
`date 'x' + interval 'n' day|month|year`, `date_column + interval 'n' day`), arithmetic (+ - * with
integer and decimal literals of random scales), ROUND of integers and decimals, CASE WHEN, EXTRACT
(year, quarter, month, day, dow, doy), date_trunc group keys, integer columns modulo a literal,
decimal columns cast to an integer or a smaller scale, aggregates (sum, count, count(*), min,
max, avg, count(DISTINCT x)), GROUP BY (expressions, positions, aliases) / HAVING, EXISTS / IN /
scalar subqueries in WHERE (correlated by key equalities or not; now and then over no rows, or
under IS [NOT] NULL, COALESCE, OR, NOT (... AND ...) or CASE, where a NULL value or a COUNT's 0
must still be tested), derived tables in FROM and WITH,
ORDER BY over all output columns (always with LIMIT), now and then after a first key the select list
does not show (a column, group key or aggregate), LIMIT and OFFSET; one query in ten a UNION [ALL] /
INTERSECT / EXCEPT of two or three operands of matching types (alone, or as a derived table that is
grouped and aggregated), whose columns may be NULL now and then (operands over a LEFT JOIN, their
aggregates, also without GROUP BY over no rows; booleans; CAST(NULL AS type) and bare NULL items);
LEFT JOINs (docs/sql.md "NULLs"), now and then a derived table or WITH query over one whose NULL-able
values (computed, boolean, aggregated with or without GROUP BY) an enclosing query groups and counts,
and FULL JOINs of tables and filtered subqueries (gen_full_join). Query i of seed S is a function of
(S, i) and the data alone: `--seed S --only i` replays it (unless DuckDB needed more than ORACLE_SECONDS
for a draw of it on one machine and not on another: such a draw is dropped like one DuckDB rejects).

Outcomes: match; refused (exit 4 with a message: acceptable, counted by message); MISMATCH (different
results) and CRASH (any other exit code, a signal, a timeout twice in a row, unreadable output, exit 4
without a message) are failures. A horseqc-run killed past its time limit has its thread stacks (gdb)
printed and written to WORK/hang-PID.txt first; a query whose second run finishes is judged by that run,
and its hang is printed and kept in the report's "hangs". Each failure is printed with its seed, index and query, then reduced by delta
debugging (dropping LIMIT / ORDER BY, HAVING and WHERE conjuncts, select items, GROUP BY keys, tables,
subquery conjuncts; replacing expressions by their operands) while the same kind of failure persists,
and the smallest failing text is printed. Exit status 0 only without mismatches and crashes.

`--benchmark ssb` generates over the Star Schema Benchmark instead (horseqc-gen's data, loaded into
DuckDB by tests/oracle/ssb_schema.py). Cost: nearly every query compiles new kernels; on PoCL that is
most of the ~2 s a query takes (`--opt-disable` builds without optimization, about twice as fast, but
misses failures only optimized kernels show, and keeps its kernels in a cache directory of their own).

usage: sql_fuzz.py --bin BUILD/bin --work DIR [--benchmark tpch|ssb] [--seed N] [--queries N] [--sf 0.01]
                   [--time-budget S] [--jobs N] [--report FILE] [--only I]... [--sql TEXT] [--timeout S]
                   [--reduce-time S] [--reduce-total S] [--no-reduce] [--opt-disable] [--dry-run] [--verbose]
                   [--stack-dump-after S]
"""
import argparse
import collections
import concurrent.futures
import copy
import datetime
import decimal
import faulthandler
import json
import os
import random
import re
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from query_oracle import compare  # noqa: E402
from ssb_schema import load_ssb  # noqa: E402
from tpch_queries import make_data, oracle_connection  # noqa: E402

D = decimal.Decimal

# ---------------------------------------------------------------------------------------------------
# Schema: (column, kind, key domain). Kinds: key (identifier, joins within its domain), int, dec,
# date, dict (few distinct strings), heap (free text). The first key column of a table whose domain
# is the table's own is its primary key (partsupp and lineitem have composite keys: none).
# ---------------------------------------------------------------------------------------------------
TPCH = {
    "region": [("r_regionkey", "key", "region"), ("r_name", "dict", None), ("r_comment", "heap", None)],
    "nation": [("n_nationkey", "key", "nation"), ("n_name", "dict", None), ("n_regionkey", "key", "region"),
               ("n_comment", "heap", None)],
    "supplier": [("s_suppkey", "key", "supp"), ("s_name", "heap", None), ("s_address", "heap", None),
                 ("s_nationkey", "key", "nation"), ("s_phone", "heap", None), ("s_acctbal", "dec", None),
                 ("s_comment", "heap", None)],
    "customer": [("c_custkey", "key", "cust"), ("c_name", "heap", None), ("c_address", "heap", None),
                 ("c_nationkey", "key", "nation"), ("c_phone", "heap", None), ("c_acctbal", "dec", None),
                 ("c_mktsegment", "dict", None), ("c_comment", "heap", None)],
    "part": [("p_partkey", "key", "part"), ("p_name", "heap", None), ("p_mfgr", "dict", None),
             ("p_brand", "dict", None), ("p_type", "dict", None), ("p_size", "int", None),
             ("p_container", "dict", None), ("p_retailprice", "dec", None), ("p_comment", "heap", None)],
    "partsupp": [("ps_partkey", "key", "part"), ("ps_suppkey", "key", "supp"), ("ps_availqty", "int", None),
                 ("ps_supplycost", "dec", None), ("ps_comment", "heap", None)],
    "orders": [("o_orderkey", "key", "order"), ("o_custkey", "key", "cust"), ("o_orderstatus", "dict", None),
               ("o_totalprice", "dec", None), ("o_orderdate", "date", None), ("o_orderpriority", "dict", None),
               ("o_clerk", "heap", None), ("o_shippriority", "int", None), ("o_comment", "heap", None)],
    "lineitem": [("l_orderkey", "key", "order"), ("l_partkey", "key", "part"), ("l_suppkey", "key", "supp"),
                 ("l_linenumber", "int", None), ("l_quantity", "dec", None), ("l_extendedprice", "dec", None),
                 ("l_discount", "dec", None), ("l_tax", "dec", None), ("l_returnflag", "dict", None),
                 ("l_linestatus", "dict", None), ("l_shipdate", "date", None), ("l_commitdate", "date", None),
                 ("l_receiptdate", "date", None), ("l_shipinstruct", "dict", None), ("l_shipmode", "dict", None),
                 ("l_comment", "heap", None)],
}
PRIMARY = {"region": "r_regionkey", "nation": "n_nationkey", "supplier": "s_suppkey", "customer": "c_custkey",
           "part": "p_partkey", "orders": "o_orderkey"}
PREFIX = {"region": "r", "nation": "n", "supplier": "s", "customer": "c", "part": "p", "partsupp": "ps",
          "orders": "o", "lineitem": "l"}
TABLE_WEIGHTS = {"lineitem": 5, "orders": 4, "customer": 3, "part": 3, "partsupp": 2, "supplier": 2,
                 "nation": 2, "region": 1}
# The Star Schema Benchmark (horseqc-gen ssb; tests/oracle/ssb_schema.py loads it into DuckDB). Its
# dates are integer keys into `date`; lo_orderkey has no table of its own (self joins only).
SSB = {
    "lineorder": [("lo_orderkey", "key", "lorder"), ("lo_linenumber", "int", None), ("lo_custkey", "key", "cust"),
                  ("lo_partkey", "key", "part"), ("lo_suppkey", "key", "supp"), ("lo_orderdate", "key", "date"),
                  ("lo_orderpriority", "dict", None), ("lo_shippriority", "dict", None), ("lo_quantity", "int", None),
                  ("lo_extendedprice", "int", None), ("lo_ordtotalprice", "int", None), ("lo_discount", "int", None),
                  ("lo_revenue", "int", None), ("lo_supplycost", "int", None), ("lo_tax", "int", None),
                  ("lo_commitdate", "key", "date"), ("lo_shipmode", "dict", None)],
    "part": [("p_partkey", "key", "part"), ("p_name", "heap", None), ("p_mfgr", "dict", None),
             ("p_category", "dict", None), ("p_brand1", "dict", None), ("p_color", "dict", None),
             ("p_type", "dict", None), ("p_size", "int", None), ("p_container", "dict", None)],
    "supplier": [("s_suppkey", "key", "supp"), ("s_name", "heap", None), ("s_address", "heap", None),
                 ("s_city", "dict", None), ("s_nation", "dict", None), ("s_region", "dict", None),
                 ("s_phone", "heap", None)],
    "customer": [("c_custkey", "key", "cust"), ("c_name", "heap", None), ("c_address", "heap", None),
                 ("c_city", "dict", None), ("c_nation", "dict", None), ("c_region", "dict", None),
                 ("c_phone", "heap", None), ("c_mktsegment", "dict", None)],
    "date": [("d_datekey", "key", "date"), ("d_date", "heap", None), ("d_dayofweek", "dict", None),
             ("d_month", "dict", None), ("d_year", "int", None), ("d_yearmonthnum", "int", None),
             ("d_yearmonth", "dict", None), ("d_daynuminweek", "int", None), ("d_daynuminmonth", "int", None),
             ("d_daynuminyear", "int", None), ("d_monthnuminyear", "int", None), ("d_weeknuminyear", "int", None),
             ("d_sellingseason", "dict", None), ("d_lastdayinweekfl", "int", None),
             ("d_lastdayinmonthfl", "int", None), ("d_holidayfl", "int", None), ("d_weekdayfl", "int", None)],
}
BENCHMARKS = {
    "tpch": (TPCH, PRIMARY, PREFIX, TABLE_WEIGHTS),
    "ssb": (SSB, {"part": "p_partkey", "supplier": "s_suppkey", "customer": "c_custkey", "date": "d_datekey"},
            {"lineorder": "lo", "part": "p", "supplier": "s", "customer": "c", "date": "dt"},
            {"lineorder": 6, "part": 2, "supplier": 2, "customer": 2, "date": 2}),
}


def use_benchmark(name):
    """Points the generator's schema tables (TPCH, PRIMARY, PREFIX, TABLE_WEIGHTS) at benchmark `name`."""
    global TPCH, PRIMARY, PREFIX, TABLE_WEIGHTS
    TPCH, PRIMARY, PREFIX, TABLE_WEIGHTS = BENCHMARKS[name]


TYP = {"key": "int", "int": "int", "dec": "dec", "float": "float", "date": "date", "dict": "str", "heap": "str", "bool": "bool"}
NUMERIC = ("int", "dec", "float")
MAX_JOIN_ROWS = 400000  # estimated rows a join may make at SF 0.01 (kept small: PoCL runs on the CPU)


# The kind of a derived column from its expression's typ (a computed string is compared like a
# dictionary value: few distinct strings).
KIND_OF_TYP = {"int": "int", "dec": "dec", "float": "float", "date": "date", "str": "dict", "bool": "bool"}


class Col:
    """A column in scope: name, kind, key domain, primary key?, scale and profile of its values."""

    def __init__(self, name, kind, domain=None, pk=False, scale=0, prof=None):
        self.name, self.kind, self.domain, self.pk, self.scale, self.prof = name, kind, domain, pk, scale, prof or {}


# ---------------------------------------------------------------------------------------------------
# Syntax: expressions and queries, pure data (reduction copies and edits them; rendering is a
# function of them alone).
# ---------------------------------------------------------------------------------------------------
class E:
    """An expression. A leaf has `text`; an inner node a format string over its kids ({0}, {1}, ...) and
    a subquery ({S}). typ: int dec float date str bool; refs: aliases a leaf (or a correlated
    subquery) reads; agg: an aggregate call; scale/bound: decimal scale and bound of |value|."""

    def __init__(self, fmt=None, kids=(), typ="bool", refs=(), agg=False, sub=None, text=None, scale=0, bound=0.0):
        self.fmt, self.kids, self.typ, self.refs, self.agg, self.sub = fmt, list(kids), typ, frozenset(refs), agg, sub
        self.text, self.scale, self.bound = text, scale, bound

    def sql(self):
        if self.text is not None:
            return self.text
        return self.fmt.format(*[k.sql() for k in self.kids], S=self.sub.sql() if self.sub is not None else "")

    def all_refs(self):
        r = set(self.refs)
        for k in self.kids:
            r |= k.all_refs()
        return r

    def has_agg(self):
        return self.agg or any(k.has_agg() for k in self.kids)


def leaf(text, typ, refs=(), scale=0, bound=0.0):
    return E(text=text, typ=typ, refs=refs, scale=scale, bound=bound)


class Item:
    """A FROM item: a table, or a derived table (inline or as a WITH entry)."""

    def __init__(self, alias, table=None, sub=None, cte=False, left=False, full=False):
        self.alias, self.table, self.sub, self.cte = alias, table, sub, cte
        self.left, self.on = left, []  # LEFT JOIN; its ON filters on itself (TPC-H Q13's shape)
        self.full = full  # FULL JOIN (gen_full_join): its ON the key equality alone

    def sql(self):
        if self.sub is None:
            return f"{self.table} {self.alias}"
        return self.alias if self.cte else f"({self.sub.sql()}) as {self.alias}"


class Query:
    def __init__(self):
        self.items, self.joins, self.where, self.select = [], [], [], []
        self.group, self.group_style, self.having, self.order = [], [], [], []
        self.limit, self.style, self.on_filters, self.perm = None, "comma", False, 0
        self.offset = None  # OFFSET (with a LIMIT and an ORDER BY that leaves no ties among distinct rows)
        self.star = False  # SELECT * (EXISTS subqueries)
        self.nullable = False  # a set operand whose columns may be NULL (gen_left_operand, null_items)

    def sql(self):
        out = []
        ctes = [it for it in self.items if it.sub is not None and it.cte]
        if ctes:
            out.append("with " + ", ".join(f"{it.alias} as ({it.sub.sql()})" for it in ctes))
        sel = "*" if self.star else ", ".join(f"{e.sql()} as {a}" if a else e.sql() for e, a in self.select)
        out.append(f"select {sel}")
        conds = []
        if self.style == "comma" or len(self.items) == 1:
            out.append("from " + ", ".join(it.sql() for it in self.items))
            conds = self.joins + self.where
            if self.perm:
                random.Random(self.perm).shuffle(conds)
        else:
            text, avail, used, moved = self.items[0].sql(), {self.items[0].alias}, set(), set()
            for it in self.items[1:]:
                avail.add(it.alias)
                on = [j for j in self.joins if id(j) not in used and it.alias in j.all_refs() and j.all_refs() <= avail]
                used |= {id(j) for j in on}
                if on and self.on_filters:
                    extra = [w for w in self.where if w.all_refs() == {it.alias} and not w.has_agg()]
                    on += extra
                    moved |= {id(w) for w in extra}
                on += it.on
                kind = "full join" if it.full else "left join" if it.left else "join"
                text += f" {kind} {it.sql()} on {' and '.join(c.sql() for c in on)}" if on else f" cross join {it.sql()}"
            out.append("from " + text)
            conds = [j for j in self.joins if id(j) not in used] + [w for w in self.where if id(w) not in moved]
        if conds:
            out.append("where " + " and ".join(c.sql() for c in conds))
        if self.group:
            keys = []
            sel_sql = [e.sql() for e, _ in self.select]
            for k, st in zip(self.group, self.group_style):
                ks = k.sql()
                if st == "pos" and ks in sel_sql:
                    keys.append(str(sel_sql.index(ks) + 1))
                elif st == "alias" and ks in sel_sql and self.select[sel_sql.index(ks)][1]:
                    keys.append(self.select[sel_sql.index(ks)][1])
                else:
                    keys.append(ks)
            out.append("group by " + ", ".join(keys))
        if self.having:
            out.append("having " + " and ".join(h.sql() for h in self.having))
        if self.order:
            out.append("order by " + ", ".join(a + (" desc" if d else "") for a, d in self.order))
        if self.limit is not None:
            out.append(f"limit {self.limit}")
        if self.offset is not None and self.limit is not None:  # (operands and reductions drop the LIMIT)
            out.append(f"offset {self.offset}")
        return " ".join(out)


class SetQuery:
    """Operands combined by `op` (union all, union, intersect, except); the output columns are the
    left operand's names. Operands carry no ORDER BY / LIMIT; the whole may."""

    def __init__(self, op, left, right):
        self.op, self.left, self.right = op, left, right
        self.order, self.limit, self.offset = [], None, None
        self.items = []  # no FROM items of its own (generate() asks)

    @property
    def select(self):
        return self.left.select

    def sql(self):
        right = f"({self.right.sql()})" if isinstance(self.right, SetQuery) else self.right.sql()
        out = [f"{self.left.sql()} {self.op} {right}"]
        if self.order:
            out.append("order by " + ", ".join(a + (" desc" if d else "") for a, d in self.order))
        if self.limit is not None:
            out.append(f"limit {self.limit}")
        if self.offset is not None and self.limit is not None:  # (operands and reductions drop the LIMIT)
            out.append(f"offset {self.offset}")
        return " ".join(out)


def unqualified(e):
    """An expression's text without its table aliases: equal texts mean equal types."""
    return re.sub(r"\b[a-z]+\d+\.", "", e.sql())


def set_compatible(left, right, op):
    """Can `right` be `left`'s operand: as many columns, numbers with numbers (floats only under UNION
    ALL: equality of computed doubles differs between engines), dates with dates, and strings only
    from the same expression (one dictionary, one heap table)."""
    if len(left.select) != len(right.select):
        return False
    for (a, _), (b, _) in zip(left.select, right.select):
        if "float" in (a.typ, b.typ) and op != "union all":
            return False
        if a.typ in NUMERIC and b.typ in NUMERIC:
            if "dec" in (a.typ, b.typ) and a.scale != b.scale:
                # DuckDB's type of a DECIMAL(38, s) (a SUM) and a decimal of a larger scale keeps scale
                # s and rounds the other side (seed 1010 TPC-H 2204): only equal scales are combined.
                return False
            continue
        if a.typ != b.typ or (a.typ == "str" and unqualified(a) != unqualified(b)):
            return False
    return True


# ---------------------------------------------------------------------------------------------------
# Data profile: sampled values of every column (literals come from the data, so filters select rows).
# ---------------------------------------------------------------------------------------------------
def spread(values, n):
    """Up to n values spread evenly over the sorted list `values`."""
    if len(values) <= n:
        return list(values)
    return [values[int(i * (len(values) - 1) / (n - 1))] for i in range(n)]


def profile_column(con, from_sql, expr, kind):
    """{vals, lo, hi, maxabs, ndv, words, strs} of `expr` over `from_sql`."""
    vals = [r[0] for r in con.execute(f"select distinct {expr} from {from_sql} order by 1").fetchall() if r[0] is not None]
    if kind == "date":  # DuckDB's date + interval is a timestamp (a derived column of one): its dates
        vals = sorted({v.date() if isinstance(v, datetime.datetime) else v for v in vals})
    p = {"ndv": len(vals), "vals": spread(vals, 120)}
    if vals and kind in ("key", "int", "dec", "float"):
        p["lo"], p["hi"] = vals[0], vals[-1]
        p["maxabs"] = float(max(abs(vals[0]), abs(vals[-1])))
    if kind == "heap":
        strs = spread(vals, 200)
        words = sorted({w for s in strs for w in re.findall(r"[A-Za-z]{3,}", s)})
        p["words"], p["strs"] = words, strs
    return p


def build_profile(con):
    prof, rows = {}, {}
    for t, cols in TPCH.items():
        rows[t] = con.execute(f"select count(*) from {t}").fetchone()[0]
        for name, kind, _ in cols:
            prof[(t, name)] = profile_column(con, t, name, kind)
    return prof, rows


# ---------------------------------------------------------------------------------------------------
# Literals
# ---------------------------------------------------------------------------------------------------
def sql_str(s):
    return "'" + s.replace("'", "''") + "'"


def num_literal(rng, v, typ):
    """A literal near value v: integers as integers, decimals at a random scale (0.05, 1.250, 100)."""
    if typ == "int" or (isinstance(v, int) and rng.random() < 0.7):
        x = int(v)
        return leaf(str(x), "int", bound=abs(x))
    d = D(str(v))
    scale = rng.choice([0, 1, 2, 2, 2, 3])
    d = d.quantize(D(1).scaleb(-scale)) if scale else d.quantize(D(1))
    text = f"{d:f}"
    if scale and rng.random() < 0.25:
        text += "0" * rng.randint(1, 2)  # trailing zeros: 1.250
    if scale == 0 and rng.random() < 0.5:
        return leaf(text, "int", bound=abs(float(d)))
    s = len(text.split(".")[1]) if "." in text else 0
    return leaf(text, "dec" if "." in text else "int", scale=s, bound=abs(float(d)))


def small_literal(rng):
    """A constant for arithmetic: 1, 2, 100, 0.05, 1.250, 0.5 ..."""
    text = rng.choice(["1", "2", "3", "10", "100", "0.05", "0.5", "1.250", "0.01", "1.1", "2.00", "0.2", "7", "1000"])
    s = len(text.split(".")[1]) if "." in text else 0
    return leaf(text, "dec" if s else "int", scale=s, bound=float(text))


def date_literal(rng, d, allow_interval=True):
    text = f"date '{d.isoformat()}'"
    if allow_interval and rng.random() < 0.3:
        unit = rng.choice(["day", "month", "year"])
        n = rng.choice({"day": [1, 7, 30, 90, 180], "month": [1, 3, 6, 12], "year": [1, 2]}[unit])
        text += f" {rng.choice(['+', '-'])} interval '{n}' {unit}"
    return leaf(text, "date")


def value_literal(rng, col, v):
    """A literal of col's type with value v."""
    t = TYP[col.kind]
    if t == "date":
        return date_literal(rng, v)
    if t == "str":
        return leaf(sql_str(v), "str")
    return num_literal(rng, v, t)


def mutate_string(rng, s):
    """A string near s that the column may not hold (dictionary code boundaries)."""
    r = rng.random()
    if r < 0.4 and len(s) > 1:
        return s[:rng.randint(1, len(s) - 1)]
    if r < 0.7:
        return s + rng.choice(["A", "Z", "#", " ", "0"])
    return s[:-1] + chr(min(126, ord(s[-1]) + 1)) if s else "A"


# ---------------------------------------------------------------------------------------------------
# The generator
# ---------------------------------------------------------------------------------------------------
CMP = ["=", "<>", "<", "<=", ">", ">="]


class Scope:
    """The FROM items of one query level: alias -> (columns, rows, text usable in a FROM)."""

    def __init__(self):
        self.cols, self.rows, self.from_sql, self.table = {}, {}, {}, {}
        self.filter = None  # the aliases refiltered() draws WHERE conjuncts over (None: all of them)

    def aliases(self):
        return list(self.cols)


class Gen:
    def __init__(self, con, prof, rows, rng, string_rng, null_rng=None, subquery_rng=None, operator_rng=None):
        self.con, self.prof, self.base_rows, self.rng = con, prof, rows, rng
        # String functions come from a stream of their own (as set operations do): a predicate that
        # draws none leaves the main stream, and so every other query of a seed, as it was.
        self.string_rng = string_rng
        # The shapes with NULL-able columns (LEFT JOIN set operands, NULL items of set operands,
        # derived tables of NULL-able values) are drawn from a stream of their own, and generated on it
        # (on_null_stream): a query that draws none is what it was before them.
        self.null_rng = null_rng or random.Random(0)
        self.null_n = 500  # alias numbers on the NULL stream (on_null_stream)
        # Where a WHERE scalar subquery's NULL value matters (scalar_in_context): a stream of its own;
        # so is whether an integer column is taken modulo a literal (gen_num).
        self.subquery_rng = subquery_rng or random.Random(0)
        self.operator_rng = operator_rng or random.Random(0)
        self.n = 0
        self.distinct = None  # the argument of this query level's DISTINCT aggregates

    def alias(self, prefix):
        self.n += 1
        return f"{prefix}{self.n}"

    def on_null_stream(self, f):
        """f() with every draw from the NULL stream (string functions from a stream seeded by it) and
        alias numbers from 500 on: the main and string streams and the alias numbers are left as they
        were, so what follows is what it would have been without f."""
        saved = self.rng, self.string_rng, self.n
        self.rng, self.string_rng, self.n = self.null_rng, random.Random(self.null_rng.random()), self.null_n
        try:
            return f()
        finally:
            self.null_n = self.n
            self.rng, self.string_rng, self.n = saved

    # -- FROM -----------------------------------------------------------------------------------
    def table_cols(self, t):
        return [Col(n, k, d, pk=(PRIMARY.get(t) == n), scale=2 if k == "dec" else 0, prof=self.prof[(t, n)])
                for n, k, d in TPCH[t]]

    def add_table(self, scope, q, t, prefix=None):
        a = self.alias(prefix or PREFIX[t])
        q.items.append(Item(a, table=t))
        scope.cols[a], scope.rows[a], scope.from_sql[a], scope.table[a] = self.table_cols(t), self.base_rows[t], f"{t} {a}", t
        return a

    def add_derived(self, scope, q, sub, cols, cte):
        a = self.alias("d")
        q.items.append(Item(a, sub=sub, cte=cte))
        from_sql = f"({sub.sql()}) as {a}"
        n = self.con.execute(f"select count(*) from {from_sql}").fetchone()[0]
        for c in cols:
            c.prof = profile_column(self.con, from_sql, f"{a}.{c.name}", c.kind)
        scope.cols[a], scope.rows[a], scope.from_sql[a], scope.table[a] = cols, n, from_sql, None
        return a

    def key_cols(self, scope, a):
        return [c for c in scope.cols[a] if c.kind == "key" and c.domain]

    def ndv(self, scope, a, c):
        return max(1, c.prof.get("ndv", 1))

    def gen_from(self, scope, q, n_items, allow_derived=True):
        rng = self.rng
        start = rng.choices(list(TABLE_WEIGHTS), weights=list(TABLE_WEIGHTS.values()))[0]
        if allow_derived and rng.random() < 0.08:
            a = self.gen_derived(scope, q, rng.choice(sorted({d for t, cols in TPCH.items() for n, k, d in cols
                                                              if PRIMARY.get(t) == n and t != "region"})))
        else:
            a = self.add_table(scope, q, start)
        est = scope.rows[a]
        for _ in range(n_items - 1):
            options = []
            for x in scope.aliases():
                for c in self.key_cols(scope, x):
                    for t, cols in TPCH.items():
                        for n, k, d in cols:
                            if d != c.domain or k != "key":
                                continue
                            tpk = PRIMARY.get(t) == n
                            if tpk and c.pk and rng.random() > 0.2:
                                continue  # a table joined with itself on its primary key: now and then
                            if not (tpk or c.pk):
                                # a many-to-many key join: rare, and only when small
                                if rng.random() > 0.15:
                                    continue
                            grow = self.base_rows[t] / max(self.ndv(scope, x, c), self.prof[(t, n)]["ndv"])
                            if est * max(grow, 1.0) > MAX_JOIN_ROWS:
                                continue
                            options.append((x, c, t, n, tpk))
            if not options:
                break
            x, c, t, n, tpk = rng.choice(options)
            if allow_derived and rng.random() < 0.12 and t != "region":
                b = self.gen_derived(scope, q, c.domain)
                bc = self.key_cols(scope, b)[0]
                q.joins.append(E("{0} = {1}", [self.colref(x, c), self.colref(b, bc)]))
                est = est * max(1.0, scope.rows[b] / max(self.ndv(scope, x, c), bc.prof.get("ndv", 1)))
                continue
            b = self.add_table(scope, q, t)
            bc = next(cc for cc in scope.cols[b] if cc.name == n)
            pair = [self.colref(x, c), self.colref(b, bc)]
            if rng.random() < 0.5:
                pair.reverse()
            q.joins.append(E("{0} = {1}", pair))
            # lineitem - partsupp: the composite key (Q9) most of the time
            other = {"l_partkey": ("l_suppkey", "ps_suppkey"), "l_suppkey": ("l_partkey", "ps_partkey"),
                     "ps_partkey": ("ps_suppkey", "l_suppkey"), "ps_suppkey": ("ps_partkey", "l_partkey")}
            if {scope.table.get(x), t} == {"lineitem", "partsupp"} and c.name in other and rng.random() < 0.8:
                xn, bn = other[c.name]
                xc = next(cc for cc in scope.cols[x] if cc.name == xn)
                bc2 = next(cc for cc in scope.cols[b] if cc.name == bn)
                q.joins.append(E("{0} = {1}", [self.colref(x, xc), self.colref(b, bc2)]))
                grow = 1.0
            else:
                grow = self.base_rows[t] / max(self.ndv(scope, x, c), bc.prof["ndv"])
            est *= max(1.0, grow)
        q.style = "join" if rng.random() < 0.35 else "comma"
        q.on_filters = rng.random() < 0.3
        q.perm = rng.randrange(1, 10**6) if rng.random() < 0.5 else 0

    def gen_derived(self, scope, q, domain):
        """A derived table whose first column is a key of `domain`: an aggregate grouped by it, or a
        filtered projection."""
        rng = self.rng
        tables = [(t, n) for t, cols in TPCH.items() for n, k, d in cols if k == "key" and d == domain]
        t, kn = rng.choice(tables)
        sub = Query()
        sscope = Scope()
        saved = self.distinct
        self.distinct = None
        a = self.add_table(sscope, sub, t)
        kc = next(c for c in sscope.cols[a] if c.name == kn)
        i = self.n
        for _ in range(rng.choice([0, 1, 1, 2])):
            sub.where.append(self.gen_pred(sscope, [a]))
        cols = [Col(f"dk{i}", "key", domain, pk=True, prof=None)]
        if rng.random() < 0.65:
            sub.select.append((self.colref(a, kc), f"dk{i}"))
            for j in range(rng.choice([1, 1, 2])):
                ag = self.gen_agg(sscope, [a])
                sub.select.append((ag, f"dv{i}_{j}"))
                cols.append(Col(f"dv{i}_{j}", KIND_OF_TYP[ag.typ], scale=ag.scale))
            sub.group, sub.group_style = [self.colref(a, kc)], [rng.choice(["expr", "pos", "alias"])]
            if rng.random() < 0.15:
                h = self.gen_agg(sscope, [a], numeric_only=True)
                thr = self.sample_agg_threshold(sub, h)
                if thr is not None:
                    sub.having.append(E("{0} " + rng.choice([">", ">=", "<"]) + " {1}", [h, thr]))
        else:
            sub.select.append((self.colref(a, kc), f"dk{i}"))
            cols[0].pk = kc.pk
            for j, c in enumerate(rng.sample(scope_cols_nonkey(sscope, a), 2)):
                e = self.colref(a, c)
                if TYP[c.kind] in ("int", "dec") and rng.random() < 0.4:
                    e = self.arith(e, small_literal(rng), rng.choice("+-*"))
                sub.select.append((e, f"dv{i}_{j}"))
                kind = c.kind if e.text is not None else e.typ
                cols.append(Col(f"dv{i}_{j}", kind, scale=e.scale))
        self.distinct = saved
        return self.add_derived(scope, q, sub, cols, cte=rng.random() < 0.3)

    # -- expressions ----------------------------------------------------------------------------
    def colref(self, a, c):
        return leaf(f"{a}.{c.name}", TYP[c.kind], refs=[a], scale=c.scale, bound=c.prof.get("maxabs", 0.0))

    def pick_col(self, scope, aliases, kinds):
        opts = [(a, c) for a in aliases for c in scope.cols[a] if c.kind in kinds]
        return self.rng.choice(opts) if opts else (None, None)

    def arith(self, x, y, op):
        if op == "*":
            scale, bound = x.scale + y.scale, x.bound * y.bound
        else:
            scale, bound = max(x.scale, y.scale), x.bound + y.bound
        typ = "float" if "float" in (x.typ, y.typ) else "dec" if "dec" in (x.typ, y.typ) else "int"
        return E("({0} " + op + " {1})", [x, y], typ=typ, scale=scale, bound=bound)

    def fits(self, e):
        return e.scale <= 8 and e.bound * 10 ** e.scale < 1e16 and (e.typ != "int" or e.bound < 2e9)

    def gen_num(self, scope, aliases, depth=2):
        """A numeric expression over `aliases` (no aggregates)."""
        rng = self.rng
        r = rng.random()
        if depth <= 0 or r < 0.35:
            a, c = self.pick_col(scope, aliases, ("int", "dec", "float") if rng.random() < 0.92 else ("key",))
            if a is None:
                return small_literal(rng)
            x = self.colref(a, c)
            if c.kind in ("int", "key") and self.operator_rng.random() < 0.08:  # (a stream of its own)
                k = self.operator_rng.choice([2, 3, 7, 10, 100, -4])
                return E(f"({{0}} % {k})", [x], typ="int", bound=abs(k) - 1)
            if c.kind == "dec" and c.scale > 0 and self.operator_rng.random() < 0.06:  # a rounding cast
                if self.operator_rng.random() < 0.5:
                    return E("cast({0} as integer)", [x], typ="int", bound=x.bound + 1)
                return E(f"cast({{0}} as decimal(18, {c.scale - 1}))", [x], typ="dec", scale=c.scale - 1, bound=x.bound + 1)
            return x
        if r < 0.42:
            a, c = self.pick_col(scope, aliases, ("date",))
            if a is not None:
                part = rng.choice(["year", "year", "month", "day", "quarter", "dow", "doy"])
                return E(f"extract({part} from {{0}})", [self.colref(a, c)], typ="int", bound=2100)
        if r < 0.46:
            # ROUND of an integer or a decimal (exact on both engines; a double is left out: its last
            # bits may differ between them before rounding, and a half would then round apart).
            x = self.gen_num(scope, aliases, depth - 1)
            if x.typ in ("int", "dec"):
                n = rng.choice([-2, -1, 0, 1, 2, 3])
                if x.typ == "int" and n >= 0:
                    return x
                unit = 10 ** max(-n, 0)
                scale = min(x.scale, max(n, 0)) if x.typ == "dec" else 0
                return E(f"round({{0}}, {n})", [x], typ=x.typ, scale=scale, bound=x.bound + unit)
        if r < 0.52:
            p = self.gen_pred(scope, aliases, depth=1)
            x, y = self.gen_num(scope, aliases, depth - 1), (self.gen_num(scope, aliases, depth - 1)
                                                           if rng.random() < 0.5 else small_literal(rng))
            if rng.random() < 0.3 or ("dec" in (x.typ, y.typ) and x.scale != y.scale):
                # Branches of different scales are not compared: DuckDB's CASE type of a DECIMAL(38, s)
                # (a SUM) and a decimal of a larger scale keeps scale s, rounding the other branch
                # (seed 1009 query 1414: ELSE 1.250 became 1.3).
                y = leaf("0", "int")
            typ = "float" if "float" in (x.typ, y.typ) else "dec" if "dec" in (x.typ, y.typ) else "int"
            return E("case when {0} then {1} else {2} end", [p, x, y], typ=typ, scale=max(x.scale, y.scale),
                     bound=max(x.bound, y.bound))
        x = self.gen_num(scope, aliases, depth - 1)
        y = self.gen_num(scope, aliases, depth - 1) if rng.random() < 0.6 else small_literal(rng)
        if rng.random() < 0.5:
            x, y = y, x
        e = self.arith(x, y, rng.choice("+-*"))
        if not self.fits(e):
            e = self.arith(x, y, rng.choice("+-"))
            if not self.fits(e):
                return x
        return e

    def sample_value(self, scope, a, expr_sql):
        """A value of expr over alias a's rows (None without rows)."""
        n = scope.rows[a]
        if not n:
            return None
        k = self.rng.randrange(n)
        r = self.con.execute(f"select v from (select {expr_sql} as v from {scope.from_sql[a]}) where v is not null "
                             f"order by v limit 1 offset {k}").fetchone()
        if r is None:
            r = self.con.execute(f"select min({expr_sql}) from {scope.from_sql[a]}").fetchone()
        return r[0] if r else None

    def col_pred(self, scope, a, c):
        """A predicate on one column with literals from its values; on a string column now and then
        one through string functions instead. The literal predicate is drawn either way, so the main
        stream advances exactly as it did before string functions were generated."""
        p = self.literal_pred(scope, a, c)
        if c.kind in ("heap", "dict") and c.prof.get("vals") and self.string_rng.random() < STRING_FUNCTION_SHARE:
            return self.string_fn_pred(self.colref(a, c), c)
        return p

    def literal_pred(self, scope, a, c):
        """A predicate on one column with literals from its values."""
        rng = self.rng
        x = self.colref(a, c)
        vals = c.prof.get("vals") or []
        t = TYP[c.kind]
        if not vals:
            return E("{0} = {0}", [x])
        pick = lambda: rng.choice(vals)  # noqa: E731
        r = rng.random()
        if c.kind == "heap":
            words = c.prof.get("words") or ["a"]
            strs = c.prof.get("strs") or vals
            if r < 0.45:
                w = rng.choice(words)
                pat = rng.choice([f"%{w}%", f"%{w}%", f"{rng.choice(strs)[:rng.randint(1, 6)]}%", f"%{w}",
                                  f"%{w}%{rng.choice(words)}%", f"%{w[:2]}_{w[3:]}%" if len(w) > 3 else f"%{w}%"])
                return E("{0} " + rng.choice(["like", "like", "not like"]) + " {1}", [x, leaf(sql_str(pat), "str")])
            if r < 0.6:
                s = rng.choice(strs)
                start = rng.randint(1, max(1, min(len(s), 12)))
                n = rng.randint(1, 4)
                frag = s[start - 1:start - 1 + n]
                sub = E(f"substring({{0}} from {start} for {n})", [x], typ="str")
                if rng.random() < 0.5:
                    lits = [frag] + [rng.choice(strs)[start - 1:start - 1 + n] for _ in range(rng.randint(1, 3))]
                    return E("{0} in (" + ", ".join(sql_str(v) for v in lits) + ")", [sub])
                return E("{0} " + rng.choice(["=", "<>", "<", ">="]) + " {1}", [sub, leaf(sql_str(frag), "str")])
            if r < 0.8:
                return E("{0} " + rng.choice(CMP) + " {1}", [x, leaf(sql_str(rng.choice(strs)), "str")])
            if r < 0.9:
                lo, hi = sorted([rng.choice(strs), rng.choice(strs)])
                return E("{0} between {1} and {2}", [x, leaf(sql_str(lo), "str"), leaf(sql_str(hi), "str")])
            lits = sorted({rng.choice(strs) for _ in range(rng.randint(1, 4))})
            return E("{0} in (" + ", ".join(sql_str(v) for v in lits) + ")", [x])
        if c.kind == "dict":
            if r < 0.3:
                return E("{0} " + rng.choice(["=", "=", "<>"]) + " {1}", [x, leaf(sql_str(pick()), "str")])
            if r < 0.45:
                lits = sorted({pick() for _ in range(rng.randint(1, 4))})
                neg = " not" if rng.random() < 0.25 else ""
                return E("{0}" + neg + " in (" + ", ".join(sql_str(v) for v in lits) + ")", [x])
            if r < 0.65:
                v = pick()
                words = re.findall(r"[A-Za-z0-9#]+", v) or [v]
                w = rng.choice(words)
                pat = rng.choice([v[:rng.randint(1, len(v))] + "%", f"%{w}", f"%{w}%", v, f"{v[0]}%{w[-2:]}"])
                return E("{0} " + rng.choice(["like", "like", "not like"]) + " {1}", [x, leaf(sql_str(pat), "str")])
            if r < 0.8:
                v = pick() if rng.random() < 0.6 else mutate_string(rng, pick())
                return E("{0} " + rng.choice(["<", "<=", ">", ">=", "="]) + " {1}", [x, leaf(sql_str(v), "str")])
            lo, hi = sorted([pick(), pick() if rng.random() < 0.7 else mutate_string(rng, pick())])
            return E("{0} between {1} and {2}", [x, leaf(sql_str(lo), "str"), leaf(sql_str(hi), "str")])
        if t == "date":
            if r < 0.4:
                return E("{0} " + rng.choice(CMP[1:] + ["="]) + " {1}", [x, date_literal(rng, pick())])
            if r < 0.6:
                lo, hi = sorted([pick(), pick()])
                return E("{0} between {1} and {2}", [x, date_literal(rng, lo, False), date_literal(rng, hi, False)])
            if r < 0.8:
                d = pick()
                unit = rng.choice(["month", "year", "day"])
                n = {"month": rng.choice([1, 3, 6]), "year": 1, "day": rng.choice([10, 30, 90])}[unit]
                return E("{0} >= {1} and {0} < {2}",
                         [x, leaf(f"date '{d.isoformat()}'", "date"),
                          leaf(f"date '{d.isoformat()}' + interval '{n}' {unit}", "date")])
            part = rng.choice(["year", "month", "day"])
            ex = E(f"extract({part} from {{0}})", [x], typ="int", bound=2100)
            v = self.sample_value(scope, a, f"extract({part} from {a}.{c.name})")
            if v is None:
                v = 1995
            if rng.random() < 0.3:
                vs = sorted({int(v), int(v) + 1, int(self.sample_value(scope, a, f"extract({part} from {a}.{c.name})") or v)})
                return E("{0} in (" + ", ".join(map(str, vs)) + ")", [ex])
            return E("{0} " + rng.choice(CMP) + " {1}", [ex, leaf(str(int(v)), "int")])
        # numeric
        if r < 0.45:
            return E("{0} " + rng.choice(CMP[1:] + ["=", "<", ">"]) + " {1}", [x, value_literal(rng, c, pick())])
        if r < 0.7:
            lo, hi = sorted([pick(), pick()])
            return E("{0} " + rng.choice(["between", "between", "not between"]) + " {1} and {2}",
                     [x, value_literal(rng, c, lo), value_literal(rng, c, hi)])
        if c.kind == "dec" and rng.random() < 0.8:  # one scale, the column's (mixed scales are refused)
            lits = [leaf(f"{D(str(pick())):.2f}", "dec", scale=2) for _ in range(rng.randint(1, 5))]
        else:
            lits = [value_literal(rng, c, pick()) for _ in range(rng.randint(1, 5))]
        neg = " not" if rng.random() < 0.2 else ""
        return E("{0}" + neg + " in (" + ", ".join("{%d}" % (i + 1) for i in range(len(lits))) + ")", [x] + lits)

    def string_fn_pred(self, x, c):
        """A predicate on string column `x` through the string functions, in the shapes docs/sql.md
        supports for its representation (a dictionary column: any; a heap column: upper / lower / trim
        keep its byte range, length, strpos of a literal, ILIKE; packed SUBSTRINGs: every function);
        literals from its values, drawn from the string stream alone."""
        rng = self.string_rng
        vals = c.prof.get("strs") or c.prof.get("vals") or ["a"]
        v = rng.choice(vals)
        words = c.prof.get("words") or re.findall(r"[A-Za-z0-9#]{2,}", v) or [v or "a"]
        w = rng.choice(words)
        case = rng.choice([str.upper, str.lower])
        fold = "upper" if case is str.upper else "lower"
        wrap = rng.choice(["{0}", "trim({0})", "rtrim({0})", "ltrim({0})"])
        r = rng.random()
        if r < 0.2:
            pat = rng.choice([f"%{w}%", f"{v[:rng.randint(1, max(1, len(v)))]}%", f"%{w}", f"%{w[:2]}_%"])
            return E(f"{fold}({wrap}) " + rng.choice(["like", "not like"]) + " {1}", [x, leaf(sql_str(case(pat)), "str")])
        if r < 0.35:
            pat = rng.choice([f"%{w}%", f"{v[:3]}%", f"%{w.swapcase()}%"])
            return E(f"{wrap} " + rng.choice(["ilike", "ilike", "not ilike"]) + " {1}", [x, leaf(sql_str(pat), "str")])
        if r < 0.5:
            n = len(v) + rng.choice([-3, -1, 0, 1, 2])
            return E(rng.choice(["length", "char_length"]) + f"({wrap}) " + rng.choice(CMP) + " {1}", [x, leaf(str(max(n, 0)), "int")])
        if r < 0.62:
            needle = case(w) if rng.random() < 0.5 else w
            f = f"position({{1}} in {fold}({{0}}))" if needle != w else "strpos({0}, {1})"
            return E(f + " " + rng.choice([">", "=", ">="]) + " " + str(rng.choice([0, 1, 3])), [x, leaf(sql_str(needle), "str")])
        if r < 0.72:
            return E(f"{fold}({wrap}) " + rng.choice(["=", "<>", "<", ">="]) + " {1}", [x, leaf(sql_str(case(v.strip())), "str")])
        if r < 0.8:
            lits = sorted({case(rng.choice(vals)) for _ in range(rng.randint(1, 3))})
            return E(f"{fold}({{0}}) in (" + ", ".join(sql_str(s) for s in lits) + ")", [x])
        # Packed SUBSTRINGs (heap or dictionary): every function, results of at most 7 bytes.
        start, n = rng.randint(1, 4), rng.randint(1, 3)
        sub = f"substring({{0}} from {start} for {n})"
        frag = v[start - 1:start - 1 + n]
        if c.kind == "dict" and r < 0.9:  # one dictionary column: concat and replace at any length
            return E("replace({0}, {1}, {2}) || '|' || {0} like {3}",
                     [x, leaf(sql_str(w), "str"), leaf(sql_str(rng.choice(["", "x", "YY"])), "str"), leaf(sql_str(f"%{w[:1]}%|%"), "str")])
        shape = rng.choice([f"{fold}({sub}) = {{1}}", f"{sub} || '-' = {{1}}", f"replace({sub}, {{2}}, '') = {{1}}",
                            f"length(trim({sub})) = {{3}}", f"strpos({fold}({sub}), {{2}}) > 0"])
        want = {f"{fold}({sub}) = {{1}}": case(frag), f"{sub} || '-' = {{1}}": frag + "-",
                f"replace({sub}, {{2}}, '') = {{1}}": frag.replace(frag[:1], "")}.get(shape, frag)
        return E(shape, [x, leaf(sql_str(want), "str"), leaf(sql_str(case(frag[:1] or "a")), "str"), leaf(str(len(frag.strip())), "int")])

    def gen_pred(self, scope, aliases, depth=2, allow_sub=False):
        """A boolean expression over `aliases`."""
        rng = self.rng
        r = rng.random()
        if allow_sub and r < 0.18:
            p = self.gen_subquery_pred(scope, aliases)
            if p is not None:
                return p
            r = rng.random()
        if depth > 0 and r < 0.10:
            kids = [self.gen_pred(scope, aliases, depth - 1) for _ in range(rng.choice([2, 2, 3]))]
            if rng.random() < 0.3:
                kids[0] = E("({0} and {1})", [kids[0], self.gen_pred(scope, aliases, 0)])
            return E("(" + " or ".join("{%d}" % i for i in range(len(kids))) + ")", kids)
        if depth > 0 and r < 0.15:
            return E("not ({0})", [self.gen_pred(scope, aliases, depth - 1)])
        if r < 0.27:
            # an expression compared with one of its values
            a = rng.choice(aliases)
            e = self.gen_num(scope, [a], 2)
            if e.text is None or rng.random() < 0.3:
                v = self.sample_value(scope, a, e.sql())
                if v is not None:
                    lit = num_literal(rng, v, "int" if e.typ == "int" else "dec")
                    return E("{0} " + rng.choice(["<", "<=", ">", ">=", "=", "<>"]) + " {1}", [e, lit])
        if r < 0.35 and len(aliases) >= 1:
            # two columns of the same type, possibly of different tables (a residual filter)
            opts = [(a, c) for a in aliases for c in scope.cols[a] if c.kind in ("date", "dec", "int")]
            if len(opts) >= 2:
                (a1, c1) = rng.choice(opts)
                same = [(a, c) for a, c in opts if TYP[c.kind] == TYP[c1.kind] and (a, c.name) != (a1, c1.name)]
                if same:
                    a2, c2 = rng.choice(same)
                    x, y = self.colref(a1, c1), self.colref(a2, c2)
                    if c1.kind == "date" and rng.random() < 0.4:
                        n = rng.choice([1, 10, 30, 60])
                        x = E("{0} " + rng.choice(["+", "-"]) + f" interval '{n}' day", [x], typ="date")
                    elif TYP[c1.kind] == "dec" and rng.random() < 0.3:
                        x = self.arith(x, small_literal(rng), "*")
                    return E("{0} " + rng.choice(["<", "<=", ">", ">=", "<>", "="]) + " {1}", [x, y])
        a = rng.choice(aliases)
        cols = [c for c in scope.cols[a] if rng.random() < (0.35 if c.kind == "heap" else 1.0)] or scope.cols[a]
        return self.col_pred(scope, a, rng.choice(cols))

    # -- subqueries -------------------------------------------------------------------------------
    def sub_scope(self, t, prefix="s"):
        sub, ss = Query(), Scope()
        a = self.add_table(ss, sub, t, prefix=PREFIX[t] + prefix)
        return sub, ss, a

    def gen_subquery_pred(self, scope, aliases):
        rng = self.rng
        saved = self.distinct
        self.distinct = None
        try:
            r = rng.random()
            keyed = [(a, c) for a in aliases for c in self.key_cols(scope, a)]
            if r < 0.55 and keyed:
                a, c = rng.choice(keyed)
                tables = [(t, n) for t, cols in TPCH.items() for n, k, d in cols if k == "key" and d == c.domain
                          and (PRIMARY.get(t) == n) != c.pk or (k == "key" and d == c.domain and rng.random() < 0.3)]
                if not tables:
                    return None
                t, n = rng.choice(tables)
                sub, ss, s = self.sub_scope(t)
                sc = next(cc for cc in ss.cols[s] if cc.name == n)
                for _ in range(rng.choice([1, 1, 2])):
                    sub.where.append(self.gen_pred(ss, [s], 1))
                if rng.random() < 0.5:
                    # EXISTS, correlated by the key (with a <> residual now and then: Q21)
                    sub.star = rng.random() < 0.7
                    if not sub.star:
                        sub.select = [(self.colref(s, sc), None)]
                    sub.where.insert(rng.randint(0, len(sub.where)), E("{0} = {1}", [self.colref(s, sc), self.colref(a, c)]))
                    if scope.table.get(a) == t and rng.random() < 0.4:
                        others = [cc for cc in self.key_cols(ss, s) if cc.name != n]
                        if others:
                            oc = rng.choice(others)
                            sub.where.append(E("{0} <> {1}", [self.colref(s, oc), self.colref(a, next(
                                cc for cc in scope.cols[a] if cc.name == oc.name))]))
                    neg = "not " if rng.random() < 0.35 else ""
                    return E(neg + "exists ({S})", [], sub=sub, refs=[a])
                # IN (SELECT key ...), maybe grouped with HAVING (Q18)
                sub.select = [(self.colref(s, sc), None)]
                if rng.random() < 0.25:
                    sub.where = sub.where[:1] if rng.random() < 0.5 else []
                    sub.group, sub.group_style = [self.colref(s, sc)], ["expr"]
                    h = self.gen_agg(ss, [s], numeric_only=True)
                    thr = self.sample_agg_threshold(sub, h)
                    if thr is None:
                        return None
                    sub.having = [E("{0} " + rng.choice([">", "<", ">="]) + " {1}", [h, thr])]
                neg = " not" if rng.random() < 0.3 else ""
                return E("{0}" + neg + " in ({S})", [self.colref(a, c)], sub=sub)
            # scalar subquery: a column against an aggregate of the same column, correlated by a key
            # of the same table or not
            opts = [(a, c) for a in aliases if scope.table.get(a) for c in scope.cols[a] if c.kind in ("dec", "int")]
            if not opts:
                return None
            a, c = rng.choice(opts)
            t = scope.table[a]
            sub, ss, s = self.sub_scope(t)
            sc = next(cc for cc in ss.cols[s] if cc.name == c.name)
            agg = rng.choice(["avg", "avg", "min", "max", "sum"] + (["count"] if rng.random() < 0.1 else []))
            correlated = rng.random() < 0.5
            if agg == "sum" and not correlated:
                agg = "avg"
            arg = self.colref(s, sc)
            inner = E(f"{agg}({{0}})", [arg], typ="float" if agg == "avg" else sc.kind if sc.kind != "key" else "int", agg=True)
            if rng.random() < 0.3:
                inner = E("{0} * {1}", [small_literal(rng), inner], typ=inner.typ, agg=True)
            sub.select = [(inner, None)]
            if correlated:
                keys = [cc for cc in self.key_cols(ss, s) if not cc.pk] or self.key_cols(ss, s)
                k = rng.choice(keys)
                sub.where.append(E("{0} = {1}", [self.colref(s, k), self.colref(a, next(
                    cc for cc in scope.cols[a] if cc.name == k.name))]))
            if rng.random() < 0.5:
                sub.where.append(self.gen_pred(ss, [s], 1))
            op = rng.choice(["<", "<=", ">", ">=", "<>"])
            return self.scalar_in_context(scope, a, c, sub, self.colref(s, sc), op, [a] if correlated else [])
        finally:
            self.distinct = saved

    def scalar_in_context(self, scope, a, c, sub, inner_col, op, refs):
        """`a.c op (sub)`, or, drawn from a stream of its own (a query that draws the plain form is
        what it was before), the subquery's value where its NULL matters: the subquery over no rows
        now and then, and the value under IS [NOT] NULL, COALESCE, OR, NOT (... AND ...) or CASE —
        where an outer row without a group (a NULL value, a COUNT's 0) must still be tested."""
        srng = self.subquery_rng
        x = self.colref(a, c)
        if srng.random() < 0.12:
            sub.where.append(E("{0} is null", [inner_col]))  # no row: the aggregate is NULL (COUNT 0)
        r = srng.random()
        if r < 0.6:
            return E("{0} " + op + " ({S})", [x], sub=sub, refs=refs)
        if r < 0.7:
            return E("({S}) is " + srng.choice(["", "not "]) + "null", [], sub=sub, refs=refs)
        if r < 0.8:
            return E("coalesce(({S}), {0}) " + op + " {1}", [x, self.colref(a, c)], sub=sub, refs=refs)
        other = self.on_stream(srng, lambda: self.col_pred(scope, a, c))
        if r < 0.88:
            return E("({0} " + op + " ({S}) or {1})", [x, other], sub=sub, refs=refs)
        if r < 0.95:
            return E("not ({0} " + op + " ({S}) and {1})", [x, other], sub=sub, refs=refs)
        return E("case when {0} " + op + " ({S}) then 1 else 0 end = 0", [x], sub=sub, refs=refs)

    def on_stream(self, rng, f):
        """f() drawing from `rng` (string functions from a stream seeded by it) instead of the main
        and string streams, which are left as they were."""
        saved = self.rng, self.string_rng
        self.rng, self.string_rng = rng, random.Random(rng.random())
        try:
            return f()
        finally:
            self.rng, self.string_rng = saved

    # -- aggregates -----------------------------------------------------------------------------------
    def gen_agg(self, scope, aliases, numeric_only=False):
        rng = self.rng
        r = rng.random()
        if r < 0.15:
            return E(text="count(*)", typ="int", agg=True)
        if r < 0.22:
            a, c = self.pick_col(scope, aliases, ("key", "int", "dec", "date", "dict"))
            if a is None:  # a derived table of other kinds only (seed 1009's generator crash)
                return E(text="count(*)", typ="int", agg=True)
            return E("count({0})", [self.colref(a, c)], typ="int", agg=True)
        if r < 0.32:
            if self.distinct is None:
                a, c = self.pick_col(scope, aliases, ("key", "int", "dec", "date", "dict") + (("heap",) if rng.random() < 0.1 else ()))
                if a is None:
                    return E(text="count(*)", typ="int", agg=True)
                self.distinct = self.colref(a, c)
            fn = rng.choice(["count", "count", "count", "sum", "min", "max"])
            x = self.distinct
            if fn != "count" and x.typ not in NUMERIC:
                fn = "count"
            return E(f"{fn}(distinct {{0}})", [x], typ="int" if fn == "count" else x.typ, agg=True,
                     scale=x.scale if fn != "count" else 0)
        if r < 0.4 and not numeric_only:
            a, c = self.pick_col(scope, aliases, ("date", "dict") + (("heap",) if rng.random() < 0.2 else ()))
            if a is not None:
                return E(rng.choice(["min", "max"]) + "({0})", [self.colref(a, c)], typ=TYP[c.kind], agg=True)
        x = self.gen_num(scope, aliases, rng.choice([0, 1, 2]))
        if x.text is not None and x.typ == "int" and x.bound == 0:  # a literal
            x = self.gen_num(scope, aliases, 0)
        fn = rng.choice(["sum", "sum", "sum", "avg", "min", "max"])
        if fn == "avg" and self.distinct is not None and rng.random() < 0.9:
            fn = "sum"
        typ = "float" if fn == "avg" or x.typ == "float" else x.typ
        return E(f"{fn}({{0}})", [x], typ=typ, agg=True, scale=x.scale)

    def agg_map(self, aggs):
        """An expression over aggregates (a later stage)."""
        rng = self.rng
        nums = [g for g in aggs if g.typ in NUMERIC]
        if not nums:
            return None
        x = rng.choice(nums)
        if rng.random() < 0.5 and len(nums) > 1:
            y = rng.choice(nums)
            op = rng.choice("+-")
        else:
            y = small_literal(rng)
            op = rng.choice("+-*")
        return self.arith(x, y, op)

    def sample_agg_threshold(self, q, h):
        """A literal among the values aggregate h takes over q's groups."""
        probe = copy.copy(q)
        probe.select = [(h, "v")]
        probe.having, probe.order, probe.limit = [], [], None
        try:
            vals = [r[0] for r in self.con.execute(f"select v from ({probe.sql()}) where v is not null order by v").fetchall()]
        except Exception:  # noqa: BLE001 - the probe's text is ours; a DuckDB error drops the HAVING
            return None
        if not vals:
            return None
        v = vals[int(self.rng.uniform(0.2, 0.95) * (len(vals) - 1))]
        return num_literal(self.rng, v, "int" if h.typ == "int" else "dec")

    # -- the query ------------------------------------------------------------------------------------
    def group_key(self, scope, aliases):
        rng = self.rng
        r = rng.random()
        if r < 0.12:
            a, c = self.pick_col(scope, aliases, ("date",))
            if a is not None:
                if rng.random() < 0.3:
                    part = rng.choice(["year", "quarter", "month", "week"])
                    return E(f"date_trunc('{part}', {{0}})", [self.colref(a, c)], typ="date")
                return E("extract(year from {0})", [self.colref(a, c)], typ="int")
        if r < 0.17:
            a, c = self.pick_col(scope, aliases, ("heap", "dict"))
            if a is not None:
                n = rng.randint(1, 3)
                return E(f"substring({{0}} from 1 for {n})", [self.colref(a, c)], typ="str")
        if r < 0.22:
            p = self.gen_pred(scope, aliases, 0)
            a, b = rng.sample(["lo", "hi", "mid", "x", "yes", "no", "A", "BB"], 2)
            return E("case when {0} then " + sql_str(a) + " else " + sql_str(b) + " end", [p], typ="str")
        kinds = rng.choices([("dict",), ("key",), ("int",), ("date",), ("heap",), ("dec",)],
                            weights=[40, 20, 12, 8, 5, 3])[0]
        a, c = self.pick_col(scope, aliases, kinds)
        if a is None:
            a, c = self.pick_col(scope, aliases, ("key", "dict", "int"))
        if a is None:  # a derived table of decimals, dates and floats only (a set operation's)
            a, c = self.pick_col(scope, aliases, tuple(TYP))
        return self.colref(a, c)

    def left_base(self):
        """X LEFT JOIN T ON X's primary key = T's foreign key [AND a filter on T], WHERE filters on X:
        (query, scope, X's alias, T's alias, X's key column, T's key / number / date columns)."""
        rng = self.rng
        pairs = key_pairs()
        x, xk, t, tk = rng.choice(pairs)
        q, scope = Query(), Scope()
        a = self.add_table(scope, q, x)
        b = self.alias(PREFIX[t])
        item = Item(b, table=t, left=True)
        q.items.append(item)
        scope.cols[b], scope.rows[b], scope.from_sql[b], scope.table[b] = self.table_cols(t), self.base_rows[t], f"{t} {b}", t
        q.style = "join"
        xc = next(c for c in scope.cols[a] if c.name == xk)
        bc = next(c for c in scope.cols[b] if c.name == tk)
        q.joins.append(E("{0} = {1}", [self.colref(a, xc), self.colref(b, bc)][::rng.choice([1, -1])]))
        if rng.random() < 0.6:
            on = self.gen_pred(scope, [b], 1)
            if on.all_refs() == {b}:  # not a constant one (`(0.5 + 0.5) <= 1`): refused in an ON
                item.on.append(on)
        for _ in range(rng.choice([0, 1, 1, 2])):
            q.where.append(self.gen_pred(scope, [a], 1))
        other = [c for c in scope.cols[b] if c.kind in ("key", "int", "dec", "date")]
        return q, scope, a, b, xc, other

    def gen_left(self):
        """X LEFT JOIN T ON X's primary key = T's foreign key [AND a filter on T] (docs/sql.md's shape):
        counts of T's rows per X key or dictionary column, T's columns (NULL without a match), and
        now and then the count of those counts (TPC-H Q13)."""
        rng = self.rng
        q, scope, a, b, xc, other = self.left_base()
        if rng.random() < 0.5:
            return self.gen_left_nulls(q, scope, a, b, xc, other)
        counted = self.colref(b, rng.choice(other))
        if rng.random() < 0.6:
            by_key = rng.random() < 0.6
            key = self.colref(a, xc) if by_key else self.group_key(scope, [a])
            q.select = [(key, "a1"), (E("count({0})", [counted], typ="int", agg=True), "a2")]
            if rng.random() < 0.4:
                q.select.append((E(text="count(*)", typ="int", agg=True), "a3"))
            q.group, q.group_style = [key], [rng.choice(["expr", "pos", "alias"])]
            if rng.random() < 0.35:
                # the count of counts
                outer, oscope = Query(), Scope()
                cols = [Col("a1", "key" if by_key else KIND_OF_TYP[key.typ], pk=by_key, scale=key.scale), Col("a2", "int")]
                d = self.add_derived(oscope, outer, q, cols, cte=rng.random() < 0.3)
                cnt = self.colref(d, cols[1])
                outer.select = [(cnt, "c_count"), (E(text="count(*)", typ="int", agg=True), "custdist")]
                outer.group, outer.group_style = [cnt], ["expr"]
                q = outer
            if rng.random() < 0.5:
                self.order_all(q)
            return q
        # plain rows: X's key and T's columns, NULL where X has no match (compared as a multiset)
        q.select = [(self.colref(a, xc), "a1")] + [(self.colref(b, c), f"a{i + 2}") for i, c in
                                                   enumerate(rng.sample(other, min(len(other), rng.choice([1, 2]))))]
        return q

    def gen_left_nulls(self, q, scope, a, b, xc, other):
        """SQL's NULLs over the LEFT JOIN `q` (docs/sql.md "NULLs"): T's columns (NULL without a match)
        tested in WHERE, grouped, aggregated (NULLs skipped; NULL over none), coalesced, computed
        with and tested with IS [NOT] NULL in the select list; conditional aggregates (CASE without
        ELSE, FILTER) over X."""
        rng = self.rng
        nums = [c for c in scope.cols[b] if c.kind in ("int", "dec")]
        col = lambda: self.colref(b, rng.choice(other))  # noqa: E731
        if rng.random() < 0.3:
            p = self.gen_pred(scope, [b], 1)
            q.where.append(E("({0} or {1} is null)", [p, col()]) if rng.random() < 0.6 else p)
        if rng.random() < 0.6:
            keys = [self.colref(a, xc) if rng.random() < 0.5 else self.group_key(scope, [a])]
            if rng.random() < 0.5:
                kc = [c for c in scope.cols[b] if c.kind in ("dict", "int", "date")]
                if kc:
                    keys.append(self.colref(b, rng.choice(kc)))
            aggs = []
            for _ in range(rng.choice([1, 2, 3])):
                r = rng.random()
                if r < 0.2 or not nums:
                    aggs.append(E("count({0})", [col()], typ="int", agg=True))
                elif r < 0.65:
                    x = self.colref(b, rng.choice(nums))
                    fn = rng.choice(["sum", "sum", "min", "max", "avg"])
                    g = E(f"{fn}({{0}})", [x], typ="float" if fn == "avg" else x.typ, agg=True, scale=x.scale)
                    aggs.append(E("coalesce({0}, 0)", [g], typ=g.typ, agg=True, scale=g.scale) if rng.random() < 0.4 else g)
                elif r < 0.85:
                    x = self.gen_num(scope, [a], 0)
                    aggs.append(E("sum(case when {0} then {1} end)", [self.gen_pred(scope, [a, b], 1), x], typ=x.typ,
                                  agg=True, scale=x.scale))
                else:
                    aggs.append(E("count(*) filter (where {0})", [self.gen_pred(scope, [a, b], 1)], typ="int", agg=True))
            q.select = [(e, f"a{i + 1}") for i, e in enumerate(keys + aggs)]
            q.group, q.group_style = keys, ["expr"] * len(keys)
        else:
            items = [self.colref(a, xc)]
            for _ in range(rng.choice([1, 2, 3])):
                r = rng.random()
                if r < 0.3 or not nums:
                    items.append(col())
                elif r < 0.55:
                    x = self.colref(b, rng.choice(nums))
                    items.append(E("coalesce({0}, 0)", [x], typ=x.typ, scale=x.scale))
                elif r < 0.8:
                    x = self.colref(b, rng.choice(nums))
                    items.append(E("({0} + {1})", [x, small_literal(rng)], typ="dec", scale=max(x.scale, 3)))
                else:
                    items.append(E("{0} is " + rng.choice(["", "not "]) + "null", [col()], typ="bool"))
            q.select = [(e, f"a{i + 1}") for i, e in enumerate(items)]
        if rng.random() < 0.5:
            self.order_all(q)
        return q

    def gen_left_operand(self):
        """A set operand over X LEFT JOIN T (docs/sql.md "NULLs", "Set operations"): T's columns, NULL
        where X has no match, plain or computed with (arithmetic, COALESCE, EXTRACT, date + interval,
        CASE without ELSE), or aggregated per X key / group key (SUM / MIN / MAX / AVG over T, NULL
        over no non-NULL value, with arithmetic over them; COUNT; SUM(CASE ... END) over X, NULL where
        no row qualifies) — or, now and then, without GROUP BY (one row, its SUM / MIN / MAX / AVG NULL
        where no row qualifies: now and then a WHERE that keeps none). Booleans over T now and then
        (nullable_value); never a string computed from T (a computed string
        that may be NULL cannot be grouped, which UNION / INTERSECT / EXCEPT do). (query, scope), the
        scope's filter X's alias alone: refiltered() draws its WHERE over X (an IN / EXISTS subquery
        may not read T)."""
        rng = self.rng
        q, scope, a, b, xc, other = self.left_base()
        scope.filter = [a]
        q.nullable = True
        nums = [c for c in scope.cols[b] if c.kind in ("int", "dec")]
        dates = [c for c in scope.cols[b] if c.kind == "date"]
        if rng.random() < 0.3:
            p = self.gen_pred(scope, [b], 1)
            q.where.append(E("({0} or {1} is null)", [p, self.colref(b, rng.choice(other))]) if rng.random() < 0.6 else p)
        if rng.random() < 0.55:
            keys = [self.colref(a, xc) if rng.random() < 0.5 else self.group_key(scope, [a])]
            if heap_kind(keys[0]) == "heap":  # a heap column's groups may feed no later operator
                keys[0] = self.colref(a, xc)
            if rng.random() < 0.2:  # one row: its aggregates over no rows are NULL
                keys = []
                if rng.random() < 0.4:
                    q.where.append(E("{0} < 0", [self.colref(a, xc)]))  # keys are positive: no row
            elif rng.random() < 0.4:
                kc = [c for c in scope.cols[b] if c.kind in ("dict", "int", "dec", "date")]
                if kc:
                    keys.append(self.colref(b, rng.choice(kc)))
            aggs = []
            for _ in range(rng.choice([1, 1, 2])):
                r = rng.random()
                if r < 0.15 or not nums:
                    aggs.append(E("count({0})", [self.colref(b, rng.choice(other))], typ="int", agg=True))
                elif r < 0.6:
                    # (a SUM may be 128-bit, which UNION / INTERSECT / EXCEPT cannot group by, nor an
                    # int64 be computed from)
                    x = self.colref(b, rng.choice(nums))
                    fn = rng.choice(["sum", "min", "max", "avg"])
                    g = E(f"{fn}({{0}})", [x], typ="float" if fn == "avg" else x.typ, agg=True, scale=x.scale)
                    if fn != "avg" and (fn != "sum" or x.typ == "dec") and rng.random() < 0.3:
                        g = self.arith(g, small_literal(rng), rng.choice("+-"))
                    aggs.append(g)
                elif r < 0.75 and dates:
                    aggs.append(E(rng.choice(["min", "max"]) + "({0})", [self.colref(b, rng.choice(dates))], typ="date", agg=True))
                else:
                    x = self.gen_num(scope, [a], 0)
                    aggs.append(E("sum(case when {0} then {1} end)", [self.gen_pred(scope, [b], 1), x], typ=x.typ,
                                  agg=True, scale=x.scale))
            q.select = [(e, f"a{i + 1}") for i, e in enumerate(keys + aggs)]
            q.group, q.group_style = keys, [rng.choice(["expr", "pos", "alias"]) for _ in keys]
        else:
            items = [self.colref(a, xc) if rng.random() < 0.8 else self.group_key(scope, [a])]
            for _ in range(rng.choice([1, 1, 2])):
                items.append(self.nullable_value(scope, a, b, boolean=0.15))
            q.select = [(e, f"a{i + 1}") for i, e in enumerate(items)]
        return q, scope

    def nullable_value(self, scope, a, b, plain=0.35, boolean=0.0):
        """A number or date over T (LEFT JOIN's NULL-supplying side `b`), NULL where X (`a`) has no
        match: a column, a column plus / minus / times a literal, EXTRACT(YEAR|MONTH), date + interval,
        CASE WHEN ... THEN column END (no ELSE: NULL where the condition is not TRUE), NULLIF; or a
        COALESCE of one (never NULL). With probability `boolean`, a boolean instead: a predicate on a
        column of T (NULL where X has no match) or T's column IS [NOT] NULL (never NULL)."""
        rng = self.rng
        if boolean and rng.random() < boolean:
            c = rng.choice([c for c in scope.cols[b] if c.kind in ("key", "int", "dec", "date", "dict")])
            if rng.random() < 0.25:
                return E("({0} is " + rng.choice(["", "not "]) + "null)", [self.colref(b, c)], typ="bool")
            return E("({0})", [self.literal_pred(scope, b, c)], typ="bool")
        nums = [c for c in scope.cols[b] if c.kind in ("int", "dec")]
        dates = [c for c in scope.cols[b] if c.kind == "date"]
        r = rng.random()
        if r < plain or not (nums or dates):
            return self.colref(b, rng.choice([c for c in scope.cols[b] if c.kind in ("key", "int", "dec", "date", "dict")]))
        if dates and (r < plain + 0.15 or not nums):
            x = self.colref(b, rng.choice(dates))
            if rng.random() < 0.6:
                return E("extract(" + rng.choice(["year", "year", "month"]) + " from {0})", [x], typ="int", bound=2100)
            return E("{0} + interval '" + str(rng.choice([1, 7, 30])) + "' day", [x], typ="date")
        x = self.colref(b, rng.choice(nums))
        r = rng.random()
        if r < 0.45:
            e = self.arith(x, small_literal(rng), rng.choice("+-*"))
            return e if self.fits(e) else self.arith(x, small_literal(rng), "+")
        if r < 0.6:
            return E("coalesce({0}, 0)", [x], typ=x.typ, scale=x.scale, bound=x.bound)
        if r < 0.8:
            return E("case when {0} then {1} end", [self.gen_pred(scope, [a, b], 1), x], typ=x.typ, scale=x.scale,
                     bound=x.bound)
        v = self.sample_value(scope, b, x.sql())
        lit = num_literal(rng, v if v is not None else 1, x.typ)
        return E("nullif({0}, {1})", [x, lit], typ=x.typ, scale=x.scale, bound=x.bound)

    def null_outer(self, q, scope, d):
        """The enclosing query `q` of derived table `d` whose columns may be NULL: grouped (now and
        then) by one or two of its columns, plain or a number / date computed from one (the NULL rows
        make one group; never a computed string, which may not be grouped where it may be NULL) with
        COUNT(*), COUNT(x), SUM / MIN / MAX / AVG (never DISTINCT over a value that may be NULL), and
        now and then a WHERE filter on d (IS [NOT] NULL, or gen_pred's). A column marked `wide` (a
        SUM, maybe 128-bit: no group key, no SUM / AVG argument, no IN list) is only counted,
        MIN / MAX'd and tested for NULL."""
        rng = self.rng
        cols = scope.cols[d]
        narrow = [c for c in cols if not getattr(c, "wide", False)]
        keyable = [c for c in narrow if c.kind in ("int", "dec", "date", "dict", "bool")] or \
            [c for c in narrow if c.kind in ("key", "int", "dec", "date", "dict", "bool")]
        nums = [c for c in narrow if c.kind in ("int", "dec", "float")]
        if rng.random() < 0.3:
            c = rng.choice(cols)
            filterable = [c for c in narrow if c.kind in ("key", "int", "dec", "date")]
            if rng.random() < 0.5 or not filterable:
                q.where.append(E("{0} is " + rng.choice(["", "not "]) + "null", [self.colref(d, c)]))
            else:  # over numbers and dates (string functions over a computed string are limited)
                fscope = copy.copy(scope)
                fscope.cols = dict(scope.cols)
                fscope.cols[d] = filterable
                q.where.append(self.gen_pred(fscope, [d], 1))
        keys = []
        if keyable and rng.random() < 0.8:
            for c in rng.sample(keyable, min(len(keyable), rng.choice([1, 1, 2]))):
                x = self.colref(d, c)
                r = rng.random()
                if c.kind in ("int", "dec") and r < 0.3:
                    x = self.arith(x, small_literal(rng), rng.choice("+-"))
                elif c.kind == "date" and r < 0.3:
                    x = E("extract(year from {0})", [x], typ="int", bound=2100)
                keys.append(x)
        aggs = []
        for _ in range(rng.choice([1, 2, 2, 3])):
            r = rng.random()
            if r < 0.2 or (r >= 0.45 and not nums):
                aggs.append(E(text="count(*)", typ="int", agg=True))
            elif r < 0.45:
                aggs.append(E("count({0})", [self.colref(d, rng.choice(cols))], typ="int", agg=True))
            elif r < 0.85:
                x = self.colref(d, rng.choice(nums))
                # MIN / MAX of a double precision value is refused ("not generated yet")
                fn = rng.choice(["sum", "sum", "min", "max", "avg"] if x.typ != "float" else ["sum", "avg"])
                g = E(f"{fn}({{0}})", [x], typ="float" if fn == "avg" or x.typ == "float" else x.typ, agg=True, scale=x.scale)
                aggs.append(E("coalesce({0}, 0)", [g], typ=g.typ, agg=True, scale=g.scale) if rng.random() < 0.2 else g)
            else:
                c = rng.choice([c for c in cols if c.kind in ("date", "dict", "int", "dec")] or [None])
                aggs.append(E(rng.choice(["min", "max"]) + "({0})", [self.colref(d, c)], typ=TYP[c.kind], agg=True)
                            if c is not None else E(text="count(*)", typ="int", agg=True))
        q.select = [(e, f"b{i + 1}") for i, e in enumerate(keys + aggs)]
        q.group, q.group_style = keys, [rng.choice(["expr", "pos", "alias"]) for _ in keys]

    def gen_null_derived(self):
        """A derived table (or WITH query) over X LEFT JOIN T whose values over T may be NULL —
        nullable_value()'s (computed numbers and dates: arithmetic, EXTRACT, CASE without ELSE, NULLIF,
        date + interval) or, grouped by X's key, aggregates over T (NULL over no non-NULL value) and
        arithmetic over them, or without GROUP BY (one row, NULL over no rows: now and then a WHERE
        that keeps none); booleans now and then (nullable_value) — grouped by and counted in the
        enclosing query (null_outer; docs/sql.md "NULLs": such a value reads 0 in every NULL row, so
        the NULL rows make one group); now and then the enclosing query also joins X's table on the
        key."""
        rng = self.rng
        sub, sscope, a, b, xc, other = self.left_base()
        nums = [c for c in sscope.cols[b] if c.kind in ("int", "dec")]
        i = self.n
        grouped = rng.random() < 0.35
        scalar = grouped and rng.random() < 0.3
        cols = [] if scalar else [Col(f"dk{i}", "key", xc.domain, pk=grouped)]
        sub.select = [] if scalar else [(self.colref(a, xc), f"dk{i}")]
        if scalar and rng.random() < 0.4:
            sub.where.append(E("{0} < 0", [self.colref(a, xc)]))  # keys are positive: no row
        for j in range(rng.choice([1, 2, 2, 3])):
            if grouped and nums and rng.random() < 0.8:
                x = self.colref(b, rng.choice(nums))
                fn = rng.choice(["sum", "sum", "min", "max", "avg"])
                e = E(f"{fn}({{0}})", [x], typ="float" if fn == "avg" else x.typ, agg=True, scale=x.scale)
                if fn != "avg" and (fn != "sum" or x.typ == "dec") and rng.random() < 0.4:
                    e = self.arith(e, small_literal(rng), rng.choice("+-*"))
                    if not self.fits(e):
                        e = e.kids[0]
            elif grouped:
                e = E("count({0})", [self.colref(b, rng.choice(other))], typ="int", agg=True)
            else:
                e = self.nullable_value(sscope, a, b, plain=0.2, boolean=0.15)
            sub.select.append((e, f"dv{i}_{j}"))
            cols.append(Col(f"dv{i}_{j}", KIND_OF_TYP[e.typ], scale=e.scale))
            cols[-1].wide = "sum(" in e.sql()
        if grouped and not scalar:
            sub.group, sub.group_style = [self.colref(a, xc)], [rng.choice(["expr", "pos", "alias"])]
        q, scope = Query(), Scope()
        d = self.add_derived(scope, q, sub, cols, cte=rng.random() < 0.4)
        xt = sscope.table[a]
        if not scalar and rng.random() < 0.25:
            x = self.add_table(scope, q, xt)
            pk = next(c for c in scope.cols[x] if c.name == PRIMARY[xt])
            q.joins.append(E("{0} = {1}", [self.colref(d, cols[0]), self.colref(x, pk)][::rng.choice([1, -1])]))
            q.where.append(self.gen_pred(scope, [x], 1))
            q.style = rng.choice(["comma", "join"])
        self.null_outer(q, scope, d)
        floats = any(e.typ == "float" for e, _ in q.select)
        if not floats or rng.random() < 0.5:
            self.order_all(q)
            if not floats and rng.random() < 0.3:
                q.limit = rng.choice([1, 3, 10, 25, 100])
        return q

    def full_side(self, scope, q, t, key):
        """One side of a FULL JOIN: table t, or (now and then as a WITH query) a subquery of its key
        and two or three other columns, filtered (so that the other side has rows without a match).
        (alias, key column)."""
        rng = self.rng
        if rng.random() < 0.3:
            a = self.add_table(scope, q, t)
            return a, next(c for c in scope.cols[a] if c.name == key)
        sub, sscope = Query(), Scope()
        x = self.add_table(sscope, sub, t)
        kc = next(c for c in sscope.cols[x] if c.name == key)
        others = [c for c in sscope.cols[x] if c.name != key and c.kind in ("key", "int", "dec", "date", "dict")]
        picked = [kc] + rng.sample(others, min(len(others), rng.choice([2, 3])))
        sub.select = [(self.colref(x, c), c.name) for c in picked]
        for _ in range(rng.choice([1, 1, 2])):
            sub.where.append(self.literal_pred(sscope, x, rng.choice(sscope.cols[x])))
        cols = [Col(c.name, c.kind, c.domain, pk=c.pk, scale=c.scale) for c in picked]
        a = self.add_derived(scope, q, sub, cols, cte=rng.random() < 0.3)
        return a, cols[0]

    def gen_full_join(self):
        """X FULL JOIN T ON X's primary key = T's foreign key (docs/sql.md "FULL OUTER JOIN"), each side
        a table or a filtered subquery (full_side): grouped by a column of one side (the other side's
        unmatched rows make its NULL group) or COALESCE of the keys, with COUNT(*), COUNT of either
        side and SUM / MIN / MAX over either side; or both sides' columns listed (ordered, limited).
        Now and then a WHERE over the joined rows (IS [NOT] NULL of a key, a predicate on one side)."""
        rng = self.rng
        pairs = key_pairs()
        x, xk, t, tk = rng.choice(pairs)
        q, scope = Query(), Scope()
        q.style = "join"
        a, ak = self.full_side(scope, q, x, xk)
        b, bk = self.full_side(scope, q, t, tk)
        q.items[-1].full = True
        q.joins.append(E("{0} = {1}", [self.colref(a, ak), self.colref(b, bk)][::rng.choice([1, -1])]))
        if rng.random() < 0.3:
            side = rng.choice([a, b])
            c = rng.choice(scope.cols[side])
            if rng.random() < 0.5:
                q.where.append(E("{0} is " + rng.choice(["", "not "]) + "null", [self.colref(side, ak if side == a else bk)]))
            else:
                q.where.append(self.literal_pred(scope, side, c))
        both = lambda: rng.choice([a, b])  # noqa: E731
        coalesced = E("coalesce({0}, {1})", [self.colref(a, ak), self.colref(b, bk)], typ="int")
        if rng.random() < 0.7:
            r = rng.random()
            if r < 0.3:
                keys = [coalesced]
            else:
                side = both()
                kc = [c for c in scope.cols[side] if c.kind in ("key", "int", "date", "dict")]
                keys = [self.colref(side, rng.choice(kc))]
            aggs = []
            for _ in range(rng.choice([1, 2, 3])):
                r = rng.random()
                side = both()
                if r < 0.3:
                    aggs.append(E(text="count(*)", typ="int", agg=True))
                elif r < 0.55:
                    aggs.append(E("count({0})", [self.colref(side, rng.choice(scope.cols[side]))], typ="int", agg=True))
                else:
                    nums = [c for c in scope.cols[side] if c.kind in ("int", "dec", "date")]
                    if not nums:
                        aggs.append(E(text="count(*)", typ="int", agg=True))
                        continue
                    c = rng.choice(nums)
                    fn = rng.choice(["min", "max"] if c.kind == "date" else ["sum", "min", "max"])
                    aggs.append(E(f"{fn}({{0}})", [self.colref(side, c)], typ=TYP[c.kind], agg=True, scale=c.scale))
            q.select = [(e, f"a{i + 1}") for i, e in enumerate(keys + aggs)]
            q.group, q.group_style = keys, [rng.choice(["expr", "pos", "alias"])]
        else:
            items = [self.colref(a, ak), self.colref(b, bk)]
            if rng.random() < 0.4:
                items.append(coalesced)
            for side in (a, b):
                rest = [c for c in scope.cols[side] if c.kind in ("int", "dec", "date", "dict")]
                if rest and rng.random() < 0.6:
                    items.append(self.colref(side, rng.choice(rest)))
            q.select = [(e, f"a{i + 1}") for i, e in enumerate(items)]
        self.order_all(q)
        if rng.random() < 0.5 or not q.group:
            q.limit = rng.choice([5, 20, 100])
        return q

    def gen_query(self, allow_sub=True, allow_left=True):
        rng = self.rng
        if rng.random() < 0.05 and allow_left:
            return self.gen_left()
        q, scope = Query(), Scope()
        self.gen_from(scope, q, rng.choices([1, 2, 3, 4, 5], weights=[28, 32, 22, 12, 6])[0])
        aliases = scope.aliases()
        self.last_scope = scope
        for _ in range(rng.choices([0, 1, 2, 3, 4], weights=[10, 30, 30, 20, 10])[0]):
            q.where.append(self.gen_pred(scope, aliases, allow_sub=allow_sub))
        shape = rng.choices(["group", "scalar", "project"], weights=[50, 15, 35])[0]
        alias_n = iter(range(1, 100))
        name = lambda: f"a{next(alias_n)}"  # noqa: E731
        if shape in ("group", "scalar"):
            keys = []
            if shape == "group":
                for _ in range(rng.choices([1, 2, 3], weights=[50, 35, 15])[0]):
                    k = self.group_key(scope, aliases)
                    if k.sql() not in [x.sql() for x in keys]:
                        keys.append(k)
            aggs = [self.gen_agg(scope, aliases) for _ in range(rng.choice([1, 1, 2, 2, 3, 4]))]
            items = [k for k in keys if rng.random() < 0.9] + aggs
            if rng.random() < 0.25:
                m = self.agg_map(aggs)
                if m is not None:
                    items.append(m)
            rng.shuffle(items)
            q.select = [(e, name()) for e in items]
            q.group = keys
            q.group_style = [rng.choice(["expr", "expr", "pos", "alias"]) for _ in keys]
            if rng.random() < 0.3:
                h = self.gen_agg(scope, aliases, numeric_only=True)
                thr = self.sample_agg_threshold(q, h)
                if thr is not None:
                    q.having.append(E("{0} " + rng.choice([">", ">=", "<", "<=", "<>"]) + " {1}", [h, thr]))
        else:
            items = []
            for _ in range(rng.choice([1, 2, 2, 3, 4])):
                r = rng.random()
                if r < 0.55:
                    a, c = self.pick_col(scope, aliases, ("key", "int", "dec", "date", "dict", "heap"))
                    items.append(self.colref(a, c))
                elif r < 0.8:
                    items.append(self.gen_num(scope, aliases, 2))
                elif r < 0.9:
                    a, c = self.pick_col(scope, aliases, ("date",))
                    if a is not None:
                        items.append(E("{0} + interval '" + str(rng.choice([1, 5, 30])) + "' day",
                                       [self.colref(a, c)], typ="date"))
                else:
                    items.append(self.group_key(scope, aliases))
            q.select = [(e, name()) for e in items]
        floats = any(e.typ == "float" for e, _ in q.select)
        if shape == "project" or rng.random() < 0.5:
            self.order_all(q)
            if not floats and rng.random() < 0.2:
                self.order_by_hidden(q, scope, aliases, shape)
            if not floats and rng.random() < (0.7 if shape == "project" else 0.3):
                q.limit = rng.choice([1, 3, 10, 25, 100])
                if rng.random() < 0.25:
                    q.offset = rng.choice([1, 2, 5, 20])
        return q

    def order_by_hidden(self, q, scope, aliases, shape):
        """A first ORDER BY key the select list does not show: a column (or, when the query groups, an
        aggregate or a group key). The rest of the order is every output, so only rows equal in every
        output column may tie (the oracle compares such a result in its own order)."""
        rng = self.rng
        if shape == "project":
            a, c = self.pick_col(scope, aliases, ("key", "int", "dec", "date", "dict"))
            key = self.colref(a, c) if a is not None else None
        elif shape == "group" and q.group and rng.random() < 0.4:
            key = rng.choice(q.group)
        else:
            key = self.gen_agg(scope, aliases, numeric_only=True)
        if key is None or key.typ == "float" or key.sql() in [e.sql() for e, _ in q.select]:
            return
        q.order.insert(0, (key.sql(), rng.random() < 0.5))

    def order_all(self, q):
        names = [a for _, a in q.select]
        self.rng.shuffle(names)
        q.order = [(a, self.rng.random() < 0.35) for a in names]

    # -- window functions -----------------------------------------------------------------------
    def gen_window_query(self):
        """A query of gen_query's shapes with one to three window functions added to its select list
        (docs/sql.md "Window functions"): PARTITION BY and ORDER BY over its select items (group keys
        and aggregates of a grouping query), ranks, LAG/LEAD, counts and aggregates, the three frames.
        Only deterministic answers: ROW_NUMBER, LAG/LEAD and ROWS frames (which depend on the order of
        peers) only
        under an ORDER BY of every other select item, and at most one of them per query (rows tied on
        every item are then equal everywhere, so either order gives the same multiset of rows)."""
        rng = self.rng
        q = self.gen_query(allow_sub=True, allow_left=rng.random() < 0.5)
        q.order, q.limit = [], None
        base = list(q.select)
        if not base:
            return q
        order_sensitive = False
        for w in range(rng.choice([1, 1, 2, 3])):
            parts = rng.sample(base, min(len(base), rng.choice([0, 0, 1, 1, 2])))
            fn = rng.choices(["row_number", "rank", "dense_rank", "sum", "count", "count*", "min", "max", "avg", "lag", "lead"],
                             weights=[12, 14, 10, 18, 8, 8, 10, 10, 10, 6, 6])[0]
            frame = ""
            r = rng.random()
            ranking = ("row_number", "rank", "dense_rank", "lag", "lead")
            if fn not in ranking and r < 0.15:
                frame = " rows between unbounded preceding and current row"
            elif fn not in ranking and r < 0.25:
                frame = " rows between unbounded preceding and unbounded following"
            sensitive = fn in ("row_number", "lag", "lead") or frame.endswith("current row")
            if sensitive and order_sensitive:
                fn, frame, sensitive = "rank", "", False
            if sensitive:
                order_sensitive = True
                orders = [(e, rng.random() < 0.35) for e, _ in base if e not in [p for p, _ in parts]]
                rng.shuffle(orders)
                if not orders:
                    fn, frame = "count*", ""
            else:
                orders = [(e, rng.random() < 0.35) for e, _ in rng.sample(base, min(len(base), rng.choice([0, 1, 1, 2, 3])))]
            if fn in ("rank", "dense_rank") and not orders and rng.random() < 0.8:
                orders = [(rng.choice(base)[0], rng.random() < 0.5)]
            kids = [e for e, _ in parts] + [e for e, _ in orders]
            over = []
            if parts:
                over.append("partition by " + ", ".join("{%d}" % i for i in range(len(parts))))
            if orders:
                over.append("order by " + ", ".join("{%d}%s" % (len(parts) + i, " desc" if d else "") for i, (_, d) in enumerate(orders)))
            over_sql = " ".join(over) + frame
            if fn in ("row_number", "rank", "dense_rank"):
                e = E(f"{fn}() over ({over_sql})", kids, typ="int")
            elif fn in ("lag", "lead"):
                x = rng.choice([x for x, _ in base if x.typ != "bool"] or [base[0][0]])
                offset = rng.choice(["", "", ", 0", ", 2"])
                e = E(f"{fn}({{{len(kids)}}}{offset}) over ({over_sql})", kids + [x], typ=x.typ, scale=x.scale)
            elif fn == "count*":
                e = E(f"count(*) over ({over_sql})", kids, typ="int")
            else:
                allowed = ("int", "dec") if fn in ("sum", "avg") else ("int", "dec", "date", "str") if fn != "count" else \
                    ("int", "dec", "date", "str", "float")
                args = [x for x, _ in base if x.typ in allowed]
                if not args:
                    e = E(f"count(*) over ({over_sql})", kids, typ="int")
                else:
                    x = rng.choice(args)
                    shift = len(kids)
                    typ = "int" if fn == "count" else "float" if fn == "avg" else x.typ
                    e = E(f"{fn}({{{shift}}}) over ({over_sql})", kids + [x], typ=typ, scale=x.scale)
            q.select.append((e, f"w{w + 1}"))
        floats = any(e.typ == "float" for e, _ in q.select)
        if rng.random() < 0.6:
            self.order_all(q)
            if not floats and rng.random() < 0.3:
                q.limit = rng.choice([1, 3, 10, 25, 100])
        return q

    # -- set operations -------------------------------------------------------------------------
    def set_operand(self):
        """A query usable as a set operand (no ORDER BY / LIMIT) and its scope: one of gen_query's (no
        LEFT JOIN's NULLs), or now and then (LEFT_OPERAND_SHARE) one over a LEFT JOIN whose columns
        may be NULL (gen_left_operand), drawn on the NULL stream in place of gen_query's, which is
        drawn all the same (so the main stream advances as it did before)."""
        q = self.gen_query(allow_left=False)
        q.order, q.limit = [], None
        if self.null_rng.random() < LEFT_OPERAND_SHARE:
            return self.on_null_stream(self.gen_left_operand)
        return q, self.last_scope

    def refiltered(self, q, scope):
        """q with other WHERE conjuncts (over the scope's filter aliases, else all): the same columns,
        so the same types, and other rows."""
        n = copy.deepcopy(q)
        n.where = [self.gen_pred(scope, scope.filter or scope.aliases(), allow_sub=True)
                   for _ in range(self.rng.choices([1, 2, 3], weights=[50, 35, 15])[0])]
        return n

    def null_items(self, s):
        """Now and then (NULL_ITEM_SHARE, all drawn from the NULL stream) one operand of set operation
        s selects NULLs in place of one or two of its number or date items: typed
        (CAST(NULL AS integer | bigint | numeric(p, s) | double precision | date)) or bare (NULL, which
        takes the other operands' type) — never in a string column (a bare NULL there is refused) and
        in one operand only (NULLs alone have no type). An operand keeps one item that is not NULL,
        and one that aggregates without GROUP BY keeps an aggregate (so it stays one row). True when
        it replaced one."""
        rng = self.null_rng
        if rng.random() >= NULL_ITEM_SHARE:
            return False
        q = rng.choice(set_operands(s))
        cands = [i for i, (e, _) in enumerate(q.select) if e.typ in ("int", "dec", "float", "date")]
        rng.shuffle(cands)
        nulled = set()
        for i in cands[:rng.choice([1, 1, 2])]:
            rest = [e for j, (e, _) in enumerate(q.select) if j != i and j not in nulled]
            if not rest or (not q.group and any(e.has_agg() for e, _ in q.select) and not any(e.has_agg() for e in rest)):
                continue
            e, name = q.select[i]
            if rng.random() < 0.3:
                text = "null"
            elif e.typ == "int":
                text = "cast(null as " + rng.choice(["integer", "bigint"]) + ")"
            elif e.typ == "dec":
                text = f"cast(null as numeric({max(rng.choice([12, 15, 18]), e.scale + 1)}, {e.scale}))"
            elif e.typ == "float":
                text = "cast(null as double precision)"
            else:
                text = "cast(null as date)"
            q.select[i] = (leaf(text, e.typ, scale=e.scale), name)
            nulled.add(i)
        q.nullable = q.nullable or bool(nulled)
        return bool(nulled)

    def gen_set_operation(self):
        """a UNION ALL | UNION | INTERSECT | EXCEPT b [... c]: b is a itself filtered otherwise, or an
        independent query of matching types; now and then the whole is a derived table that an outer
        query groups and aggregates. ORDER BY all output columns (+ LIMIT) as gen_query does. Operands
        may select columns that may be NULL (set_operand's LEFT JOIN operands, null_items' NULLs);
        then the outer query is null_outer's (no DISTINCT aggregate, no computed string key over
        them)."""
        rng = self.rng
        ops = ["union all", "union", "intersect", "except"]
        op = rng.choices(ops, weights=[40, 30, 15, 15])[0]
        left, scope = self.set_operand()
        if op != "union all" and any(e.typ == "float" for e, _ in left.select):
            op = "union all"
        right = None
        if rng.random() < 0.4:
            for _ in range(4):
                cand, _ = self.set_operand()
                if set_compatible(left, cand, op):
                    right = cand
                    break
        s = SetQuery(op, left, right or self.refiltered(left, scope))
        if rng.random() < 0.2:
            op2 = rng.choices(ops, weights=[40, 30, 15, 15])[0] if op != "union all" or \
                not any(e.typ == "float" for e, _ in left.select) else "union all"
            third = self.refiltered(left, scope)
            s = SetQuery(op2, s, third) if rng.random() < 0.6 else SetQuery(op2, third, s)
        self.null_items(s)
        nullable = any(o.nullable for o in set_operands(s))
        if rng.random() < 0.25:
            outer, oscope = Query(), Scope()
            cols = [Col(a, heap_kind(e) if nullable else KIND_OF_TYP[e.typ], scale=e.scale) for e, a in s.select]
            d = self.add_derived(oscope, outer, s, cols, cte=rng.random() < 0.3)
            if nullable:
                for c, (e, _) in zip(cols, s.select):
                    c.wide = "sum(" in e.sql()
                self.null_outer(outer, oscope, d)
            else:
                keys = [self.group_key(oscope, [d])] if rng.random() < 0.7 else []
                aggs = [self.gen_agg(oscope, [d]) for _ in range(rng.choice([1, 2]))]
                outer.select = [(e, f"b{i + 1}") for i, e in enumerate(keys + aggs)]
                outer.group, outer.group_style = keys, ["expr"] * len(keys)
            s = outer
        if not any(e.typ == "float" for e, _ in s.select) or rng.random() < 0.5:
            self.order_all(s)
            if rng.random() < 0.3 and not any(e.typ == "float" for e, _ in s.select):
                s.limit = rng.choice([1, 3, 10, 25, 100])
        return s


def key_pairs():
    """(X, X's primary key, T, T's foreign key to X) of the schema: the pairs an outer join joins on."""
    return [(x, PRIMARY[x], t, n) for x in PRIMARY for t, cols in TPCH.items() for n, k, d in cols
            if k == "key" and t != x and d == dict((c[0], c[2]) for c in TPCH[x])[PRIMARY[x]]]


def heap_kind(e):
    """The kind of a derived column from its expression: a heap column's is "heap" (it can be neither
    grouped nor MIN / MAX'd there), else by its typ (KIND_OF_TYP)."""
    m = re.fullmatch(r"[a-z]+\d+\.(\w+)", e.text or "")
    if m and any(n == m.group(1) and k == "heap" for cols in TPCH.values() for n, k, _ in cols):
        return "heap"
    return KIND_OF_TYP[e.typ]


def set_operands(s):
    """The queries a set operation combines, left to right."""
    return set_operands(s.left) + set_operands(s.right) if isinstance(s, SetQuery) else [s]


def scope_cols_nonkey(scope, a):
    cols = [c for c in scope.cols[a] if c.kind in ("int", "dec", "date", "dict")]
    return cols if len(cols) >= 2 else scope.cols[a]


# ---------------------------------------------------------------------------------------------------
# Running: the oracle, horseqc, classification
# ---------------------------------------------------------------------------------------------------
MAX_ROWS = 5000
SET_OPERATION_SHARE = 0.1  # of the queries: UNION [ALL] / INTERSECT / EXCEPT (gen_set_operation)
LEFT_OPERAND_SHARE = 0.2  # of the set operands: over a LEFT JOIN, columns that may be NULL (gen_left_operand)
NULL_ITEM_SHARE = 0.2  # of the set operations: one operand selects typed or bare NULLs (null_items)
NULL_DERIVED_SHARE = 0.03  # of the queries neither of the above nor windowed: gen_null_derived's
FULL_JOIN_SHARE = 0.02  # of the queries neither of the above nor windowed: gen_full_join's
WINDOW_SHARE = 0.08  # of the other queries: with window functions (gen_window_query)
STRING_FUNCTION_SHARE = 0.2  # of the predicates on a string column: through string functions (string_fn_pred)


ORACLE_SECONDS = 30  # a query DuckDB needs longer for is dropped (and the next attempt drawn)


def oracle(con, sql):
    """(columns, rows) from DuckDB, or raises (duckdb.InterruptException past ORACLE_SECONDS: a self-join
    of lineorder on lo_suppkey makes ~10^8 rows at SF 0.01, which stalled whole fuzzers on the GPU
    machine, bench/results/2026-11-26-h100-sql-fuzz-15d27d4)."""
    timer = threading.Timer(ORACLE_SECONDS, con.interrupt)
    timer.start()
    try:
        res = con.execute(sql)
        return [d[0] for d in res.description], res.fetchall()
    finally:
        timer.cancel()


def generate(con, prof, rows, seed, index):
    """Query `index` of `seed`: (Query, sql, columns, rows, attempts); regenerated while DuckDB rejects it,
    its result is too large, or (mostly) empty."""
    rng = random.Random(f"{seed}:{index}")
    # Whether a query is a set operation comes from a stream of its own, so that the other queries
    # of a seed stay what they were before set operations were generated.
    set_rng = random.Random(f"{seed}:{index}:set")
    window_rng = random.Random(f"{seed}:{index}:window")  # likewise for window functions
    string_rng = random.Random(f"{seed}:{index}:strings")
    null_rng = random.Random(f"{seed}:{index}:nulls")  # LEFT JOIN set operands, NULL items, NULL-able derived tables
    subquery_rng = random.Random(f"{seed}:{index}:subquery-nulls")  # scalar subqueries whose NULL value matters
    operator_rng = random.Random(f"{seed}:{index}:operators")  # an integer column modulo a literal
    last = None
    for attempt in range(30):
        g = Gen(con, prof, rows, rng, string_rng, null_rng, subquery_rng, operator_rng)
        sql = "?"
        try:
            if set_rng.random() < SET_OPERATION_SHARE:
                q = g.gen_set_operation()
            elif window_rng.random() < WINDOW_SHARE:
                q = g.gen_window_query()
            else:
                q = g.gen_query()
                r = null_rng.random()
                if r < NULL_DERIVED_SHARE:  # in its place, the main stream advanced as before
                    q = g.on_null_stream(g.gen_null_derived)
                elif r < NULL_DERIVED_SHARE + FULL_JOIN_SHARE:
                    q = g.on_null_stream(g.gen_full_join)
            sql = q.sql()
            cols, res = oracle(con, sql)
        except duckdb_error() as e:
            last = f"oracle error: {str(e).splitlines()[0]} in {sql}"
            continue
        if len(res) > MAX_ROWS:
            if q.limit is None and not any(e.typ == "float" for e, _ in q.select) and not any(it.left for it in q.items):
                g.order_all(q)
                q.limit = rng.choice([10, 50, 200])
                sql = q.sql()
                cols, res = oracle(con, sql)
            else:
                continue
        empty = not res or all(all(v in (None, 0) for v in r) for r in res)
        if empty and rng.random() < 0.85 and attempt < 29:
            continue
        return q, sql, cols, res, attempt
    raise RuntimeError(f"no query for seed {seed} index {index}: {last}")


BATCH_SECONDS_PER_QUERY = 15  # a --sql-file batch may take --timeout plus this per query (cold PoCL: <= 5 s each)


def hang_stacks(pid, work, what):
    """Writes the thread stacks (gdb, when installed) of the horseqc-run processes under pid, and the
    process tree, to a file in `work`; returns its path."""
    tree, children = [], {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
                children.setdefault(int(fields[1]), []).append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    todo = [pid]
    while todo:
        p = todo.pop()
        tree.append(p)
        todo.extend(children.get(p, []))
    path = os.path.join(work, f"hang-{pid}.txt")
    with open(path, "w") as out:
        out.write(f"{what}\n")
        for p in tree:
            try:
                with open(f"/proc/{p}/cmdline") as fh:
                    cmdline = fh.read().replace("\0", " ")[:300]
            except OSError:
                continue
            out.write(f"\n== pid {p}: {cmdline}\n")
            out.flush()
            if "horseqc-run" in cmdline and "mpirun" not in cmdline.split(" ")[0]:
                try:
                    g = subprocess.run(["gdb", "-p", str(p), "-batch", "-nx", "-ex", "thread apply all bt 40"],
                                       capture_output=True, text=True, timeout=120)
                    out.write(g.stdout[-200000:])
                except (OSError, subprocess.TimeoutExpired) as e:
                    out.write(f"(no stacks: {e})\n")
    return path


def duckdb_error():
    import duckdb
    return duckdb.Error


class Runner:
    def __init__(self, args, data):
        self.args, self.data = args, data
        # Under mpirun (--ranks): every rank on PoCL, each with its share of the fact table.
        self.launcher = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", str(args.ranks)] if args.ranks else []
        self.env = dict(os.environ)
        self.hangs = []  # runs killed past their time limit: {what, seconds, stacks, second_run}
        self.this_thread = threading.local()  # .hang: this thread's last entry of `hangs` (--jobs N)
        self.env.setdefault("HORSEQC_KERNEL_CACHE", os.path.join(args.work, "kernels"))
        if args.opt_disable:
            self.env["POCL_EXTRA_BUILD_FLAGS"] = (self.env.get("POCL_EXTRA_BUILD_FLAGS", "") + " -cl-opt-disable").strip()
            # horseqc's kernel cache is keyed by the source alone: unoptimized binaries are kept apart
            self.env["HORSEQC_KERNEL_CACHE"] = os.path.join(self.env["HORSEQC_KERNEL_CACHE"], "opt-disable")

    def run_bounded(self, cmd, timeout, what):
        """(rc, stdout, stderr, seconds) of cmd; rc 'timeout' when it ran past `timeout` seconds. A process
        that does not finish has the stacks of its horseqc-run processes written (hang_stacks) before it
        and its children are killed: what hung (a kernel, the compiler, the host) is then on record."""
        t0 = time.time()
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=self.env,
                             start_new_session=True)
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            where = hang_stacks(p.pid, self.args.work, what)
            try:
                os.killpg(p.pid, 9)
            except ProcessLookupError:
                pass
            out, err = p.communicate()
            self.this_thread.hang = {"what": what, "seconds": round(time.time() - t0, 1), "stacks": where}
            self.hangs.append(self.this_thread.hang)
            with open(where) as fh:  # the frames nearest the hang, for a log that only shows this output
                frames = [ln.rstrip() for ln in fh if ln.startswith(("== pid", "Thread ")) or re.match(r"#[0-7] ", ln)]
            print(f"sql_fuzz: {what} ran past {timeout:.0f} s and was killed; stacks in {where}:\n  " +
                  "\n  ".join(frames[:160]), flush=True)
            return "timeout", out, err, time.time() - t0
        return p.returncode, out, err, time.time() - t0

    def horseqc(self, sql):
        """(rc, stdout, stderr, seconds); rc 'timeout' when it ran past --timeout."""
        cmd = self.launcher + [os.path.join(self.args.bin, "horseqc-run"), self.args.benchmark, "--data", self.data, "--device", self.args.device,
               "--format", "json", "--quiet", "--sql", sql] + (["--model", self.args.model] if self.args.model else [])
        return self.run_bounded(cmd, self.args.timeout, "horseqc-run --sql " + sql[:200])

    def check(self, sql, cols, rows):
        """(outcome, detail, seconds, compile_ms): outcome match | refused | mismatch | crash. A query that
        runs past --timeout runs once more: a second timeout is a crash; a second run that finishes is
        judged by its result, and the first run's hang stays in the report (`hangs`) and is printed."""
        rc, out, err, secs = self.horseqc(sql)
        if rc == "timeout":
            first = self.this_thread.hang
            rc, out, err, secs = self.horseqc(sql)
            first["second_run"] = "timeout" if rc == "timeout" else f"finished (exit {rc})"
        compile_ms = None
        if rc == "timeout":
            return "crash", f"timeout after {self.args.timeout} s, twice (stacks: {self.this_thread.hang['stacks']})", secs, None
        if rc == 4:
            msg = refusal_message(err)
            if msg:
                return "refused", msg, secs, None
            return "crash", f"exit 4 without a clear message: {err.strip()[-500:]!r}", secs, None
        if rc != 0:
            what = f"signal {-rc}" if rc < 0 else f"exit {rc}"
            return "crash", f"{what}: {err.strip()[-1500:]}", secs, None
        try:
            ours = json.loads(out)["queries"][0]
        except (ValueError, KeyError, IndexError) as e:
            return "crash", f"exit 0 but unreadable output ({e}): {out[:300]!r}", secs, None
        return outcome_of(ours, sql, cols, rows, secs)


    def check_batch(self, items, tag):
        """The outcomes of [(sql, cols, rows)] run as one `horseqc-run --sql-file` (their kernels compiled
        together: PoCL's fixed cost per program paid once). A process that dies, times out or prints no
        JSON says nothing about which query did it: then every query runs alone (check)."""
        path = os.path.join(self.args.work, f"batch-{os.getpid()}-{tag}.sql")
        lines, line = [], 1
        with open(path, "w") as f:
            for sql, _, _ in items:
                lines.append(line)
                f.write(sql + ";\n")
                line += sql.count("\n") + 1
        cmd = self.launcher + [os.path.join(self.args.bin, "horseqc-run"), self.args.benchmark, "--data", self.data, "--device",
               self.args.device, "--format", "json", "--quiet", "--sql-file", path] + \
              (["--model", self.args.model] if self.args.model else [])
        t0 = time.time()
        rc, out, _, _ = self.run_bounded(cmd, self.args.timeout + BATCH_SECONDS_PER_QUERY * len(items),
                                         f"horseqc-run --sql-file of {len(items)} queries ({path})")
        try:
            doc = json.loads(out) if rc != "timeout" and rc >= 0 else None
        except ValueError:
            doc = None
        secs = (time.time() - t0) / max(1, len(items))
        by_name = {q.get("query"): q for q in (doc or {}).get("queries", [])}
        out = []
        for (sql, cols, rows), ln in zip(items, lines):
            ours = by_name.get(f"{path}:{ln}")
            out.append(self.check(sql, cols, rows) if ours is None else outcome_of(ours, sql, cols, rows, secs))
        os.remove(path)
        return out


def outcome_of(ours, sql, cols, rows, secs):
    """(outcome, detail, seconds, compile_ms) of one query's entry in horseqc-run's JSON."""
    compile_ms = ours.get("phases", {}).get("compile_ms")
    if "unsupported" in ours:
        return "refused", normalize(ours["unsupported"]), secs, compile_ms
    if "error" in ours:  # --sql-file: a failure other than a refusal
        return "crash", f"exit {ours.get('exit_code')}: {ours['error'][-1500:]}", secs, None
    errs = compare("q", sql, ours, cols, rows)
    return ("mismatch", errs[0][3:], secs, compile_ms) if errs else ("match", "", secs, compile_ms)


def refusal_message(err):
    """The refusal's message, normalized for grouping (positions, literals, numbers, snippets), or ''."""
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    if not lines:
        return ""
    msg = lines[-1]
    msg = re.sub(r"^horseqc-run: (error: )?", "", msg)
    msg = normalize(msg)
    return msg if re.search(r"[a-z]{3,}.*[a-z]{3,}", msg) else ""


def normalize(msg):
    msg = re.sub(r"^(<sql>|[^:\s]+):\d+:\d+:\s*", "", msg.strip())
    msg = re.sub(r"'[^']*'", "'…'", msg)
    while True:  # innermost parentheses first, until none is left
        m2 = re.sub(r"\([^()]*\)", "\x00", msg)
        if m2 == msg:
            break
        msg = m2
    msg = re.sub(r"(\w*)\x00+", r"\1(…)", msg)
    msg = re.sub(r"\b\d+\b", "N", msg)
    msg = re.sub(r"\b[a-z]{1,2}s?\d+(_\d+)?\b", "ALIAS", msg)
    return msg[:200]


# ---------------------------------------------------------------------------------------------------
# Reduction (delta debugging over the query's structure)
# ---------------------------------------------------------------------------------------------------
def drop_alias(q, a):
    """q without FROM item a and everything that reads it; None when nothing remains to select."""
    q = copy.deepcopy(q)
    q.items = [it for it in q.items if it.alias != a]
    keep = lambda e: a not in e.all_refs()  # noqa: E731
    q.joins = [j for j in q.joins if keep(j)]
    q.where = [w for w in q.where if keep(w)]
    q.having = [h for h in q.having if keep(h)]
    kept = [(e, n) for e, n in q.select if keep(e)]
    if not kept or not q.items:
        return None
    names = {n for _, n in kept}
    q.select = kept
    q.order = [(n, d) for n, d in q.order if n in names]
    gk = [(k, s) for k, s in zip(q.group, q.group_style) if keep(k)]
    q.group, q.group_style = [k for k, _ in gk], [s for _, s in gk]
    return q


def expr_variants(e):
    """Expressions smaller than e: e replaced by one of its operands, or an operand simplified."""
    out = []
    for k in e.kids:
        if k.typ == e.typ or (k.typ in NUMERIC and e.typ in NUMERIC):
            if k.has_agg() == e.has_agg() or not e.agg:
                out.append(k)
    for i, k in enumerate(e.kids):
        for v in expr_variants(k):
            n = copy.copy(e)
            n.kids = list(e.kids)
            n.kids[i] = v
            out.append(n)
    if e.sub is not None:
        for v in query_variants(e.sub, inner=True):
            n = copy.copy(e)
            n.sub = v
            out.append(n)
    return out


def set_operation_variants(q, inner):
    """Reductions of a set operation: one operand alone (with the whole's ORDER BY / LIMIT), or an
    operand reduced (never its select list: the operands must keep matching)."""
    out = []
    for side in (q.left, q.right):
        if len(side.select) == len(q.select):
            n = copy.deepcopy(side)
            names = [a for _, a in n.select]
            if [a for _, a in q.select] == names:
                n.order, n.limit = copy.deepcopy(q.order), q.limit
            out.append(n)
    if q.limit is not None:
        n = copy.deepcopy(q)
        n.limit = None
        out.append(n)
    for attr in ("left", "right"):
        for v in query_variants(getattr(q, attr), inner=True):
            n = copy.copy(q)
            setattr(n, attr, v)
            out.append(n)
    return out


def query_variants(q, inner=False):
    """Candidate reductions of q, larger steps first."""
    if isinstance(q, SetQuery):
        return set_operation_variants(q, inner)
    out = []

    def variant(f):
        n = copy.deepcopy(q)
        r = f(n)
        if r is not False:
            out.append(n if r is None else r)

    if q.limit is not None:
        variant(lambda n: setattr(n, "limit", None))
    if q.order and q.limit is None:
        variant(lambda n: setattr(n, "order", []))
    for lst in ("having", "where"):
        items = getattr(q, lst)
        if len(items) > 3:
            half = len(items) // 2
            variant(lambda n, lst=lst, half=half: setattr(n, lst, getattr(n, lst)[half:]))
            variant(lambda n, lst=lst, half=half: setattr(n, lst, getattr(n, lst)[:half]))
        for i in range(len(items)):
            variant(lambda n, lst=lst, i=i: getattr(n, lst).pop(i) and None)
    for it in q.items[::-1]:
        if len(q.items) > 1:
            r = drop_alias(q, it.alias)
            if r is not None:
                out.append(r)
    if not inner:
        for i in range(len(q.select)):
            if len(q.select) > 1:
                def drop_sel(n, i=i):
                    name = n.select.pop(i)[1]
                    n.order = [(a, d) for a, d in n.order if a != name]
                    if not n.order:
                        n.limit = None
                variant(drop_sel)
        for i in range(len(q.group)):
            def drop_key(n, i=i):
                k = n.group.pop(i).sql()
                n.group_style.pop(i)
                gone = {a for e, a in n.select if e.sql() == k}
                n.select = [(e, a) for e, a in n.select if a not in gone]
                if not n.select:
                    return False
                n.order = [(a, d) for a, d in n.order if a not in gone]
                if not n.order:
                    n.limit = None
            variant(drop_key)
    if q.style != "comma" and len(q.items) > 1 and not any(it.left for it in q.items):
        variant(lambda n: setattr(n, "style", "comma"))
    for i, it in enumerate(q.items):
        for j in range(len(it.on)):
            variant(lambda n, i=i, j=j: n.items[i].on.pop(j) and None)
        if it.left:
            variant(lambda n, i=i: setattr(n.items[i], "left", False))
    if q.perm:
        variant(lambda n: setattr(n, "perm", 0))
    for i, it in enumerate(q.items):
        if it.sub is not None:
            if it.cte:
                variant(lambda n, i=i: setattr(n.items[i], "cte", False))
            for v in query_variants(it.sub, inner=True):
                variant(lambda n, i=i, v=v: setattr(n.items[i], "sub", v))
    for lst in ("where", "having"):
        for i, e in enumerate(getattr(q, lst)):
            for v in expr_variants(e):
                variant(lambda n, lst=lst, i=i, v=v: getattr(n, lst).__setitem__(i, v))
    for i, (e, a) in enumerate(q.select):
        for v in expr_variants(e):
            variant(lambda n, i=i, v=v, a=a: n.select.__setitem__(i, (v, a)))
    return out


def failure_kind(outcome, detail):
    """What a reduction must keep: a mismatch stays a mismatch; a crash keeps its exit status."""
    if outcome == "mismatch":
        return "mismatch"
    m = re.match(r"(timeout|signal \d+|exit \d+)", detail)
    return f"crash {m.group(1) if m else detail[:20]}"


def reduce_failure(con, runner, q, outcome, detail, jobs, deadline):
    """The smallest variant of q that fails the same way, within the deadline; (query, detail, checks)."""
    want = failure_kind(outcome, detail)
    checks = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        improved = True
        while improved and time.time() < deadline:
            improved = False
            cands, seen = [], set()
            for c in query_variants(q):
                s = c.sql()
                if s not in seen and len(s) <= len(q.sql()) + 40:
                    seen.add(s)
                    cands.append(c)
            i = 0
            while i < len(cands) and time.time() < deadline:
                batch = []
                while i < len(cands) and len(batch) < jobs:
                    c = cands[i]
                    i += 1
                    try:
                        cols, rows = oracle(con, c.sql())
                    except duckdb_error():
                        continue
                    if len(rows) > 20 * MAX_ROWS:
                        continue
                    batch.append((c, cols, rows))
                if not batch:
                    continue
                results = list(pool.map(lambda b: runner.check(b[0].sql(), b[1], b[2]), batch))
                checks += len(batch)
                for (c, _, _), (o, d, _, _) in zip(batch, results):
                    if o in ("mismatch", "crash") and failure_kind(o, d) == want:
                        q, detail, improved = c, d, True
                        break
                if improved:
                    break
    return q, detail, checks


# ---------------------------------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------------------------------
def main():
    global WINDOW_SHARE
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True, help="directory with horseqc-run")
    ap.add_argument("--work", required=True, help="data cache: tpch-dbgen-sf<X>/ (ssb-sf<X>/) is made there once")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--sf", default="0.01")
    ap.add_argument("--benchmark", default="tpch", choices=["tpch", "ssb"],
                    help="schema and data: TPC-H (dbgen's, as tpch_queries.py) or SSB (horseqc-gen's)")
    ap.add_argument("--time-budget", type=float, default=0, help="stop starting queries after this many seconds")
    ap.add_argument("--jobs", type=int, default=1, help="horseqc-run processes at a time")
    ap.add_argument("--report", help="JSON summary file")
    ap.add_argument("--only", type=int, action="append", help="run only query number I of the seed (repeatable)")
    ap.add_argument("--sql", help="check this query text alone (and reduce it if it fails)")
    ap.add_argument("--sql-file", help="check every query of this file (one per line; lines starting with -- are "
                                       "comments): the failures the long runs found, kept as regression cases")
    ap.add_argument("--device", default="opencl")
    ap.add_argument("--model", help="horseqc-run --model (default: horseqc's)")
    ap.add_argument("--ranks", type=int, help="run horseqc-run under `mpirun -np N` (a distributed run, docs/distributed.md)")
    ap.add_argument("--timeout", type=float, default=120, help="seconds one horseqc-run may take (per query of a batch)")
    ap.add_argument("--batch", type=int, default=20,
                    help="queries per horseqc-run --sql-file (their kernels compiled together); 1: one process each")
    ap.add_argument("--reduce-time", type=float, default=300, help="seconds to reduce one failure")
    ap.add_argument("--reduce-total", type=float, default=900, help="seconds to reduce all failures")
    ap.add_argument("--no-reduce", action="store_true")
    ap.add_argument("--opt-disable", action="store_true",
                    help="PoCL builds without optimization (POCL_EXTRA_BUILD_FLAGS=-cl-opt-disable): about 2x faster, "
                         "but blind to failures only optimized kernels show")
    ap.add_argument("--stack-dump-after", type=float, default=0,
                    help="print this script's own Python stacks after this many seconds, and again each time as many "
                         "pass (a run stuck outside horseqc-run, e.g. in DuckDB, then shows where); 0: never")
    ap.add_argument("--verbose", "-v", action="store_true", help="print every query and its outcome")
    ap.add_argument("--dry-run", action="store_true", help="print the generated queries and DuckDB's row counts only")
    ap.add_argument("--window-share", type=float, default=None,
                    help=f"share of the (non-set-operation) queries with window functions (default {WINDOW_SHARE}); other values "
                         "generate other queries")
    args = ap.parse_args()
    if args.window_share is not None:
        WINDOW_SHARE = args.window_share

    start = time.time()
    if args.stack_dump_after > 0:
        faulthandler.dump_traceback_later(args.stack_dump_after, repeat=True)
    os.makedirs(args.work, exist_ok=True)
    use_benchmark(args.benchmark)
    if args.benchmark == "tpch":
        data = os.path.join(args.work, f"tpch-dbgen-sf{args.sf}")
        make_data("dbgen", args.sf, data, args.bin)
        con = oracle_connection(data)
    else:
        data = os.path.join(args.work, f"ssb-sf{args.sf}")
        if not os.path.exists(os.path.join(data, "lineorder.tbl")):
            subprocess.run([os.path.join(args.bin, "horseqc-gen"), "ssb", "--sf", args.sf, "--out", data, "--quiet"],
                           check=True)
        import duckdb
        con = duckdb.connect()
        load_ssb(con, data)
    prof, rows = build_profile(con)
    runner = Runner(args, data)
    print(f"sql_fuzz: {args.benchmark} seed {args.seed}, {args.queries} queries, sf {args.sf}, data {data}, jobs {args.jobs}, "
          f"profile in {time.time() - start:.1f} s", flush=True)

    counts = collections.Counter()
    refusals = collections.Counter()
    refusal_example = {}
    failures, times, compile_ms = [], [], []
    oracle_errors = []
    indices = args.only or range(args.queries)

    def gen_all():
        if args.sql or args.sql_file:
            texts = [args.sql]
            if args.sql_file:
                with open(args.sql_file) as fh:
                    texts = [line.strip() for line in fh if line.strip() and not line.lstrip().startswith("--")]
            for i, text in enumerate(texts):
                cols, res = oracle(con, text)
                yield i, None, text, cols, res
            return
        for i in indices:
            if args.time_budget and time.time() - start > args.time_budget:
                print(f"sql_fuzz: time budget of {args.time_budget:.0f} s reached after {i} queries", flush=True)
                return
            try:
                q, sql, cols, res, _ = generate(con, prof, rows, args.seed, i)
            except RuntimeError as e:
                oracle_errors.append(str(e))
                continue
            yield i, q, sql, cols, res

    if args.dry_run:
        n = 0
        for i, q, sql, cols, res in gen_all():
            n += 1
            print(f"[{i}] {len(res)} rows: {sql}")
        print(f"{n} queries in {time.time() - start:.1f} s; {len(oracle_errors)} without a query: {oracle_errors[:5]}")
        return 0

    done = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        pending = collections.deque()

        def drain(block_until):
            while len(pending) > block_until:
                batch, fut = pending.popleft()
                for (i, q, sql, cols, res), result in zip(batch, fut.result()):
                    record(i, q, sql, cols, res, result)

        def record(i, q, sql, cols, res, result):
            nonlocal done
            outcome, detail, secs, cms = result
            done += 1
            counts[outcome] += 1
            times.append(secs)
            if cms is not None:
                compile_ms.append(cms)
            if outcome == "refused":
                refusals[detail] += 1
                refusal_example.setdefault(detail, sql)
            elif outcome in ("mismatch", "crash"):
                failures.append({"seed": args.seed, "index": i, "outcome": outcome, "detail": detail, "sql": sql,
                                 "oracle_rows": len(res), "query": q})
                print(f"\n{outcome.upper()} seed {args.seed} query {i}: {detail}\n  {sql}\n", flush=True)
            if args.verbose:
                print(f"[{i}] {outcome} {secs:.1f}s {len(res)} rows: {sql}" + (f"\n    {detail}" if detail else ""),
                      flush=True)
            elif done % 50 == 0:
                print(f"sql_fuzz: {done} queries, {time.time() - start:.0f} s: " +
                      ", ".join(f"{k} {v}" for k, v in sorted(counts.items())), flush=True)

        batch = []

        def submit():
            items = [(sql, cols, res) for _, _, sql, cols, res in batch]
            fut = pool.submit(runner.check_batch, items, batch[0][0]) if args.batch > 1 and len(items) > 1 else \
                pool.submit(lambda: [runner.check(*it) for it in items])
            pending.append((list(batch), fut))
            batch.clear()

        for item in gen_all():
            batch.append(item)
            if len(batch) >= max(1, args.batch):
                submit()
                drain(max(1, args.jobs) * 2)
        if batch:
            submit()
        drain(0)
    run_secs = time.time() - start

    # Reductions
    reduce_deadline = time.time() + args.reduce_total
    crash_seen = {}
    for f in sorted(failures, key=lambda f: len(f["sql"])):
        q = f.pop("query")
        key = normalize(re.sub(r"^.*?error: ", "", f["detail"])) if f["outcome"] == "crash" else None
        if key in crash_seen:
            f["reduced"], f["duplicate_of"] = None, crash_seen[key]
            continue
        if args.no_reduce or q is None or time.time() >= reduce_deadline:
            f["reduced"] = None
            continue
        if key:
            crash_seen[key] = f["index"]
        t0 = time.time()
        rq, rdetail, checks = reduce_failure(con, runner, q, f["outcome"], f["detail"], max(1, args.jobs),
                                             min(reduce_deadline, t0 + args.reduce_time))
        f["reduced"], f["reduced_detail"] = rq.sql(), rdetail
        f["reduce_checks"], f["reduce_seconds"] = checks, round(time.time() - t0, 1)
    for f in failures:
        f.pop("query", None)

    total = sum(counts.values())
    print(f"\nsql_fuzz: seed {args.seed}: {total} queries in {run_secs:.0f} s "
          f"({run_secs / max(1, total):.2f} s per query with {args.jobs} job(s); horseqc-run median "
          f"{sorted(times)[len(times) // 2] if times else 0:.2f} s, mean {sum(times) / max(1, len(times)):.2f} s; "
          f"compile median {sorted(compile_ms)[len(compile_ms) // 2] / 1000 if compile_ms else 0:.2f} s)")
    print("  " + ", ".join(f"{k} {counts[k]}" for k in ("match", "refused", "mismatch", "crash")))
    if oracle_errors:
        print(f"  {len(oracle_errors)} index(es) without a query DuckDB runs: {oracle_errors[:3]}")
    if refusals:
        print("  refusals:")
        for m, n in refusals.most_common():
            print(f"    {n:5d}  {m}")
    for h in runner.hangs:
        print(f"\nHANG: {h['what']} ran {h['seconds']} s and was killed (stacks: {h['stacks']}); "
              f"run again: {h.get('second_run', 'not run again (a batch: its queries ran alone)')}")
    for f in failures:
        print(f"\n{f['outcome'].upper()} seed {f['seed']} query {f['index']} (replay: --seed {f['seed']} --only {f['index']}):"
              f"\n  {f['detail']}\n  query:   {f['sql']}")
        if f.get("reduced"):
            print(f"  reduced: {f['reduced']}\n  reduced: {f['reduced_detail']}")
        elif f.get("duplicate_of") is not None:
            print(f"  (the same crash as query {f['duplicate_of']}: not reduced again)")
    if args.report:
        with open(args.report, "w") as fh:
            json.dump({"seed": args.seed, "sf": args.sf, "queries": total, "seconds": round(time.time() - start, 1),
                       "run_seconds": round(run_secs, 1), "jobs": args.jobs,
                       "horseqc_seconds": {"mean": sum(times) / max(1, len(times)),
                                           "median": sorted(times)[len(times) // 2] if times else 0,
                                           "p90": sorted(times)[int(len(times) * 0.9)] if times else 0},
                       "compile_ms_median": sorted(compile_ms)[len(compile_ms) // 2] if compile_ms else None,
                       "counts": {k: counts[k] for k in ("match", "refused", "mismatch", "crash")},
                       "oracle_errors": oracle_errors,
                       "refusals": [{"message": m, "count": n, "example": refusal_example[m]}
                                    for m, n in refusals.most_common()],
                       "hangs": runner.hangs, "failures": failures}, fh, indent=1, default=str)
    bad = counts["mismatch"] + counts["crash"]
    if args.sql_file:  # a regression case that horseqc answered must stay answered
        bad += counts["refused"]
    print(f"\nsql_fuzz: {'FAILED' if bad else 'ok'} ({bad} failure(s))")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Robustness of the command-line tools (issue 18): no hang, no silently dropped row, nothing left
behind after an interrupt, the right exit class and stream for every failure. Each case failed
before its fix. Answers are checked against DuckDB on the same dbgen .tbl files
(tests/oracle/tpch_queries.py); exit codes against docs/cli.md's table.

usage: robustness_cli.py --bin BUILD/bin --work DIR [--case NAME]...
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from query_oracle import compare  # noqa: E402
from tpch_queries import check_sql_queries, make_data, oracle_connection  # noqa: E402

CASES = []
SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def case(fn):
    CASES.append(fn)
    return fn


class Ctx:
    def __init__(self, args):
        self.bin, self.work = args.bin, args.work
        self.data = os.path.join(args.work, "tpch-dbgen-sf0.01")
        make_data("dbgen", "0.01", self.data, args.bin)

    def run(self, tool, *argv, env=None, timeout=600):
        e = dict(os.environ)
        e.update(env or {})
        return subprocess.run([os.path.join(self.bin, tool), *argv], capture_output=True, text=True, timeout=timeout, env=e)

    def tpch(self, *argv, **kw):
        return self.run("horseqc-run", "tpch", "--data", self.data, "--device", "opencl", *argv, **kw)


def expect(cond, what, failures, p=None):
    if not cond:
        detail = f" (exit {p.returncode}; stderr: {p.stderr.strip()[-600:]!r})" if p is not None else ""
        failures.append(what + detail)


@case
def no_statistics_sums_terminate(ctx, failures):
    """Several 128-bit sums in one kernel (--no-statistics) compiled for minutes on PoCL — the CTA
    reductions' barrier loops; now every answer equals DuckDB's, and a watchdog bounds every phase."""
    queries = [("sums_128", "select sum(l_quantity) as q, sum(l_discount) as d, sum(l_tax) as t, "
                            "sum(l_extendedprice) as e, count(*) as n from lineitem"),
               ("sums_128_where", "select sum(l_quantity) as q, sum(l_discount) as d, count(*) as n from lineitem "
                                  "where l_shipdate < date '1995-01-01'")]
    failures += check_sql_queries(ctx.bin, queries, ctx.data, "no statistics", ["resolution", "pipelined"], "opencl",
                                  os.path.join(ctx.work, "robustness"), ["--no-statistics", "--watchdog", "120"])


@case
def watchdog_names_query_phase(ctx, failures):
    """A phase over --watchdog's limit stops the run with exit 5, naming the query and the phase."""
    p = ctx.tpch("--sql", "select count(*) as n from region where r_regionkey < 3", "--watchdog", "0.05",
                 env={"HORSEQC_KERNEL_CACHE": "off", "POCL_KERNEL_CACHE": "0"})
    expect(p.returncode == 5, "watchdog: expected exit 5", failures, p)
    expect(re.search(r"sql.*: the compile phase has run for .* over the watchdog's limit of 0\.05 s", p.stderr) is not None,
           "watchdog: the message names the query, the phase and the limit", failures, p)
    expect(p.stdout == "", "watchdog: nothing on stdout", failures, p)


@case
def failing_query_keeps_earlier_answers(ctx, failures):
    """A query that fails (not unsupported) ends a run of several; with --format json the document of
    the queries before it is still printed, with the failing query's error and the queries not run."""
    # q6 streams through 1 MiB; q18's hash tables alone need more: exit 5 at q18, q1 never runs.
    p = ctx.tpch("q6", "q18", "q1", "--gpu-memory-limit", "1MiB", "--format", "json", "--quiet")
    expect(p.returncode == 5 and "device memory limit" in p.stderr, "q18 over the memory limit: exit 5", failures, p)
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        doc = {}
    queries = doc.get("queries", [])
    expect([q.get("query") for q in queries] == ["q6", "q18"] and "rows" in queries[0] and len(queries[0]["rows"]) == 1,
           "the JSON keeps q6's answer and lists q18", failures, p)
    expect(len(queries) == 2 and queries[1].get("exit_code") == 5 and "device memory limit" in queries[1].get("error", "")
           and "rows" not in queries[1], "q18's entry: its error and exit code, no rows", failures, p)
    expect(doc.get("not_run") == ["q1"], "the queries after the failure are listed as not run", failures, p)
    # Alone, the failing query still prints nothing on stdout.
    p = ctx.tpch("q18", "--gpu-memory-limit", "1MiB", "--format", "json", "--quiet")
    expect(p.returncode == 5 and p.stdout == "", "q18 alone over the limit: exit 5, nothing on stdout", failures, p)


@case
def usage_errors(ctx, failures):
    p = ctx.tpch("q6", "--threads", "0")
    expect(p.returncode == 2 and "--threads" in p.stderr, "--threads 0 is a usage error", failures, p)
    p = ctx.tpch("q6", "--watchdog", "-1")
    expect(p.returncode == 2 and "--watchdog" in p.stderr, "--watchdog -1 is a usage error", failures, p)
    with open(os.path.join(ctx.work, "q.sql"), "w") as f:
        f.write("select count(*) as n from lineitem\n")
    p = ctx.run("horseqc-compile", os.path.join(ctx.work, "q.sql"), "--schema", "bogus")
    expect(p.returncode == 2 and all(w in p.stderr for w in ("auto", "ssb", "tpch")),
           "--schema bogus: a usage error listing auto, ssb, tpch", failures, p)


@case
def versions(ctx, failures):
    """--version: every program names itself, the version and the commit it was built from (what a
    benchmark log records); where git can say, a commit of this checkout's history (HEAD itself after a
    build; an earlier one when commits came after the last build)."""
    head = subprocess.run(["git", "-C", SOURCE_DIR, "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True)
    for tool in ("horseqc-run", "horseqc-compile", "horseqc-gen", "horseqc-plan", "horseqc-inspect"):
        if not os.path.exists(os.path.join(ctx.bin, tool)):
            continue  # horseqc-inspect is built where libclang is
        p = ctx.run(tool, "--version")
        m = re.fullmatch(tool + r" \d+\.\d+\.\d+ \(commit ([0-9a-f]{12}|unknown)(, modified)?\)\n", p.stdout)
        expect(p.returncode == 0 and m is not None and p.stderr == "", f"{tool} --version", failures, p)
        if m and head.returncode == 0:
            ancestor = subprocess.run(["git", "-C", SOURCE_DIR, "merge-base", "--is-ancestor", m.group(1), "HEAD"],
                                      capture_output=True, text=True)
            expect(ancestor.returncode == 0, f"{tool} --version names a commit of the checkout's history", failures, p)
        p = ctx.run(tool, "--help")
        expect(p.returncode == 0 and "--version" in p.stdout, f"{tool} --help lists --version", failures, p)


@case
def compile_output_errors(ctx, failures):
    """-o onto an uncreatable path or a regular file: a user error (exit 3) naming the path."""
    query = os.path.join(ctx.work, "q.sql")
    with open(query, "w") as f:
        f.write("select count(*) as n from lineitem where l_quantity < 10\n")
    for target in ("/proc/horseqc-nope", query):
        p = ctx.run("horseqc-compile", query, "-o", target)
        expect(p.returncode == 3 and target in p.stderr and "internal" not in p.stderr,
               f"horseqc-compile -o {target}: exit 3 naming the path", failures, p)
    out = os.path.join(ctx.work, "compiled")
    p = ctx.run("horseqc-compile", query, "-o", out)
    expect(p.returncode == 0 and sorted(os.listdir(out)) == ["q.cu", "q.explain.txt", "q.manifest.json"],
           "horseqc-compile -o DIR writes exactly the three files", failures, p)


@case
def streams(ctx, failures):
    """Results on stdout only, diagnostics on stderr, in every format; --quiet leaves stderr empty."""
    sql = "select r_name, count(*) as n from region, nation where r_regionkey = n_regionkey group by r_name"
    for fmt in ("table", "csv", "json"):
        p = ctx.tpch("--sql", sql, "--format", fmt)
        if fmt == "json":  # one document: the rows, and the device and phases as data
            doc = json.loads(p.stdout) if p.returncode == 0 else {}
            rows = doc.get("queries", [{}])[0].get("rows")
            expect(p.returncode == 0 and rows and "opencl" in doc.get("device", ""),
                   "--format json: stdout is one JSON document with the rows and the device", failures, p)
        else:
            expect(p.returncode == 0 and "ASIA" in p.stdout and "kernels" not in p.stdout and "device:" not in p.stdout,
                   f"--format {fmt}: stdout holds the result and no phase or device line", failures, p)
        expect("kernels" in p.stderr and "device: opencl" in p.stderr, f"--format {fmt}: phases and device on stderr",
               failures, p)
        q = ctx.tpch("--sql", sql, "--format", fmt, "--quiet")
        same = (json.loads(q.stdout)["queries"][0]["rows"] == rows) if fmt == "json" and q.returncode == 0 else q.stdout == p.stdout
        expect(q.returncode == 0 and q.stderr == "" and same,
               f"--format {fmt} --quiet: the same result on stdout, nothing on stderr", failures, q)
    g = ctx.run("horseqc-gen", "tpch", "--sf", "0.001", "--out", os.path.join(ctx.work, "gen-quiet"), "--quiet")
    expect(g.returncode == 0 and g.stdout == "" and g.stderr == "", "horseqc-gen --quiet prints nothing", failures, g)


@case
def corrupt_cache_is_reported(ctx, failures):
    """A corrupt columnar cache next to its .tbl is rebuilt from the .tbl — and says so on stderr."""
    data = os.path.join(ctx.work, "corrupt-cache")
    p = ctx.run("horseqc-gen", "tpch", "--sf", "0.001", "--out", data, "--quiet")
    sql = "select count(*) as n, sum(n_regionkey) as s from nation"
    first = ctx.run("horseqc-run", "tpch", "--data", data, "--device", "opencl", "--sql", sql, "--format", "csv")
    cache = os.path.join(data, "nation.tbl.hqc")
    expect(first.returncode == 0 and os.path.exists(cache), "the first run writes nation.tbl.hqc", failures, first)
    if os.path.exists(cache):
        with open(cache, "r+b") as f:
            f.seek(64)
            f.write(b"garbage!")
    again = ctx.run("horseqc-run", "tpch", "--data", data, "--device", "opencl", "--sql", sql, "--format", "csv")
    expect(again.returncode == 0 and again.stdout == first.stdout, "a corrupt cache: the same answer", failures, again)
    expect(re.search(r"nation: the columnar cache was not used: .*nation\.tbl\.hqc.*loaded nation\.tbl", again.stderr) is not None,
           "a corrupt cache: stderr says it was not used and why", failures, again)


def dead_pid():
    """A pid no process has now."""
    pid = 4_000_000
    while os.path.exists(f"/proc/{pid}"):
        pid += 1
    return pid


@case
def generation_refusals_write_nothing(ctx, failures):
    """A refused generation (scale factor too large, too little free disk space) creates nothing."""
    out = os.path.join(ctx.work, "gen-refused")
    subprocess.run(["rm", "-rf", out], check=True)
    p = ctx.run("horseqc-gen", "tpch", "--sf", "100000", "--out", out)
    expect(p.returncode == 2 and not os.path.exists(out), "--sf 100000: refused, no output directory", failures, p)
    # A scale factor whose files exceed the free space: from the free space here, or a small tmpfs.
    free = shutil.disk_usage(ctx.work).free
    sf = int(free / 1.09e9 * 1.5) + 1
    if sf > 357:
        failures.append(f"cannot plant a too-small disk: {free / 1e9:.0f} GB free exceed TPC-H SF 357")
        return
    p = ctx.run("horseqc-gen", "tpch", "--sf", str(sf), "--out", out)
    expect(p.returncode == 3 and "not enough free disk space" in p.stderr and "GB" in p.stderr
           and not os.path.exists(out), f"--sf {sf}: refused for disk space with the sizes, nothing created", failures, p)


@case
def interrupts_leave_nothing(ctx, failures):
    """Ctrl-C during horseqc-gen and during horseqc-run's generation removes the temporary files
    (exit 130); files of a killed (dead) process are swept by the next run."""
    out = os.path.join(ctx.work, "gen-interrupted")
    subprocess.run(["rm", "-rf", out], check=True)
    os.makedirs(out)
    stale = [os.path.join(out, f"lineitem.tbl.tmp-{dead_pid()}"), os.path.join(out, "keep.tmp-1")]
    for path in stale:
        open(path, "w").close()

    def interrupt(cmd, watch, env=None):
        e = dict(os.environ)
        e.update(env or {})
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=e)
        deadline = time.time() + 120
        while time.time() < deadline and proc.poll() is None:
            if watch():
                break
            time.sleep(0.02)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        return proc.returncode, err

    mine = lambda d: [f for f in (os.listdir(d) if os.path.isdir(d) else []) if re.search(r"\.tmp-\d+$", f) and f != "keep.tmp-1"
                      and not f.startswith("lineitem.tbl.tmp-4")]
    rc, err = interrupt([os.path.join(ctx.bin, "horseqc-gen"), "tpch", "--sf", "0.2", "--out", out, "--quiet"],
                        lambda: bool(mine(out)))
    left = sorted(os.listdir(out))
    expect(rc == 130 and "interrupted" in err, f"horseqc-gen interrupted: exit 130 and a message (exit {rc}: {err!r})", failures)
    expect(not mine(out), f"horseqc-gen interrupted: no temporary file left ({left})", failures)
    expect(not os.path.exists(stale[0]) and os.path.exists(stale[1]),
           f"horseqc-gen: a dead process's temporary file swept, a live one's kept ({left})", failures)

    cache = os.path.join(ctx.work, "xdg-cache")
    subprocess.run(["rm", "-rf", cache], check=True)
    tpch_dir = os.path.join(cache, "horseqc", "tpch")
    rc, err = interrupt([os.path.join(ctx.bin, "horseqc-run"), "tpch", "q6", "--sf", "0.2", "--device", "opencl"],
                        lambda: bool(mine(tpch_dir)), env={"XDG_CACHE_HOME": cache})
    expect(rc == 130 and not mine(tpch_dir),
           f"horseqc-run --sf interrupted while writing: exit 130, no sf0.2.tmp-PID left ({rc}, {err[-300:]!r})", failures)


@case
def messages_speak_sql(ctx, failures):
    """Refusals name the construct as the user wrote it, with its position (exit 4)."""
    for sql, want in [("select greatest(o_totalprice, 0) as x from orders", r"<sql>:1:8: GREATEST / LEAST is not supported"),
                      ("select o_totalprice from orders order by 1 nulls first", r"<sql>:1:\d+: NULLS FIRST / NULLS LAST is not supported"),
                      ("select count(*) as n from part p where p_size = (select max(p2.p_size) from part p2 "
                       "where p2.p_brand = p.p_brand)", r"<sql>:1:\d+: joining on stored string columns is not supported yet: "
                                                        r".*p_brand \(char\(10\)\)")]:
        p = ctx.tpch("--sql", sql)
        expect(p.returncode == 4 and re.search(want, p.stderr) is not None and "Expr " not in p.stderr
               and "cannot be matched" not in p.stderr, f"{sql!r}: exit 4 with /{want}/", failures, p)


@case
def sql_file_batch(ctx, failures):
    """--sql-file: every query of a script, named FILE:LINE, each answer equal to DuckDB's; views apply
    to the queries after them; a failing query is reported alone and the exit code is the highest
    class among the failures."""
    path = os.path.join(ctx.work, "batch.sql")
    text = ("-- a script\n"
            "select r_name, count(*) as n from region, nation where r_regionkey = n_regionkey group by r_name order by r_name;\n"
            "select greatest(n_nationkey, 3) as c from nation;\n"
            "create view big (k, price) as select o_orderkey, o_totalprice from orders where o_totalprice > 300000.00;\n"
            "select count(*) as n, min(price) as lo from big;\n"
            "drop view big;\n"
            "select count(*) as n from big;\n"
            "select l_returnflag, sum(l_quantity) as q from lineitem\n  group by l_returnflag order by l_returnflag;\n")
    with open(path, "w") as f:
        f.write(text)
    p = ctx.tpch("--sql-file", path, "--format", "json")
    doc = json.loads(p.stdout) if p.stdout.strip() else {"queries": []}
    got = {q["query"]: q for q in doc["queries"]}
    expect(p.returncode == 4, "--sql-file: exit 4 (unsupported and input errors: the highest is 4)", failures, p)
    expect(sorted(got) == sorted(f"{path}:{n}" for n in (2, 3, 5, 7, 8)), f"--sql-file: queries named by line ({sorted(got)})",
           failures, p)
    expect("GREATEST / LEAST is not supported" in got.get(f"{path}:3", {}).get("unsupported", ""), "--sql-file: line 3 refused",
           failures, p)
    expect(got.get(f"{path}:7", {}).get("exit_code") == 3 and f"{path}:7:" in got.get(f"{path}:7", {}).get("error", ""),
           "--sql-file: the dropped view is an input error at its own position", failures, p)
    con = oracle_connection(ctx.data)
    for line, sql in [(2, text.splitlines()[1]), (5, "select count(*) as n, min(o_totalprice) as lo from orders "
                                                      "where o_totalprice > 300000.00"),
                      (8, "select l_returnflag, sum(l_quantity) as q from lineitem group by l_returnflag order by l_returnflag")]:
        res = con.execute(sql.rstrip(";"))
        errs = compare(f"line {line}", sql, got.get(f"{path}:{line}", {"columns": [], "rows": []}),
                       [d[0] for d in res.description], res.fetchall())
        failures += [f"--sql-file: {e}" for e in errs]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--case", action="append", help="names of cases to run (default all)")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    ctx = Ctx(args)
    failures = []
    for fn in CASES:
        if args.case and fn.__name__ not in args.case:
            continue
        before = len(failures)
        t0 = time.time()
        fn(ctx, failures)
        print(f"{fn.__name__}: {'ok' if len(failures) == before else 'FAILED'} ({time.time() - t0:.1f} s)", flush=True)
    for f in failures:
        print("FAIL", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""horseqc-run under mpirun: what a user meets besides the answers (those are checked against DuckDB by
ssb_queries.py / tpch_queries.py --ranks N).

  - a rank that fails while loading (its data directory is missing) ends the run on every rank: rank 0
    prints that rank's message, the exit code is that rank's (3), and no result reaches stdout;
  - a rank that fails while the others are inside a query (its SQL does not parse; rank 0's does and is
    running its pipelines) ends the query on every rank the same way;
  - a rank that fails in a later query: the JSON still holds the earlier answers, the failing query's
    error (that rank's) and the queries not run;
  - --help describes the distributed run; options it does not take are refused (exit 2), the library
    models too (exit 4);
  - the device line names every rank's device and the transport; the pipeline statistics list the merges;
  - a UNION ALL of a partitioned and a replicated arm counts the replicated rows once (against DuckDB).

usage: distributed_cli.py --bin BUILD/bin --work DIR
"""
import argparse
import json
import os
import subprocess
import sys

import duckdb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from query_oracle import check_run, mpirun, run_horseqc  # noqa: E402
from ssb_schema import load_ssb  # noqa: E402

GOOD_SQL = "SELECT d_year, SUM(lo_revenue) AS revenue FROM lineorder, date WHERE lo_orderdate = d_datekey GROUP BY d_year"


def run(args, expect):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != expect:
        raise AssertionError(f"{' '.join(args)}: exit {p.returncode}, expected {expect}\nstdout:\n{p.stdout[-2000:]}\nstderr:\n{p.stderr[-3000:]}")
    return p


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    run_bin = os.path.join(args.bin, "horseqc-run")
    data = os.path.join(args.work, "ssb-sf0.01")
    if not os.path.exists(os.path.join(data, "lineorder.tbl")):
        subprocess.run([os.path.join(args.bin, "horseqc-gen"), "ssb", "--sf", "0.01", "--out", data, "--quiet"], check=True)
    base = ["--data", data, "--device", "opencl"]
    launcher = mpirun(1)[:-2]  # mpirun and its options, without -np: MPMD below gives each rank its own

    # A rank that cannot load its share: every rank stops, rank 0 names rank 1 and its error.
    missing = os.path.join(args.work, "no-such-data")
    p = run([*launcher, "-np", "1", run_bin, "ssb", "q1.1", *base, ":", "-np", "1", run_bin, "ssb", "q1.1",
             "--data", missing, "--device", "opencl"], 3)
    assert "rank 1:" in p.stderr and "no-such-data" in p.stderr, p.stderr
    assert p.stdout.strip() == "", "no result may be printed when a rank failed:\n" + p.stdout

    # A rank that fails while rank 0 runs the query's pipelines (it waits at the first exchange).
    p = run([*launcher, "-np", "1", run_bin, "ssb", "--sql", GOOD_SQL, *base, ":", "-np", "1", run_bin, "ssb",
             "--sql", "SELEC d_year FROM date", *base], 3)
    assert "rank 1:" in p.stderr and "SELEC" in p.stderr, p.stderr
    assert p.stdout.strip() == "", p.stdout
    assert p.stderr.count("horseqc-run: error") == 1, "only rank 0 reports:\n" + p.stderr

    # A rank that fails in the second query, after the first was answered: the run ends with that
    # rank's message and code, and rank 0's JSON still holds the first answer, the failing query's error
    # and the query not run (rank 1's memory limit fits q1.1's state, not q4.3's).
    queries = ["q1.1", "q4.3", "q1.2"]
    p = run([*launcher, "-np", "1", run_bin, "ssb", *queries, *base, "--format", "json", "--quiet", ":", "-np", "1", run_bin,
             "ssb", *queries, *base, "--format", "json", "--quiet", "--gpu-memory-limit", "1MiB"], 5)
    assert "rank 1:" in p.stderr and "device memory limit" in p.stderr, p.stderr
    doc = json.loads(p.stdout)
    assert [q["query"] for q in doc["queries"]] == ["q1.1", "q4.3"], doc["queries"]
    assert len(doc["queries"][0]["rows"]) == 1, doc["queries"][0]
    failed = doc["queries"][1]
    assert failed["exit_code"] == 5 and failed["error"].startswith("rank 1: ") and "rows" not in failed, failed
    assert doc["not_run"] == ["q1.2"], doc

    # --help says how to run under mpirun and names its options.
    p = run([run_bin, "--help"], 0)
    for text in ("--partition-weights W,W,...", "--transport auto|mpi|nccl", "Under mpirun (`mpirun -np N horseqc-run ...`"):
        assert text in p.stdout, text

    # What runs in one process only.
    p = run([*mpirun(2), run_bin, "ssb", "q1.1", "--sf", "0.01", "--in-memory", "--device", "opencl"], 2)
    assert "--in-memory runs in one process only" in p.stderr, p.stderr
    p = run([*mpirun(2), run_bin, "ssb", "q1.1", *base, "--concurrent", "all"], 2)
    p = run([*mpirun(2), run_bin, "ssb", "q1.1", *base, "--partition-weights", "1,2,3"], 2)
    assert "3 weights for 2 ranks" in p.stderr, p.stderr
    p = run([*mpirun(2), run_bin, "ssb", "q1.1", *base, "--model", "multi_pass"], 4)
    assert "runs on one device only" in p.stderr, p.stderr
    p = run([run_bin, "ssb", "q1.1", *base, "--partition-weights", "1"], 2)
    assert "applies under mpirun" in p.stderr, p.stderr

    # The device line and the merges in the statistics (rank 0's JSON).
    p = run([*mpirun(3), run_bin, "ssb", "q2.1", *base, "--format", "json"], 0)
    out = json.loads(p.stdout)
    assert out["device"].startswith("3 rank(s) over MPI"), out["device"]
    for r in range(3):
        assert f"rank {r}: opencl" in out["device"], out["device"]
    calls = [l for pl in out["queries"][0]["stats"]["pipelines"] for l in pl["launches"] if "library_call" in l]
    assert any(c["library_call"].startswith("merge aggregation table") and "3 ranks" in c["library_call"] for c in calls), calls
    assert "resolution" in json.dumps(out["model"]), out["model"]
    # A UNION ALL of an arm over each rank's share and an arm over a replicated table into one output:
    # the replicated arm runs on rank 0 only, so its rows count once (DuckDB on the same files).
    con = duckdb.connect()
    load_ssb(con, data)
    for name, sql in (("union_scalar", "SELECT COUNT(*) AS n, SUM(k) AS s FROM (SELECT lo_quantity AS k FROM lineorder "
                                       "UNION ALL SELECT d_year AS k FROM date) AS t"),
                      ("union_grouped", "SELECT k, COUNT(*) AS n FROM (SELECT lo_discount AS k FROM lineorder UNION ALL "
                                        "SELECT d_daynuminweek AS k FROM date) AS t GROUP BY k ORDER BY k")):
        res = con.execute(sql)
        out = run_horseqc(args.bin, "ssb", [], ["--sql", sql, *base], launcher=mpirun(3))
        assert out is not None and len(out["queries"]) == 1, name
        oracle = {out["queries"][0]["query"]: (sql, [d[0] for d in res.description], res.fetchall())}
        failures, _ = check_run(f"np 3 {name}", out, oracle)
        assert not failures, failures
        # The same streamed: each rank's share of lineorder in chunks, the replicated arm still on rank 0 only.
        out = run_horseqc(args.bin, "ssb", [], ["--sql", sql, *base, "--stream", "--chunks", "3"], launcher=mpirun(3))
        assert out is not None and out["queries"][0]["concurrent"]["stream"]["streamed"], name
        failures, _ = check_run(f"np 3 streamed {name}", out, oracle)
        assert not failures, failures

    # Each rank streams its share: forced (--stream), and chosen by itself under a memory limit below
    # its share's working set; the answers are the resident run's, the merges are in the statistics.
    resident = json.loads(run([*mpirun(2), run_bin, "ssb", "q2.1", "q4.1", *base, "--format", "json"], 0).stdout)
    forced = json.loads(run([*mpirun(2), run_bin, "ssb", "q2.1", "q4.1", *base, "--stream", "--format", "json"], 0).stdout)
    for r, f in zip(resident["queries"], forced["queries"]):
        st = f["concurrent"]["stream"]
        assert st["streamed"] and st["reason"] == "streaming forced" and st["table"] == "lineorder", st
        assert (f["columns"], f["rows"]) == (r["columns"], r["rows"]), f["query"]
        calls = [l for pl in f["stats"]["pipelines"] for l in pl["launches"] if "library_call" in l]
        assert any(c["library_call"].startswith("merge") and "2 ranks" in c["library_call"] for c in calls), calls
        # rank 0's share: half of lineorder; a limit leaving about 4 chunks of it beside the resident state.
        limit = st["resident_bytes"] + 2 * (st["rows"] // 4 + 1) * st["bytes_per_row"]
        assert limit < st["working_set_bytes"], st
        auto = json.loads(run([*mpirun(2), run_bin, "ssb", f["query"], *base, "--gpu-memory-limit", str(limit), "--format", "json"], 0).stdout)
        got = auto["queries"][0]
        ast = got["concurrent"]["stream"]
        assert ast["streamed"] and "exceeds the limit" in ast["reason"] and ast["chunks"] >= 4, ast
        assert (got["columns"], got["rows"]) == (r["columns"], r["rows"]), got["query"]
    # An empty share streams too (one chunk of no rows), and a query that scans the fact table
    # twice streams it twice (TPC-H Q17: the average per part, then the lines below it).
    tdata = os.path.join(args.work, "tpch-sf0.01")
    if not os.path.isdir(tdata):
        subprocess.run([os.path.join(args.bin, "horseqc-gen"), "tpch", "--sf", "0.01", "--out", tdata, "--quiet"], check=True)
    tbase = ["--data", tdata, "--device", "opencl", "--format", "json"]
    one = json.loads(run([run_bin, "tpch", "q17", *tbase], 0).stdout)["queries"][0]
    three = json.loads(run([*mpirun(3), run_bin, "tpch", "q17", *tbase, "--stream", "--chunks", "2",
                            "--partition-weights", "1,0,2"], 0).stdout)["queries"][0]
    assert (three["columns"], three["rows"]) == (one["columns"], one["rows"]), three
    assert three["concurrent"]["stream"]["passes"] == 2 and three["concurrent"]["stream"]["table"] == "lineitem", three["concurrent"]

    # ORDER BY ... LIMIT over phase 2's groups (TPC-H Q3's shape: the 10 orders of most revenue): each
    # rank sends rank 0 only its rows that can be among the first 10, resident and streamed — rank 0's
    # result reads at most 3 x 10 rows (ties aside) where without the LIMIT it reads every group.
    q3 = ("SELECT l_orderkey, sum(l_extendedprice * (1 - l_discount)) AS revenue, o_orderdate, o_shippriority "
          "FROM customer, orders, lineitem WHERE c_mktsegment = 'BUILDING' AND c_custkey = o_custkey AND l_orderkey = o_orderkey "
          "AND o_orderdate < date '1995-03-15' AND l_shipdate > date '1995-03-15' "
          "GROUP BY l_orderkey, o_orderdate, o_shippriority ORDER BY revenue DESC, o_orderdate")
    every = json.loads(run([*mpirun(3), run_bin, "tpch", "--sql", q3, *tbase], 0).stdout)["queries"][0]
    assert len(every["rows"]) > 3 * 10 + 3, len(every["rows"])
    for extra in ([], ["--stream", "--chunks", "2"]):
        got = json.loads(run([*mpirun(3), run_bin, "tpch", "--sql", q3 + " LIMIT 10", *tbase, *extra], 0).stdout)["queries"][0]
        assert got["rows"] == every["rows"][:10], (extra, got["rows"])
        calls = [l["library_call"] for pl in got["stats"]["pipelines"] for l in pl["launches"] if "library_call" in l]
        assert any("compacted groups" in c and "split across ranks" in c for c in calls), (extra, calls)
        assert got["stats"]["finalize_parts"]["rows"] <= 3 * 10 + 3, (extra, got["stats"]["finalize_parts"])
    print("distributed_cli: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())

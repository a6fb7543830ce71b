#!/usr/bin/env python3
"""horseqc-run's concurrent and streamed modes through the command line, on OpenCL (PoCL here):

- --help documents every option of these modes;
- bad options fail with exit code 2 and a message naming the problem;
- all 13 SSB queries (SF 0.01) give exactly the rows of the sequential resident run when run
  --concurrent (knapsack and random launch parameters), one at a time with --stream under a small
  --gpu-memory-limit (streaming chosen automatically), and all at once streamed (shared scan); the
  statistics say so (streamed, chunks, consumers, knapsack decisions);
- TPC-H q1, q6, q12, q19 concurrently with lineitem streamed in chunks equal their sequential runs; so
  do q1, q17, q18, q21, whose later scans of lineitem stream it again.

usage: concurrent_cli.py --bin BUILD/bin --work DIR
"""
import json
import os
import subprocess
import sys


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from query_oracle import CliChecks, cli_test_args, rows_by_query, run_cli as run  # noqa: E402


def main():
    args = cli_test_args()
    check = CliChecks("concurrent_cli")

    # --help
    text = run(args.bin, "--help").stdout
    for option in ["--concurrent", "--launch-params", "--seed", "--stream", "--chunks", "--gpu-memory-limit"]:
        check(option in text, f"--help mentions {option}")

    # Bad options: exit 2 and a clear message.
    data = os.path.join(args.work, "ssb-sf0.01")
    if not os.path.isdir(data):
        subprocess.run([os.path.join(args.bin, "horseqc-gen"), "ssb", "--sf", "0.01", "--out", data, "--quiet"], check=True)
    base = ["ssb", "--data", data, "--device", "opencl", "--quiet"]
    bad = [
        (["--chunks", "3"], "--chunks needs --stream"),
        (["--stream", "--chunks", "0"], "--chunks: expected a count of at least 1"),
        (["--launch-params", "random"], "apply to --concurrent"),
        (["--concurrent", "q1.1", "--launch-params", "fast"], "expected auto, knapsack, random or sequential"),
        (["q1.1", "--concurrent", "q2.1"], "--concurrent names its queries itself"),
        (["--concurrent", "q1.1,,q2.1"], "separated by commas"),
        (["--gpu-memory-limit", "4XB"], "expected a size such as 4GiB"),
        (["--gpu-memory-limit", "0"], "expected a size such as 4GiB"),
        (["q1.1", "--stream", "--chunks", "100000000"], "at most one chunk per row"),
    ]
    for extra, message in bad:
        p = run(args.bin, *base, *extra, expect=2)
        check(message in p.stderr, f"{extra}: message contains {message!r} (got {p.stderr.strip()[-300:]!r})")

    # Results: sequential resident is the reference.
    seq = rows_by_query(json.loads(run(args.bin, *base, "--format", "json").stdout))
    check(len(seq) == 13, "13 queries ran sequentially")

    for params in ["auto", "knapsack", "random"]:
        doc = json.loads(run(args.bin, *base, "--concurrent", "all", "--launch-params", params, "--format", "json").stdout)
        got = rows_by_query(doc)
        for q, r in seq.items():
            check(got.get(q) == r, f"--concurrent ({params}): {q} equals the sequential run")
        c = doc["concurrent"]
        check(c["launch_params"] == params and len(c["phases"][-1]["kernels"]) == 13,
              f"--concurrent ({params}): statistics list 13 kernels in the last phase")
        if params == "auto":
            phases = c["phases"]
            check(c["predicted_knapsack_ms"] > 0 and c["predicted_sequential_ms"] > 0
                  and all(p["schedule"] == ("concurrent" if p["predicted_knapsack_ms"] < p["predicted_sequential_ms"]
                                            else "sequential") for p in phases),
                  "--concurrent (auto): every phase ran the schedule predicted faster, both predictions reported")
        if params == "knapsack":
            check(all(k["blocks_per_sm"] >= 1 and k["demand_threads"] >= 1 for k in c["phases"][-1]["kernels"]),
                  "knapsack decisions (demand, blocks per SM) are reported")

    # A limit that leaves room for about 5 chunks of lineorder beyond the resident state.
    probe = json.loads(run(args.bin, *base, "q1.1", "--stream", "--format", "json").stdout)["queries"][0]["concurrent"]["stream"]
    check(probe["streamed"] and probe["reason"] == "streaming forced", "--stream forces streaming")
    doc = json.loads(run(args.bin, *base, "--concurrent", "all", "--stream", "--format", "json").stdout)
    resident = doc["concurrent"]["stream"]["resident_bytes"]
    s = doc["concurrent"]["stream"]
    limit = resident + 2 * (s["rows"] // 5 + 1) * s["bytes_per_row"]

    # Each query alone under a limit of its own (about 5 chunks of what it reads): streamed automatically.
    forced = json.loads(run(args.bin, *base, "--stream", "--format", "json").stdout)
    for q in forced["queries"]:
        fs = q["concurrent"]["stream"]
        own = fs["resident_bytes"] + 2 * (fs["rows"] // 5 + 1) * fs["bytes_per_row"]
        check(own < fs["working_set_bytes"], f"{q['query']}: a limit below its working set exists")
        doc = json.loads(run(args.bin, *base, q["query"], "--gpu-memory-limit", str(own), "--format", "json").stdout)
        got = doc["queries"][0]
        check((got["columns"], got["rows"]) == seq[q["query"]], f"streamed alone: {q['query']} equals the sequential run")
        st = got.get("concurrent", {}).get("stream", {})
        check(st.get("streamed") and st.get("chunks", 0) >= 5 and "exceeds the limit" in st.get("reason", ""),
              f"streamed alone: {q['query']} streamed automatically in at least 5 chunks")

    doc = json.loads(run(args.bin, *base, "--concurrent", "all", "--gpu-memory-limit", str(limit), "--format", "json").stdout)
    got = rows_by_query(doc)
    for q, r in seq.items():
        check(got.get(q) == r, f"shared scan: {q} equals the sequential run")
    st = doc["concurrent"]["stream"]
    check(st["streamed"] and st["consumers"] == 13, "shared scan: streamed automatically, 13 consumers")
    check(st["bytes_transferred"] == st["rows"] * st["bytes_per_row"], "shared scan: lineorder transferred once")
    check(st["chunks"] == max(st["model_chunks"], st["min_chunks"]), "shared scan: chunk count from the stream model")

    doc = json.loads(run(args.bin, *base, "--concurrent", "q1.1,q4.1", "--stream", "--chunks", "7", "--format", "json").stdout)
    check(doc["concurrent"]["stream"]["chunks"] == 7, "--chunks 7 gives 7 chunks")
    got = rows_by_query(doc)
    check(got["q1.1"] == seq["q1.1"] and got["q4.1"] == seq["q4.1"], "--chunks 7: results equal the sequential run")

    # TPC-H queries horseqc runs: concurrently and streamed (lineitem in chunks) equal sequential runs.
    tdata = os.path.join(args.work, "tpch-sf0.01")
    if not os.path.isdir(tdata):
        subprocess.run([os.path.join(args.bin, "horseqc-gen"), "tpch", "--sf", "0.01", "--out", tdata, "--quiet"], check=True)
    tbase = ["tpch", "--data", tdata, "--device", "opencl", "--quiet", "--format", "json"]
    tq = ["q1", "q6", "q12", "q19"]
    tseq = rows_by_query(json.loads(run(args.bin, *tbase, *tq).stdout))
    doc = json.loads(run(args.bin, *tbase, "--concurrent", ",".join(tq), "--stream", "--chunks", "3").stdout)
    check(rows_by_query(doc) == tseq, "TPC-H q1 q6 q12 q19 concurrent and streamed equal the sequential runs")
    check(doc["concurrent"]["stream"]["table"] == "lineitem" and doc["concurrent"]["stream"]["chunks"] == 3,
          "TPC-H: lineitem streamed in 3 chunks")
    # Queries that scan lineitem more than once (Q17 twice, Q18 twice, Q21 three times) stream it again
    # for each later scan: the anchor phase shared by all four, then the later passes.
    mq = ["q1", "q17", "q18", "q21"]
    mseq = rows_by_query(json.loads(run(args.bin, *tbase, *mq).stdout))
    doc = json.loads(run(args.bin, *tbase, "--concurrent", ",".join(mq), "--stream", "--chunks", "3").stdout)
    check(rows_by_query(doc) == mseq, "TPC-H q1 q17 q18 q21 concurrent and streamed (several passes) equal the sequential runs")
    st = doc["concurrent"]["stream"]
    check(st["consumers"] == 4 and st["passes"] >= 3 and st["bytes_transferred"] > st["rows"] * st["bytes_per_row"],
          "TPC-H: later scans of lineitem streamed again (passes, bytes transferred counted per pass)")

    # A chained hash build over the streamed table (orders by o_custkey, every order an entry):
    # each chunk's rows are entries from the chunk's first row on, so the lists equal the resident build's.
    sql = ("select c_nationkey, count(o_orderkey) as n, count(*) as c from customer left outer join orders "
           "on c_custkey = o_custkey and o_orderstatus = 'F' group by c_nationkey order by c_nationkey")
    resident = json.loads(run(args.bin, *tbase, "--sql", sql).stdout)
    streamed = json.loads(run(args.bin, *tbase, "--sql", sql, "--stream", "--chunks", "4").stdout)
    stream = streamed["queries"][0]["concurrent"]["stream"]
    check(stream["table"] == "orders" and stream["chunks"] == 4,
          "chained build: orders streamed in 4 chunks")
    check(rows_by_query(resident) == rows_by_query(streamed) and len(resident["queries"][0]["rows"]) == 25,
          "chained build over a streamed table equals the resident run")

    return check.finish()


if __name__ == "__main__":
    sys.exit(main())

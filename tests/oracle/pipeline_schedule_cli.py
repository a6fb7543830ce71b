#!/usr/bin/env python3
"""horseqc-run --pipelines concurrent|sequential through the command line, on OpenCL (PoCL here):

- --help documents --pipelines; a bad value, or --pipelines with --concurrent, exits with 2;
- TPC-H queries that build several independent hash tables (q2, q5, q7, q8, q9, q10, q21, SF 0.01 of
  horseqc-gen's data), with and without statistics, and SSB q2.1 ... q4.3 give exactly the same rows
  with both settings (the default is concurrent);
- the statistics: sequential runs one pipeline per wave; concurrent runs q5's and q9's (and SSB
  q2.1 ... q4.3's) hash builds together: every pipeline but the last (each build reads only its
  own table and its own hash table) in wave 0, the probe-and-aggregate over the fact table in
  wave 1 — exactly the waves pipeline_waves() derives from their plans; except q9's partsupp
  build, which probes the parts' table first (wave 1, the lineitem pipeline wave 2).
No timing is asserted.

usage: pipeline_schedule_cli.py --bin BUILD/bin --work DIR
"""
import json
import os
import subprocess
import sys


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from query_oracle import CliChecks, cli_test_args, rows_by_query, run_cli as run  # noqa: E402


def stats_by_query(doc):
    return {q["query"]: q["stats"] for q in doc["queries"]}


def main():
    args = cli_test_args()
    check = CliChecks("pipeline_schedule_cli", verbose=True)

    check("--pipelines concurrent|sequential" in run(args.bin, "--help").stdout, "--help documents --pipelines")

    tdata = os.path.join(args.work, "tpch-sf0.01")
    if not os.path.isdir(tdata):
        subprocess.run([os.path.join(args.bin, "horseqc-gen"), "tpch", "--sf", "0.01", "--out", tdata, "--quiet"], check=True)
    tbase = ["tpch", "--data", tdata, "--device", "opencl", "--quiet", "--format", "json"]
    p = run(args.bin, *tbase, "q5", "--pipelines", "parallel", expect=2)
    check("expected one of" in p.stderr or "concurrent" in p.stderr, f"--pipelines parallel: exit 2 naming the choices ({p.stderr.strip()[-200:]!r})")

    p = run(args.bin, *tbase, "--concurrent", "q5,q9", "--pipelines", "sequential", expect=2)
    check("--pipelines applies to queries run one at a time" in p.stderr, "--pipelines with --concurrent: exit 2")

    queries = ["q2", "q5", "q7", "q8", "q9", "q10", "q21"]
    for extra in [[], ["--no-statistics"]]:
        label = " ".join(extra) or "with statistics"
        seq_doc = json.loads(run(args.bin, *tbase, *queries, "--pipelines", "sequential", *extra).stdout)
        con_doc = json.loads(run(args.bin, *tbase, *queries, *extra).stdout)  # the default: concurrent
        seq, con = rows_by_query(seq_doc), rows_by_query(con_doc)
        for q in queries:
            check(q in seq and con.get(q) == seq[q], f"TPC-H {q} ({label}): concurrent pipelines give the sequential rows")
        for q, s in stats_by_query(seq_doc).items():
            waves = [p["wave"] for p in s["pipelines"]]
            check(s["pipeline_schedule"] == "sequential" and waves == list(range(len(waves))) and s["waves"] == len(waves),
                  f"TPC-H {q} ({label}) sequential: one pipeline per wave, in plan order")
        cstats = stats_by_query(con_doc)
        for q, s in cstats.items():
            check(s["pipeline_schedule"] == "concurrent", f"TPC-H {q} ({label}): the default is concurrent")
        for q in ["q5", "q9"]:
            s = cstats[q]
            pipes = s["pipelines"]
            by_wave = {}
            for i, p in enumerate(pipes):
                by_wave.setdefault(p["wave"], []).append(i)
            first = [pipes[i]["name"] for i in by_wave.get(0, [])]
            check(len(first) > 1 and all("build" in n for n in first),
                  f"TPC-H {q} ({label}): wave 0 runs several builds at the same time ({first})")
            waves = [p["wave"] for p in pipes]
            if q == "q5":
                check(waves == [0] * (len(pipes) - 1) + [1] and s["waves"] == 2 and len(pipes) >= 4,
                      f"TPC-H {q} ({label}): all builds in wave 0, the lineitem pipeline in wave 1 (got {waves})")
            else:
                # q9's partsupp build probes the green parts first (ir/pass_reduce_builds.cpp): wave 1,
                # after the parts' build, the lineitem pipeline in wave 2.
                check(waves == [0] * (len(pipes) - 2) + [1, 2] and s["waves"] == 3 and "partsupp" in pipes[-2]["name"],
                      f"TPC-H {q} ({label}): the builds in wave 0 but partsupp's (wave 1, after the parts'), "
                      f"the lineitem pipeline in wave 2 (got {waves})")
            check("lineitem" in pipes[-1]["name"], f"TPC-H {q} ({label}): the last pipeline scans lineitem")

    # SSB: the star joins of flights 2 to 4 build two to four dimension tables each.
    sdata = os.path.join(args.work, "ssb-sf0.01")
    if not os.path.isdir(sdata):
        subprocess.run([os.path.join(args.bin, "horseqc-gen"), "ssb", "--sf", "0.01", "--out", sdata, "--quiet"], check=True)
    sbase = ["ssb", "--data", sdata, "--device", "opencl", "--quiet", "--format", "json"]
    squeries = ["q2.1", "q2.2", "q2.3", "q3.1", "q3.2", "q3.3", "q3.4", "q4.1", "q4.2", "q4.3"]
    seq_doc = json.loads(run(args.bin, *sbase, *squeries, "--pipelines", "sequential").stdout)
    con_doc = json.loads(run(args.bin, *sbase, *squeries, "--pipelines", "concurrent").stdout)
    seq, con = rows_by_query(seq_doc), rows_by_query(con_doc)
    for q in squeries:
        check(q in seq and con.get(q) == seq[q], f"SSB {q}: concurrent pipelines give the sequential rows")
    builds = {"q2": 3, "q3": 3, "q4": 4}  # flight: dimension tables joined (q2/q3: 3, q4: 4)
    for q, s in stats_by_query(con_doc).items():
        waves = [p["wave"] for p in s["pipelines"]]
        check(waves == [0] * builds[q[:2]] + [1], f"SSB {q}: its {builds[q[:2]]} dimension builds share wave 0 (got {waves})")
    for q, s in stats_by_query(seq_doc).items():
        check(s["waves"] == len(s["pipelines"]), f"SSB {q} sequential: one pipeline per wave")

    return check.finish()


if __name__ == "__main__":
    sys.exit(main())

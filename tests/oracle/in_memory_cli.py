#!/usr/bin/env python3
"""horseqc-run --in-memory through the command line, on OpenCL (PoCL here):

- the data is generated straight into memory with only the columns the queries read, and the
  run says so (how many columns of how many);
- all 13 SSB queries and TPC-H q1, q3, q6, q14 (SF 0.01) give exactly the rows of a run on the same
  data written by horseqc-gen and loaded from its .tbl files;
- --in-memory with --data is a usage error (exit 2).

usage: in_memory_cli.py --bin BUILD/bin --work DIR
"""
import json
import os
import re
import subprocess
import sys


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from query_oracle import CliChecks, cli_test_args, rows_by_query, run_cli as run  # noqa: E402


def main():
    args = cli_test_args()
    check = CliChecks("in_memory_cli")

    check("--in-memory" in run(args.bin, "--help").stdout, "--help mentions --in-memory")
    p = run(args.bin, "ssb", "--in-memory", "--data", args.work, expect=2)
    check("--in-memory generates the data" in p.stderr, f"--in-memory with --data: clear message (got {p.stderr.strip()!r})")

    for benchmark, queries in [("ssb", []), ("tpch", ["q1", "q3", "q6", "q14"])]:
        data = os.path.join(args.work, f"{benchmark}-sf0.01")
        if not os.path.isdir(data):
            subprocess.run([os.path.join(args.bin, "horseqc-gen"), benchmark, "--sf", "0.01", "--out", data, "--quiet"],
                           check=True)
        common = ["--device", "opencl", "--quiet", "--format", "json", *queries]
        files = json.loads(run(args.bin, benchmark, "--data", data, *common).stdout)
        memory = json.loads(run(args.bin, benchmark, "--sf", "0.01", "--in-memory", *common).stdout)
        want = rows_by_query(files)
        check(len(want) == (13 if benchmark == "ssb" else len(queries)), f"{benchmark}: every query ran from files")
        check(rows_by_query(memory) == want, f"{benchmark}: --in-memory results equal the runs on the .tbl files")
        m = re.search(r"generated in memory \((\d+) of (\d+) columns", memory["data"])
        check(m is not None and 0 < int(m.group(1)) < int(m.group(2)),
              f"{benchmark}: the run names the columns it generated (got {memory['data']!r})")

    return check.finish()


if __name__ == "__main__":
    sys.exit(main())

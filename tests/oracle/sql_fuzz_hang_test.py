#!/usr/bin/env python3
"""sql_fuzz's handling of a horseqc-run that does not finish (Runner.run_bounded, Runner.check): the run
is killed at --timeout with its stacks written first; a query whose second run finishes is judged by
that run and its hang is kept; a query that hangs twice is a crash. The horseqc-run here is a stand-in
script (no GPU, no data): it hangs while a marker file has hangs left, then prints a one-row answer."""
import os
import sys
import tempfile
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sql_fuzz  # noqa: E402

STAND_IN = """#!/usr/bin/env python3
import json, os, sys, time
marker = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hangs-left")
left = int(open(marker).read()) if os.path.exists(marker) else 0
if left > 0:
    open(marker, "w").write(str(left - 1))
    time.sleep(600)
print(json.dumps({"queries": [{"query": "<sql>", "columns": [{"name": "a", "type": "int64"}], "rows": [[1]]}]}))
"""


def runner(work, timeout):
    args = types.SimpleNamespace(bin=work, work=work, benchmark="tpch", device="opencl", model=None, ranks=None,
                                 opt_disable=False, timeout=timeout)
    return sql_fuzz.Runner(args, work)


def main():
    with tempfile.TemporaryDirectory() as work:
        script = os.path.join(work, "horseqc-run")
        with open(script, "w") as fh:
            fh.write(STAND_IN)
        os.chmod(script, 0o755)
        marker = os.path.join(work, "hangs-left")

        # Hangs once: killed, stacks on file, the second run's answer stands.
        with open(marker, "w") as fh:
            fh.write("1")
        r = runner(work, 3)
        outcome, detail, _, _ = r.check("select 1 as a", ["a"], [(1,)])
        assert outcome == "match", (outcome, detail)
        assert len(r.hangs) == 1 and r.hangs[0]["second_run"] == "finished (exit 0)", r.hangs
        with open(r.hangs[0]["stacks"]) as fh:
            assert "horseqc-run" in fh.read()
        # A wrong answer after a hang is still a mismatch.
        with open(marker, "w") as fh:
            fh.write("1")
        r = runner(work, 3)
        outcome, _, _, _ = r.check("select 2 as a", ["a"], [(2,)])
        assert outcome == "mismatch", outcome

        # Hangs twice: a crash naming the timeout.
        with open(marker, "w") as fh:
            fh.write("2")
        r = runner(work, 3)
        outcome, detail, _, _ = r.check("select 1 as a", ["a"], [(1,)])
        assert outcome == "crash" and "timeout after 3 s, twice" in detail, (outcome, detail)
        assert [h.get("second_run") for h in r.hangs] == ["timeout", None], r.hangs

        # A batch that hangs: nothing read from it; each query then runs alone (and answers).
        with open(marker, "w") as fh:
            fh.write("1")
        r = runner(work, 1)
        out = r.check_batch([("select 1 as a", ["a"], [(1,)]), ("select 1 as a", ["a"], [(1,)])], "t")
        assert [o[0] for o in out] == ["match", "match"], out
        assert len(r.hangs) == 1 and "--sql-file of 2 queries" in r.hangs[0]["what"], r.hangs
    print("sql_fuzz_hang_test: ok")


if __name__ == "__main__":
    main()

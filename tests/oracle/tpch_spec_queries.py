#!/usr/bin/env python3
"""End-to-end oracle test of the TPC-H specification's own query texts: the 22 queries exactly as the
reference qgen prints them with the default substitutions (tests/oracle/tpch_spec/, whose README says
how they were made) — Q6's `.06 - 0.01`, Q11's `0.0001000000`, Q13's derived-table column list and
Q15's CREATE VIEW / SELECT / DROP VIEW script included — each through `horseqc-run tpch --plan FILE`
against DuckDB running the same text (statement by statement) on the same .tbl files (dbgen's data,
as tests/oracle/tpch_queries.py makes it). Comparison as tests/oracle/query_oracle.py says.

usage: tpch_spec_queries.py --bin BUILD/bin --work DIR [--sf 0.01]... [--model resolution]... [--device opencl]
                            [--query q1]... [--no-statistics]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tpch_queries import sql_queries_main  # noqa: E402

SPEC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tpch_spec")


def spec_queries():
    """(name, text) of the 22 specification texts, q1 ... q22."""
    out = []
    for i in range(1, 23):
        with open(os.path.join(SPEC, f"{i}.sql")) as f:
            out.append((f"q{i}", f.read()))
    return out


if __name__ == "__main__":
    sys.exit(sql_queries_main(spec_queries(), "tpch_spec", __doc__.split("\n")[0]))

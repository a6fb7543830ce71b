#!/usr/bin/env python3
"""The oracle comparison itself (query_oracle.compare): a wrong row, a missing row and rows out of
ORDER BY order fail; floats that differ in their last bits between the engines may tie on one side
only, and the rows they order may then come in another order (fuzz seed 3018 SSB query 637)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from query_oracle import compare, out_of_order  # noqa: E402


def ours(rows, types):
    return {"columns": [{"type": t} for t in types], "rows": rows}


def main():
    cols = ["a", "b"]
    sql = "select a, b from t order by a desc, b"
    same = [[3, 1], [2, 5], [2, 6]]
    assert compare("q", sql, ours(same, ["int64", "int64"]), cols, [tuple(r) for r in same]) == []
    assert compare("q", sql, ours([[3, 1], [2, 5], [2, 7]], ["int64", "int64"]), cols, [tuple(r) for r in same])
    assert compare("q", sql, ours(same[:2], ["int64", "int64"]), cols, [tuple(r) for r in same])
    swapped = [[2, 5], [3, 1], [2, 6]]
    assert compare("q", sql, ours(swapped, ["int64", "int64"]), cols, [tuple(r) for r in same])
    # Our floats tie where the oracle's differ in the last bit: our order (by b) stands.
    fsql = "select a, b from t order by a desc, b desc"
    oracle = [(0.05000000000000001, 1), (0.049999999999999996, 9)]
    assert compare("q", fsql, ours([[0.05, 9], [0.05, 1]], ["float64", "int64"]), cols, oracle) == []
    # ... but not where our own values put the rows the other way round.
    assert compare("q", fsql, ours([[0.05, 1], [0.05, 9]], ["float64", "int64"]), cols,
                   [(0.05000000000000001, 9), (0.049999999999999996, 1)])
    assert out_of_order([(None,), (1,)], [0], [False]) == 1  # NULLs last in both directions
    assert out_of_order([(2,), (1,), (None,)], [0], [True]) is None
    print("query_oracle_test: ok")


if __name__ == "__main__":
    main()

// JSON plans over the SSB schema with semi and anti joins, shared by the IR tests
// (tests/ir/semi_join_test.cpp) and the end-to-end runs on OpenCL (tests/codegen/semi_join/).
// Each builder returns the plan text; the shapes follow TPC-H Q4 (EXISTS over a non-unique key),
// Q21 (EXISTS and NOT EXISTS together) and Q22 (NOT EXISTS), transposed to SSB tables.
#pragma once

#include <string>

namespace hqc::test {

// "semi" or "anti" join of customer (probe) with the lineorder lines of January 1997 (build, on the
// non-unique foreign key lo_custkey), counted per nation: customers that ordered / did not order.
inline std::string customers_by_order_plan(const std::string& type) {
  return R"({"name": "cust_)" + type + R"(", "plan": {"op": "order_by", "keys": [{"column": "c_nation", "desc": false}],
    "input": {"op": "aggregate", "group_by": [{"column": "c_nation"}],
      "aggregates": [{"name": "customers", "func": "count_star"},
                     {"name": "key_sum", "func": "sum", "arg": {"column": "c_custkey"}}],
      "input": {"op": "join", "type": ")" + type + R"(",
        "probe": {"op": "scan", "table": "customer"},
        "build": {"op": "filter",
                  "predicate": {"op": "between", "arg": {"column": "lo_orderdate"},
                                "low": {"int": 19970101}, "high": {"int": 19970131}},
                  "input": {"op": "scan", "table": "lineorder"}},
        "probe_keys": [{"column": "c_custkey"}], "build_keys": [{"column": "lo_custkey"}]}}}})";
}

// "semi" or "anti" join of part (probe) with the lines of 1997 of quantity < 5 (build on the
// non-unique lo_partkey): the parts (key, size) that were / were never ordered that way, as rows.
inline std::string parts_ordered_plan(const std::string& type) {
  return R"({"name": "parts_)" + type + R"(", "plan": {"op": "order_by", "keys": [{"column": "p_partkey", "desc": false}],
    "input": {"op": "project", "columns": [{"column": "p_partkey"}, {"column": "p_size"}],
      "input": {"op": "join", "type": ")" + type + R"(",
        "probe": {"op": "scan", "table": "part"},
        "build": {"op": "filter",
                  "predicate": {"op": "and", "args": [
                      {"op": "between", "arg": {"column": "lo_orderdate"}, "low": {"int": 19970101}, "high": {"int": 19971231}},
                      {"op": "<", "left": {"column": "lo_quantity"}, "right": {"int": 5}}]},
                  "input": {"op": "scan", "table": "lineorder"}},
        "probe_keys": [{"column": "p_partkey"}], "build_keys": [{"column": "lo_partkey"}]}}}})";
}

// "semi" or "anti" join of lineorder (probe) with part on lo_quantity = p_size: p_size is no key
// column, so the table is linear probing with insert-if-absent. `category` empty: every part (2,000
// rows per 0.01 SF, only 50 distinct sizes); else only that p_category. Scalar count and revenue.
inline std::string lines_by_size_plan(const std::string& type, const std::string& category) {
  std::string build = R"({"op": "scan", "table": "part"})";
  if (!category.empty()) {
    build = R"({"op": "filter", "predicate": {"op": "=", "left": {"column": "p_category"}, "right": {"string": ")" +
            category + R"("}}, "input": )" + build + "}";
  }
  return R"({"name": "lines_)" + type + R"(", "plan": {"op": "aggregate",
      "aggregates": [{"name": "lines", "func": "count_star"},
                     {"name": "revenue", "func": "sum", "arg": {"column": "lo_revenue"}}],
      "input": {"op": "join", "type": ")" + type + R"(",
        "probe": {"op": "scan", "table": "lineorder"},
        "build": )" + build + R"(,
        "probe_keys": [{"column": "lo_quantity"}], "build_keys": [{"column": "p_size"}]}}})";
}

// Q21 shape: a semi join on a unique key (customers of `region`) below an inner join with date,
// then an anti join against suppliers of `region`, revenue per year.
inline std::string revenue_by_year_plan(const std::string& region) {
  return R"({"name": "rev_by_year", "plan": {"op": "order_by", "keys": [{"column": "d_year", "desc": false}],
    "input": {"op": "aggregate", "group_by": [{"column": "d_year"}],
      "aggregates": [{"name": "revenue", "func": "sum", "arg": {"column": "lo_revenue"}},
                     {"name": "lines", "func": "count_star"}],
      "input": {"op": "join", "type": "inner",
        "probe": {"op": "join", "type": "anti",
          "probe": {"op": "join", "type": "semi",
            "probe": {"op": "scan", "table": "lineorder"},
            "build": {"op": "filter", "predicate": {"op": "=", "left": {"column": "c_region"}, "right": {"string": ")" +
         region + R"("}},
                      "input": {"op": "scan", "table": "customer"}},
            "probe_keys": [{"column": "lo_custkey"}], "build_keys": [{"column": "c_custkey"}]},
          "build": {"op": "filter", "predicate": {"op": "=", "left": {"column": "s_region"}, "right": {"string": ")" +
         region + R"("}},
                    "input": {"op": "scan", "table": "supplier"}},
          "probe_keys": [{"column": "lo_suppkey"}], "build_keys": [{"column": "s_suppkey"}]},
        "build": {"op": "scan", "table": "date"},
        "probe_keys": [{"column": "lo_orderdate"}], "build_keys": [{"column": "d_datekey"}]}}}})";
}

}  // namespace hqc::test

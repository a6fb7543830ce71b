// JSON plan parsing and binding: every error kind with its exact JSON path, type rules, the
// dictionary-code rewrite of string predicates, and robustness against malformed input.
#include <doctest/doctest.h>

#include <string>

#include "frontend/json_plan.h"
#include "storage/catalog.h"
#include "storage/error.h"

using namespace hqc;
using namespace hqc::plan;

namespace {

LogicalPlan parse(const std::string& text) { return parse_json_plan(text, "q.json", Catalog::ssb()); }

// The message of the Error(kind) that parsing `text` throws ("" when it does not throw).
std::string error_of(const std::string& text, ErrorKind kind = ErrorKind::Input) {
  try {
    parse(text);
  } catch (const Error& e) {
    CHECK(e.kind() == kind);
    return e.what();
  }
  return "";
}

const char* kFilterOnScan = R"({"plan": {"op": "aggregate", "aggregates": [{"name": "n", "func": "count"}],
  "input": {"op": "filter", "predicate": %PRED%, "input": {"op": "scan", "table": "lineorder"}}}})";

std::string with_predicate(const std::string& pred) {
  std::string s = kFilterOnScan;
  s.replace(s.find("%PRED%"), 6, pred);
  return s;
}

const Expr& predicate_of(const LogicalPlan& p) { return *p.root->child(0).predicate; }

}  // namespace

TEST_CASE("unknown columns are reported at their JSON path with a suggestion") {
  CHECK(error_of(with_predicate(R"({"op": "<", "left": {"column": "lo_quantiy"}, "right": {"int": 25}})")) ==
        "q.json: $.plan.input.predicate.left: unknown column \"lo_quantiy\" (did you mean \"lo_quantity\"?)");
  CHECK(error_of(with_predicate(R"({"op": "<", "left": {"column": "zzzzzz"}, "right": {"int": 25}})")) ==
        "q.json: $.plan.input.predicate.left: unknown column \"zzzzzz\"");
  // Deeper: inside an and-list.
  CHECK(error_of(with_predicate(R"({"op": "and", "args": [{"op": "=", "left": {"column": "lo_discount"}, "right": {"int": 1}},
                                    {"op": "between", "arg": {"column": "lo_quantty"}, "low": {"int": 1}, "high": {"int": 2}}]})")) ==
        "q.json: $.plan.input.predicate.args[1].arg: unknown column \"lo_quantty\" (did you mean \"lo_quantity\"?)");
}

TEST_CASE("missing fields, unknown fields, unknown operators and tables") {
  CHECK(error_of(R"({"plan": {"op": "scan"}})") == "q.json: $.plan: missing field \"table\"");
  CHECK(error_of(R"({"plan": {"op": "scan", "table": "lineorder", "alais": "l"}})") ==
        "q.json: $.plan: unknown field \"alais\" (did you mean \"alias\"?)");
  CHECK(error_of(R"({"plan": {"op": "scna", "table": "lineorder"}})") ==
        "q.json: $.plan.op: unknown operator \"scna\" (did you mean \"scan\"?); expected one of scan, filter, map, project, join, aggregate, order_by, limit");
  CHECK(error_of(R"({"plan": {"op": "scan", "table": "lineordr"}})") ==
        "q.json: $.plan.table: unknown table \"lineordr\" in catalog ssb (did you mean \"lineorder\"?)");
  CHECK(error_of(R"({"plan": {"op": "scan", "table": 7}})") == "q.json: $.plan.table: expected a string, found an integer");
  CHECK(error_of(R"({"plna": {}})") == "q.json: $: unknown field \"plna\" (did you mean \"plan\"?)");
  CHECK(error_of(R"({})") == "q.json: $: missing field \"plan\"");
  CHECK(error_of(R"([1, 2])") == "q.json: $: expected an object, found an array");
  CHECK(error_of(with_predicate(R"({"op": "glob", "left": {"column": "lo_tax"}, "right": {"int": 1}})")) ==
        "q.json: $.plan.input.predicate.op: unknown expression operator \"glob\"; expected one of = <> < <= > >= + - * / and or not "
        "between in case like ilike substring extract cast round date_trunc add_months upper lower trim ltrim rtrim length strpos replace concat");
  CHECK(error_of(R"({"plan": {"op": "aggregate", "aggregates": [{"name": "n", "func": "summ", "arg": {"column": "lo_tax"}}],
                   "input": {"op": "scan", "table": "lineorder"}}})") ==
        "q.json: $.plan.aggregates[0].func: unknown aggregate function \"summ\" (did you mean \"sum\"?); expected sum, count, count_star, min, max or avg");
}

TEST_CASE("type errors name the operands' types") {
  CHECK(error_of(with_predicate(R"({"op": "<", "left": {"column": "lo_quantity"}, "right": {"string": "abc"}})")) ==
        "q.json: $.plan.input.predicate: cannot compare int32 with varchar(3)");
  CHECK(error_of(with_predicate(R"({"op": "+", "left": {"column": "lo_shipmode"}, "right": {"int": 1}})")) ==
        "q.json: $.plan.input.predicate.left: arithmetic '+' needs a number, found string (dictionary lineorder.lo_shipmode)");
  CHECK(error_of(with_predicate(R"({"column": "lo_quantity"})")) ==
        "q.json: $.plan.input.predicate: expected a predicate (a comparison, and/or/not, between, in), found a int32 expression");
  CHECK(error_of(with_predicate(R"({"op": "=", "left": {"column": "lo_quantity"}, "right": {"decimal": "1.2.3"}})")) ==
        "q.json: $.plan.input.predicate.right.decimal: expected a decimal number like \"0.05\", \".05\" or \"-12.50\", found \"1.2.3\"");
  CHECK(error_of(with_predicate(R"({"op": "=", "left": {"column": "lo_quantity"}, "right": {"date": "1994-02-30"}})")) ==
        "q.json: $.plan.input.predicate.right.date: expected a date \"YYYY-MM-DD\", found \"1994-02-30\"");
  CHECK(error_of(with_predicate(R"({"op": "=", "left": {"column": "lo_quantity"}, "right": {"float": 1e999}})")).rfind("q.json: byte ", 0) == 0);  // nlohmann rejects the overflow
  CHECK(error_of(with_predicate(R"({"op": "=", "left": {"column": "lo_quantity"}, "right": {"int": 1.5}})")) ==
        "q.json: $.plan.input.predicate.right.int: expected an integer, found a number");
}

TEST_CASE("string predicates on dictionary columns become run-time code comparisons") {
  LogicalPlan p = parse(with_predicate(R"({"op": "=", "left": {"column": "lo_shipmode"}, "right": {"string": "AIR"}})"));
  const Expr& e = predicate_of(p);
  REQUIRE(e.kind == ExprKind::Compare);
  CHECK(e.args[1]->kind == ExprKind::DictCode);
  CHECK(e.args[1]->match == DictMatch::Equal);
  CHECK(e.to_string() == "(lineorder.lo_shipmode = dict_eq(lineorder.lo_shipmode, 'AIR'))");
  // Literal on the left: the comparison is mirrored. col <= 'x' is code < upper_bound('x').
  LogicalPlan q = parse(with_predicate(R"({"op": ">=", "left": {"string": "MAIL"}, "right": {"column": "lo_shipmode"}})"));
  CHECK(predicate_of(q).to_string() == "(lineorder.lo_shipmode < dict_upper_bound(lineorder.lo_shipmode, 'MAIL'))");
  LogicalPlan r = parse(with_predicate(R"({"op": "between", "arg": {"column": "lo_shipmode"}, "low": {"string": "AIR"}, "high": {"string": "RAIL"}})"));
  CHECK(predicate_of(r).to_string() ==
        "((lineorder.lo_shipmode >= dict_lower_bound(lineorder.lo_shipmode, 'AIR')) and (lineorder.lo_shipmode < dict_upper_bound(lineorder.lo_shipmode, 'RAIL')))");
  LogicalPlan s = parse(with_predicate(R"({"op": "in", "arg": {"column": "lo_shipmode"}, "list": [{"string": "AIR"}, {"string": "SHIP"}]})"));
  CHECK(predicate_of(s).to_string() ==
        "(lineorder.lo_shipmode in [dict_eq(lineorder.lo_shipmode, 'AIR'), dict_eq(lineorder.lo_shipmode, 'SHIP')])");
}

TEST_CASE("numeric typing: integer arithmetic widens, decimals align scales, division is floating point") {
  auto map_type = [](const std::string& expr) {
    std::string text = R"({"plan": {"op": "map", "exprs": [{"name": "x", "expr": )" + expr +
                       R"(}], "input": {"op": "scan", "table": "lineorder"}}})";
    LogicalPlan p = parse(text);
    return p.root->exprs[0].expr;
  };
  CHECK(map_type(R"({"op": "*", "left": {"column": "lo_extendedprice"}, "right": {"column": "lo_discount"}})")->type == DataType::int64());
  CHECK(map_type(R"({"op": "/", "left": {"column": "lo_revenue"}, "right": {"int": 2}})")->type == DataType::float64());
  ExprPtr sum = map_type(R"({"op": "+", "left": {"column": "lo_discount"}, "right": {"decimal": "0.25"}})");
  CHECK(sum->type == DataType::decimal(18, 2));
  CHECK(sum->to_string() == "(decimal(18,2)(lineorder.lo_discount) + 25:decimal(18,2))");  // 0.25 is at the common scale already
  CHECK(map_type(R"({"op": "*", "left": {"column": "lo_discount"}, "right": {"decimal": "0.25"}})")->type == DataType::decimal(18, 2));
  CHECK(map_type(R"({"op": "case", "when": [{"if": {"op": ">", "left": {"column": "lo_tax"}, "right": {"int": 2}}, "then": {"int": 1}}],
                     "else": {"int": 0}})")->type == DataType::int32());
}

TEST_CASE("decimal literals: any scale, trailing zeros and a missing leading zero; constant expressions fold exactly") {
  auto map_expr = [](const std::string& expr) {
    std::string text = R"({"plan": {"op": "map", "exprs": [{"name": "x", "expr": )" + expr +
                       R"(}], "input": {"op": "scan", "table": "lineorder"}}})";
    return parse(text).root->exprs[0].expr;
  };
  // A literal's scale is that of its last nonzero fractional digit (TPC-H Q11's 0.0001000000).
  CHECK(map_expr(R"({"decimal": "0.0001000000"})")->to_string() == "1:decimal(5,4)");
  CHECK(map_expr(R"({"decimal": ".06"})")->to_string() == "6:decimal(3,2)");
  CHECK(map_expr(R"({"decimal": "-12.50"})")->to_string() == "-125:decimal(3,1)");
  CHECK(map_expr(R"({"decimal": "100.000"})")->to_string() == "100:decimal(3,0)");
  // Folding: exact, at the larger scale for + and -, the sum of scales for *, trailing zeros dropped.
  CHECK(map_expr(R"({"op": "-", "left": {"decimal": ".06"}, "right": {"decimal": "0.01"}})")->to_string() == "5:decimal(3,2)");
  CHECK(map_expr(R"({"op": "+", "left": {"decimal": "1.5"}, "right": {"decimal": "0.25"}})")->to_string() == "175:decimal(3,2)");
  CHECK(map_expr(R"({"op": "*", "left": {"decimal": "1.5"}, "right": {"decimal": "0.25"}})")->to_string() == "375:decimal(4,3)");
  CHECK(map_expr(R"({"op": "*", "left": {"decimal": "0.5"}, "right": {"int": 4}})")->to_string() == "2:decimal(1,0)");
  CHECK(map_expr(R"({"op": "-", "left": {"int": 0}, "right": {"int": 7}})")->to_string() == "-7");
  CHECK(map_expr(R"({"op": "*", "left": {"int": 3000000000}, "right": {"int": 3}})")->to_string() == "9000000000");
  CHECK(map_expr(R"({"op": "+", "left": {"date": "1998-12-01"}, "right": {"int": -90}})")->to_string() == "date(10471)");
  CHECK(map_expr(R"({"op": "/", "left": {"int": 1}, "right": {"int": 4}})")->type == DataType::float64());
  // A constant that leaves 64 bits is an error, never a wrapped value.
  CHECK(error_of(R"({"plan": {"op": "map", "exprs": [{"name": "x", "expr": {"op": "*", "left": {"int": 9000000000000000000}, "right": {"int": 2}}}],
                   "input": {"op": "scan", "table": "lineorder"}}})")
            .find("overflows 64 bits") != std::string::npos);
}

TEST_CASE("joins, aliases, aggregates and sort keys bind; order_by and limit only at the top") {
  const char* self_join = R"({"plan": {"op": "join", "probe": {"op": "scan", "table": "customer", "alias": "c1"},
      "build": {"op": "scan", "table": "customer", "alias": "c2"}, "probe_keys": [{"column": "c1.c_custkey"}],
      "build_keys": [{"column": "c_custkey"}]}})";
  LogicalPlan p = parse(self_join);
  CHECK(p.root->schema.size() == 16);
  CHECK(p.root->build_keys[0]->source == "c2");
  CHECK(p.name == "q");
  std::string above = std::string(R"({"plan": {"op": "filter", "predicate": {"op": "=", "left": {"column": "c_custkey"}, "right": {"int": 1}},
      "input": )") + std::string(self_join).substr(9) + "}";
  CHECK(error_of(above) ==
        "q.json: $.plan.predicate.left: ambiguous column \"c_custkey\": qualify it with its scan alias (c1.c_custkey, c2.c_custkey)");
  std::string twice = self_join;
  twice.replace(twice.find("\"c2\""), 4, "\"c1\"");
  CHECK(error_of(twice) == "q.json: $.plan.build: scan alias \"c1\" is used twice; give one of the scans of customer another \"alias\"");
  CHECK(error_of(R"({"plan": {"op": "join", "probe": {"op": "scan", "table": "lineorder"}, "build": {"op": "scan", "table": "customer"},
       "probe_keys": [{"column": "lo_orderpriority"}], "build_keys": [{"column": "c_custkey"}]}})") ==
        "q.json: $.plan.build_keys[0]: join key of type int32 cannot be matched with probe key of type char(15) (keys must be integers, dates or decimals of the same scale)");
  CHECK(error_of(R"({"plan": {"op": "join", "type": "outer", "probe": {"op": "scan", "table": "lineorder"}, "build": {"op": "scan", "table": "customer"},
       "probe_keys": [{"column": "lo_custkey"}], "build_keys": [{"column": "c_custkey"}]}})") ==
        "q.json: $.plan.type: unknown join type \"outer\"; expected inner, semi, anti or left_outer");
  CHECK(error_of(R"({"plan": {"op": "filter", "predicate": {"bool": true}, "input": {"op": "order_by", "keys": [{"column": "lo_tax"}],
       "input": {"op": "scan", "table": "lineorder"}}}})") ==
        "q.json: $.plan.input: order_by is only allowed at the top of the plan (or directly below a limit)");
  LogicalPlan top = parse(R"({"name": "t", "plan": {"op": "limit", "count": 5, "input": {"op": "order_by", "keys": [{"column": "n", "desc": true}],
       "input": {"op": "aggregate", "group_by": [{"column": "lo_shipmode"}], "aggregates": [{"name": "n", "func": "count_star"}],
       "input": {"op": "scan", "table": "lineorder"}}}}})");
  CHECK(top.root->limit == 5);
  CHECK(top.root->child(0).sort_keys[0].descending);
  CHECK(top.root->child(0).child(0).schema[0].dict_column == "lo_shipmode");
  CHECK(error_of(R"({"plan": {"op": "order_by", "keys": [{"column": "revenu"}], "input": {"op": "aggregate",
       "aggregates": [{"name": "revenue", "func": "sum", "arg": {"column": "lo_revenue"}}], "input": {"op": "scan", "table": "lineorder"}}}})") ==
        "q.json: $.plan.keys[0].column: unknown column \"revenu\" to sort by (did you mean \"revenue\"?)");
}

TEST_CASE("malformed JSON reports the byte position and never crashes") {
  std::string m = error_of(R"({"plan": {"op": "scan", "table": "lineorder",}})");
  CHECK(m == "q.json: byte 46: malformed JSON: syntax error while parsing object key - unexpected '}'; expected string literal");
  CHECK(error_of("").rfind("q.json: byte 1: malformed JSON", 0) == 0);
  std::string deep(100000, '[');
  CHECK(error_of(deep).find("nesting deeper than 256 levels") != std::string::npos);
  // Every prefix of a valid plan fails cleanly with an Input error.
  std::string valid = with_predicate(R"({"op": "<", "left": {"column": "lo_quantity"}, "right": {"int": 25}})");
  CHECK_NOTHROW(parse(valid));
  for (size_t n = 0; n < valid.size(); n += 3) {
    CHECK_THROWS_AS(parse(valid.substr(0, n)), Error);
  }
}

// LIKE / NOT LIKE, SUBSTRING, EXTRACT and CAST: bound from SQL and from the JSON plan syntax into
// the plan expression kinds of frontend/expr.h; type errors are Input errors at their position;
// the code generator rejects the kinds it has no device form for with Error(Unsupported).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "codegen/expr_emitter.h"
#include "frontend/bind_expr.h"
#include "frontend/json_reader.h"
#include "frontend/sql/sql_frontend.h"
#include "storage/catalog.h"
#include "tests/frontend/sql/sql_test_util.h"

using namespace hqc;

namespace {

std::string where_of(const std::string& sql, const Catalog& catalog) {
  plan::LogicalPlan p = parse_sql(sql, "q.sql", catalog);
  return test::first_filter(*p.root).predicate->to_string();
}

std::vector<plan::Attribute> part_scope() {
  return {{"part", "p_type", DataType::varchar(25), "", ""},
          {"part", "p_size", DataType::int32(), "", ""},
          {"orders", "o_orderdate", DataType::date(), "", ""},
          {"part", "p_retailprice", DataType::decimal(15, 2), "", ""}};
}

plan::ExprPtr bind_json(const std::string& text) {
  nlohmann::json doc = nlohmann::json::parse(text);
  plan::JsonNode root(doc, "$", "plan.json");
  return plan::bind_expression(root, part_scope());
}

test::Failure json_error(const std::string& text) {
  test::Failure f;
  try {
    (void)bind_json(text);
  } catch (const Error& e) {
    f.thrown = true;
    f.kind = e.kind();
    f.message = e.what();
  }
  return f;
}

}  // namespace

TEST_CASE("LIKE and NOT LIKE bind to Like (under Not), on heap and dictionary strings") {
  Catalog tpch = Catalog::tpch();
  CHECK(where_of("select count(*) from part where p_name like '%green%'", tpch) == "(part.p_name like '%green%')");
  // Dictionary columns: a prefix is a range of codes, a pattern without wildcards an equality; the
  // rest stays LIKE (the IR gives it a code set).
  CHECK(where_of("select count(*) from part where p_type not like 'MEDIUM POLISHED%'", tpch) ==
        "(not ((part.p_type >= dict_lower_bound(part.p_type, 'MEDIUM POLISHED')) and "
        "(part.p_type < dict_prefix_end(part.p_type, 'MEDIUM POLISHED'))))");
  CHECK(where_of("select count(*) from part where p_type like 'STANDARD BRASS'", tpch) ==
        "(part.p_type = dict_eq(part.p_type, 'STANDARD BRASS'))");
  CHECK(where_of("select count(*) from part where p_type like '%BRASS'", tpch) == "(part.p_type like '%BRASS')");
  CHECK(where_of("select count(*) from part where p_type like 'PROMO_%'", tpch) == "(part.p_type like 'PROMO_%')");
  CHECK(where_of("select count(*) from part where p_name like 'forest%'", tpch) == "(part.p_name like 'forest%')");
  test::Failure f = test::sql_error("select count(*) from part where p_size like '1%'", tpch);
  CHECK(f.kind == ErrorKind::Input);
  CHECK(f.message.starts_with("q.sql:1:33: LIKE needs a string"));
}

TEST_CASE("SUBSTRING(x FROM a FOR b), EXTRACT(YEAR FROM d) and CAST") {
  Catalog tpch = Catalog::tpch();
  CHECK(where_of("select count(*) from customer where substring(c_phone from 1 for 2) in ('13', '31')", tpch) ==
        "(substring(customer.c_phone, 1, 2) in ['13', '31'])");
  CHECK(where_of("select count(*) from orders where extract(year from o_orderdate) = 1995", tpch) ==
        "(extract(year, orders.o_orderdate) = 1995)");
  CHECK(where_of("select count(*) from part where cast(p_size as bigint) > 3", tpch) == "(int64(part.p_size) > 3)");
  CHECK(where_of("select count(*) from part where cast(p_size as numeric(12,2)) > 3.5", tpch) ==
        "(decimal(18,2)(decimal(12,2)(part.p_size)) > 350:decimal(18,2))");
  CHECK(where_of("select count(*) from orders where o_orderdate < cast('1995-03-15' as date)", tpch) ==
        "(orders.o_orderdate < date(9204))");
  // A decimal to an integer or a smaller scale rounds (halves away from zero) as ROUND does.
  CHECK(where_of("select count(*) from part where cast(p_retailprice as integer) > 3", tpch) ==
        "(int64(round(part.p_retailprice, 0)) > 3)");
  CHECK(where_of("select count(*) from part where cast(p_retailprice as numeric(12,1)) < 900.5", tpch) ==
        "(decimal(18,1)(decimal(12,1)(round(part.p_retailprice, 1))) < 9005:decimal(18,1))");
  test::Failure narrowing = test::sql_error("select count(*) from part where cast(p_partkey + 1 as integer) > 3", tpch);
  CHECK(narrowing.kind == ErrorKind::Unsupported);
  CHECK(narrowing.message.find("can lose digits") != std::string::npos);
  test::Failure year_of_int = test::sql_error("select count(*) from part where extract(year from p_size) = 3", tpch);
  CHECK(year_of_int.kind == ErrorKind::Input);
  CHECK(year_of_int.message.find("EXTRACT needs a date") != std::string::npos);
  test::Failure no_length = test::sql_error("select count(*) from customer where substring(c_phone from 2) = '1'", tpch);
  CHECK(no_length.kind == ErrorKind::Unsupported);
}

TEST_CASE("the JSON plan syntax has the same four operations") {
  CHECK(bind_json(R"({"op": "like", "arg": {"column": "p_type"}, "pattern": "%BRASS"})")->to_string() == "(part.p_type like '%BRASS')");
  CHECK(bind_json(R"({"op": "substring", "arg": {"column": "p_type"}, "start": 2, "length": 3})")->type == DataType::packed_string(3));
  CHECK(bind_json(R"({"op": "extract", "field": "year", "arg": {"column": "o_orderdate"}})")->to_string() ==
        "extract(year, orders.o_orderdate)");
  CHECK(bind_json(R"({"op": "cast", "arg": {"column": "p_size"}, "type": "float64"})")->to_string() == "float64(part.p_size)");
  test::Failure bad_field = json_error(R"({"op": "extract", "field": "week", "arg": {"column": "o_orderdate"}})");
  CHECK(bad_field.kind == ErrorKind::Unsupported);
  CHECK(bad_field.message.find("$.field") != std::string::npos);
  CHECK(bind_json(R"({"op": "substring", "arg": {"column": "p_type"}, "start": 0, "length": 3})")->to_string() ==
        "substring(part.p_type, 1, 2)");
  test::Failure bad_start = json_error(R"({"op": "substring", "arg": {"column": "p_type"}, "start": -2, "length": 3})");
  CHECK(bad_start.kind == ErrorKind::Unsupported);
  CHECK(bad_start.message.find("$.start") != std::string::npos);
  test::Failure bad_length = json_error(R"({"op": "substring", "arg": {"column": "p_type"}, "start": 1, "length": -3})");
  CHECK(bad_length.kind == ErrorKind::Input);
  CHECK(bad_length.message.find("$.length") != std::string::npos);
  CHECK(bind_json(R"({"op": "add_months", "arg": {"column": "o_orderdate"}, "months": -13})")->to_string() ==
        "add_months(orders.o_orderdate, -13)");
  CHECK(where_of("select count(*) from orders where o_orderdate - interval '2' year > date '1994-01-01' and "
                 "o_orderdate + interval '1' month < date '1998-01-01'", Catalog::tpch()) ==
        "((add_months(orders.o_orderdate, -24) > date(8766)) and (add_months(orders.o_orderdate, 1) < date(10227)))");
  test::Failure bad_months = json_error(R"({"op": "add_months", "arg": {"column": "o_totalprice"}, "months": 1})");
  CHECK(bad_months.kind == ErrorKind::Input);
  CHECK(bad_months.message.find("$.arg") != std::string::npos);
  test::Failure bad_type = json_error(R"j({"op": "cast", "arg": {"column": "p_size"}, "type": "decimal(40,2)"})j");
  CHECK(bad_type.kind == ErrorKind::Input);
}

TEST_CASE("the code generator emits LIKE, SUBSTRING comparisons and EXTRACT, and rejects what has no device form") {
  auto resolve = [](const std::string&, const std::string& c) { return c; };
  auto strings = [](const std::string&, const std::string& c) { return codegen::StringView{c + "_bytes", "b_" + c, "e_" + c}; };
  CHECK(codegen::emit_expr(*bind_json(R"({"op": "extract", "field": "year", "arg": {"column": "o_orderdate"}})"), resolve) ==
        "hqc_year_of_days(o_orderdate)");
  CHECK(codegen::emit_expr(*bind_json(R"({"op": "like", "arg": {"column": "p_type"}, "pattern": "%BR\"A?SS"})"), resolve, strings) ==
        "hqc_like(p_type_bytes, b_p_type, e_p_type, \"%BR\\042A\\077SS\", 8)");
  CHECK(codegen::emit_expr(*bind_json(R"({"op": "<", "left": {"op": "substring", "arg": {"column": "p_type"}, "start": 2, "length": 3},
                                          "right": {"string": "ab"}})"),
                           resolve, strings) ==
        "(hqc_str_cmp_lit(p_type_bytes, hqc_substr_begin(b_p_type, e_p_type, 2), hqc_substr_end(b_p_type, e_p_type, 2, 3), \"ab\", 2) < 0)");
  CHECK(codegen::emit_expr(*bind_json(R"({"op": "<>", "left": {"string": "x"}, "right": {"column": "p_type"}})"), resolve, strings) ==
        "(!hqc_str_eq_lit(p_type_bytes, b_p_type, e_p_type, \"x\", 1))");
  for (const char* text : {R"({"op": "like", "arg": {"column": "p_type"}, "pattern": "%BRASS"})",  // no string resolver
                           R"({"op": "=", "left": {"column": "p_type"}, "right": {"column": "p_type"}})"}) {
    CAPTURE(text);
    plan::ExprPtr e = bind_json(text);
    try {
      (void)codegen::emit_expr(*e, resolve);
      FAIL("emit_expr accepted " << e->to_string());
    } catch (const Error& err) {
      CHECK(err.kind() == ErrorKind::Unsupported);
    }
  }
  // A SUBSTRING longer than 7 bytes has no value of its own (only its byte range).
  plan::ExprPtr long_sub = bind_json(R"({"op": "substring", "arg": {"column": "p_type"}, "start": 2, "length": 8})");
  CHECK(!long_sub->type.packed);
  try {
    (void)codegen::emit_expr(*long_sub, resolve, strings);
    FAIL("emit_expr accepted " << long_sub->to_string());
  } catch (const Error& err) {
    CHECK(err.kind() == ErrorKind::Unsupported);
    CHECK(std::string(err.what()).find("longer than 7 bytes") != std::string::npos);
  }
}

TEST_CASE("computed strings of at most 7 bytes are packed 64-bit values") {
  auto resolve = [](const std::string&, const std::string& c) { return c; };
  auto strings = [](const std::string&, const std::string& c) { return codegen::StringView{c + "_bytes", "b_" + c, "e_" + c}; };
  CHECK(pack_string("AB") == 0x4142LL << 40);
  CHECK(pack_string("") == 0);
  CHECK(pack_string("1234567") == 0x31323334353637LL);
  CHECK(unpack_string(pack_string("13")) == "13");
  CHECK(unpack_string(pack_string("AZ-09az")) == "AZ-09az");
  CHECK(pack_string("A") < pack_string("AB"));
  CHECK(pack_string("AB") < pack_string("B"));
  CHECK(pack_string("~") < pack_string("\x7f"));
  CHECK_THROWS_AS((void)pack_string("12345678"), Error);

  // A short SUBSTRING of a heap string packs its byte range.
  plan::ExprPtr sub = bind_json(R"({"op": "substring", "arg": {"column": "p_type"}, "start": 2, "length": 3})");
  CHECK(sub->type == DataType::packed_string(3));
  CHECK(codegen::emit_expr(*sub, resolve, strings) ==
        "hqc_str_pack(p_type_bytes, hqc_substr_begin(b_p_type, e_p_type, 2), hqc_substr_end(b_p_type, e_p_type, 2, 3))");
  CHECK(std::string(codegen::device_type_of(sub->type)) == "hqc_i64");
  // A CASE of string literals: packed constants, in hex.
  plan::ExprPtr c = bind_json(R"({"op": "case", "when": [{"if": {"op": ">", "left": {"column": "p_size"}, "right": {"int": 5}},
                                   "then": {"string": "big"}}], "else": {"string": "sm"}})");
  CHECK(c->type == DataType::packed_string(3));
  CHECK(codegen::emit_expr(*c, resolve, strings) == "((p_size > 5) ? ((hqc_i64)0x62696700000000) : ((hqc_i64)0x736d0000000000))");
  // CASE branches that cannot be packed.
  for (const char* text : {R"({"op": "case", "when": [{"if": {"op": ">", "left": {"column": "p_size"}, "right": {"int": 5}},
                               "then": {"string": "12345678"}}], "else": {"string": "sm"}})",
                           R"({"op": "case", "when": [{"if": {"op": ">", "left": {"column": "p_size"}, "right": {"int": 5}},
                               "then": {"column": "p_type"}}], "else": {"string": "sm"}})"}) {
    CAPTURE(text);
    test::Failure f = json_error(text);
    CHECK(f.kind == ErrorKind::Unsupported);
    CHECK(f.message.find("CASE over strings") != std::string::npos);
  }
  // Comparisons: byte ranges where every operand has one; packed integers otherwise.
  plan::ExprPtr eq = bind_json(R"({"op": "=", "left": {"op": "substring", "arg": {"column": "p_type"}, "start": 1, "length": 2},
                                   "right": {"string": "13"}})");
  CHECK(codegen::emit_expr(*eq, resolve, strings) ==
        "hqc_str_eq_lit(p_type_bytes, hqc_substr_begin(b_p_type, e_p_type, 1), hqc_substr_end(b_p_type, e_p_type, 1, 2), \"13\", 2)");
  plan::ExprPtr case_eq = plan::make_compare(plan::CompareOp::Lt, c, plan::make_string_literal("c", DataType::varchar(1)));
  CHECK(codegen::emit_expr(*case_eq, resolve, strings) ==
        "(((p_size > 5) ? ((hqc_i64)0x62696700000000) : ((hqc_i64)0x736d0000000000)) < ((hqc_i64)0x63000000000000))");
  // Against a literal longer than any packed value: never equal, ordered by its first 7 bytes.
  plan::ExprPtr packed_col = plan::make_column("", "cc", DataType::packed_string(2));
  auto vs_long = [&](plan::CompareOp op) {
    return codegen::emit_expr(*plan::make_compare(op, packed_col, plan::make_string_literal("13-45678", DataType::varchar(8))), resolve, strings);
  };
  CHECK(vs_long(plan::CompareOp::Eq) == "0");
  CHECK(vs_long(plan::CompareOp::Ne) == "1");
  CHECK(vs_long(plan::CompareOp::Lt) == "(cc <= ((hqc_i64)0x31332d34353637))");
  CHECK(vs_long(plan::CompareOp::Ge) == "(cc > ((hqc_i64)0x31332d34353637))");
  // A heap string against a packed value, and a SUBSTRING of a packed value.
  CHECK(codegen::emit_expr(*plan::make_compare(plan::CompareOp::Lt, packed_col, plan::make_column("part", "p_type", DataType::varchar(25))),
                           resolve, strings) == "(hqc_str_cmp_packed(p_type_bytes, b_p_type, e_p_type, cc) > 0)");
  CHECK(codegen::emit_expr(*plan::make_substring(packed_col, 2, 1), resolve, strings) == "hqc_packed_substr(cc, 2, 1)");
  // LIKE needs a byte range.
  CHECK_THROWS_AS((void)codegen::emit_expr(*plan::make_like(packed_col, "1%"), resolve, strings), Error);
}

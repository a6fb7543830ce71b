// The string functions (upper, lower, trim/ltrim/rtrim, length/char_length, position/strpos, replace,
// || / concat, ILIKE) from SQL to kernel text: what they bind to (frontend/expr.h StringFn, with
// result types that bound the bytes; packed at most 7), calls of literals folded, the refusals at
// their SQL position (exit code 4 shapes), the per-code tables the IR makes of what one dictionary
// column computes (ir/pass_dictionary_tables.cpp) and the device calls over heap strings and packed
// values (codegen/expr_emitter.cpp). Results are checked against DuckDB in
// tests/oracle/string_functions.py.
#include <doctest/doctest.h>

#include <memory>

#include "codegen/expr_emitter.h"
#include "frontend/sql/sql_frontend.h"
#include "frontend/string_functions.h"
#include "ir/build_pipelines.h"
#include "ir/explain.h"
#include "ir/passes.h"
#include "storage/catalog.h"
#include "tests/frontend/sql/sql_test_util.h"

using namespace hqc;

namespace {

plan::ExprPtr where_expr(const std::string& sql) {
  plan::LogicalPlan p = parse_sql(sql, "q.sql", Catalog::tpch());
  return test::first_filter(*p.root).predicate;
}

std::string where_of(const std::string& sql) { return where_expr(sql)->to_string(); }

std::string emit(const plan::Expr& e) {
  auto resolve = [](const std::string&, const std::string& c) { return c; };
  auto strings = [](const std::string&, const std::string& c) { return codegen::StringView{c + "_bytes", "b_" + c, "e_" + c}; };
  return codegen::emit_expr(e, resolve, strings);
}

}  // namespace

TEST_CASE("string functions bind to StringFn with bounded result types; ILIKE is LIKE of lower()") {
  CHECK(where_of("select count(*) from part where upper(trim(p_type)) like '%BRASS'") == "(upper(trim(part.p_type)) like '%BRASS')");
  CHECK(where_of("select count(*) from customer where length(c_comment) > 50") == "(length(customer.c_comment) > 50)");
  CHECK(where_of("select count(*) from customer where char_length(c_name) > 5") == "(length(customer.c_name) > 5)");
  // POSITION(n IN s) is strpos(s, n), as PostgreSQL's grammar writes it.
  CHECK(where_of("select count(*) from part where position('green' in p_name) > 0") == "(strpos(part.p_name, 'green') > 0)");
  CHECK(where_of("select count(*) from part where replace(p_type, 'BRASS', 'X') = 'SMALL X'") ==
        "(replace(part.p_type, 'BRASS', 'X') = 'SMALL X')");
  CHECK(where_of("select count(*) from part where p_name ilike '%GREEN%'") == "(lower(part.p_name) like '%green%')");
  CHECK(where_of("select count(*) from part where p_name not ilike 'F%'") == "(not (lower(part.p_name) like 'f%'))");
  // || and concat nest left to right; ltrim/rtrim and TRIM(LEADING/TRAILING ...) are their own.
  CHECK(where_of("select count(*) from nation where n_name || '-' || n_name like 'A%'") ==
        "(concat(concat(nation.n_name, '-'), nation.n_name) like 'A%')");
  CHECK(where_of("select count(*) from nation where concat(n_name, '-', n_name) like 'A%'") ==
        "(concat(concat(nation.n_name, '-'), nation.n_name) like 'A%')");
  CHECK(where_of("select count(*) from customer where trim(leading from c_name) = 'x' and rtrim(c_name) = 'y'") ==
        "((ltrim(customer.c_name) = 'x') and (rtrim(customer.c_name) = 'y'))");

  // Types: a string result is bounded by its arguments' bytes; at most 7 is packed.
  plan::ExprPtr e = where_expr("select count(*) from customer where upper(substring(c_phone from 1 for 3)) || '-' = 'AB-'");
  const plan::Expr& concat = *e->args.at(0);
  CHECK(concat.type == DataType::packed_string(4));
  CHECK(concat.args.at(0)->type == DataType::packed_string(3));
  CHECK(where_expr("select count(*) from part where upper(p_type) = 'X'")->args.at(0)->type == DataType::varchar(25));
  CHECK(where_expr("select count(*) from part where length(p_name) = 3")->args.at(0)->type == DataType::int64());
  // replace can grow a string: bounded by every match replaced.
  CHECK(where_expr("select count(*) from customer where replace(substring(c_phone from 1 for 2), '1', 'ab') = 'x'")->args.at(0)->type ==
        DataType::packed_string(4));
  // A short dictionary column next to another column takes part as its packed self.
  CHECK(where_of("select count(*) from orders where o_orderstatus || substring(o_clerk from 1 for 2) = 'FCl'") ==
        "(concat(substring(orders.o_orderstatus, 1, 1), substring(orders.o_clerk, 1, 2)) = 'FCl')");
  // Calls of literals fold.
  CHECK(where_of("select count(*) from part where p_size > length(upper('abc'))") == "(part.p_size > 3)");
  CHECK(where_of("select count(*) from part where p_name = trim('  x ') || replace('a-b', '-', '')") == "(part.p_name = 'xab')");
}

TEST_CASE("string function shapes without a device form are Unsupported at their position") {
  Catalog tpch = Catalog::tpch();
  struct Refused {
    const char* sql;
    const char* where;
    const char* says;
  };
  for (const Refused& r : {
           Refused{"select count(*) from customer where c_name || c_phone = 'x'", "q.sql:1:44:", "concat of heap strings is supported only"},
           Refused{"select count(*) from part where upper(p_type) = p_name", "q.sql:1:47:", "is computed per dictionary string"},
           Refused{"select count(*) from part where replace(p_name, p_comment, 'x') = 'y'", "q.sql:1:49:", "as literals"},
           Refused{"select count(*) from part where trim(both 'x' from p_name) = 'y'", "q.sql:1:43:", "TRIM of characters"},
           Refused{"select count(*) from customer where substring(c_phone from 1 for 2) || 'x' ilike '1%'", "q.sql:1:69:", "held packed"},
           Refused{"select count(*) from part where position(p_comment in p_name) > 0", "q.sql:1:42:", "needle as a string literal"},
           Refused{"select count(*) from part where soundex(p_name) = 'x'", "q.sql:1:33:", "function soundex() is not supported"},
           Refused{"select count(*) from part where substring(p_name from -1 for 3) = 'x'", "q.sql:1:55:", "DuckDB counts from the end"},
           Refused{"select count(*) from part where substring(p_name from 0 for 1) = 'x'", "q.sql:1:61:", "always the empty string"},
           Refused{"select count(*) from part where substring(p_name from 2 for 0) = 'x'", "q.sql:1:61:", "always the empty string"},
       }) {
    const std::string sql = r.sql;
    CAPTURE(sql);
    test::Failure f = test::sql_error(sql, tpch);
    CAPTURE(f.message);
    CHECK(f.kind == ErrorKind::Unsupported);
    CHECK(f.message.starts_with(r.where));
    CHECK(f.message.find(r.says) != std::string::npos);
  }
  test::Failure negative = test::sql_error("select count(*) from part where substring(p_name from 1 for -2) = 'x'", tpch);
  CHECK(negative.kind == ErrorKind::Input);
  CHECK(negative.message.find("must not be negative") != std::string::npos);
  // From position 0: one byte fewer from position 1.
  CHECK(where_of("select count(*) from part where substring(p_name from 0 for 3) = 'ab'") ==
        "(substring(part.p_name, 1, 2) = 'ab')");
  test::Failure not_a_string = test::sql_error("select count(*) from part where upper(p_size) = 'x'", tpch);
  CHECK(not_a_string.kind == ErrorKind::Input);
  CHECK(not_a_string.message.starts_with("q.sql:1:39: upper needs a string"));
}

TEST_CASE("what one dictionary column computes is one per-code table the host fills") {
  // The whole predicate over p_type (string functions, a plain code comparison next to them) is one
  // flag per code; p_size stays on the device.
  ir::Program p = test::compile_tpch_sql("select count(*) as n from part where (upper(trim(p_type)) like '%BRASS' or p_type = 'X') and p_size > 3");
  REQUIRE(p.buffers.size() >= 1);
  const ir::Buffer* table = p.find_buffer("codes_p_type_0");
  REQUIRE(table);
  CHECK(table->fill == ir::Buffer::Fill::CodeTable);
  CHECK(table->element == ir::ScalarType::I32);
  CHECK(table->per_code->to_string() ==
        "((upper(trim(part.p_type)) like '%BRASS') or (part.p_type = dict_eq(part.p_type, 'X')))");
  CHECK(ir::explain(p).find("codes_p_type_0: i32[1 + codes_p_type_0_max_code] fill per_code(") != std::string::npos);
  // Values: length is an integer per code, a short computed string a packed one.
  ir::Program v = test::compile_tpch_sql("select length(p_container) as l, substring(lower(p_brand) from 1 for 5) as b, count(*) as n from part group by l, b");
  const ir::Buffer* lengths = v.find_buffer("codes_p_container_0");
  const ir::Buffer* brands = v.find_buffer("codes_p_brand_1");
  REQUIRE(lengths);
  REQUIRE(brands);
  CHECK(lengths->element == ir::ScalarType::I64);
  CHECK(brands->per_code->type == DataType::packed_string(5));

  // The host side: the expression evaluated per dictionary string, a DictCode compared as a string.
  const plan::Expr& pred = *table->per_code;
  CHECK(plan::per_string_evaluable(pred));
  CHECK(plan::evaluate_per_string(pred, " small brass ") == 1);
  CHECK(plan::evaluate_per_string(pred, "small brass x") == 0);
  CHECK(plan::evaluate_per_string(pred, "X") == 1);
  CHECK(plan::evaluate_per_string(*brands->per_code, "Brand#13") == pack_string("brand"));
  CHECK(plan::evaluate_per_string(*lengths->per_code, "SM BOX") == 6);
}

TEST_CASE("device forms: case-mapped and trimmed byte ranges of heap strings, functions of packed values") {
  CHECK(emit(*where_expr("select count(*) from part where p_name ilike '%GREEN%'")) ==
        "hqc_like_fold(p_name_bytes, b_p_name, e_p_name, HQC_FOLD_LOWER, \"%green%\", 7)");
  CHECK(emit(*where_expr("select count(*) from part where upper(trim(p_name)) = 'X'")) ==
        "hqc_str_eq_lit_fold(p_name_bytes, hqc_trim_begin(p_name_bytes, b_p_name, e_p_name), "
        "hqc_trim_end(p_name_bytes, hqc_trim_begin(p_name_bytes, b_p_name, e_p_name), e_p_name), HQC_FOLD_UPPER, \"X\", 1)");
  CHECK(emit(*where_expr("select count(*) from customer where substring(c_phone from 1 for 2) ilike 'a%'")) ==
        "hqc_like_fold(c_phone_bytes, hqc_substr_begin(b_c_phone, e_c_phone, 1), hqc_substr_end(b_c_phone, e_c_phone, 1, 2), "
        "HQC_FOLD_LOWER, \"a%\", 2)");
  CHECK(emit(*where_expr("select count(*) from part where length(p_name) > 3")) == "(((hqc_i64)(e_p_name - b_p_name)) > 3)");
  CHECK(emit(*where_expr("select count(*) from part where strpos(p_name, 'ab') = 2")) ==
        "(hqc_str_position(p_name_bytes, b_p_name, e_p_name, \"ab\", 2) == 2)");
  CHECK(emit(*where_expr("select count(*) from part where lower(p_name) < upper(p_comment)")) ==
        "(hqc_str_cmp_fold(p_name_bytes, b_p_name, e_p_name, HQC_FOLD_LOWER, p_comment_bytes, b_p_comment, e_p_comment, HQC_FOLD_UPPER) < 0)");
  CHECK(emit(*where_expr("select count(*) from customer where replace(substring(c_phone from 1 for 3), '-', '') = '12'")) ==
        "(hqc_packed_replace(hqc_str_pack(c_phone_bytes, hqc_substr_begin(b_c_phone, e_c_phone, 1), hqc_substr_end(b_c_phone, e_c_phone, 1, 3)), "
        "\"-\", 1, \"\", 0) == ((hqc_i64)0x31320000000000))");
  CHECK(emit(*where_expr("select count(*) from customer where length(substring(c_phone from 1 for 3) || 'x') = 4")) ==
        "(hqc_packed_length(hqc_packed_concat(hqc_str_pack(c_phone_bytes, hqc_substr_begin(b_c_phone, e_c_phone, 1), "
        "hqc_substr_end(b_c_phone, e_c_phone, 1, 3)), ((hqc_i64)0x78000000000000))) == 4)");
}

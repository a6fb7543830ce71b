// Expression emission: parenthesization, typing (32/64-bit, decimals, doubles), trap-free integer
// division, dictionary codes as parameters, and Unsupported for constructs without a device form.
#include <doctest/doctest.h>

#include "codegen/expr_emitter.h"
#include "codegen/source_writer.h"
#include "storage/error.h"

using namespace hqc;
using plan::make_column;
using plan::make_int_literal;

namespace {

std::string emit(const plan::ExprPtr& e) {
  return codegen::emit_expr(*e, [](const std::string& source, const std::string& column) {
    return (source.empty() ? std::string("c_") : source + "_") + column;
  });
}

}  // namespace

TEST_CASE("arithmetic widens 32-bit operands when the result is 64-bit, division cannot trap") {
  auto q = make_column("lo", "qty", DataType::int32());
  auto price = make_column("lo", "price", DataType::decimal(15, 2));
  CHECK(emit(plan::make_arith(plan::ArithOp::Mul, q, price, DataType::decimal(15, 2))) == "(((hqc_i64)lo_qty) * lo_price)");
  CHECK(emit(plan::make_arith(plan::ArithOp::Div, q, make_int_literal(3, DataType::int32()), DataType::int32())) ==
        "hqc_div_i32(lo_qty, 3)");
  CHECK(emit(plan::make_arith(plan::ArithOp::Div, price, price, DataType::float64())) ==
        "(((hqc_f64)lo_price) / ((hqc_f64)lo_price))");
  CHECK(emit(make_int_literal(5000000000LL, DataType::int64())) == "((hqc_i64)5000000000)");
  CHECK(emit(make_int_literal(-7, DataType::int32())) == "(-7)");
}

TEST_CASE("casts rescale decimals and convert to double") {
  auto price = make_column("l", "price", DataType::decimal(15, 2));
  CHECK(emit(plan::make_cast(price, DataType::decimal(15, 4))) == "((hqc_i64)l_price * ((hqc_i64)100))");
  CHECK(emit(plan::make_cast(price, DataType::float64())) == "((hqc_f64)l_price / 100.0)");
  CHECK(emit(plan::make_cast(make_column("l", "q", DataType::int32()), DataType::int64())) == "((hqc_i64)l_q)");
}

TEST_CASE("predicates: between, in-list, not, dictionary codes are run-time parameters") {
  auto d = make_column("lo", "discount", DataType::int32());
  auto between = std::make_shared<plan::Expr>();
  between->kind = plan::ExprKind::Between;
  between->type = DataType::boolean();
  between->args = {d, make_int_literal(1, DataType::int32()), make_int_literal(3, DataType::int32())};
  CHECK(emit(between) == "((lo_discount >= 1) && (lo_discount <= 3))");
  auto in = std::make_shared<plan::Expr>();
  in->kind = plan::ExprKind::InList;
  in->type = DataType::boolean();
  in->args = {d, make_int_literal(1, DataType::int32()), make_int_literal(5, DataType::int32())};
  CHECK(emit(plan::make_not(in)) == "(!((lo_discount == 1) || (lo_discount == 5)))");
  auto code = plan::make_dict_code("customer", "c_region", "ASIA", plan::DictMatch::Equal);
  code->param = "dict_c_region_eq_0";
  CHECK(emit(plan::make_compare(plan::CompareOp::Eq, make_column("customer", "c_region", DataType::int32()), code)) ==
        "(customer_c_region == dict_c_region_eq_0)");
  code->param.clear();
  CHECK_THROWS_AS(emit(code), Error);
}

TEST_CASE("constructs without a device form are Unsupported, naming the expression") {
  auto lit = plan::make_string_literal("abc", DataType::varchar(10));
  try {
    (void)emit(lit);
    FAIL("expected Unsupported");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Unsupported);
    CHECK(std::string(e.what()).find("abc") != std::string::npos);
  }
}

TEST_CASE("source writer: scopes indent and close braces, banners, no double blank lines") {
  codegen::SourceWriter w;
  {
    auto f = w.block("void f()");
    w.banner("first");
    w.line("a();");
    w.blank();
    w.blank();
    w.banner("second");
    {
      auto s = w.block("if (x)", ";");
      w.line("b();");
    }
  }
  CHECK(w.str() == "void f() {\n  // ---- first ----\n  a();\n\n  // ---- second ----\n  if (x) {\n    b();\n  };\n}\n");
}

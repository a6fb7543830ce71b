// Expression binding (frontend/bind_expr.h): JSON expression → typed plan::Expr.
//
// Type rules (also in docs/plan-format.md):
//   - integers: Int32 literal when it fits, else Int64; + - * on integers yield Int64 (sums of
//     Int32 products must not wrap); / always yields Float64 (DuckDB semantics).
//   - decimals: + - align scales (the lower-scale side is rescaled, literals folded), * adds
//     scales; an integer operand counts as scale 0; total scale above 18 is Unsupported.
//   - Date ± integer is a Date; a string literal compared with a Date is parsed as YYYY-MM-DD.
//   - strings compared with a Dictionary column become code comparisons against DictCode params:
//       = → code == eq(s)     <> → code <> eq(s)     <  → code < lower_bound(s)
//       <= → code < upper_bound(s)   > → code >= upper_bound(s)   >= → code >= lower_bound(s)
//     so the order-preserving dictionary makes ranges (SSB Q2.2's BETWEEN) integer comparisons;
//     LIKE 'abc' → code == eq('abc'), LIKE 'abc%' → lower_bound('abc') <= code < prefix_end('abc').
#include "frontend/bind_expr.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

#include "frontend/like_pattern.h"
#include "frontend/string_functions.h"
#include "storage/date.h"
#include "storage/error.h"

namespace hqc::plan {

namespace {


bool is_integer(const DataType& t) { return t.id == TypeId::Int32 || t.id == TypeId::Int64; }
bool is_dict(const Expr& e) { return e.type.is_string() && !e.dict_table.empty(); }
bool is_string_literal(const Expr& e) { return e.kind == ExprKind::Literal && e.type.is_string(); }

std::string type_words(const Expr& e) {
  if (is_dict(e)) return "string (dictionary " + e.dict_table + "." + e.dict_column + ")";
  return e.type.to_string();
}

int scale_of(const DataType& t) { return t.id == TypeId::Decimal ? t.scale : 0; }

bool reads_columns(const Expr& e) {
  bool any = false;
  visit(e, [&](const Expr& x) { any = any || x.kind == ExprKind::Column || x.kind == ExprKind::Param; });
  return any;
}

// A computed string over one dictionary column too long to be packed (upper(p_type)): it has no
// device value, only its per-code results in a table (ir/pass_dictionary_tables.cpp).
bool per_code_string(const Expr& e) {
  return e.type.is_string() && !e.type.packed && e.kind != ExprKind::Column && e.kind != ExprKind::Literal && per_string_column(e);
}

// Operands that meet in one expression (a comparison, LIKE, IN, a string function): where one is a
// per-code string, everything else must read the same dictionary column or nothing, so the whole
// expression can be evaluated per dictionary string.
void check_per_code_operands(const JsonNode& at, const std::vector<ExprPtr>& operands) {
  const Expr* per_code = nullptr;
  for (const ExprPtr& o : operands)
    if (per_code_string(*o)) per_code = o.get();
  if (!per_code) return;
  const Expr* column = per_string_column(*per_code);
  for (const ExprPtr& o : operands) {
    if (!reads_columns(*o)) continue;
    const Expr* c = per_string_column(*o);
    if (c && c->source == column->source && c->column == column->column) continue;
    at.unsupported(per_code->to_string() + " (a computed string of up to " + std::to_string(per_code->type.length) + " bytes over dictionary column " +
                   column->to_string() + ") is computed per dictionary string on the host; it can only meet literals and that same column, not " +
                   o->to_string());
  }
}

// Converts a numeric expression to `target` (Decimal of a larger or equal scale, Int64, Float64);
// literals are folded so kernels compare against plain constants.
ExprPtr coerce(const ExprPtr& e, const DataType& target, const JsonNode& at) {
  if (e->type == target) return e;
  if (e->kind == ExprKind::Literal) {
    if (target.id == TypeId::Float64) {
      double v = e->type.id == TypeId::Decimal ? static_cast<double>(e->int_value) / static_cast<double>(power_of_ten(e->type.scale))
                                               : static_cast<double>(e->int_value);
      return make_float_literal(v);
    }
    if (target.id == TypeId::Decimal) {
      int shift = target.scale - scale_of(e->type);
      if (shift < 0) at.unsupported("cannot lower the scale of " + e->to_string() + " to " + target.to_string());
      int64_t v = 0;
      if (__builtin_mul_overflow(e->int_value, power_of_ten(shift), &v)) at.fail("literal " + e->to_string() + " overflows " + target.to_string());
      return make_int_literal(v, target);
    }
    if (is_integer(target)) return make_int_literal(e->int_value, target);
  }
  if (target.id == TypeId::Decimal && scale_of(e->type) > target.scale) {
    at.unsupported("cannot lower the scale of " + e->to_string() + " to " + target.to_string());
  }
  return make_cast(e, target);
}

// The common comparison type of two numeric operands.
DataType common_numeric(const DataType& a, const DataType& b) {
  if (a.id == TypeId::Float64 || b.id == TypeId::Float64) return DataType::float64();
  if (a.id == TypeId::Decimal || b.id == TypeId::Decimal) {
    return DataType::decimal(18, static_cast<uint8_t>(std::max(scale_of(a), scale_of(b))));
  }
  if (a.id == TypeId::Int64 || b.id == TypeId::Int64) return DataType::int64();
  return DataType::int32();
}

ExprPtr bind_any(const JsonNode& node, const std::vector<Attribute>& scope);

ExprPtr bind_column(const JsonNode& node, const std::vector<Attribute>& scope) {
  node.expect_object({"column"});
  std::string name = node.at("column").as_string();
  std::string alias, column = name;
  if (auto dot = name.find('.'); dot != std::string::npos) {
    alias = name.substr(0, dot);
    column = name.substr(dot + 1);
  }
  std::vector<const Attribute*> matches;
  for (const Attribute& a : scope) {
    if (a.name == column && (alias.empty() || a.source == alias)) matches.push_back(&a);
  }
  if (matches.empty()) {
    std::vector<std::string> names;
    for (const Attribute& a : scope) {
      names.push_back(a.name);
      if (!a.source.empty()) names.push_back(a.source + "." + a.name);
    }
    node.fail("unknown column \"" + name + "\"" + did_you_mean(name, names));
  }
  if (matches.size() > 1) {
    std::string options;
    for (const Attribute* a : matches) options += (options.empty() ? "" : ", ") + a->source + "." + a->name;
    node.fail("ambiguous column \"" + name + "\": qualify it with its scan alias (" + options + ")");
  }
  return make_column(*matches[0]);
}

// A decimal literal: "12.50", "-0.05", ".06". Its value is exact; its scale is that of its last
// nonzero fractional digit ("0.0001000000" is 0.0001, scale 4), so trailing zeros never raise the
// scale of what it meets (a product, a comparison) and never bring an expression nearer to 64 bits.
ExprPtr bind_decimal(const JsonNode& node) {
  std::string text = node.as_string();
  bool negative = !text.empty() && text[0] == '-';
  std::string digits = negative ? text.substr(1) : text;
  auto dot = digits.find('.');
  std::string whole = digits.substr(0, dot);
  std::string frac = dot == std::string::npos ? "" : digits.substr(dot + 1);
  auto all_digits = [](const std::string& s) { return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }); };
  if ((whole.empty() && frac.empty()) || !all_digits(whole) || !all_digits(frac) || (dot != std::string::npos && frac.empty())) {
    node.fail("expected a decimal number like \"0.05\", \".05\" or \"-12.50\", found \"" + text + "\"");
  }
  while (!frac.empty() && frac.back() == '0') frac.pop_back();
  std::string all = whole + frac;
  all.erase(0, std::min(all.find_first_not_of('0'), all.size() - 1));
  if (all.empty()) all = "0";
  if (all.size() > 18) node.fail("decimal \"" + text + "\" has more than 18 significant digits");
  // (A scale beyond 18 has no 64-bit power of ten to rescale with.)
  if (frac.size() > 18) node.unsupported("decimal \"" + text + "\" has more than 18 digits after the point");
  int64_t v = std::stoll(all);
  uint8_t precision = static_cast<uint8_t>(std::max<size_t>(all.size(), frac.size() + 1));
  return make_int_literal(negative ? -v : v, DataType::decimal(precision, static_cast<uint8_t>(frac.size())));
}

ExprPtr bind_literal(const JsonNode& node) {
  if (node.has("int")) {
    node.expect_object({"int"});
    int64_t v = node.at("int").as_int();
    bool fits32 = v >= INT32_MIN && v <= INT32_MAX;
    return make_int_literal(v, fits32 ? DataType::int32() : DataType::int64());
  }
  if (node.has("decimal")) {
    node.expect_object({"decimal"});
    return bind_decimal(node.at("decimal"));
  }
  if (node.has("date")) {
    node.expect_object({"date"});
    JsonNode d = node.at("date");
    auto days = parse_iso_date(d.as_string());
    if (!days) d.fail("expected a date \"YYYY-MM-DD\", found \"" + d.as_string() + "\"");
    return make_int_literal(*days, DataType::date());
  }
  if (node.has("string")) {
    node.expect_object({"string"});
    std::string s = node.at("string").as_string();
    return make_string_literal(s, DataType::varchar(static_cast<uint32_t>(s.size())));
  }
  if (node.has("float")) {
    node.expect_object({"float"});
    double v = node.at("float").as_number();
    if (!std::isfinite(v)) node.at("float").fail("expected a finite number");
    return make_float_literal(v);
  }
  node.expect_object({"bool"});
  return make_int_literal(node.at("bool").as_bool() ? 1 : 0, DataType::boolean());
}

// A string literal met by a Date operand is a date.
ExprPtr as_date_literal(const ExprPtr& lit, const JsonNode& at) {
  auto days = parse_iso_date(lit->string_value);
  if (!days) at.fail("expected a date \"YYYY-MM-DD\" to compare with a date, found '" + lit->string_value + "'");
  return make_int_literal(*days, DataType::date());
}

CompareOp mirror(CompareOp op) {
  switch (op) {
    case CompareOp::Lt: return CompareOp::Gt;
    case CompareOp::Le: return CompareOp::Ge;
    case CompareOp::Gt: return CompareOp::Lt;
    case CompareOp::Ge: return CompareOp::Le;
    default: return op;
  }
}

ExprPtr dict_compare(CompareOp op, const ExprPtr& col, const std::string& literal) {
  auto code = [&](DictMatch m) { return make_dict_code(col->dict_table, col->dict_column, literal, m); };
  switch (op) {
    case CompareOp::Eq: return make_compare(CompareOp::Eq, col, code(DictMatch::Equal));
    case CompareOp::Ne: return make_compare(CompareOp::Ne, col, code(DictMatch::Equal));
    case CompareOp::Lt: return make_compare(CompareOp::Lt, col, code(DictMatch::LowerBound));
    case CompareOp::Le: return make_compare(CompareOp::Lt, col, code(DictMatch::UpperBound));
    case CompareOp::Gt: return make_compare(CompareOp::Ge, col, code(DictMatch::UpperBound));
    case CompareOp::Ge: return make_compare(CompareOp::Ge, col, code(DictMatch::LowerBound));
  }
  return nullptr;
}

// Brings two operands of a comparison (or an IN / BETWEEN / CASE) to one comparable form.
// Returns false with `why` set when they cannot be compared.
bool unify(ExprPtr& a, ExprPtr& b, const JsonNode& at, std::string& why) {
  if (is_numeric(a->type) && is_numeric(b->type)) {
    if (is_integer(a->type) && is_integer(b->type)) return true;  // C promotion handles widths
    DataType t = common_numeric(a->type, b->type);
    a = coerce(a, t, at);
    b = coerce(b, t, at);
    return true;
  }
  if (a->type.id == TypeId::Date && is_string_literal(*b)) b = as_date_literal(b, at);
  if (b->type.id == TypeId::Date && is_string_literal(*a)) a = as_date_literal(a, at);
  if (a->type.id == TypeId::Date && b->type.id == TypeId::Date) return true;
  if (a->type.is_string() && b->type.is_string()) {
    if (is_dict(*a) && is_dict(*b)) {
      if (a->dict_table == b->dict_table && a->dict_column == b->dict_column) return true;
      why = "codes of different dictionaries (" + a->dict_table + "." + a->dict_column + ", " + b->dict_table + "." +
            b->dict_column + ") cannot be compared";
      return false;
    }
    if (!is_dict(*a) && !is_dict(*b) && !(is_string_literal(*a) && is_string_literal(*b))) return true;  // heap strings
    // A dictionary column and a computed string of that column (p_type = upper(p_type)): compared
    // per dictionary string on the host (ir/pass_dictionary_tables.cpp).
    const Expr* ca = per_string_column(*a);
    const Expr* cb = per_string_column(*b);
    if (ca && cb && ca->source == cb->source && ca->column == cb->column) return true;
  }
  why = "cannot compare " + type_words(*a) + " with " + type_words(*b);
  return false;
}

ExprPtr bind_compare(CompareOp op, const JsonNode& node, const std::vector<Attribute>& scope) {
  node.expect_object({"op", "left", "right"});
  ExprPtr l = bind_any(node.at("left"), scope);
  ExprPtr r = bind_any(node.at("right"), scope);
  if (is_dict(*l) && is_string_literal(*r)) return dict_compare(op, l, r->string_value);
  if (is_dict(*r) && is_string_literal(*l)) return dict_compare(mirror(op), r, l->string_value);
  std::string why;
  if (!unify(l, r, node, why)) node.fail(why);
  check_per_code_operands(node, {l, r});
  return make_compare(op, l, r);
}

bool is_number_literal(const Expr& e) { return e.kind == ExprKind::Literal && is_numeric(e.type); }

// Constant folding: `l op r` of two numeric literals (or a date literal ± an integer one) becomes one
// literal, computed exactly: integers and decimals in 128 bits at the larger scale (* at the sum of
// the scales), trailing fractional zeros dropped as for a written literal; a result beyond 64 bits
// (or 18 fractional digits) is an error, never a wrapped constant. With a float64 operand, or for
// /, the value is the double the device would compute (a division by zero is left to the device).
ExprPtr fold_constant(ArithOp op, const ExprPtr& l, const ExprPtr& r, const JsonNode& node) {
  const DataType lt = l->type, rt = r->type;
  if (lt.id == TypeId::Date && is_integer(rt)) {
    int128 v = static_cast<int128>(l->int_value) + (op == ArithOp::Add ? r->int_value : -r->int_value);
    if (v < INT32_MIN || v > INT32_MAX) node.fail("date arithmetic " + l->to_string() + " " + arith_symbol(op) + " " + r->to_string() + " leaves the date range");
    return make_int_literal(static_cast<int64_t>(v), DataType::date());
  }
  auto as_double = [](const Expr& e) {
    if (e.type.id == TypeId::Float64) return e.float_value;
    return static_cast<double>(e.int_value) / static_cast<double>(power_of_ten(scale_of(e.type)));
  };
  if (op == ArithOp::Div || lt.id == TypeId::Float64 || rt.id == TypeId::Float64) {
    const double a = as_double(*l), b = as_double(*r);
    if (op == ArithOp::Div && b == 0) return nullptr;
    const double v = op == ArithOp::Add ? a + b : op == ArithOp::Sub ? a - b : op == ArithOp::Mul ? a * b : a / b;
    if (!std::isfinite(v)) return nullptr;
    return make_float_literal(v);
  }
  const int ls = scale_of(lt), rs = scale_of(rt);
  int128 a = l->int_value, b = r->int_value;
  int scale = 0;
  if (op == ArithOp::Mul) {
    scale = ls + rs;
  } else {
    scale = std::max(ls, rs);
    for (int i = ls; i < scale; ++i) a *= 10;
    for (int i = rs; i < scale; ++i) b *= 10;
  }
  // |a|, |b| < 10^37 here (int64 values raised by at most 18 digits), so neither + nor * of two
  // int64 values can leave 128 bits.
  int128 v = op == ArithOp::Add ? a + b : op == ArithOp::Sub ? a - b : static_cast<int128>(l->int_value) * r->int_value;
  const bool decimal = lt.id == TypeId::Decimal || rt.id == TypeId::Decimal;
  while (decimal && scale > 0 && v % 10 == 0) {
    v /= 10;
    --scale;
  }
  const std::string text = l->to_string() + " " + arith_symbol(op) + " " + r->to_string();
  if (v < INT64_MIN || v > INT64_MAX) node.fail("constant " + text + " overflows 64 bits");
  if (scale > 18) node.unsupported("constant " + text + " has more than 18 fractional digits");
  const auto value = static_cast<int64_t>(v);
  if (decimal) {
    uint8_t digits = 1;
    for (int128 m = v < 0 ? -v : v; m >= 10; m /= 10) ++digits;
    return make_int_literal(value, DataType::decimal(std::max<uint8_t>(digits, static_cast<uint8_t>(scale + 1)), static_cast<uint8_t>(scale)));
  }
  return make_int_literal(value, value >= INT32_MIN && value <= INT32_MAX ? DataType::int32() : DataType::int64());
}

ExprPtr bind_arith(ArithOp op, const JsonNode& node, const std::vector<Attribute>& scope) {
  node.expect_object({"op", "left", "right"});
  ExprPtr l = bind_any(node.at("left"), scope);
  ExprPtr r = bind_any(node.at("right"), scope);
  const DataType lt = l->type, rt = r->type;
  if (lt.id == TypeId::Date && is_integer(rt) && (op == ArithOp::Add || op == ArithOp::Sub)) {
    if (l->kind == ExprKind::Literal && r->kind == ExprKind::Literal) return fold_constant(op, l, r, node);
    return make_arith(op, l, r, lt);
  }
  if (lt.id == TypeId::Date && rt.id == TypeId::Date && op == ArithOp::Sub) {
    // date - date: the number of days between them, an integer (as in PostgreSQL and DuckDB).
    if (l->kind == ExprKind::Literal && r->kind == ExprKind::Literal)
      return make_int_literal(static_cast<int64_t>(l->int_value) - r->int_value, DataType::int64());
    return make_arith(op, l, r, DataType::int64());
  }
  if (!is_numeric(lt)) node.at("left").fail(std::string("arithmetic '") + arith_symbol(op) + "' needs a number, found " + type_words(*l));
  if (!is_numeric(rt)) node.at("right").fail(std::string("arithmetic '") + arith_symbol(op) + "' needs a number, found " + type_words(*r));
  if (is_number_literal(*l) && is_number_literal(*r)) {
    if (ExprPtr folded = fold_constant(op, l, r, node)) return folded;
  }
  if (op == ArithOp::Div || lt.id == TypeId::Float64 || rt.id == TypeId::Float64) {
    return make_arith(op, coerce(l, DataType::float64(), node), coerce(r, DataType::float64(), node), DataType::float64());
  }
  if (lt.id == TypeId::Decimal || rt.id == TypeId::Decimal) {
    if (op == ArithOp::Mul) {
      int s = scale_of(lt) + scale_of(rt);
      if (s > 18) node.unsupported("product scale " + std::to_string(s) + " exceeds 18 digits");
      return make_arith(op, l, r, DataType::decimal(18, static_cast<uint8_t>(s)));
    }
    DataType t = common_numeric(lt, rt);
    return make_arith(op, coerce(l, t, node), coerce(r, t, node), t);
  }
  return make_arith(op, l, r, DataType::int64());
}

std::vector<ExprPtr> bind_bool_args(const JsonNode& node, const std::vector<Attribute>& scope) {
  std::vector<ExprPtr> args;
  for (const JsonNode& a : node.array("args")) args.push_back(bind_predicate(a, scope));
  if (args.empty()) node.at("args").fail("expected at least one operand");
  return args;
}

ExprPtr bind_between(const JsonNode& node, const std::vector<Attribute>& scope) {
  node.expect_object({"op", "arg", "low", "high"});
  ExprPtr v = bind_any(node.at("arg"), scope);
  ExprPtr lo = bind_any(node.at("low"), scope);
  ExprPtr hi = bind_any(node.at("high"), scope);
  if (is_dict(*v) && is_string_literal(*lo) && is_string_literal(*hi)) {
    return make_logical(ExprKind::And, {dict_compare(CompareOp::Ge, v, lo->string_value),
                                        dict_compare(CompareOp::Le, v, hi->string_value)});
  }
  std::string why;
  ExprPtr v2 = v;
  if (!unify(v, lo, node.at("low"), why)) node.at("low").fail(why);
  if (!unify(v2, hi, node.at("high"), why)) node.at("high").fail(why);
  if (!(v->type == v2->type)) v = coerce(v, common_numeric(v->type, v2->type), node);
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::Between;
  e->type = DataType::boolean();
  if (is_numeric(v->type) && !is_integer(v->type)) {
    lo = coerce(lo, v->type, node.at("low"));
    hi = coerce(hi, v->type, node.at("high"));
  }
  e->args = {v, lo, hi};
  check_per_code_operands(node, e->args);
  return e;
}

// An integer or decimal literal as a value of `target` (an integer or decimal type) for an equality
// test: exact, or nullopt when no value of `target` can equal it (more fractional digits than
// target's scale that are not zeros, or beyond int64 at target's scale).
std::optional<ExprPtr> equal_literal_in(const Expr& literal, const DataType& target) {
  const int from = scale_of(literal.type), to = scale_of(target);
  int64_t v = literal.int_value;
  if (to >= from) {
    if (__builtin_mul_overflow(v, power_of_ten(to - from), &v)) return std::nullopt;
  } else {
    const int64_t unit = power_of_ten(from - to);
    if (v % unit != 0) return std::nullopt;
    v /= unit;
  }
  if (target.id == TypeId::Int32 && (v < INT32_MIN || v > INT32_MAX)) return std::nullopt;
  return make_int_literal(v, target);
}

// `v IN (x, ...)`: the values are brought to v's type. An integer or decimal literal is rescaled to
// v's scale exactly (`l_discount IN (0.05, .060)` on a decimal(15,2)); one that no value of v's type
// can equal (0.055 there) is dropped, and a list left empty is false.
ExprPtr bind_in(const JsonNode& node, const std::vector<Attribute>& scope) {
  node.expect_object({"op", "arg", "list"});
  ExprPtr v = bind_any(node.at("arg"), scope);
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::InList;
  e->type = DataType::boolean();
  e->args.push_back(v);
  std::vector<JsonNode> items = node.array("list");
  if (items.empty()) node.at("list").fail("expected at least one value");
  const bool exact_target = is_numeric(v->type) && v->type.id != TypeId::Float64;
  for (const JsonNode& item : items) {
    ExprPtr x = bind_any(item, scope);
    if (is_dict(*v) && is_string_literal(*x)) {
      e->args.push_back(make_dict_code(v->dict_table, v->dict_column, x->string_value, DictMatch::Equal));
      continue;
    }
    if (exact_target && is_number_literal(*x) && x->type.id != TypeId::Float64 &&
        !(is_integer(v->type) && is_integer(x->type))) {
      if (std::optional<ExprPtr> same = equal_literal_in(*x, v->type)) e->args.push_back(*same);
      continue;
    }
    std::string why;
    ExprPtr vv = v;
    if (!unify(vv, x, item, why)) item.fail(why);
    if (!(vv->type == v->type)) item.unsupported("IN list value needs a conversion of the tested expression; write the values in its type " + v->type.to_string());
    e->args.push_back(x);
  }
  if (e->args.size() == 1) return make_int_literal(0, DataType::boolean());  // no value can match
  check_per_code_operands(node, e->args);
  return e;
}

// A CASE over strings yields a packed string (ir/state.h "Packed strings"): every branch a string
// literal or packed value of at most kMaxPackedStringBytes bytes.
ExprPtr bind_string_case(const JsonNode& node, const std::vector<ExprPtr>& conds, const std::vector<ExprPtr>& values) {
  uint32_t length = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    const Expr& v = *values[i];
    const JsonNode at = i + 1 < values.size() ? node.array("when").at(i).at("then") : node.at("else");
    if (!v.type.is_string()) node.fail("CASE branches must all be strings or all numbers, found " + type_words(*values[0]) + " and " + type_words(v));
    const uint32_t n = is_string_literal(v) ? static_cast<uint32_t>(v.string_value.size()) : v.type.length;
    if (!(is_string_literal(v) || v.type.packed) || n > kMaxPackedStringBytes)
      at.unsupported("CASE over strings: branch " + v.to_string() + " (" + type_words(v) + ") is not a string literal or computed string of at most " +
                     std::to_string(kMaxPackedStringBytes) + " bytes, the only strings a CASE can yield");
    length = std::max(length, n);
  }
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::Case;
  e->type = DataType::packed_string(std::max<uint32_t>(length, 1));
  for (size_t i = 0; i < conds.size(); ++i) {
    e->args.push_back(conds[i]);
    e->args.push_back(values[i]);
  }
  e->args.push_back(values.back());
  return e;
}

ExprPtr bind_case(const JsonNode& node, const std::vector<Attribute>& scope) {
  node.expect_object({"op", "when", "else"});
  std::vector<ExprPtr> conds, values;
  for (const JsonNode& w : node.array("when")) {
    w.expect_object({"if", "then"});
    conds.push_back(bind_predicate(w.at("if"), scope));
    values.push_back(bind_any(w.at("then"), scope));
  }
  if (conds.empty()) node.at("when").fail("expected at least one {\"if\", \"then\"} branch");
  values.push_back(bind_any(node.at("else"), scope));
  if (std::any_of(values.begin(), values.end(), [](const ExprPtr& v) { return v->type.is_string(); })) return bind_string_case(node, conds, values);
  DataType t = values[0]->type;
  for (size_t i = 1; i < values.size(); ++i) {
    const DataType& u = values[i]->type;
    if (is_numeric(t) && is_numeric(u)) {
      t = common_numeric(t, u);
      if (is_integer(t)) t = (t.id == TypeId::Int64 || u.id == TypeId::Int64) ? DataType::int64() : t;
    } else if (!(t == u) || t.is_string()) {
      node.fail("CASE branches must all be numbers or all dates, found " + type_words(*values[0]) + " and " + type_words(*values[i]));
    }
  }
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::Case;
  e->type = t;
  for (size_t i = 0; i < conds.size(); ++i) {
    e->args.push_back(conds[i]);
    e->args.push_back(coerce(values[i], t, node));
  }
  e->args.push_back(coerce(values.back(), t, node));
  return e;
}

// The byte length a string operand is bounded by: a literal's own, else its type's (0: unbounded).
uint32_t length_bound(const Expr& e) { return is_string_literal(e) ? static_cast<uint32_t>(e.string_value.size()) : e.type.length; }

// A computed string of at most `bound` bytes: packed when that fits (ir/state.h "Packed strings").
DataType computed_string(uint64_t bound) {
  if (bound >= 1 && bound <= kMaxPackedStringBytes) return DataType::packed_string(static_cast<uint32_t>(bound));
  return DataType::varchar(bound > UINT32_MAX ? 0 : static_cast<uint32_t>(bound));
}

// Over a dictionary column, patterns without wildcards are equality and prefix patterns a range of
// codes (the dictionary is order-preserving); other patterns stay LIKE, evaluated on the host once
// per dictionary string (ir/pass_dictionary_tables.cpp), as is LIKE over any computed string of one
// dictionary column. Over heap strings every pattern runs on the device. ILIKE (`op` "ilike") is
// LIKE of lower(value) with the pattern lowered: byte-wise, ASCII letters only (string_functions.h).
ExprPtr bind_like(const JsonNode& node, const std::vector<Attribute>& scope, bool case_insensitive) {
  node.expect_object({"op", "arg", "pattern"});
  ExprPtr v = bind_any(node.at("arg"), scope);
  const char* op = case_insensitive ? "ILIKE" : "LIKE";
  if (!v->type.is_string() || is_string_literal(*v)) node.at("arg").fail(std::string(op) + " needs a string column or expression, found " + type_words(*v));
  std::string pattern = node.at("pattern").as_string();
  if (case_insensitive) {
    v = make_string_fn(StringFn::Lower, {v}, computed_string(length_bound(*v)));
    pattern = string_lower(pattern);
  }
  if (is_dict(*v)) {
    std::string literal;
    switch (classify_like(pattern, &literal)) {
      case LikeShape::Exact: return dict_compare(CompareOp::Eq, v, literal);
      case LikeShape::Prefix:
        if (literal.empty()) return make_int_literal(1, DataType::boolean());  // LIKE '%': every string
        return make_logical(ExprKind::And, {make_compare(CompareOp::Ge, v, make_dict_code(v->dict_table, v->dict_column, literal, DictMatch::LowerBound)),
                                            make_compare(CompareOp::Lt, v, make_dict_code(v->dict_table, v->dict_column, literal, DictMatch::PrefixEnd))});
      case LikeShape::General: break;
    }
  }
  if (v->type.packed && !per_string_column(*v) && !is_byte_range(*v))
    node.at("arg").unsupported(std::string(op) + " over " + v->to_string() + " (a computed string held packed, of at most " +
                               std::to_string(kMaxPackedStringBytes) + " bytes) is not supported; compare it with literals instead");
  return make_like(v, std::move(pattern));
}

// The string functions and their arguments, named as the JSON syntax and EXPLAIN name them
// (string_fn_name).
struct StringFnArity {
  StringFn fn;
  size_t args;
};
constexpr StringFnArity kStringFns[] = {
    {StringFn::Upper, 1}, {StringFn::Lower, 1},    {StringFn::Trim, 1},    {StringFn::LTrim, 1},  {StringFn::RTrim, 1},
    {StringFn::Length, 1}, {StringFn::Position, 2}, {StringFn::Replace, 3}, {StringFn::Concat, 2},
};

// {"op": "<name>", "args": [...]}: a string function (frontend/expr.h StringFn). Calls of literals
// fold to a literal. The result type bounds the result's bytes by the arguments' (unbounded when
// one is); at most kMaxPackedStringBytes is a packed value. A result too long to pack has a device
// form only as a byte range of a heap string (upper, lower, trim: the range, narrowed or read
// case-mapped) or per dictionary string (any function of one dictionary column); concat and
// replace of heap strings that long are Unsupported, as is a needle or replacement the device
// would have to compute per row.
ExprPtr bind_string_fn(const StringFnArity& f, const JsonNode& node, const std::vector<Attribute>& scope) {
  const std::string name = string_fn_name(f.fn);
  node.expect_object({"op", "args"});
  std::vector<JsonNode> items = node.array("args");
  if (items.size() != f.args)
    node.at("args").fail(name + " takes " + std::to_string(f.args) + " argument" + (f.args == 1 ? "" : "s") + ", found " +
                         std::to_string(items.size()));
  std::vector<ExprPtr> args;
  for (size_t i = 0; i < items.size(); ++i) {
    args.push_back(bind_any(items[i], scope));
    if (!args.back()->type.is_string()) items[i].fail(name + " needs a string, found " + type_words(*args.back()));
  }
  if (std::all_of(args.begin(), args.end(), [](const ExprPtr& a) { return is_string_literal(*a); })) return fold_string_fn(f.fn, args);
  check_per_code_operands(node, args);
  const bool per_code = per_string_column(*args[0]) && std::all_of(args.begin(), args.end(), [](const ExprPtr& a) {
                          return !reads_columns(*a) || per_string_column(*a);
                        });
  // Next to other columns a dictionary column has no bytes on the device: a short one takes part as
  // its packed self, SUBSTRING(c FROM 1 FOR its length), a per-code table.
  for (ExprPtr& a : args)
    if (!per_code && is_dict(*a) && a->type.length >= 1 && a->type.length <= kMaxPackedStringBytes) a = make_substring(a, 1, static_cast<int32_t>(a->type.length));
  DataType type;
  const uint64_t n = length_bound(*args[0]);
  switch (f.fn) {
    case StringFn::Upper:
    case StringFn::Lower:
    case StringFn::Trim:
    case StringFn::LTrim:
    case StringFn::RTrim: type = computed_string(n); break;
    case StringFn::Length: type = DataType::int64(); break;
    case StringFn::Position:
      type = DataType::int64();
      if (!per_code && !is_string_literal(*args[1]))
        items[1].unsupported("strpos/position needs its needle as a string literal (or both strings of one dictionary column), found " +
                             args[1]->to_string());
      break;
    case StringFn::Replace: {
      for (size_t i = 1; i < 3; ++i)
        if (!is_string_literal(*args[i])) items[i].unsupported("replace needs its search and replacement strings as literals, found " + args[i]->to_string());
      const uint64_t from = args[1]->string_value.size(), to = args[2]->string_value.size();
      type = computed_string(n == 0 ? 0 : from == 0 || to <= from ? n : n + (n / from) * (to - from));
      break;
    }
    case StringFn::Concat: {
      const uint64_t m = length_bound(*args[1]);
      type = computed_string(n == 0 || m == 0 ? 0 : n + m);
      break;
    }
  }
  ExprPtr e = make_string_fn(f.fn, std::move(args), type);
  const bool range = f.fn != StringFn::Replace && f.fn != StringFn::Concat;  // a byte range of its argument, or a number
  if (!e->type.packed && !range && !per_code)
    node.unsupported(name + " of heap strings is supported only as a computed string of at most " +
                     std::to_string(kMaxPackedStringBytes) + " bytes or over one dictionary column; " + e->to_string() +
                     (e->type.length ? " may have up to " + std::to_string(e->type.length) + " bytes" : " is unbounded"));
  return e;
}

// SQL positions: 1-based start and a length, both constants. Start 0 takes the positions 0 ..
// length - 1 of which only 1 .. length - 1 exist (PostgreSQL and DuckDB agree): start 1, one byte
// fewer. A negative start is refused: PostgreSQL cuts the positions before 1 the same way, DuckDB
// counts from the end of the string. A substring that is always empty is refused too.
ExprPtr bind_substring(const JsonNode& node, const std::vector<Attribute>& scope) {
  node.expect_object({"op", "arg", "start", "length"});
  ExprPtr v = bind_any(node.at("arg"), scope);
  if (!v->type.is_string() || is_string_literal(*v)) node.at("arg").fail("SUBSTRING needs a string column or expression, found " + type_words(*v));
  int64_t start = node.at("start").as_int();
  int64_t length = node.at("length").as_int();
  if (length < 0) node.at("length").fail("a SUBSTRING length must not be negative, found " + std::to_string(length));
  if (start < 0)
    node.at("start").unsupported("a negative SUBSTRING start (" + std::to_string(start) +
                                 ") is not supported: SQL systems disagree on it (PostgreSQL cuts the positions before 1, "
                                 "DuckDB counts from the end of the string)");
  if (start == 0) {
    start = 1;
    length -= 1;
  }
  if (length == 0) node.at("length").unsupported("this SUBSTRING is always the empty string, which is not supported");
  if (start > INT32_MAX) node.at("start").fail("expected a start position of at most " + std::to_string(INT32_MAX) + ", found " + std::to_string(start));
  if (length > INT32_MAX) node.at("length").fail("expected a length of at most " + std::to_string(INT32_MAX) + ", found " + std::to_string(length));
  // A dictionary column has no bytes on the device: its substrings are a per-code table of packed
  // values (ir/state.h "Packed strings"), so they must be short enough to pack.
  if (is_dict(*v) && length > static_cast<int64_t>(kMaxPackedStringBytes))
    node.at("length").unsupported("SUBSTRING of dictionary column " + v->to_string() + " for " + std::to_string(length) +
                                   " bytes: substrings of dictionary columns are supported up to " +
                                   std::to_string(kMaxPackedStringBytes) + " bytes");
  return make_substring(v, static_cast<int32_t>(start), static_cast<int32_t>(length));
}

// A date plus a whole number of months (SQL's `d + interval '3' month` of a non-constant d).
ExprPtr bind_add_months(const JsonNode& node, const std::vector<Attribute>& scope) {
  node.expect_object({"op", "arg", "months"});
  ExprPtr v = bind_any(node.at("arg"), scope);
  if (v->type.id != TypeId::Date) node.at("arg").fail("add_months needs a date, found " + type_words(*v));
  const int64_t months = node.at("months").as_int();
  // 12 x 10^6 months spans every int32 day number (5.8 million years) with room to spare.
  if (months < -12'000'000 || months > 12'000'000)
    node.at("months").fail("expected at most 12000000 months either way, found " + std::to_string(months));
  return months == 0 ? v : make_add_months(v, months);
}

ExprPtr bind_extract(const JsonNode& node, const std::vector<Attribute>& scope) {
  node.expect_object({"op", "field", "arg"});
  std::string field = node.at("field").as_string();
  if (!is_extract_field(field)) {
    node.at("field").unsupported("EXTRACT field \"" + field + "\" is not supported; expected year, quarter, month, day, dow or doy");
  }
  ExprPtr v = bind_any(node.at("arg"), scope);
  if (v->type.id != TypeId::Date) node.at("arg").fail("EXTRACT needs a date, found " + type_words(*v));
  return make_extract(field, v);
}

ExprPtr bind_date_trunc(const JsonNode& node, const std::vector<Attribute>& scope) {
  node.expect_object({"op", "field", "arg"});
  std::string field = node.at("field").as_string();
  if (!is_date_trunc_field(field)) {
    node.at("field").unsupported("date_trunc to \"" + field + "\" is not supported; expected year, quarter, month, week or day");
  }
  ExprPtr v = bind_any(node.at("arg"), scope);
  if (v->type.id != TypeId::Date) node.at("arg").fail("date_trunc needs a date, found " + type_words(*v));
  return field == "day" ? v : make_date_trunc(field, v);
}

// v / d rounded to the nearest integer, halves away from zero (d > 0): templates/device/base.h
// hqc_round_div_i64, for folding literals.
int64_t round_div(int64_t v, int64_t d) {
  int64_t q = v / d;
  const int64_t r = v % d < 0 ? -(v % d) : v % d;
  if (r >= d - r) q += v < 0 ? -1 : 1;
  return q;
}

// ROUND(x [, n]) (ExprKind::Round): n an integer literal, 0 when absent.
// ROUND(v, digits) of an integer or a decimal, halves away from zero, with digits < v's scale and
// at most 18 digits rounded away (the callers check): a literal folded, else ExprKind::Round.
ExprPtr round_exact(const ExprPtr& v, int64_t digits) {
  const int scale = scale_of(v->type);
  DataType type = v->type.id == TypeId::Decimal ? DataType::decimal(v->type.precision, static_cast<uint8_t>(std::max<int64_t>(digits, 0)))
                                                : DataType::int64();
  if (v->kind == ExprKind::Literal) {
    const int64_t tens = digits < 0 ? power_of_ten(static_cast<int>(-digits)) : 1;
    return make_int_literal(round_div(v->int_value, power_of_ten(static_cast<int>(scale - digits))) * tens, type);
  }
  return make_round(v, digits, type);
}

ExprPtr bind_round(const JsonNode& node, const std::vector<Attribute>& scope) {
  node.expect_object({"op", "arg", "digits"});
  ExprPtr v = bind_any(node.at("arg"), scope);
  const int64_t digits = node.has("digits") ? node.at("digits").as_int() : 0;
  if (!is_numeric(v->type)) node.at("arg").fail("round needs a number, found " + type_words(*v));
  if (v->type.id == TypeId::Float64) {
    if (digits < -300 || digits > 300) node.at("digits").unsupported("round to " + std::to_string(digits) + " digits is not supported (-300 .. 300)");
    if (v->kind != ExprKind::Literal) return make_round(v, digits, v->type);
    // The device's formula (hqc_round_f64), so a folded literal equals a computed value.
    const double x = v->float_value, m = std::pow(10.0, static_cast<double>(digits < 0 ? -digits : digits));
    const double r = digits >= 0 ? std::round(x * m) / m : std::round(x / m) * m;
    return make_float_literal(std::isfinite(r) ? r : digits >= 0 ? x : 0.0);
  }
  const int scale = scale_of(v->type);
  if (digits >= scale) return v;  // nothing after the point to round
  if (digits < -18 || scale - digits > 18) node.at("digits").unsupported("round to " + std::to_string(digits) + " digits of a value of scale " + std::to_string(scale) +
                                                         " is not supported (at most 18 digits are rounded away)");
  return round_exact(v, digits);
}

// Casts that keep every value exactly: widening of integers, integers and decimals to a decimal of
// at least their scale or to float64, a date literal from a string, a date to itself. A decimal to
// a smaller scale or to an integer rounds as DuckDB and PostgreSQL do, halves away from zero: it is
// ROUND(x, scale) (the device's exact rounding; `cast(2.45 as decimal(5,1))` is 2.5,
// `cast(-2.5 as integer)` -3). To an integer the value is a bigint even for `integer`: the two
// differ only where a value leaves 32 bits, which DuckDB refuses. (As for every decimal here, the
// target's precision is not enforced: a value with more digits is kept whole where DuckDB refuses it.)
// Other narrowing casts (bigint to integer, a double to an integer or a decimal) are Unsupported.
ExprPtr bind_cast(const JsonNode& node, const std::vector<Attribute>& scope) {
  node.expect_object({"op", "arg", "type"});
  DataType target;
  try {
    target = DataType::parse(node.at("type").as_string());
  } catch (const std::invalid_argument& e) {
    node.at("type").fail(e.what());
  }
  ExprPtr v = bind_any(node.at("arg"), scope);
  if (target.id == TypeId::Date) {
    if (is_string_literal(*v)) return as_date_literal(v, node.at("arg"));
    if (v->type.id == TypeId::Date) return v;
  } else if (is_numeric(v->type) && is_numeric(target)) {
    bool widening = target.id == TypeId::Float64 || (target.id == TypeId::Decimal && scale_of(v->type) <= target.scale) ||
                    (target.id == TypeId::Int64 && is_integer(v->type)) || (target == v->type) ||
                    (target.id == TypeId::Int32 && v->kind == ExprKind::Literal && is_integer(v->type) &&
                     v->int_value >= INT32_MIN && v->int_value <= INT32_MAX);
    if (widening) return coerce(v, target, node);
    if (v->type.id == TypeId::Decimal && (target.id == TypeId::Decimal || is_integer(target))) {
      // (Not widening: the target's scale is below v's, which is at most 18.)
      ExprPtr rounded = round_exact(v, target.id == TypeId::Decimal ? target.scale : 0);
      if (target.id == TypeId::Decimal) return coerce(rounded, target, node);
      return rounded->kind == ExprKind::Literal ? make_int_literal(rounded->int_value, DataType::int64())
                                                : make_cast(rounded, DataType::int64());
    }
    node.unsupported("cast of " + type_words(*v) + " to " + target.to_string() + " can lose digits; only widening casts are supported");
  }
  node.unsupported("cast of " + type_words(*v) + " to " + target.to_string() + " is not supported");
}

struct OpName {
  const char* name;
  int kind;  // 0 compare, 1 arith
  int op;
};
constexpr OpName kBinaryOps[] = {
    {"=", 0, static_cast<int>(CompareOp::Eq)},  {"<>", 0, static_cast<int>(CompareOp::Ne)},
    {"!=", 0, static_cast<int>(CompareOp::Ne)}, {"<", 0, static_cast<int>(CompareOp::Lt)},
    {"<=", 0, static_cast<int>(CompareOp::Le)}, {">", 0, static_cast<int>(CompareOp::Gt)},
    {">=", 0, static_cast<int>(CompareOp::Ge)}, {"+", 1, static_cast<int>(ArithOp::Add)},
    {"-", 1, static_cast<int>(ArithOp::Sub)},   {"*", 1, static_cast<int>(ArithOp::Mul)},
    {"/", 1, static_cast<int>(ArithOp::Div)},
};

// `a % k`: the remainder of an integer by a nonzero integer literal, with the sign of `a` (C's, as in
// PostgreSQL and DuckDB), bound as `a - (a / k) * k` over the truncating 64-bit division (an integer
// Div, hqc_div_i64). A divisor that is not a literal is Unsupported: `a % 0` is NULL in SQL.
ExprPtr bind_modulo(const JsonNode& node, const std::vector<Attribute>& scope) {
  node.expect_object({"op", "left", "right"});
  ExprPtr l = bind_any(node.at("left"), scope);
  ExprPtr r = bind_any(node.at("right"), scope);
  if (!is_integer(l->type)) node.at("left").unsupported("the modulo operator (%) takes integers, found " + type_words(*l));
  if (r->kind != ExprKind::Literal || !is_integer(r->type))
    node.at("right").unsupported("the modulo operator (%) needs an integer literal divisor, found " + r->to_string());
  if (r->int_value == 0) node.at("right").unsupported("a remainder by 0 is NULL, which the modulo operator (%) does not give");
  if (r->int_value == 1 || r->int_value == -1) return make_int_literal(0, DataType::int64());
  if (l->kind == ExprKind::Literal) return make_int_literal(l->int_value % r->int_value, DataType::int64());
  ExprPtr quotient = make_arith(ArithOp::Div, l, r, DataType::int64());
  return make_arith(ArithOp::Sub, l, make_arith(ArithOp::Mul, quotient, r, DataType::int64()), DataType::int64());
}

ExprPtr bind_operator(const JsonNode& node, const std::vector<Attribute>& scope) {
  std::string op = node.at("op").as_string();
  if (op == "%") return bind_modulo(node, scope);
  for (const OpName& o : kBinaryOps) {
    if (op == o.name) {
      return o.kind == 0 ? bind_compare(static_cast<CompareOp>(o.op), node, scope)
                         : bind_arith(static_cast<ArithOp>(o.op), node, scope);
    }
  }
  if (op == "and" || op == "or") {
    node.expect_object({"op", "args"});
    std::vector<ExprPtr> args = bind_bool_args(node, scope);
    return args.size() == 1 ? args[0] : make_logical(op == "and" ? ExprKind::And : ExprKind::Or, std::move(args));
  }
  if (op == "not") {
    node.expect_object({"op", "arg"});
    return make_not(bind_predicate(node.at("arg"), scope));
  }
  if (op == "between") return bind_between(node, scope);
  if (op == "in") return bind_in(node, scope);
  if (op == "case") return bind_case(node, scope);
  if (op == "like" || op == "ilike") return bind_like(node, scope, op == "ilike");
  for (const StringFnArity& f : kStringFns)
    if (op == string_fn_name(f.fn)) return bind_string_fn(f, node, scope);
  if (op == "substring") return bind_substring(node, scope);
  if (op == "extract") return bind_extract(node, scope);
  if (op == "cast") return bind_cast(node, scope);
  if (op == "round") return bind_round(node, scope);
  if (op == "date_trunc") return bind_date_trunc(node, scope);
  if (op == "add_months") return bind_add_months(node, scope);
  std::vector<std::string> known = {"and", "or", "not", "between", "in", "case", "like", "ilike", "substring", "extract", "cast", "round",
                                    "date_trunc", "add_months"};
  for (const OpName& o : kBinaryOps) known.push_back(o.name);
  for (const StringFnArity& f : kStringFns) known.push_back(string_fn_name(f.fn));
  node.at("op").fail("unknown expression operator \"" + op + "\"" + did_you_mean(op, known) +
                     "; expected one of = <> < <= > >= + - * / and or not between in case like ilike substring extract cast round date_trunc"
                     " add_months upper lower trim ltrim rtrim length strpos replace concat");
}

ExprPtr bind_any(const JsonNode& node, const std::vector<Attribute>& scope) {
  if (!node.value().is_object()) {
    node.fail("expected an expression object ({\"column\": ...}, {\"int\": ...}, {\"op\": ...}), found " + json_kind(node.value()));
  }
  if (node.has("column")) return bind_column(node, scope);
  if (node.has("op")) return bind_operator(node, scope);
  for (const char* k : {"int", "decimal", "date", "string", "float", "bool"}) {
    if (node.has(k)) return bind_literal(node);
  }
  node.fail("expected an expression: an object with \"column\", \"op\" or a literal (\"int\", \"decimal\", \"date\", "
            "\"string\", \"float\", \"bool\")");
}

}  // namespace

bool is_numeric(const DataType& t) {
  return t.id == TypeId::Int32 || t.id == TypeId::Int64 || t.id == TypeId::Decimal || t.id == TypeId::Float64;
}

ExprPtr bind_expression(const JsonNode& node, const std::vector<Attribute>& scope) { return bind_any(node, scope); }

ExprPtr bind_predicate(const JsonNode& node, const std::vector<Attribute>& scope) {
  ExprPtr e = bind_any(node, scope);
  if (e->type.id != TypeId::Bool) node.fail("expected a predicate (a comparison, and/or/not, between, in), found a " + e->type.to_string() + " expression");
  return e;
}

bool aggregate_type(AggFunc f, const DataType* arg, DataType& result, std::string& why) {
  switch (f) {
    case AggFunc::CountStar:
    case AggFunc::Count:
      result = DataType::int64();
      return true;
    case AggFunc::Avg:
      if (!is_numeric(*arg)) break;
      result = DataType::float64();
      return true;
    case AggFunc::Sum:
      if (!is_numeric(*arg)) break;
      if (arg->id == TypeId::Decimal) result = DataType::decimal(18, arg->scale);
      else if (arg->id == TypeId::Float64) result = DataType::float64();
      else result = DataType::int64();
      return true;
    case AggFunc::Min:
    case AggFunc::Max:
      if (arg->id == TypeId::Bool) break;
      result = *arg;
      return true;
  }
  why = std::string(agg_func_name(f)) + " needs a number, found " + arg->to_string();
  return false;
}

}  // namespace hqc::plan

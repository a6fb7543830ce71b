// Constructors, deep copy and the stable text form of bound expressions (frontend/expr.h).
#include "frontend/expr.h"

#include <set>
#include <sstream>

namespace hqc::plan {

const char* arith_symbol(ArithOp op) {
  switch (op) {
    case ArithOp::Add: return "+";
    case ArithOp::Sub: return "-";
    case ArithOp::Mul: return "*";
    case ArithOp::Div: return "/";
  }
  return "?";
}

const char* compare_symbol(CompareOp op) {
  switch (op) {
    case CompareOp::Eq: return "=";
    case CompareOp::Ne: return "<>";
    case CompareOp::Lt: return "<";
    case CompareOp::Le: return "<=";
    case CompareOp::Gt: return ">";
    case CompareOp::Ge: return ">=";
  }
  return "?";
}

const char* dict_match_name(DictMatch m) {
  switch (m) {
    case DictMatch::Equal: return "eq";
    case DictMatch::LowerBound: return "lower_bound";
    case DictMatch::UpperBound: return "upper_bound";
    case DictMatch::PrefixEnd: return "prefix_end";
  }
  return "?";
}

const char* string_fn_name(StringFn f) {
  switch (f) {
    case StringFn::Upper: return "upper";
    case StringFn::Lower: return "lower";
    case StringFn::Trim: return "trim";
    case StringFn::LTrim: return "ltrim";
    case StringFn::RTrim: return "rtrim";
    case StringFn::Length: return "length";
    case StringFn::Position: return "strpos";
    case StringFn::Replace: return "replace";
    case StringFn::Concat: return "concat";
  }
  return "?";
}

namespace {

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += '\'';  // SQL-style doubling keeps the form unambiguous
    out += c;
  }
  return out + "'";
}

std::string join_args(const Expr& e, const char* sep, size_t from = 0) {
  std::string out;
  for (size_t i = from; i < e.args.size(); ++i) {
    if (i > from) out += sep;
    out += e.args[i]->to_string();
  }
  return out;
}

}  // namespace

std::string Expr::to_string() const {
  switch (kind) {
    case ExprKind::Column:
      return source.empty() ? column : source + "." + column;
    case ExprKind::Literal: {
      if (type.id == TypeId::Float64) {
        std::ostringstream s;
        s.precision(17);
        s << float_value;
        return s.str();
      }
      if (type.id == TypeId::String) return quoted(string_value);
      if (type.id == TypeId::Decimal) return std::to_string(int_value) + ":" + type.to_string();
      if (type.id == TypeId::Date) return "date(" + std::to_string(int_value) + ")";
      if (type.id == TypeId::Bool) return int_value ? "true" : "false";
      return std::to_string(int_value);
    }
    case ExprKind::DictCode: {
      std::string s = std::string("dict_") + dict_match_name(match) + "(" + dict_table + "." + dict_column +
                      ", " + quoted(string_value) + ")";
      if (!param.empty()) s += "@" + param;
      return s;
    }
    case ExprKind::Arith:
      return "(" + args[0]->to_string() + " " + arith_symbol(arith) + " " + args[1]->to_string() + ")";
    case ExprKind::Compare:
      return "(" + args[0]->to_string() + " " + compare_symbol(compare) + " " + args[1]->to_string() + ")";
    case ExprKind::And:
      return "(" + join_args(*this, " and ") + ")";
    case ExprKind::Or:
      return "(" + join_args(*this, " or ") + ")";
    case ExprKind::Not:
      return "(not " + args[0]->to_string() + ")";
    case ExprKind::Between:
      return "(" + args[0]->to_string() + " between " + args[1]->to_string() + " and " + args[2]->to_string() + ")";
    case ExprKind::InList:
      return "(" + args[0]->to_string() + " in [" + join_args(*this, ", ", 1) + "])";
    case ExprKind::Case: {
      std::string s = "(case";
      size_t i = 0;
      for (; i + 1 < args.size(); i += 2) s += " when " + args[i]->to_string() + " then " + args[i + 1]->to_string();
      return s + " else " + args[i]->to_string() + ")";
    }
    case ExprKind::Cast:
      return type.to_string() + "(" + args[0]->to_string() + ")";
    case ExprKind::Like:
      return "(" + args[0]->to_string() + " like " + quoted(string_value) + (param.empty() ? "" : "@" + param) + ")";
    case ExprKind::Substring:
      return "substring(" + join_args(*this, ", ") + ")" + (param.empty() ? "" : "@" + param);
    case ExprKind::Extract:
      return "extract(" + string_value + ", " + args[0]->to_string() + ")";
    case ExprKind::Param:
      return "$" + param;
    case ExprKind::StringFn:
      return std::string(string_fn_name(string_fn)) + "(" + join_args(*this, ", ") + ")";
    case ExprKind::CodeTable:
      return param + "[" + args[0]->to_string() + "]";
    case ExprKind::Round:
      return "round(" + args[0]->to_string() + ", " + std::to_string(int_value) + ")";
    case ExprKind::DateTrunc:
      return "date_trunc(" + string_value + ", " + args[0]->to_string() + ")";
    case ExprKind::AddMonths:
      return "add_months(" + args[0]->to_string() + ", " + std::to_string(int_value) + ")";
  }
  return "?";
}

ExprPtr make_column(std::string source, std::string column, DataType type) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::Column;
  e->source = std::move(source);
  e->column = std::move(column);
  e->type = type;
  return e;
}

ExprPtr make_param(std::string name, DataType type) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::Param;
  e->param = std::move(name);
  e->type = type;
  return e;
}

ExprPtr make_int_literal(int64_t value, DataType type) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::Literal;
  e->int_value = value;
  e->type = type;
  return e;
}

ExprPtr make_float_literal(double value) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::Literal;
  e->float_value = value;
  e->type = DataType::float64();
  return e;
}

ExprPtr make_string_literal(std::string value, DataType type) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::Literal;
  e->string_value = std::move(value);
  e->type = type;
  return e;
}

ExprPtr make_dict_code(std::string table, std::string column, std::string literal, DictMatch match) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::DictCode;
  e->dict_table = std::move(table);
  e->dict_column = std::move(column);
  e->string_value = std::move(literal);
  e->match = match;
  e->type = DataType::int32();  // codes are int32
  return e;
}

ExprPtr make_arith(ArithOp op, ExprPtr left, ExprPtr right, DataType type) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::Arith;
  e->arith = op;
  e->type = type;
  e->args = {std::move(left), std::move(right)};
  return e;
}

ExprPtr make_compare(CompareOp op, ExprPtr left, ExprPtr right) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::Compare;
  e->compare = op;
  e->type = DataType::boolean();
  e->args = {std::move(left), std::move(right)};
  return e;
}

ExprPtr make_logical(ExprKind and_or, std::vector<ExprPtr> args) {
  auto e = std::make_shared<Expr>();
  e->kind = and_or;
  e->type = DataType::boolean();
  e->args = std::move(args);
  return e;
}

ExprPtr make_not(ExprPtr operand) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::Not;
  e->type = DataType::boolean();
  e->args = {std::move(operand)};
  return e;
}

ExprPtr make_cast(ExprPtr operand, DataType type) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::Cast;
  e->type = type;
  e->args = {std::move(operand)};
  return e;
}

ExprPtr make_like(ExprPtr value, std::string pattern) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::Like;
  e->type = DataType::boolean();
  e->string_value = std::move(pattern);
  e->args = {std::move(value)};
  return e;
}

ExprPtr make_substring(ExprPtr value, int32_t start, int32_t length) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::Substring;
  // At most kMaxPackedStringBytes bytes: a value of its own (packed); longer ones are byte ranges.
  const auto n = static_cast<uint32_t>(length);
  e->type = n <= kMaxPackedStringBytes ? DataType::packed_string(n) : DataType::varchar(n);
  e->args = {std::move(value), make_int_literal(start, DataType::int32()), make_int_literal(length, DataType::int32())};
  return e;
}

ExprPtr make_string_fn(StringFn fn, std::vector<ExprPtr> args, DataType type) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::StringFn;
  e->string_fn = fn;
  e->type = type;
  e->args = std::move(args);
  return e;
}

ExprPtr make_code_table(ExprPtr dictionary_column, std::string buffer, DataType type) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::CodeTable;
  e->param = std::move(buffer);
  e->type = type;
  e->args = {std::move(dictionary_column)};
  return e;
}

ExprPtr make_round(ExprPtr value, int64_t digits, DataType type) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::Round;
  e->type = type;
  e->int_value = digits;
  e->args = {std::move(value)};
  return e;
}

ExprPtr make_date_trunc(std::string field, ExprPtr date) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::DateTrunc;
  e->type = DataType::date();
  e->string_value = std::move(field);
  e->args = {std::move(date)};
  return e;
}

ExprPtr make_add_months(ExprPtr date, int64_t months) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::AddMonths;
  e->type = DataType::date();
  e->int_value = months;
  e->args = {std::move(date)};
  return e;
}

bool is_extract_field(const std::string& field) {
  static const std::set<std::string> fields = {"year", "quarter", "month", "day", "dow", "doy"};
  return fields.count(field) != 0;
}

bool is_date_trunc_field(const std::string& field) {
  static const std::set<std::string> fields = {"year", "quarter", "month", "week", "day"};
  return fields.count(field) != 0;
}

ExprPtr make_extract(std::string field, ExprPtr date) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::Extract;
  e->type = DataType::int32();
  e->string_value = std::move(field);
  e->args = {std::move(date)};
  return e;
}

ExprPtr clone(const Expr& e) {
  auto c = std::make_shared<Expr>(e);
  for (ExprPtr& a : c->args) a = clone(*a);
  return c;
}

}  // namespace hqc::plan

// Expression → C text; see expr_emitter.h for the typing rules.
#include "codegen/expr_emitter.h"

#include <cmath>
#include <cstdio>

#include "storage/error.h"

namespace hqc::codegen {
namespace {

bool is_wide(const DataType& t) { return t.id == TypeId::Int64 || t.id == TypeId::Decimal; }

std::string int_literal(int64_t v, const DataType& t) {
  if (v == INT64_MIN) return "HQC_I64_MIN";
  std::string digits = std::to_string(v);
  // A 32-bit literal needs no cast; wider ones are cast so no suffix (L vs LL) is needed.
  if (!is_wide(t) && v >= INT32_MIN + 1 && v <= INT32_MAX) return v < 0 ? "(" + digits + ")" : digits;
  return "((hqc_i64)" + digits + ")";
}

std::string float_literal(double v) {
  if (!std::isfinite(v)) throw Error(ErrorKind::Unsupported, "non-finite floating-point literal in an expression");
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return v < 0 ? "(" + s + ")" : s;
}

int64_t power_of_ten(int n) {
  int64_t p = 1;
  for (int i = 0; i < n; ++i) p *= 10;
  return p;
}

class Emitter {
 public:
  explicit Emitter(const AttributeResolver& resolve) : resolve_(resolve) {}

  std::string emit(const plan::Expr& e) {
    switch (e.kind) {
      case plan::ExprKind::Column: return resolve_(e.source, e.column);
      case plan::ExprKind::Literal:
        if (e.type.id == TypeId::Float64) return float_literal(e.float_value);
        if (e.type.id == TypeId::Bool) return e.int_value != 0 ? "1" : "0";
        if (e.type.is_string())
          throw Error(ErrorKind::Unsupported, "string literal " + e.to_string() +
                                                  " compared with a non-dictionary string: no device form yet");
        return int_literal(e.int_value, e.type);
      case plan::ExprKind::DictCode:
        if (e.param.empty())
          throw Error(ErrorKind::Internal, "dictionary literal " + e.to_string() + " has no run-time parameter");
        return e.param;
      case plan::ExprKind::Param:  // a kernel argument of the same name (an earlier stage's value)
        return e.param;
      case plan::ExprKind::Arith: return arith(e);
      case plan::ExprKind::Compare:
        for (const auto& a : e.args) {
          if (a->kind == plan::ExprKind::Column && a->type.is_string() && a->dict_table.empty())
            throw Error(ErrorKind::Unsupported, e.to_string() + ": " + a->to_string() +
                                                    " is a heap string (not dictionary-encoded): comparing it has no device form yet");
        }
        return "(" + emit(*e.args.at(0)) + " " + c_compare(e.compare) + " " + emit(*e.args.at(1)) + ")";
      case plan::ExprKind::And:
      case plan::ExprKind::Or: {
        std::string op = e.kind == plan::ExprKind::And ? " && " : " || ";
        std::string out = "(";
        for (size_t i = 0; i < e.args.size(); ++i) out += (i ? op : "") + emit(*e.args[i]);
        return out + ")";
      }
      case plan::ExprKind::Not: return "(!" + emit(*e.args.at(0)) + ")";
      case plan::ExprKind::Between: {
        std::string v = emit(*e.args.at(0));
        return "((" + v + " >= " + emit(*e.args.at(1)) + ") && (" + v + " <= " + emit(*e.args.at(2)) + "))";
      }
      case plan::ExprKind::InList: {
        std::string v = emit(*e.args.at(0));
        std::string out = "(";
        for (size_t i = 1; i < e.args.size(); ++i) out += (i > 1 ? " || " : "") + ("(" + v + " == " + emit(*e.args[i]) + ")");
        return out + ")";
      }
      case plan::ExprKind::Case: {
        // when1 ? then1 : (when2 ? then2 : else)
        std::string out;
        size_t pairs = (e.args.size() - 1) / 2;
        for (size_t i = 0; i < pairs; ++i)
          out += "(" + emit(*e.args[2 * i]) + " ? " + typed(*e.args[2 * i + 1], e.type) + " : ";
        out += typed(*e.args.back(), e.type);
        for (size_t i = 0; i < pairs; ++i) out += ")";
        return out;
      }
      case plan::ExprKind::Cast: return cast(*e.args.at(0), e.type);
      case plan::ExprKind::Like: case plan::ExprKind::Substring: case plan::ExprKind::Extract: throw Error(ErrorKind::Unsupported, e.to_string() + ": LIKE, SUBSTRING and EXTRACT have no device form yet");
    }
    throw Error(ErrorKind::Internal, "unknown expression kind in " + e.to_string());
  }

 private:
  static const char* c_compare(plan::CompareOp op) {
    switch (op) {
      case plan::CompareOp::Eq: return "==";
      case plan::CompareOp::Ne: return "!=";
      case plan::CompareOp::Lt: return "<";
      case plan::CompareOp::Le: return "<=";
      case plan::CompareOp::Gt: return ">";
      case plan::CompareOp::Ge: return ">=";
    }
    return "==";
  }

  // The operand converted to the representation of `to` when widths differ (branches of a CASE).
  std::string typed(const plan::Expr& e, const DataType& to) {
    std::string v = emit(e);
    if (to.id == TypeId::Float64 && e.type.id != TypeId::Float64) return "((hqc_f64)" + v + ")";
    if (is_wide(to) && !is_wide(e.type) && e.type.id != TypeId::Float64) return "((hqc_i64)" + v + ")";
    return v;
  }

  std::string arith(const plan::Expr& e) {
    const plan::Expr& l = *e.args.at(0);
    const plan::Expr& r = *e.args.at(1);
    std::string a = typed(l, e.type);
    std::string b = typed(r, e.type);
    if (e.arith == plan::ArithOp::Div && e.type.id != TypeId::Float64)
      return std::string(is_wide(e.type) ? "hqc_div_i64(" : "hqc_div_i32(") + a + ", " + b + ")";
    return "(" + a + " " + plan::arith_symbol(e.arith) + " " + b + ")";
  }

  std::string cast(const plan::Expr& operand, const DataType& to) {
    std::string v = emit(operand);
    const DataType& from = operand.type;
    if (to.id == TypeId::Float64) {
      if (from.id == TypeId::Float64) return v;
      if (from.id == TypeId::Decimal && from.scale > 0)
        return "((hqc_f64)" + v + " / " + float_literal(static_cast<double>(power_of_ten(from.scale))) + ")";
      return "((hqc_f64)" + v + ")";
    }
    if (from.id == TypeId::Float64)
      throw Error(ErrorKind::Unsupported, "cast from float64 to " + to.to_string() + " has no exact device form");
    int from_scale = from.id == TypeId::Decimal ? from.scale : 0;
    int to_scale = to.id == TypeId::Decimal ? to.scale : 0;
    if (to_scale > from_scale)
      v = "((hqc_i64)" + v + " * " + int_literal(power_of_ten(to_scale - from_scale), DataType::int64()) + ")";
    else if (to_scale < from_scale)
      v = "((hqc_i64)" + v + " / " + int_literal(power_of_ten(from_scale - to_scale), DataType::int64()) + ")";
    if (is_wide(to) && !is_wide(from)) return "((hqc_i64)" + v + ")";
    if (!is_wide(to) && is_wide(from)) return "((hqc_i32)" + v + ")";
    return v;
  }

  const AttributeResolver& resolve_;
};

}  // namespace

std::string emit_expr(const plan::Expr& e, const AttributeResolver& resolve) { return Emitter(resolve).emit(e); }

const char* device_type_of(const DataType& t) {
  switch (t.id) {
    case TypeId::Int64:
    case TypeId::Decimal: return "hqc_i64";
    case TypeId::Float64: return "hqc_f64";
    default: return "hqc_i32";
  }
}

}  // namespace hqc::codegen

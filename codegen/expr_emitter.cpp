// Expression → C text; see expr_emitter.h for the typing rules.
#include "codegen/expr_emitter.h"

#include <cmath>
#include <cstdio>

#include "frontend/string_functions.h"
#include "ir/state.h"
#include "storage/error.h"

namespace hqc::codegen {
namespace {

bool is_wide(const DataType& t) { return t.id == TypeId::Int64 || t.id == TypeId::Decimal; }
bool is_i128(const DataType& t) { return ir::is_decimal128(t); }

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

// A string operand other than a literal or dictionary code: a heap string or a packed value.
bool is_heap_string(const plan::Expr& e) {
  return e.type.is_string() && e.dict_table.empty() && e.kind != plan::ExprKind::Literal;
}
bool is_string_literal(const plan::Expr& e) { return e.type.is_string() && e.kind == plan::ExprKind::Literal; }
// A string with a byte range in registers (frontend/string_functions.h is_byte_range).
bool has_view(const plan::Expr& e) { return plan::is_byte_range(e); }

// A packed string constant (storage/types.h pack_string), in hex so its bytes can be read.
std::string packed_literal(std::string_view bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "((hqc_i64)0x%014llx)", static_cast<unsigned long long>(pack_string(bytes)));
  return buf;
}

class Emitter {
 public:
  Emitter(const AttributeResolver& resolve, const StringResolver& resolve_string, const OverflowChecks& checks)
      : resolve_(resolve), resolve_string_(resolve_string), checks_(checks) {}

  std::string emit(const plan::Expr& e) {
    switch (e.kind) {
      case plan::ExprKind::Column: return resolve_(e.source, e.column);
      case plan::ExprKind::Literal:
        if (e.type.id == TypeId::Float64) return float_literal(e.float_value);
        if (e.type.id == TypeId::Bool) return e.int_value != 0 ? "1" : "0";
        if (e.type.is_string() && e.type.packed) return packed_literal(e.string_value);  // a short literal as a value
        if (e.type.is_string())
          throw Error(ErrorKind::Unsupported, "string literal " + e.to_string() +
                                                  ": a string literal has a device form only in a comparison, IN list or LIKE"
                                                  " with a string, or as a branch of a CASE over strings");
        return int_literal(e.int_value, e.type);
      case plan::ExprKind::DictCode:
        if (e.param.empty())
          throw Error(ErrorKind::Internal, "dictionary literal " + e.to_string() + " has no run-time parameter");
        return e.param;
      case plan::ExprKind::Param:  // a kernel argument of the same name (an earlier stage's value)
        if (is_i128(e.type)) return "hqc_i128_from_words(" + e.param + ", " + ir::high_word_param(e.param) + ")";
        return e.param;
      case plan::ExprKind::Arith: return arith(e);
      case plan::ExprKind::Compare:
        if (is_heap_string(*e.args.at(0)) || is_heap_string(*e.args.at(1))) return string_compare(e);
        return compare(e.compare, *e.args.at(0), *e.args.at(1));
      case plan::ExprKind::And:
      case plan::ExprKind::Or: {
        std::string op = e.kind == plan::ExprKind::And ? " && " : " || ";
        std::string out = "(";
        for (size_t i = 0; i < e.args.size(); ++i) out += (i ? op : "") + emit(*e.args[i]);
        return out + ")";
      }
      case plan::ExprKind::Not: return "(!" + emit(*e.args.at(0)) + ")";
      case plan::ExprKind::Between: {
        if (is_heap_string(*e.args.at(0))) {
          return "(" + string_compare(plan::CompareOp::Ge, *e.args[0], *e.args.at(1)) + " && " +
                 string_compare(plan::CompareOp::Le, *e.args[0], *e.args.at(2)) + ")";
        }
        return "(" + compare(plan::CompareOp::Ge, *e.args[0], *e.args.at(1)) + " && " +
               compare(plan::CompareOp::Le, *e.args[0], *e.args.at(2)) + ")";
      }
      case plan::ExprKind::InList: {
        if (is_heap_string(*e.args.at(0))) {
          std::string out = "(";
          for (size_t i = 1; i < e.args.size(); ++i)
            out += (i > 1 ? " || " : "") + string_compare(plan::CompareOp::Eq, *e.args[0], *e.args[i]);
          return out + ")";
        }
        if (is_i128(e.args.at(0)->type))
          throw Error(ErrorKind::Unsupported, e.to_string() + ": an IN list over a 128-bit decimal sum is not supported yet");
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
      case plan::ExprKind::Cast: return cast(*e.args.at(0), e.type, e.overflow_check);
      case plan::ExprKind::Like: return like(e);
      case plan::ExprKind::Substring: return substring(e);
      case plan::ExprKind::StringFn: return string_fn(e);
      case plan::ExprKind::CodeTable: {
        const char* fn = e.type.id == TypeId::Bool ? "hqc_code_in_set(" : e.type.id == TypeId::Int32 ? "hqc_code_value_i32(" : "hqc_code_value(";
        return fn + e.param + ", " + emit(*e.args.at(0)) + ")";
      }
      case plan::ExprKind::Round: return round(e);
      case plan::ExprKind::Extract:  // hqc_year_of_days, hqc_quarter_of_days, ... (templates/device/strings.h)
      case plan::ExprKind::DateTrunc: {  // hqc_trunc_year_days, ... (DATE_TRUNC to a day is its operand: the binder drops it)
        const bool is_extract = e.kind == plan::ExprKind::Extract;
        if (is_extract ? !plan::is_extract_field(e.string_value) : !plan::is_date_trunc_field(e.string_value) || e.string_value == "day")
          throw Error(ErrorKind::Unsupported, e.to_string() + " has no device form");
        return (is_extract ? "hqc_" + e.string_value + "_of_days(" : "hqc_trunc_" + e.string_value + "_days(") + emit(*e.args.at(0)) + ")";
      }
      case plan::ExprKind::AddMonths:  // templates/device/strings.h
        return "hqc_add_months_days(" + emit(*e.args.at(0)) + ", " + std::to_string(e.int_value) + ")";
    }
    throw Error(ErrorKind::Internal, "unknown expression kind in " + e.to_string());
  }

 private:
  // The byte range of a heap string expression: a column, or a SUBSTRING of one.
  StringView view(const plan::Expr& e) {
    if (e.kind == plan::ExprKind::Column) {
      if (!resolve_string_)
        throw Error(ErrorKind::Unsupported, e.to_string() + ": heap string columns have no device form in this context");
      return resolve_string_(e.source, e.column);
    }
    if (e.kind == plan::ExprKind::Substring) {
      StringView inner = view(*e.args.at(0));
      std::string start = emit(*e.args.at(1)), length = emit(*e.args.at(2));
      return {inner.bytes, "hqc_substr_begin(" + inner.begin + ", " + inner.end + ", " + start + ")",
              "hqc_substr_end(" + inner.begin + ", " + inner.end + ", " + start + ", " + length + ")", inner.fold};
    }
    if (e.kind == plan::ExprKind::StringFn) {  // upper, lower, trim, ltrim, rtrim (is_byte_range)
      StringView v = view(*e.args.at(0));
      const std::string range = v.bytes + ", " + v.begin + ", " + v.end;
      switch (e.string_fn) {
        case plan::StringFn::Upper: v.fold = "HQC_FOLD_UPPER"; break;
        case plan::StringFn::Lower: v.fold = "HQC_FOLD_LOWER"; break;
        case plan::StringFn::Trim: return {v.bytes, "hqc_trim_begin(" + range + ")", "hqc_trim_end(" + v.bytes + ", hqc_trim_begin(" + range + "), " + v.end + ")", v.fold};
        case plan::StringFn::LTrim: v.begin = "hqc_trim_begin(" + range + ")"; break;
        case plan::StringFn::RTrim: v.end = "hqc_trim_end(" + range + ")"; break;
        default: throw Error(ErrorKind::Internal, e.to_string() + " is not a byte range of its argument");
      }
      return v;
    }
    throw Error(ErrorKind::Unsupported, e.to_string() + ": only columns of heap strings and their SUBSTRING, upper, lower and trim have a device form");
  }

  // `name(bytes, begin, end, rest)` over a view read as it is, `name_fold(bytes, begin, end, fold,
  // rest)` over a case-mapped one.
  static std::string view_call(const std::string& name, const StringView& v, const std::string& rest) {
    const std::string range = v.bytes + ", " + v.begin + ", " + v.end;
    if (v.fold.empty()) return name + "(" + range + (rest.empty() ? "" : ", " + rest) + ")";
    return name + "_fold(" + range + ", " + v.fold + (rest.empty() ? "" : ", " + rest) + ")";
  }

  // The packed value of a string operand of at most kMaxPackedStringBytes bytes.
  std::string packed_of(const plan::Expr& e) {
    if (is_string_literal(e)) return packed_literal(e.string_value);
    if (has_view(e)) return view_call("hqc_str_pack", view(e), "");
    if (!e.type.packed) throw Error(ErrorKind::Internal, e.to_string() + " is not a packed string");
    return emit(e);
  }

  // A StringFn: a number (length, strpos) or a packed string; a longer string result has a device
  // form only as a view (has_view), inside a comparison or LIKE.
  std::string string_fn(const plan::Expr& e) {
    const plan::Expr& s = *e.args.at(0);
    if (e.string_fn == plan::StringFn::Length) {
      if (has_view(s)) {
        const StringView v = view(s);
        return "((hqc_i64)(" + v.end + " - " + v.begin + "))";
      }
      return "hqc_packed_length(" + packed_of(s) + ")";
    }
    if (e.string_fn == plan::StringFn::Position) {
      const plan::Expr& needle = *e.args.at(1);
      if (!is_string_literal(needle)) throw Error(ErrorKind::Unsupported, e.to_string() + ": strpos needs its needle as a string literal");
      if (has_view(s)) return view_call("hqc_str_position", view(s), literal_args(needle));
      return "hqc_packed_position(" + packed_of(s) + ", " + literal_args(needle) + ")";
    }
    if (!e.type.packed)
      throw Error(ErrorKind::Unsupported, e.to_string() + ": a computed string " +
                                              (e.type.length ? "of up to " + std::to_string(e.type.length) + " bytes" : "of unbounded length") +
                                              " has no device value; it is only supported inside a comparison or LIKE");
    if (has_view(e)) return view_call("hqc_str_pack", view(e), "");
    switch (e.string_fn) {
      case plan::StringFn::Upper: return "hqc_packed_fold(" + packed_of(s) + ", HQC_FOLD_UPPER)";
      case plan::StringFn::Lower: return "hqc_packed_fold(" + packed_of(s) + ", HQC_FOLD_LOWER)";
      case plan::StringFn::Trim: return "hqc_packed_trim(" + packed_of(s) + ", 1, 1)";
      case plan::StringFn::LTrim: return "hqc_packed_trim(" + packed_of(s) + ", 1, 0)";
      case plan::StringFn::RTrim: return "hqc_packed_trim(" + packed_of(s) + ", 0, 1)";
      case plan::StringFn::Concat: return "hqc_packed_concat(" + packed_of(s) + ", " + packed_of(*e.args.at(1)) + ")";
      case plan::StringFn::Replace:
        return "hqc_packed_replace(" + packed_of(s) + ", " + literal_args(*e.args.at(1)) + ", " + literal_args(*e.args.at(2)) + ")";
      default: break;
    }
    throw Error(ErrorKind::Internal, e.to_string() + ": unknown string function");
  }

  // The packed value of a short SUBSTRING: of a byte range, of another packed value, or read from
  // a dictionary column's per-code table.
  std::string substring(const plan::Expr& e) {
    if (!e.type.packed)
      throw Error(ErrorKind::Unsupported, e.to_string() + ": a SUBSTRING longer than " + std::to_string(kMaxPackedStringBytes) +
                                              " bytes has no device value; it is only supported inside a comparison, IN list or LIKE");
    const plan::Expr& inner = *e.args.at(0);
    if (!inner.dict_table.empty())
      throw Error(ErrorKind::Internal, e.to_string() + ": a SUBSTRING of a dictionary column is a per-code table (ir/pass_dictionary_tables.cpp)");
    if (has_view(e)) return view_call("hqc_str_pack", view(e), "");
    return "hqc_packed_substr(" + emit(inner) + ", " + emit(*e.args.at(1)) + ", " + emit(*e.args.at(2)) + ")";
  }

  // `l op r` over packed values; `l` is packed and `r` a literal or packed, or one is a heap string.
  std::string packed_compare(plan::CompareOp op, const plan::Expr& l, const plan::Expr& r) {
    if (is_string_literal(l) || (has_view(l) && !l.type.packed)) return packed_compare(mirror(op), r, l);
    if (!l.type.packed) throw Error(ErrorKind::Internal, l.to_string() + " is not a packed string");
    std::string a = emit(l);
    if (is_string_literal(r)) {
      const std::string& lit = r.string_value;
      if (lit.size() <= kMaxPackedStringBytes) return "(" + a + " " + c_compare(op) + " " + packed_literal(lit) + ")";
      // A literal longer than any packed value never equals one, and orders after every value whose
      // bytes do not exceed its first 7 (a packed value that equals them is a proper prefix).
      const std::string head = packed_literal(std::string_view(lit).substr(0, kMaxPackedStringBytes));
      switch (op) {
        case plan::CompareOp::Eq: return "0";
        case plan::CompareOp::Ne: return "1";
        case plan::CompareOp::Lt:
        case plan::CompareOp::Le: return "(" + a + " <= " + head + ")";
        case plan::CompareOp::Gt:
        case plan::CompareOp::Ge: return "(" + a + " > " + head + ")";
      }
    }
    if (r.type.packed) return "(" + a + " " + c_compare(op) + " " + emit(r) + ")";
    // A heap string against a packed value, mirrored back to `r op l`.
    return "(" + view_call("hqc_str_cmp_packed", view(r), a) + " " + c_compare(mirror(op)) + " 0)";
  }

  static std::string literal_args(const plan::Expr& lit) {
    return c_string_literal(lit.string_value) + ", " + std::to_string(lit.string_value.size());
  }


  std::string string_compare(const plan::Expr& e) { return string_compare(e.compare, *e.args.at(0), *e.args.at(1)); }

  // `l op r` where at least one side is a heap string or packed value and the other one of those or a
  // literal: on byte ranges where both have them, else on packed values.
  std::string string_compare(plan::CompareOp op, const plan::Expr& l, const plan::Expr& r) {
    if (is_string_literal(l)) return string_compare(mirror(op), r, l);
    if (is_heap_string(l) && (is_heap_string(r) || is_string_literal(r)) && !(has_view(l) && (has_view(r) || is_string_literal(r))))
      return packed_compare(op, l, r);
    if (!is_heap_string(l) || !(is_heap_string(r) || is_string_literal(r)))
      throw Error(ErrorKind::Unsupported, l.to_string() + " " + plan::compare_symbol(op) + " " + r.to_string() +
                                              ": a heap string compares only with a string literal or another heap string");
    StringView a = view(l);
    if (is_string_literal(r)) {
      if (op == plan::CompareOp::Eq) return view_call("hqc_str_eq_lit", a, literal_args(r));
      if (op == plan::CompareOp::Ne) return "(!" + view_call("hqc_str_eq_lit", a, literal_args(r)) + ")";
      return "(" + view_call("hqc_str_cmp_lit", a, literal_args(r)) + " " + c_compare(op) + " 0)";
    }
    StringView b = view(r);
    const auto range = [](const StringView& v) { return v.bytes + ", " + v.begin + ", " + v.end; };
    if (a.fold.empty() && b.fold.empty()) return "(hqc_str_cmp(" + range(a) + ", " + range(b) + ") " + c_compare(op) + " 0)";
    const auto fold = [](const StringView& v) { return v.fold.empty() ? std::string("HQC_FOLD_NONE") : v.fold; };
    return "(hqc_str_cmp_fold(" + range(a) + ", " + fold(a) + ", " + range(b) + ", " + fold(b) + ") " + c_compare(op) + " 0)";
  }

  std::string like(const plan::Expr& e) {
    const plan::Expr& value = *e.args.at(0);
    if (value.type.is_string() && !value.dict_table.empty())
      throw Error(ErrorKind::Internal, e.to_string() + ": LIKE over a dictionary column is a per-code table (ir/pass_dictionary_tables.cpp)");
    if (!has_view(value))
      throw Error(ErrorKind::Unsupported, e.to_string() + ": LIKE over a computed string (a packed value) is not supported;"
                                                          " LIKE works on string columns and their SUBSTRING, upper, lower and trim");
    return view_call("hqc_like", view(value), c_string_literal(e.string_value) + ", " + std::to_string(e.string_value.size()));
  }

  static plan::CompareOp mirror(plan::CompareOp op) {
    switch (op) {
      case plan::CompareOp::Lt: return plan::CompareOp::Gt;
      case plan::CompareOp::Le: return plan::CompareOp::Ge;
      case plan::CompareOp::Gt: return plan::CompareOp::Lt;
      case plan::CompareOp::Ge: return plan::CompareOp::Le;
      default: return op;
    }
  }

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

  // A Cast that raises the scale of a 64-bit integer or decimal: the lower-scale side of a comparison
  // the binder unified (bind_expr.cpp, unify).
  static bool raises_scale(const plan::Expr& e) {
    if (e.kind != plan::ExprKind::Cast || e.type.id != TypeId::Decimal || is_i128(e.type)) return false;
    const DataType& from = e.args.at(0)->type;
    const bool integral = from.id == TypeId::Int32 || from.id == TypeId::Int64 || (from.id == TypeId::Decimal && !is_i128(from));
    return integral && e.type.scale > (from.id == TypeId::Decimal ? from.scale : 0);
  }
  static bool is_exact_i64(const plan::Expr& e) {
    return (e.type.id == TypeId::Int32 || e.type.id == TypeId::Int64 || e.type.id == TypeId::Decimal) && !is_i128(e.type);
  }

  // `l op r` of numbers: 128-bit where a side is, exact across decimal scales (a raised scale is
  // compared without forming the product, which may leave 64 bits), else the C operator.
  std::string compare(plan::CompareOp op, const plan::Expr& l, const plan::Expr& r) {
    if (is_i128(l.type) || is_i128(r.type)) return compare_i128(op, l, r);
    if (raises_scale(l) && is_exact_i64(r) && !raises_scale(r)) {
      const plan::Expr& x = *l.args.at(0);
      const int shift = l.type.scale - (x.type.id == TypeId::Decimal ? x.type.scale : 0);
      return "(hqc_cmp_scaled_i64((hqc_i64)" + emit(x) + ", " + int_literal(power_of_ten(shift), DataType::int64()) + ", (hqc_i64)" +
             emit(r) + ") " + c_compare(op) + " 0)";
    }
    if (raises_scale(r) && is_exact_i64(l) && !raises_scale(l)) return compare(mirror(op), r, l);
    return "(" + emit(l) + " " + c_compare(op) + " " + emit(r) + ")";
  }

  // `l op r` where a side is a 128-bit decimal (both already at one scale: the binder unified them).
  // A 64-bit side whose scale the binder raised is widened before it is raised, so the raise is exact.
  std::string compare_i128(plan::CompareOp op, const plan::Expr& l, const plan::Expr& r) {
    // An integer is a decimal of scale 0 here (a 128-bit integer SUM against an integer).
    auto scale = [](const plan::Expr& e) { return e.type.id == TypeId::Decimal ? e.type.scale : 0; };
    auto exact = [](const plan::Expr& e) { return e.type.id == TypeId::Decimal || e.type.id == TypeId::Int32 || e.type.id == TypeId::Int64; };
    if (!exact(l) || !exact(r) || scale(l) != scale(r))
      throw Error(ErrorKind::Internal, l.to_string() + " " + plan::compare_symbol(op) + " " + r.to_string() +
                                           ": a 128-bit comparison needs two decimals of one scale");
    const DataType wide = ir::decimal128(static_cast<uint8_t>(scale(l)));
    auto side = [&](const plan::Expr& e) { return raises_scale(e) ? cast(*e.args.at(0), wide) : typed(e, wide); };
    return "(hqc_i128_cmp(" + side(l) + ", " + side(r) + ") " + c_compare(op) + " 0)";
  }

  // The kernel argument of the flag word a checked node reports to, and the row's liveness.
  std::string checked_call(const char* fn, const std::string& a, const std::string& b, const plan::Expr& e) {
    if (!checks_.flags)
      throw Error(ErrorKind::Internal, e.to_string() + ": an overflow-checked operation outside a pipeline with a flag word");
    return std::string(fn) + "(" + a + ", " + b + ", " + (checks_.live.empty() ? "1" : checks_.live) + ", " + checks_.flags() + ")";
  }

  // The operand converted to the representation of `to` when widths differ (branches of a CASE;
  // string literals of a CASE over packed strings become packed constants).
  std::string typed(const plan::Expr& e, const DataType& to) {
    if (to.is_string() && to.packed && is_string_literal(e)) return packed_literal(e.string_value);
    std::string v = emit(e);
    if (is_i128(e.type) != is_i128(to)) {
      if (is_i128(e.type)) throw Error(ErrorKind::Internal, e.to_string() + ": a 128-bit value where " + to.to_string() + " is expected");
      return "hqc_i128_from_i64((hqc_i64)" + v + ")";
    }
    if (is_i128(e.type)) return v;
    if (to.id == TypeId::Float64 && e.type.id != TypeId::Float64) return "((hqc_f64)" + v + ")";
    if (is_wide(to) && !is_wide(e.type) && e.type.id != TypeId::Float64) return "((hqc_i64)" + v + ")";
    return v;
  }

  std::string arith(const plan::Expr& e) {
    const plan::Expr& l = *e.args.at(0);
    const plan::Expr& r = *e.args.at(1);
    if (is_i128(e.type)) return arith_i128(e, l, r);
    std::string a = typed(l, e.type);
    std::string b = typed(r, e.type);
    if (e.arith == plan::ArithOp::Div && e.type.id != TypeId::Float64)
      return std::string(is_wide(e.type) ? "hqc_div_i64(" : "hqc_div_i32(") + a + ", " + b + ")";
    if (e.overflow_check && is_wide(e.type)) {
      const char* fn = e.arith == plan::ArithOp::Add ? "hqc_add_chk_i64" : e.arith == plan::ArithOp::Sub ? "hqc_sub_chk_i64" : "hqc_mul_chk_i64";
      return checked_call(fn, "(hqc_i64)" + a, "(hqc_i64)" + b, e);
    }
    return "(" + a + " " + plan::arith_symbol(e.arith) + " " + b + ")";
  }

  // + and - of 128-bit decimals (both at the result's scale), * of a 128-bit by a 64-bit one.
  std::string arith_i128(const plan::Expr& e, const plan::Expr& l, const plan::Expr& r) {
    switch (e.arith) {
      case plan::ArithOp::Add: return "hqc_i128_add(" + typed(l, e.type) + ", " + typed(r, e.type) + ")";
      case plan::ArithOp::Sub: return "hqc_i128_sub(" + typed(l, e.type) + ", " + typed(r, e.type) + ")";
      case plan::ArithOp::Mul:
        if (is_i128(l.type) && !is_i128(r.type)) return "hqc_i128_mul_i64(" + emit(l) + ", (hqc_i64)" + emit(r) + ")";
        if (is_i128(r.type) && !is_i128(l.type)) return "hqc_i128_mul_i64(" + emit(r) + ", (hqc_i64)" + emit(l) + ")";
        break;
      case plan::ArithOp::Div: break;
    }
    throw Error(ErrorKind::Unsupported, e.to_string() + ": " + plan::arith_symbol(e.arith) +
                                            " of these 128-bit decimal operands has no device form yet");
  }

  // ROUND(v, n) (frontend/expr.h): a double by its formula; a scaled integer divided by 10^(scale -
  // max(n, 0)) with rounding, then (n < 0) multiplied back to its tens.
  std::string round(const plan::Expr& e) {
    const plan::Expr& v = *e.args.at(0);
    const int64_t n = e.int_value;
    if (v.type.id == TypeId::Float64) {
      const double m = std::pow(10.0, static_cast<double>(n < 0 ? -n : n));
      return std::string(n >= 0 ? "hqc_round_f64_digits(" : "hqc_round_f64_tens(") + emit(v) + ", " + float_literal(m) + ")";
    }
    // The unit rounded to is 10^(scale - n) of the scaled value (the binder keeps it within 10^18).
    const int scale = v.type.id == TypeId::Decimal ? v.type.scale : 0;
    const std::string unit = int_literal(power_of_ten(static_cast<int>(scale - n)), DataType::int64());
    const std::string tens = n < 0 ? int_literal(power_of_ten(static_cast<int>(-n)), DataType::int64()) : "";
    if (is_i128(v.type)) {
      const std::string q = "hqc_i128_round_div(" + emit(v) + ", " + unit + ")";
      return n < 0 ? "hqc_i128_mul_i64(" + q + ", " + tens + ")" : q;
    }
    const std::string q = "hqc_round_div_i64((hqc_i64)" + emit(v) + ", " + unit + ")";
    return n < 0 ? "(" + q + " * " + tens + ")" : q;  // (decimal or Int64: 64-bit)
  }

  std::string cast(const plan::Expr& operand, const DataType& to, bool checked = false) {
    std::string v = emit(operand);
    const DataType& from = operand.type;
    if (is_i128(from)) {  // a 128-bit decimal sum: to double, or to a larger scale (the binder never lowers one)
      if (to.id == TypeId::Float64)
        return from.scale > 0 ? "(hqc_i128_to_f64(" + v + ") / " + float_literal(static_cast<double>(power_of_ten(from.scale))) + ")"
                              : "hqc_i128_to_f64(" + v + ")";
      if (to.id != TypeId::Decimal || to.scale < from.scale)
        throw Error(ErrorKind::Unsupported, "cast of a 128-bit decimal sum to " + to.to_string() + " has no device form yet");
      if (to.scale == from.scale) return v;
      return "hqc_i128_mul_i64(" + v + ", " + int_literal(power_of_ten(to.scale - from.scale), DataType::int64()) + ")";
    }
    if (is_i128(to)) {  // a 64-bit value where a 128-bit one is expected
      if (from.id == TypeId::Float64) throw Error(ErrorKind::Unsupported, "cast from float64 to " + to.to_string() + " has no exact device form");
      const int shift = to.scale - (from.id == TypeId::Decimal ? from.scale : 0);
      if (shift < 0) throw Error(ErrorKind::Unsupported, "cast to " + to.to_string() + " lowers the scale of " + operand.to_string());
      const std::string w = "hqc_i128_from_i64((hqc_i64)" + v + ")";
      return shift == 0 ? w : "hqc_i128_mul_i64(" + w + ", " + int_literal(power_of_ten(shift), DataType::int64()) + ")";
    }
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
    if (to_scale > from_scale && checked)
      v = checked_call("hqc_mul_chk_i64", "(hqc_i64)" + v, int_literal(power_of_ten(to_scale - from_scale), DataType::int64()), operand);
    else if (to_scale > from_scale)
      v = "((hqc_i64)" + v + " * " + int_literal(power_of_ten(to_scale - from_scale), DataType::int64()) + ")";
    else if (to_scale < from_scale)
      v = "((hqc_i64)" + v + " / " + int_literal(power_of_ten(from_scale - to_scale), DataType::int64()) + ")";
    if (is_wide(to) && !is_wide(from)) return "((hqc_i64)" + v + ")";
    if (!is_wide(to) && is_wide(from)) return "((hqc_i32)" + v + ")";
    return v;
  }

  const AttributeResolver& resolve_;
  const StringResolver& resolve_string_;
  const OverflowChecks& checks_;
};

}  // namespace

std::string emit_expr(const plan::Expr& e, const AttributeResolver& resolve, const StringResolver& resolve_string,
                      const OverflowChecks& checks) {
  return Emitter(resolve, resolve_string, checks).emit(e);
}

std::string c_string_literal(std::string_view bytes) {
  std::string out = "\"";
  for (char ch : bytes) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '?') {
      out += ch;
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03o", c);
      out += buf;
    }
  }
  return out + "\"";
}

const char* device_type_of(const DataType& t) {
  if (ir::is_decimal128(t)) return "hqc_i128";
  if (t.is_string() && t.packed) return "hqc_i64";
  switch (t.id) {
    case TypeId::Int64:
    case TypeId::Decimal: return "hqc_i64";
    case TypeId::Float64: return "hqc_f64";
    default: return "hqc_i32";
  }
}

}  // namespace hqc::codegen

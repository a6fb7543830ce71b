// Host string functions and per-dictionary-string evaluation (frontend/string_functions.h).
#include "frontend/string_functions.h"

#include <algorithm>

#include "frontend/like_pattern.h"
#include "storage/error.h"

namespace hqc::plan {

std::string string_upper(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return out;
}

std::string string_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::string string_trim(std::string_view s, bool leading, bool trailing) {
  size_t begin = 0, end = s.size();
  while (leading && begin < end && s[begin] == ' ') ++begin;
  while (trailing && end > begin && s[end - 1] == ' ') --end;
  return std::string(s.substr(begin, end - begin));
}

int64_t string_position(std::string_view s, std::string_view needle) {
  const size_t at = s.find(needle);
  return at == std::string_view::npos ? 0 : static_cast<int64_t>(at) + 1;
}

std::string string_replace(std::string_view s, std::string_view from, std::string_view to) {
  if (from.empty()) return std::string(s);
  std::string out;
  size_t at = 0;
  for (size_t hit; (hit = s.find(from, at)) != std::string_view::npos; at = hit + from.size()) {
    out += s.substr(at, hit - at);
    out += to;
  }
  out += s.substr(at);
  return out;
}

namespace {

// A value during evaluation: an integer (also a flag) or a string.
struct Value {
  int64_t number = 0;
  std::string text;
};

bool is_integral(const DataType& t) { return t.id == TypeId::Int32 || t.id == TypeId::Int64 || t.id == TypeId::Bool; }

bool compare_result(CompareOp op, int c) {
  switch (op) {
    case CompareOp::Eq: return c == 0;
    case CompareOp::Ne: return c != 0;
    case CompareOp::Lt: return c < 0;
    case CompareOp::Le: return c <= 0;
    case CompareOp::Gt: return c > 0;
    case CompareOp::Ge: return c >= 0;
  }
  return false;
}

int three_way(std::string_view a, std::string_view b) { return a.compare(b) < 0 ? -1 : a == b ? 0 : 1; }

// `code(s) op code(literal, match)` in string terms. The binder pairs Equal with = and <>, and the
// bounds with < and >= (bind_expr.cpp dict_compare, bind_like): a code below LowerBound(x) is a
// string below x, below UpperBound(x) one at most x, below PrefixEnd(x) one below x or starting
// with it.
bool dict_code_compare(CompareOp op, std::string_view s, const Expr& code) {
  const std::string_view x = code.string_value;
  if (code.match == DictMatch::Equal) {
    if (op == CompareOp::Eq) return s == x;
    if (op == CompareOp::Ne) return s != x;
  } else {
    bool below = code.match == DictMatch::LowerBound   ? s < x
                 : code.match == DictMatch::UpperBound ? s <= x
                                                       : s < x || s.starts_with(x);
    if (op == CompareOp::Lt) return below;
    if (op == CompareOp::Ge) return !below;
  }
  throw Error(ErrorKind::Internal, std::string("per-string evaluation: ") + compare_symbol(op) + " against " + code.to_string());
}

Value eval(const Expr& e, std::string_view s);

std::string text_of(const Expr& e, std::string_view s) { return eval(e, s).text; }

// A string result: its text, and its packed value where its type is packed.
Value string_value(const Expr& e, std::string text) {
  Value v;
  if (e.type.packed) v.number = pack_string(text);
  v.text = std::move(text);
  return v;
}

Value eval_string_fn(const Expr& e, std::string_view s) {
  const std::string a = text_of(*e.args.at(0), s);
  switch (e.string_fn) {
    case StringFn::Upper: return string_value(e, string_upper(a));
    case StringFn::Lower: return string_value(e, string_lower(a));
    case StringFn::Trim: return string_value(e, string_trim(a, true, true));
    case StringFn::LTrim: return string_value(e, string_trim(a, true, false));
    case StringFn::RTrim: return string_value(e, string_trim(a, false, true));
    case StringFn::Length: return Value{static_cast<int64_t>(a.size()), {}};
    case StringFn::Position: return Value{string_position(a, text_of(*e.args.at(1), s)), {}};
    case StringFn::Replace: return string_value(e, string_replace(a, text_of(*e.args.at(1), s), text_of(*e.args.at(2), s)));
    case StringFn::Concat: return string_value(e, a + text_of(*e.args.at(1), s));
  }
  throw Error(ErrorKind::Internal, "per-string evaluation: unknown string function in " + e.to_string());
}

Value flag(bool b) { return Value{b ? 1 : 0, {}}; }

bool compare(CompareOp op, const Expr& l, const Expr& r, std::string_view s) {
  if (r.kind == ExprKind::DictCode) return dict_code_compare(op, s, r);
  if (l.kind == ExprKind::DictCode) {
    static const CompareOp mirrored[] = {CompareOp::Eq, CompareOp::Ne, CompareOp::Gt, CompareOp::Ge, CompareOp::Lt, CompareOp::Le};
    return dict_code_compare(mirrored[static_cast<int>(op)], s, l);
  }
  if (l.type.is_string()) return compare_result(op, three_way(text_of(l, s), text_of(r, s)));
  const int64_t a = eval(l, s).number, b = eval(r, s).number;
  return compare_result(op, a < b ? -1 : a == b ? 0 : 1);
}

Value eval(const Expr& e, std::string_view s) {
  switch (e.kind) {
    case ExprKind::Column: return Value{0, std::string(s)};
    case ExprKind::Literal:
      if (e.type.is_string()) return string_value(e, e.string_value);
      return Value{e.int_value, {}};
    case ExprKind::Compare: return flag(compare(e.compare, *e.args.at(0), *e.args.at(1), s));
    case ExprKind::And:
      return flag(std::all_of(e.args.begin(), e.args.end(), [&](const ExprPtr& a) { return eval(*a, s).number != 0; }));
    case ExprKind::Or:
      return flag(std::any_of(e.args.begin(), e.args.end(), [&](const ExprPtr& a) { return eval(*a, s).number != 0; }));
    case ExprKind::Not: return flag(eval(*e.args.at(0), s).number == 0);
    case ExprKind::Between:
      return flag(!compare(CompareOp::Lt, *e.args.at(0), *e.args.at(1), s) && !compare(CompareOp::Gt, *e.args.at(0), *e.args.at(2), s));
    case ExprKind::InList:
      for (size_t i = 1; i < e.args.size(); ++i)
        if (compare(CompareOp::Eq, *e.args.at(0), *e.args[i], s)) return flag(true);
      return flag(false);
    case ExprKind::Case: {
      size_t i = 0;
      for (; i + 1 < e.args.size(); i += 2)
        if (eval(*e.args[i], s).number != 0) break;
      const Expr& branch = *e.args[i + 1 < e.args.size() ? i + 1 : i];
      if (e.type.is_string()) return string_value(e, text_of(branch, s));
      return eval(branch, s);
    }
    case ExprKind::Like: return flag(like_match(text_of(*e.args.at(0), s), e.string_value));
    case ExprKind::Substring: {
      const std::string a = text_of(*e.args.at(0), s);
      const auto skip = static_cast<size_t>(e.args.at(1)->int_value - 1), count = static_cast<size_t>(e.args.at(2)->int_value);
      return string_value(e, skip < a.size() ? a.substr(skip, count) : "");
    }
    case ExprKind::StringFn: return eval_string_fn(e, s);
    case ExprKind::Arith: {
      const int64_t a = eval(*e.args.at(0), s).number, b = eval(*e.args.at(1), s).number;
      int64_t v = 0;
      const bool overflow = e.arith == ArithOp::Add   ? __builtin_add_overflow(a, b, &v)
                            : e.arith == ArithOp::Sub ? __builtin_sub_overflow(a, b, &v)
                                                      : __builtin_mul_overflow(a, b, &v);
      if (overflow) throw Error(ErrorKind::Unsupported, e.to_string() + " overflows 64 bits for the dictionary string '" + std::string(s) + "'");
      return Value{v, {}};
    }
    case ExprKind::Cast: return eval(*e.args.at(0), s);
    default: break;
  }
  throw Error(ErrorKind::Internal, "per-string evaluation of " + e.to_string() + " is not supported");
}

}  // namespace

ExprPtr fold_string_fn(StringFn fn, const std::vector<ExprPtr>& literal_args) {
  const ExprPtr call = make_string_fn(fn, literal_args, DataType::varchar(0));
  if (fn == StringFn::Length || fn == StringFn::Position) return make_int_literal(eval_string_fn(*call, {}).number, DataType::int64());
  std::string text = eval_string_fn(*call, {}).text;
  const auto n = static_cast<uint32_t>(text.size());
  return make_string_literal(std::move(text), DataType::varchar(n));
}

const Expr* per_string_column(const Expr& e) {
  const Expr* found = nullptr;
  bool other = false;
  visit(e, [&](const Expr& x) {
    if (x.kind == ExprKind::Param || x.kind == ExprKind::CodeTable) other = true;
    if (x.kind != ExprKind::Column) return;
    if (!x.type.is_string() || x.dict_table.empty() || (found && (found->source != x.source || found->column != x.column))) other = true;
    found = &x;
  });
  return other ? nullptr : found;
}

bool is_byte_range(const Expr& e) {
  if (!e.type.is_string() || !e.dict_table.empty()) return false;
  if (e.kind == ExprKind::Column) return !e.type.packed;
  const bool narrows_or_maps = e.kind == ExprKind::Substring ||
                               (e.kind == ExprKind::StringFn && e.string_fn != StringFn::Length && e.string_fn != StringFn::Position &&
                                e.string_fn != StringFn::Replace && e.string_fn != StringFn::Concat);
  return narrows_or_maps && is_byte_range(*e.args.at(0));
}

bool computes_from_string(const Expr& e) {
  bool computes = false;
  visit(e, [&](const Expr& x) { computes = computes || x.kind == ExprKind::Like || x.kind == ExprKind::Substring || x.kind == ExprKind::StringFn; });
  return computes;
}

bool per_string_evaluable(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Column: return e.type.is_string() && !e.dict_table.empty();
    case ExprKind::Literal: return is_integral(e.type) || e.type.is_string();
    case ExprKind::DictCode: return true;
    case ExprKind::Arith:
      if (!is_integral(e.type) || e.arith == ArithOp::Div) return false;
      break;
    case ExprKind::Cast:
      if (!is_integral(e.type)) return false;
      break;
    case ExprKind::Case:
      if (!is_integral(e.type) && !e.type.is_string()) return false;
      break;
    case ExprKind::Compare:
    case ExprKind::And:
    case ExprKind::Or:
    case ExprKind::Not:
    case ExprKind::Between:
    case ExprKind::InList:
    case ExprKind::Like:
    case ExprKind::Substring:
    case ExprKind::StringFn: break;
    default: return false;
  }
  for (const ExprPtr& a : e.args) {
    if (!per_string_evaluable(*a)) return false;
    // Numbers compared or combined must be integers (no decimal scale, date or double to honor).
    if (!is_integral(a->type) && !a->type.is_string()) return false;
  }
  return true;
}

int64_t evaluate_per_string(const Expr& e, std::string_view s) {
  const Value v = eval(e, s);
  if (e.type.is_string()) {
    if (!e.type.packed) throw Error(ErrorKind::Internal, "per-string evaluation: " + e.to_string() + " is a string without a packed value");
    return v.number;
  }
  return v.number;
}

}  // namespace hqc::plan

// SQL NULL semantics as rewrites (frontend/sql/sql_nulls.h).
#include "frontend/sql/sql_nulls.h"

#include <algorithm>

namespace hqc::sql {

namespace {

SqlExprPtr make(SqlExprKind kind, int location, std::string text = {}, std::vector<SqlExprPtr> args = {}) {
  auto e = std::make_shared<SqlExpr>();
  e->kind = kind;
  e->location = location;
  e->text = std::move(text);
  e->args = std::move(args);
  return e;
}

// TRUE and FALSE as the expression language writes them: 1 = 1, 1 = 0 (folded away by and_of,
// or_of and not_of wherever they meet another operand).
SqlExprPtr constant(bool value, int location) {
  return equals(int_literal(1, location), int_literal(value ? 1 : 0, location), location);
}

bool is_constant(const SqlExprPtr& e, bool value) {
  return e && e->kind == SqlExprKind::Binary && e->text == "=" && e->args[0]->kind == SqlExprKind::IntLiteral &&
         e->args[1]->kind == SqlExprKind::IntLiteral && e->args[0]->int_value == 1 && e->args[1]->int_value == (value ? 1 : 0);
}

// A NULL predicate that is constant FALSE is no NULL at all.
SqlExprPtr never_false(SqlExprPtr null) { return is_constant(null, false) ? nullptr : null; }

bool is_distinct_from(const SqlExpr& e) {
  return e.kind == SqlExprKind::Binary && (e.text == "is distinct from" || e.text == "is not distinct from");
}

bool is_boolean(const SqlExpr& e) {
  return e.kind == SqlExprKind::And || e.kind == SqlExprKind::Or || e.kind == SqlExprKind::Not ||
         e.kind == SqlExprKind::IsNull || is_distinct_from(e);
}

}  // namespace

SqlExprPtr attribute_ref(const std::string& name, int location) { return make(SqlExprKind::Attribute, location, name); }

SqlExprPtr int_literal(int64_t value, int location) {
  SqlExprPtr e = make(SqlExprKind::IntLiteral, location);
  e->int_value = value;
  return e;
}

SqlExprPtr zero_if_null(const SqlExprPtr& e) {
  return make(SqlExprKind::Function, e->location, "coalesce", {e, int_literal(0, e->location)});
}

SqlExprPtr equals(SqlExprPtr a, SqlExprPtr b, int location) {
  return make(SqlExprKind::Binary, location, "=", {std::move(a), std::move(b)});
}

SqlExprPtr one_where(SqlExprPtr cond, int location) {
  return make(SqlExprKind::Case, location, "", {std::move(cond), int_literal(1, location), int_literal(0, location)});
}

SqlExprPtr zero_where_null(const NullableValue& v, const DataType& type, int location) {
  if (type.is_string()) return nullptr;
  if (type.id == TypeId::Bool) return and_of(not_of(v.null), v.value);  // FALSE in every NULL row
  SqlExprPtr zero = int_literal(0, location);
  if (type.id == TypeId::Date) {
    zero->kind = SqlExprKind::DateLiteral;
    zero->text = "1970-01-01";
  }
  return make(SqlExprKind::Case, location, "", {v.null, zero, v.value});
}

SqlExprPtr and_of(SqlExprPtr a, SqlExprPtr b) {
  if (is_constant(a, true) || is_constant(b, false)) return b;
  if (is_constant(b, true) || is_constant(a, false)) return a;
  const int location = a->location;  // before the moves
  return make(SqlExprKind::And, location, "", {std::move(a), std::move(b)});
}

SqlExprPtr or_of(SqlExprPtr a, SqlExprPtr b) {
  if (is_constant(a, false) || is_constant(b, true)) return b;
  if (is_constant(b, false) || is_constant(a, true)) return a;
  const int location = a->location;
  return make(SqlExprKind::Or, location, "", {std::move(a), std::move(b)});
}

SqlExprPtr not_of(SqlExprPtr a) {
  if (is_constant(a, true)) return constant(false, a->location);
  if (is_constant(a, false)) return constant(true, a->location);
  if (a->kind == SqlExprKind::Not) return a->args[0];
  // `indicator = 0` (a relation without a match) → `indicator <> 0`: the form EXPLAIN shows.
  if (a->kind == SqlExprKind::Binary && (a->text == "=" || a->text == "<>") && a->args[0]->kind == SqlExprKind::Attribute)
    return make(SqlExprKind::Binary, a->location, a->text == "=" ? "<>" : "=", a->args);
  const int location = a->location;
  return make(SqlExprKind::Not, location, "", {std::move(a)});
}

bool is_null_construct(const SqlExpr& e) {
  return e.kind == SqlExprKind::IsNull || e.kind == SqlExprKind::NullLiteral || is_distinct_from(e) ||
         (e.kind == SqlExprKind::Function && (e.text == "coalesce" || e.text == "nullif"));
}

bool mentions_null_construct(const SqlExpr& e) {
  return is_null_construct(e) || std::any_of(e.args.begin(), e.args.end(), [](const SqlExprPtr& a) { return mentions_null_construct(*a); });
}

bool NullRewriter::needed(const SqlExpr& e) const {
  if (std::optional<SqlExprPtr> leaf = leaves_(e)) return *leaf != nullptr;
  if (is_null_construct(e)) return true;
  if (e.kind == SqlExprKind::Exists || e.kind == SqlExprKind::InSubquery || e.kind == SqlExprKind::ScalarSubquery)
    return false;  // their own query binds its own NULLs
  for (const SqlExprPtr& a : e.args)
    if (needed(*a)) return true;
  return false;
}

NullableValue NullRewriter::value(const SqlExpr& e) {
  if (std::optional<SqlExprPtr> leaf = leaves_(e)) return {std::make_shared<SqlExpr>(e), *leaf};
  if (e.kind == SqlExprKind::NullLiteral) return {nullptr, constant(true, e.location)};
  if (e.kind == SqlExprKind::Cast && e.args[0]->kind == SqlExprKind::NullLiteral) {
    // A typed NULL: the cast of its type's zero, NULL everywhere.
    auto c = std::make_shared<SqlExpr>(e);
    c->args[0] = e.text == "date" ? make(SqlExprKind::DateLiteral, e.location, "1970-01-01") : int_literal(0, e.location);
    return {c, constant(true, e.location)};
  }
  if (is_boolean(e)) {
    // A condition used as a value: NULL where it is neither TRUE nor FALSE.
    SqlExprPtr t = truth(e);
    return {t, never_false(not_of(or_of(t, falsity(e))))};
  }
  if (e.kind == SqlExprKind::Case) {
    // Branches by the truth of their conditions; a NULL branch borrows another branch's value
    // (never used: the NULL predicate holds there).
    std::vector<NullableValue> results;
    SqlExprPtr placeholder;
    for (size_t i = 1; i < e.args.size(); i += 2) {
      results.push_back(value(*e.args[i]));
      if (!placeholder) placeholder = results.back().value;
    }
    results.push_back(value(*e.args.back()));
    if (!placeholder) placeholder = results.back().value;
    if (!placeholder) src_.unsupported(e.location, "a CASE whose every branch is NULL has no type; cast one branch");
    auto c = std::make_shared<SqlExpr>(e);
    SqlExprPtr none_before = constant(true, e.location);  // no earlier condition held
    SqlExprPtr null = constant(false, e.location);
    for (size_t i = 0; i + 1 < e.args.size(); i += 2) {
      SqlExprPtr cond = truth(*e.args[i]);
      const NullableValue& r = results[i / 2];
      c->args[i] = cond;
      c->args[i + 1] = r.value ? r.value : placeholder;
      if (r.null) null = or_of(null, and_of(and_of(none_before, cond), r.null));
      none_before = and_of(none_before, not_of(cond));
    }
    const NullableValue& otherwise = results.back();
    c->args.back() = otherwise.value ? otherwise.value : placeholder;
    if (otherwise.null) null = or_of(null, and_of(none_before, otherwise.null));
    return {c, never_false(null)};
  }
  if (e.kind == SqlExprKind::Function && e.text == "coalesce") {
    if (e.args.empty()) src_.fail(e.location, "COALESCE needs at least one argument");
    std::vector<NullableValue> args;
    for (const SqlExprPtr& a : e.args) {
      NullableValue v = value(*a);
      if (v.value) args.push_back(std::move(v));
    }
    if (args.empty()) src_.unsupported(e.location, "a COALESCE of only NULLs has no type; cast one argument");
    // From the last argument back: each NULL-able argument is a CASE over the rest.
    NullableValue result = args.back();
    for (size_t i = args.size() - 1; i-- > 0;) {
      const NullableValue& a = args[i];
      if (!a.null) {
        result = a;
        continue;
      }
      auto c = make(SqlExprKind::Case, e.location, "", {not_of(a.null), a.value, result.value});
      result = {c, result.null ? and_of(a.null, result.null) : nullptr};
    }
    return result;
  }
  if (e.kind == SqlExprKind::Function && e.text == "nullif") {
    if (e.args.size() != 2) src_.fail(e.location, "NULLIF takes exactly two arguments");
    NullableValue a = value(*e.args[0]);
    if (!a.value) return a;
    SqlExprPtr same = truth(*equals(e.args[0], e.args[1], e.location));
    return {a.value, never_false(a.null ? or_of(a.null, same) : same)};
  }
  // A strict operator: NULL where any operand is.
  auto c = std::make_shared<SqlExpr>(e);
  SqlExprPtr null;
  for (SqlExprPtr& a : c->args) {
    NullableValue v = value(*a);
    if (!v.value) src_.unsupported(a->location, "NULL as an operand of " + std::string(kind_name(e.kind)) + " (" + e.to_sql() +
                                                    ") is always NULL; write the NULL the expression stands for");
    a = v.value;
    if (v.null) null = null ? or_of(null, v.null) : v.null;
  }
  return {c, null};
}

SqlExprPtr NullRewriter::truth(const SqlExpr& e) {
  switch (e.kind) {
    case SqlExprKind::And:
    case SqlExprKind::Or: {
      SqlExprPtr out = truth(*e.args[0]);
      for (size_t i = 1; i < e.args.size(); ++i)
        out = e.kind == SqlExprKind::And ? and_of(out, truth(*e.args[i])) : or_of(out, truth(*e.args[i]));
      return out;
    }
    case SqlExprKind::Not: return falsity(*e.args[0]);
    case SqlExprKind::IsNull: {
      NullableValue v = value(*e.args[0]);
      SqlExprPtr null = v.null ? v.null : constant(false, e.location);
      return e.negated ? not_of(null) : null;
    }
    default: break;
  }
  if (is_distinct_from(e)) {
    NullableValue a = value(*e.args[0]), b = value(*e.args[1]);
    SqlExprPtr a_null = a.null ? a.null : constant(false, e.location);
    SqlExprPtr b_null = b.null ? b.null : constant(false, e.location);
    SqlExprPtr both_null = and_of(a_null, b_null);
    SqlExprPtr same = both_null;
    if (a.value && b.value) same = or_of(both_null, and_of(and_of(not_of(a_null), not_of(b_null)), equals(a.value, b.value, e.location)));
    return e.text == "is not distinct from" ? same : not_of(same);
  }
  NullableValue v = value(e);
  return v.null ? and_of(not_of(v.null), v.value) : v.value;
}

SqlExprPtr NullRewriter::falsity(const SqlExpr& e) {
  switch (e.kind) {
    case SqlExprKind::And:
    case SqlExprKind::Or: {
      SqlExprPtr out = falsity(*e.args[0]);
      for (size_t i = 1; i < e.args.size(); ++i)
        out = e.kind == SqlExprKind::And ? or_of(out, falsity(*e.args[i])) : and_of(out, falsity(*e.args[i]));
      return out;
    }
    case SqlExprKind::Not: return truth(*e.args[0]);
    case SqlExprKind::IsNull: {
      NullableValue v = value(*e.args[0]);
      SqlExprPtr null = v.null ? v.null : constant(false, e.location);
      return e.negated ? null : not_of(null);
    }
    default: break;
  }
  if (is_distinct_from(e)) return not_of(truth(e));  // never NULL
  NullableValue v = value(e);
  return v.null ? and_of(not_of(v.null), not_of(v.value)) : not_of(v.value);
}

}  // namespace hqc::sql

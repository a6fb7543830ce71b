// SQL NULL semantics, rewritten into an expression language that has no NULL.
//
// Where NULLs come from: the NULL-supplying side of a LEFT OUTER JOIN (a table or derived table, or
// a correlated scalar subquery of the select list). Its build side computes the attribute
// `__matched_<alias>`, 1 on every build row, and the join reads every build column of a probe row
// without a match as 0 (plan::LogicalOp::explicit_nulls) — so `__matched_<alias> = 0` is where
// those columns are NULL. After GROUP BY, a NULL-able group key has a hidden key (1 for its NULL
// group) and an aggregate that may see only NULLs a hidden count of its non-NULL inputs
// (frontend/sql/sql_binder.cpp).
//
// A NULL-able value travels as a pair: its value (whatever the 0-reads compute where it is NULL)
// and a predicate that holds exactly where it is NULL. The rules are SQL's three-valued logic:
//   - strict operators (arithmetic, comparisons, BETWEEN, IN lists, LIKE, CAST, SUBSTRING,
//     EXTRACT, functions): NULL where any operand is;
//   - truth(e) holds exactly where e is TRUE, falsity(e) where it is FALSE (neither where NULL):
//     truth(a AND b) = truth(a) AND truth(b); falsity(a AND b) = falsity(a) OR falsity(b); OR dually;
//     truth(NOT a) = falsity(a); truth(cmp) = NOT null AND cmp; truth(x IS NULL) = null(x);
//   - COALESCE(a, b, ...) is the first argument that is not NULL; NULLIF(a, b) is NULL where a is
//     or where a = b; a CASE without ELSE (or a NULL branch) is NULL where no other branch is
//     taken; `a IS [NOT] DISTINCT FROM b` compares NULLs as equal values.
// WHERE and HAVING keep the rows where truth(condition) holds; CASE WHEN takes a branch where its
// condition's truth holds; an aggregate skips rows where its argument is NULL (a FILTER); a select
// item becomes its value plus a validity column (plan::NamedExpr::validity_for).
//
// Contract:
//   expects: `leaves` answers for the expressions that are values of their own (columns before
//   aggregation; group keys and aggregate calls after it): their NULL predicate, or nullptr when
//   they are never NULL; nullopt for any other node (the rewrite looks into its operands).
//   guarantees: the rewritten expressions contain no NULL construct (IS NULL, COALESCE, NULLIF,
//   IS DISTINCT FROM, NULL literals); an expression that needs no rewrite (needed() is false) is
//   returned as it is, so queries without NULLs bind exactly as before.
//   throws: Error(Unsupported) at the construct's position for what has no value to compute
//   (NULL as an operand of a strict operator, a CASE or COALESCE whose every branch is NULL).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "frontend/sql/sql_ast.h"
#include "frontend/sql/sql_source.h"
#include "storage/types.h"

namespace hqc::sql {

// The hidden match indicator of NULL-supplying relation `alias` ("__matched_o"): 1 on its build
// rows, 0 (read) where the left outer join found no match.
inline constexpr std::string_view kMatchIndicatorPrefix = "__matched_";
inline std::string match_indicator(const std::string& alias) { return std::string(kMatchIndicatorPrefix) + alias; }
// Whether `name` is a match indicator's (of any relation).
inline bool is_match_indicator(const std::string& name) { return name.starts_with(kMatchIndicatorPrefix); }

struct NullableValue {
  SqlExprPtr value;  // nullptr only for a NULL literal (no value of its own)
  SqlExprPtr null;   // holds exactly where the value is NULL; nullptr: never NULL
};

using NullLeaves = std::function<std::optional<SqlExprPtr>(const SqlExpr&)>;

// Whether node `e` itself is a construct about NULLs: IS [NOT] NULL, NULL, COALESCE, NULLIF,
// IS [NOT] DISTINCT FROM.
bool is_null_construct(const SqlExpr& e);
// Whether `e` or any operand is one (not looking into subqueries).
bool mentions_null_construct(const SqlExpr& e);

class NullRewriter {
 public:
  NullRewriter(NullLeaves leaves, const SqlSource& source) : leaves_(std::move(leaves)), src_(source) {}

  // True when `e` reads a NULL-able leaf or uses a construct about NULLs.
  bool needed(const SqlExpr& e) const;
  NullableValue value(const SqlExpr& e);
  SqlExprPtr truth(const SqlExpr& e);
  SqlExprPtr falsity(const SqlExpr& e);

 private:
  NullLeaves leaves_;
  const SqlSource& src_;
};

// AST builders the rewrite (and the binder's hidden attributes) use.
SqlExprPtr attribute_ref(const std::string& name, int location);  // SqlExprKind::Attribute
SqlExprPtr int_literal(int64_t value, int location);
// COALESCE(e, 0) at e's position: a correlated COUNT subquery's value (0 where no group matched).
SqlExprPtr zero_if_null(const SqlExprPtr& e);
SqlExprPtr equals(SqlExprPtr a, SqlExprPtr b, int location);
// CASE WHEN cond THEN 1 ELSE 0 END (Int32): a predicate as a 0/1 value.
SqlExprPtr one_where(SqlExprPtr cond, int location);
SqlExprPtr and_of(SqlExprPtr a, SqlExprPtr b);
SqlExprPtr or_of(SqlExprPtr a, SqlExprPtr b);
SqlExprPtr not_of(SqlExprPtr a);
// CASE WHEN v.null THEN <zero of `type`> ELSE v.value END: one value for every NULL row, where a
// computed value read from 0-reads would differ between them (c.x + o.y is c.x where o is NULL; a
// boolean reads FALSE there) —
// what GROUP BY, DISTINCT and set operations need. nullptr for strings (no zero string here).
SqlExprPtr zero_where_null(const NullableValue& v, const DataType& type, int location);

}  // namespace hqc::sql

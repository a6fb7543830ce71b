// SQL AST expression → typed plan::Expr, through the JSON plan's expression binder
// (frontend/bind_expr.h), so SQL and JSON plans share ONE set of type rules (numeric promotion,
// decimal scales, dictionary-code rewrites of string comparisons, date literals).
//
// How: the AST is translated into the JSON expression syntax (docs/plan-format.md) while every JSON
// path created is mapped to the SQL byte offset it came from; errors the expression binder raises
// at a JSON path are re-raised at the corresponding "<source>:<line>:<col>:".
//
// Contract:
//   expects: `lookup` names every sub-expression that is already an attribute of `scope` (resolved
//   columns, and after GROUP BY: group keys and aggregates). The lookup raises its own user errors
//   (unknown or ambiguous columns); a Column it does not name is a bug (Error(Internal)).
//   folds: date '...' ± interval (days, months, years) into a date literal; date column ± interval
//   'n' day into date ± n; unary minus of literals.
//   translates: LIKE (literal pattern), SUBSTRING(x FROM a FOR b) (literal a, b), EXTRACT, CAST
//   (PostgreSQL type names → the plan's: int4 → int32, numeric(15,2) → decimal(15,2), ...).
//   throws: Error(Unsupported) naming constructs the expression language cannot express yet
//   (IS NULL, string concatenation, subqueries, narrowing casts, ...).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "frontend/expr.h"
#include "frontend/logical_plan.h"
#include "frontend/sql/sql_ast.h"
#include "frontend/sql/sql_source.h"

namespace hqc::sql {

// The attribute reference ("alias.column", or a computed name) an AST node stands for, or nullopt.
using AttributeLookup = std::function<std::optional<std::string>(const SqlExpr&)>;

plan::ExprPtr bind_sql_expression(const SqlExpr& e, const std::vector<plan::Attribute>& scope,
                                  const AttributeLookup& lookup, const SqlSource& source);
// bind_sql_expression plus an Error(Input) unless the result is a predicate (Bool).
plan::ExprPtr bind_sql_predicate(const SqlExpr& e, const std::vector<plan::Attribute>& scope,
                                 const AttributeLookup& lookup, const SqlSource& source);

// True for sum, count, min, max, avg calls (the aggregates the logical plan has).
bool is_aggregate_call(const SqlExpr& e);

}  // namespace hqc::sql

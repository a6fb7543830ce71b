// FROM + WHERE of one SELECT → the join tree of the logical plan: base scans with their single-table
// predicates pushed into a filter directly above the scan, left-deep inner hash joins, and the
// remaining predicates as filters placed just above the join that makes their tables available.
//
// Contract:
//   expects: the statement's FROM items are base tables, comma lists or INNER/CROSS JOIN ... ON
//   (ON conditions are treated as WHERE conjuncts), or `X LEFT OUTER JOIN t ON ...` with one table
//   (or derived table) t on the right (`t RIGHT OUTER JOIN X ON ...` is the same).
//   guarantees (the shape ssb/plans/*.json use, so SQL and JSON plans lower identically):
//     - the probe side starts at the fact table: the relation with the most rows at SF 1
//       (catalog rows_at_sf1; the first such in FROM order on ties);
//     - relations join one at a time as the build side of an inner join, each connected to the
//       joined set by equi-join conjuncts `a.x = b.y` or `f(a) = g(b)` (computed keys; all of them
//       become key pairs, a computed one whose types no hash table matches stays a filter right
//       above the join); among the
//       connected ones, relations with pushed-down filters join first (they shrink the probe
//       stream), then in the order their join conjunct appears in the query text;
//     - a filter's conjuncts keep their order in the query text.
//     - WHERE conjuncts [NOT] EXISTS / [NOT] IN (subquery) become semi / anti joins on top of the
//       inner join tree (frontend/sql/sql_unnest.h), in text order.
//     - the right table of a LEFT OUTER JOIN is never the probe start and joins after the inner
//       joins as the build side of a left_outer join with explicit NULLs and a match indicator
//       (frontend/sql/sql_nulls.h): its ON equalities with joined relations are the keys (plus the
//       indicators' pair when they read another LEFT JOIN's side), ON conditions on it alone filter
//       it first (TPC-H Q13's o_comment NOT LIKE); WHERE conditions that read it (rewritten for
//       NULLs) filter the join's output; a top-level `t.c IS [NOT] NULL` makes it an anti (inner) join.
//     - a subquery in FROM, or a WITH entry named in FROM, is planned on its own (bind_select) and
//       joins like a table whose columns are named "<alias>.<column>";
//     - a scalar subquery in WHERE or in the select list is a derived table "sq<offset>" (value,
//       keys: frontend/sql/sql_unnest.h) joined on its correlation keys — in the select list as
//       the build side of a left outer join after the inner joins (no group: NULL) — or, when
//       uncorrelated, a single-row relation joined last without keys;
//     - `x FULL OUTER JOIN y ON <column equalities>` is one derived table "__full<offset>": the UNION ALL
//       of x LEFT JOIN y and of the y rows without a match (y LEFT JOIN x, kept where x's match
//       indicator is 0), carrying the columns the statement names; the scope resolves x.c / y.d
//       to it (Relation::members);
//   throws: Error(Unsupported) for FULL join ON conditions other than column equalities and joins
//   as FULL join sides, other ON conditions of a LEFT JOIN, join keys and
//   IN/EXISTS conditions over a NULL-supplying side (but a chained LEFT JOIN's ON), other subqueries
//   in WHERE, and relations that no equi-join connects (cross products), each named with its position.
#pragma once

#include <map>
#include <memory>

#include "frontend/logical_plan.h"
#include "frontend/sql/sql_ast.h"
#include "frontend/sql/sql_nulls.h"
#include "frontend/sql/sql_scope.h"
#include "frontend/sql/sql_source.h"

namespace hqc::sql {

// A select item's expression (by its node) with its scalar subqueries replaced by derived-table columns.
using SelectValues = std::map<const SqlExpr*, SqlExprPtr>;

// Adds the statement's FROM tables to `scope` and returns the joined, filtered input of the
// select list / aggregation. With `select_values`, the scalar subqueries of the select list join
// too (see the contract above) and each select item that holds one is rewritten there.
std::unique_ptr<plan::LogicalOp> build_join_tree(const SelectStmt& stmt, FromScope& scope, const SqlSource& source,
                                                 SelectValues* select_values = nullptr);

// The build side of a left outer join with its match indicator `__matched_<alias>` (1 on every row;
// the probe reads 0 where nothing matched, sql_nulls.h).
std::unique_ptr<plan::LogicalOp> with_match_indicator(std::unique_ptr<plan::LogicalOp> build, const std::string& alias);

// Whether a hash join can match keys of these types (integers of any width, or equal dates or
// decimals; strings only when both are packed computed strings, storage/types.h).
bool join_keys_comparable(const DataType& a, const DataType& b);

// Why keys `build` (bound: `bk`) and `probe` (`pk`) cannot be matched, in the user's terms (a stored
// string column, a decimal of another scale, ...), for an Unsupported error at the key's position.
std::string join_key_refusal(const SqlExpr& build, const plan::Expr& bk, const SqlExpr& probe, const plan::Expr& pk);

// NULL predicates of columns (sql_nulls.h): `__matched_<alias> = 0` for a column of a
// NULL-supplying relation (unless `joins` is false: below its join, where its rows exist), a
// derived table's validity column for one that may be NULL itself, nullptr for any other.
NullLeaves column_null_leaves(const FromScope& scope, bool joins = true);

// The lookup that names resolved base-table columns "alias.column" (sql_expr.h).
std::optional<std::string> column_attribute(const SqlExpr& e, const FromScope& scope);

}  // namespace hqc::sql

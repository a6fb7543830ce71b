// Subquery unnesting. (1) A WHERE conjunct `[NOT] EXISTS (subquery)` or `value [NOT] IN (subquery)`
// becomes a semi join (EXISTS, IN) or an anti join (NOT EXISTS, NOT IN) of the outer join tree
// with the separately planned subquery.
//
// Contract:
//   expects: `c` is one WHERE conjunct for which is_unnestable_subquery() holds; `outer` is the
//   outer query's joined and filtered input, its columns named as `outer_scope` names them.
//   rewrites:
//     - correlated conjuncts of the subquery's WHERE (those referencing outer columns) that are
//       equalities `inner expr = outer expr` leave the subquery and become join key pairs; any
//       other correlated conjunct (`l2.l_suppkey <> l1.l_suppkey`, TPC-H Q21) becomes the join's
//       residual predicate, and the subquery columns it reads are selected after the keys
//       ("sq<offset>_r<i>") so the hash table stores them;
//     - IN adds the pair (value, the subquery's single select item);
//     - the rest of the subquery (its FROM, remaining WHERE, GROUP BY, HAVING) is bound on its own
//       by bind_select with a select list of exactly the build keys, named "sq<offset>_<i>";
//     - a subquery table whose alias is also an outer alias is renamed "<alias>_sq<offset>" (with
//       its qualified column references), so no two scans in one plan share an alias.
//   NOT IN is an anti join because horseqc columns have no NULLs (SQL's three-valued NOT IN only
//   differs from an anti join when NULLs are present).
//   (2) scalar subqueries become derived tables (plan_scalar_subquery, below), joined by the join
//   tree (frontend/sql/sql_join_tree.h).
//   throws: Error(Unsupported) for correlated conditions other than equalities in scalar or
//   aggregating subqueries, EXISTS without a correlated equality, correlated aggregating subqueries, subqueries with LIMIT, and keys
//   that cannot be matched in a hash table.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "frontend/logical_plan.h"
#include "frontend/sql/sql_ast.h"
#include "frontend/sql/sql_scope.h"
#include "frontend/sql/sql_source.h"

namespace hqc::sql {

// True for [NOT] EXISTS (subquery) and value [NOT] IN (subquery), also under one NOT.
bool is_unnestable_subquery(const SqlExpr& c);

// The outer relations (indexes into outer_scope) the conjunct references: the IN value's and those
// of correlated columns inside the subquery. The semi / anti join goes right above the join that
// makes them all available.
// `ctes`: the WITH entries visible where the conjunct is written.
std::set<size_t> outer_relations(const SqlExpr& c, const FromScope& outer_scope, const std::vector<CommonTable>& ctes);

std::unique_ptr<plan::LogicalOp> unnest_subquery(std::unique_ptr<plan::LogicalOp> outer, const SqlExpr& c,
                                                 const FromScope& outer_scope, const std::vector<CommonTable>& ctes,
                                                 const SqlSource& source);

// A scalar subquery `(select agg(...) from ... where inner = outer ...)` planned as a derived table:
// one row per value of the correlation keys (GROUP BY the inner sides of the correlated
// equalities), or exactly one row when uncorrelated. The caller joins it on outer_keys[i] =
// <alias>.k<i+1> (a single-row one joins without keys) and reads the value as <alias>.value.
// The one row of an uncorrelated one states where its value is NULL (an aggregate over no rows) in
// a validity column, as any derived table does (NullableOutput::Columns). A correlated one is NULL
// only for outer keys without a group: the caller joins it as a left outer join wherever that row
// could pass its conjunct (frontend/sql/sql_join_tree.cpp, collect_null_rejected).
struct ScalarSubqueryPlan {
  std::unique_ptr<plan::LogicalOp> plan;  // output: value, k1, k2, ...
  std::vector<std::string> column_names;  // "value", "k1", ...
  std::vector<SqlExprPtr> outer_keys;     // the outer side of each correlation key
  std::string alias;                      // "sq<offset>"
  // A correlated COUNT: an outer row whose keys have no group reads 0, not NULL (COALESCE(value, 0)
  // over the left outer join).
  bool count_zero = false;
};
// Errors: Unsupported for a subquery that is not one aggregate without GROUP BY / HAVING (its row
// count would not be one per key), a correlated value computed from a COUNT, and what
// decorrelation cannot handle (correlated conditions other than equalities).
// `outer_where`: the outer query's WHERE (or nullptr). Where a correlation key's outer side is a
// column of a base table the outer WHERE filters on its own (conjuncts that read that table alone:
// without subqueries, or a flat uncorrelated `x [NOT] IN (SELECT ...)` on its column x, TPC-H Q20's
// `ps_partkey IN (SELECT p_partkey ...)`), the subquery keeps only the groups that key can meet
// (for the first such key):
// `inner key IN (SELECT that column FROM that table WHERE those conjuncts)` joins its WHERE. Every
// outer row that reaches the join passed those conjuncts, so no value it reads is lost, and a
// subquery grouping a fact table (TPC-H Q17's AVG(l_quantity) per l_partkey) aggregates only the rows
// of the parts the outer query keeps. Not for a NULL-supplying or derived outer relation.
ScalarSubqueryPlan plan_scalar_subquery(const SqlExpr& s, const FromScope& outer_scope, const std::vector<CommonTable>& ctes,
                                        const SqlSource& source, const SqlExpr* outer_where = nullptr);

}  // namespace hqc::sql

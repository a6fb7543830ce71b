// SQL AST of one SELECT → bound logical plan (frontend/logical_plan.h), the same plan::LogicalPlan
// the JSON plan binder produces.
//
// Contract:
//   expects: a statement from parse_select (frontend/sql/sql_parser.h) and the catalog to bind to.
//   guarantees, from the bottom up:
//     join tree (frontend/sql/sql_join_tree.h)
//     → aggregate: group keys in GROUP BY order, then the aggregates in the order they first occur
//       in the select list, HAVING and ORDER BY (duplicates share one aggregate); a group key is
//       named after its column (or the alias of the select item that is the same expression), an
//       aggregate after its select alias, else its SQL text ("sum(lo_revenue)"); with DISTINCT
//       calls (COUNT(DISTINCT x)) two aggregates, the inner one grouping by the keys and x
//       (frontend/sql/sql_distinct.h)
//     → filter (HAVING)
//     → project, only where the select list is not exactly the input's attributes in order
//     → order_by (keys: select aliases, output names or 1-based positions)
//     → limit.
//   throws: Error(Input) "<source>:<line>:<col>: ..." for unknown tables/columns (with a
//   suggestion), ambiguous columns, type mismatches, non-grouped columns next to aggregates;
//   Error(Unsupported) naming constructs horseqc does not handle (SELECT DISTINCT,
//   subqueries outside WHERE, ...). WITH entries are visible in FROM and in WHERE subqueries.
#pragma once

#include <string>

#include "frontend/logical_plan.h"
#include "frontend/statistics.h"
#include "frontend/sql/sql_ast.h"
#include "frontend/sql/sql_source.h"
#include "storage/catalog.h"

namespace hqc::sql {

// `stats` order the joins (frontend/join_order.h): the loaded data's, or catalog estimates.
// What becomes of a select item that may be NULL (frontend/sql/sql_nulls.h): a validity column
// (plan::NamedExpr::validity_for) that the query's result folds into its NULLs (Result), or that an
// enclosing query reads as the column's NULL test (Columns: a subquery in FROM, a WITH query, a
// view, an operand of a set operation, an uncorrelated scalar subquery); Refused (a subquery in
// WHERE) makes it an Unsupported error. Everywhere a SUM/MIN/MAX/AVG without GROUP BY may be NULL
// (over no rows) and is treated so (plan::LogicalOp::explicit_nulls).
enum class NullableOutput : uint8_t { Result, Columns, Refused };

plan::LogicalPlan bind_select(const SelectStmt& stmt, const SqlSource& source, const Catalog& catalog, const plan::Statistics& stats,
                              const std::string& plan_name, NullableOutput nullable = NullableOutput::Refused);

}  // namespace hqc::sql

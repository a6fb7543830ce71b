// SQL window functions → a Window operator over the query's result (plan::OpKind::Window).
//
//   SELECT a, rank() OVER (PARTITION BY b ORDER BY sum(c) DESC) AS r FROM t GROUP BY a, b ORDER BY r
// binds as
//   OrderBy [r]
//     Window [r := rank() over (partition by __w1_p1 order by __w1_o1 desc)] hidden [__w1_p1, __w1_o1]
//       SELECT a, 0 AS r, b AS __w1_p1, sum(c) AS __w1_o1 FROM t GROUP BY a, b   (bound as any query)
//
// Contract:
//   - Only in the outermost SELECT (not in a subquery, a WITH query, a view or a set operation's
//     operand) and only as a whole select item, optionally aliased; elsewhere, a window call is
//     an Unsupported error at its position (the runtime evaluates windows over the assembled
//     result, runtime/execution/window_stage.h).
//   - Functions: row_number(), rank(), dense_rank(), lag/lead(x [, offset]), and
//     sum/count/min/max/avg(x), count(*), over
//     PARTITION BY any expressions and ORDER BY any expressions (ASC/DESC, NULLs last); frames:
//     the default (RANGE to the current row's last peer), ROWS BETWEEN UNBOUNDED PRECEDING AND
//     CURRENT ROW, and ... AND UNBOUNDED FOLLOWING (the whole partition). Anything else — other
//     functions, DISTINCT or FILTER in a window aggregate, named windows, SELECT DISTINCT — is an
//     Unsupported error naming its position.
//   - The window's operands become hidden select items of the inner statement (evaluated by the
//     ordinary binder, so they may be aggregates of a grouping query); each window item becomes a
//     constant placeholder the runtime overwrites. The statement's ORDER BY and LIMIT apply after
//     the windows: ORDER BY names output columns (by name, position or the item's text) or any
//     other expression of the inner query (a hidden item).
#pragma once

#include <functional>
#include <memory>

#include "frontend/logical_plan.h"
#include "frontend/sql/sql_ast.h"
#include "frontend/sql/sql_source.h"

namespace hqc::sql {

// The first window function call anywhere in the statement's own clauses (not its subqueries), or
// nullptr.
const SqlExpr* first_window_call(const SelectStmt& stmt);

// Binds a SELECT whose select list has window functions; `bind_inner` binds a statement without
// them (ORDER BY and LIMIT removed) as the outermost query.
std::unique_ptr<plan::LogicalOp> bind_windowed_select(const SelectStmt& stmt, const SqlSource& source,
                                                      const std::function<std::unique_ptr<plan::LogicalOp>(const SelectStmt&)>& bind_inner);

}  // namespace hqc::sql

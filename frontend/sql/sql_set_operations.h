// UNION [ALL], INTERSECT, EXCEPT → a Union of the operands, with an Aggregate for the set forms.
//
// Contract:
//   expects: a statement whose set_op is not None (frontend/sql/sql_ast.h); `bind_operand` binds a
//     whole SELECT (sql_binder.cpp's bind_select, which also binds nested set operations).
//   guarantees, for operands L and R with the same number of columns:
//     - column i of the result is named after L's column i; its type is the common type of both
//       (integers widen, an integer meets a decimal as a decimal, decimals take the larger scale and
//       integer digits, anything meets double precision as double precision; strings only of one
//       representation: the same dictionary, packed with packed, free text with free text); each
//       operand is projected onto those types (a Project with casts where needed);
//     - UNION ALL      union_all(L', R')
//     - UNION          aggregate group [every column] over union_all(L', R')
//     - INTERSECT      the same over union_all(L' ++ (1, 0), R' ++ (0, 1)), grouped, keeping the
//     - EXCEPT         groups whose counts of L rows and R rows are both > 0 (INTERSECT), or > 0 and
//                      = 0 (EXCEPT), projected back onto the columns; duplicates removed as SQL
//                      says (INTERSECT ALL / EXCEPT ALL are Unsupported);
//     - the statement's ORDER BY (output names or positions) and LIMIT on top; its WITH entries are
//       visible in both operands (an operand's own entry of the same name shadows one).
//   throws: Error(Input) for operands of different widths or types that have no common type;
//     Error(Unsupported) for ORDER BY / LIMIT on an operand, INTERSECT ALL / EXCEPT ALL, strings
//     of different dictionaries or representations, and one alias naming different tables in two
//     operands.
#pragma once

#include <functional>
#include <memory>

#include "frontend/logical_plan.h"
#include "frontend/sql/sql_ast.h"
#include "frontend/sql/sql_source.h"

namespace hqc::sql {

using BindOperand = std::function<std::unique_ptr<plan::LogicalOp>(const SelectStmt&)>;

// `bind_operand` binds with NullableOutput::Columns; `nulls_allowed` false (a WHERE subquery) makes
// a result column that may be NULL an Unsupported error.
std::unique_ptr<plan::LogicalOp> bind_set_operation(const SelectStmt& stmt, const SqlSource& src, const BindOperand& bind_operand,
                                                    bool nulls_allowed);

}  // namespace hqc::sql

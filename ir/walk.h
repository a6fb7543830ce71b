// Enumerates the expression roots a pipeline evaluates: its ops' predicates, probe keys and map
// expressions, and its sink's expressions (hash build keys, group keys, accumulator arguments,
// output columns). Passes and the verifier walk expressions through this one place.
#pragma once

#include <functional>
#include <vector>

#include "ir/program.h"

namespace hqc::ir {

// Roots in evaluation order; the pointers stay valid while the program is not restructured.
std::vector<plan::Expr*> pipeline_exprs(Program& program, const Pipeline& p);
std::vector<const plan::Expr*> pipeline_exprs(const Program& program, const Pipeline& p);
// The roots of the pipeline's ops alone (what a multi-pass count kernel evaluates), in order.
std::vector<const plan::Expr*> op_exprs(const Pipeline& p);

// Whether a node of `e` is 64-bit arithmetic marked for an overflow check (Expr::overflow_check).
bool has_overflow_check(const plan::Expr& e);

// Whether an inner or left outer probe of `p` may match several times (a build on keys that are not
// unique): the rest of the pipeline then runs once per match (codegen's match loop), and the pipeline
// may produce more tuples than its source has rows.
bool matches_several_times(const Program& program, const Pipeline& p);

// Calls f on every column of `e` whose string bytes `e` reads: the direct operand of a LIKE,
// SUBSTRING, string function, comparison, BETWEEN or IN list. A heap string only carried along (a
// payload, a group key, an output column) is its row reference and needs no bytes.
void for_each_string_operand(const plan::Expr& e, const std::function<void(const plan::Expr& column)>& f);

}  // namespace hqc::ir

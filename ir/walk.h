// Enumerates the expression roots a pipeline evaluates: its ops' predicates, probe keys and map
// expressions, and its sink's expressions (hash build keys, group keys, accumulator arguments,
// output columns). Passes and the verifier walk expressions through this one place.
#pragma once

#include <vector>

#include "ir/program.h"

namespace hqc::ir {

// Roots in evaluation order; the pointers stay valid while the program is not restructured.
std::vector<plan::Expr*> pipeline_exprs(Program& program, const Pipeline& p);
std::vector<const plan::Expr*> pipeline_exprs(const Program& program, const Pipeline& p);

}  // namespace hqc::ir

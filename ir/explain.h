// Stable text form of the IR (EXPLAIN): parameters, buffers, state objects, pipelines, kernels
// and the result description, one item per line, in declaration order. The output depends only on
// the program (no addresses, no timings), so it is golden-tested (tests/ir/golden/).
#pragma once

#include <string>

#include "ir/program.h"

namespace hqc::ir {

std::string explain_pipelines(const Program& program);  // params, buffers, state, pipelines, result
std::string explain_kernels(const Program& program);    // kernels with args, reductions, launch
// Logical plan + pipelines + kernels.
std::string explain(const Program& program);

}  // namespace hqc::ir

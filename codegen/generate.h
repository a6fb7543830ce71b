// Entry point of codegen/: a fused IR program (ir/program.h, after the pass driver has filled
// Program::kernels) → one module of source in one dialect plus its launch manifest.
//
// Contract:
//   - Expects a verified Program whose kernels are compound kernels (resolution or pipelined
//     model); a multi-pass / operator-at-a-time program, or an IR construct without a device form
//     yet, throws hqc::Error(Unsupported) naming the kernel and the construct.
//   - Deterministic: the same Program gives byte-identical source (golden-testable), and since
//     data-dependent values are kernel arguments the source is the same at every scale factor.
//   - The source is self-contained (no #include): prelude from the dialect table, the embedded
//     device library, then one kernel per pipeline in Program::kernels order, each a straight
//     sequence of template calls with a banner comment per operator.
#pragma once

#include "codegen/dialect.h"
#include "codegen/generated_program.h"
#include "ir/program.h"

namespace hqc::codegen {

GeneratedProgram generate(const ir::Program& program, Dialect dialect);

}  // namespace hqc::codegen

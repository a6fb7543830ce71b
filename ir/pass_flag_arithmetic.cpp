// Pass flag_arithmetic: a flag word for every pipeline that evaluates overflow-checked arithmetic.
//   expects: a built program; Lowering::typed() marked Expr::overflow_check on each 64-bit + - * and
//     raised decimal scale whose operands' bounds (statistics, else the columns' declared types) do
//     not prove it stays within int64 (ir/build_state.cpp, mark_overflow_checks).
//   guarantees: a pipeline with at least one marked node among its expressions (ir/walk.h) names in
//     `arith_flags` a zero-filled U32 buffer "p<id>_arith_overflow"; fuse_pipelines passes it to the
//     pipeline's kernel, codegen's checked operations raise HQC_FLAG_ARITH_OVERFLOW in it, and the
//     runtime fails the query after the pipeline when it is set (runtime/execution/lower_program.cpp): a value
//     that left 64 bits is reported, never wrapped into an answer. Pipelines with none are unchanged.
#include <functional>

#include "ir/passes.h"
#include "ir/walk.h"
#include "storage/error.h"

namespace hqc::ir {

void flag_arithmetic(Program& program) {
  for (Pipeline& p : program.pipelines) {
    if (!p.arith_flags.empty()) continue;
    bool checked = false;
    for (const plan::Expr* e : pipeline_exprs(program, p)) checked = checked || has_overflow_check(*e);
    if (!checked) continue;
    Buffer b{"p" + std::to_string(p.id) + "_arith_overflow", ScalarType::U32, 1, "", 1, Buffer::Fill::Zero, 0,
             "overflow flag of the checked 64-bit arithmetic of pipeline p" + std::to_string(p.id)};
    if (program.find_buffer(b.name) != nullptr) throw Error(ErrorKind::Internal, "flag_arithmetic: buffer " + b.name + " already exists");
    program.buffers.push_back(b);
    p.arith_flags = b.name;
  }
}

}  // namespace hqc::ir

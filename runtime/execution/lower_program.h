// The bridge from the compiler to the executor: an ir::Program (pipelines, state objects, params,
// buffers, fused kernels with their argument lists, result description), the values of its
// parameters, and the generated module source → an ExecutablePlan.
//
// Contract:
//   - expects a Program after the fusion pass (Program::kernels non-empty, each kernel's `args`
//     in the order codegen emitted them) and ParamValues from ir::resolve_parameters() for the
//     database the plan will run on;
//   - every ir::Param becomes a Constant ParamSpec with its resolved value (ir/ is the one place
//     parameters are computed); growth after overflow then doubles those values;
//   - overflow flags become checks: a linear-probing hash table or a global-hash aggregation
//     table Grows its capacity/slots param; a perfect-hash table Fails (a key outside the
//     statistics' [min, max] means stale statistics, not a small table);
//   - a pipeline that scans a materialised output reads that output's counter into its rows param
//     before it runs;
//   - the result spec decodes direct-indexed slots by mixed radix (stride of the last key = 1),
//     reads keys from key buffers for global hash tables, adds hidden accumulator columns for
//     AVG, and applies ORDER BY / LIMIT by result column name.
// Throws Error(Internal) naming the state object / parameter when the Program is inconsistent.
#pragma once

#include "codegen/generated_program.h"
#include "ir/program.h"
#include "runtime/execution/executable_plan.h"

namespace hqc::runtime {

// The usual path: codegen's module and launch manifests (argument lists incl. a trailing Scratch,
// scratchpad size formula, block constraints); block size, grid and tuples per thread are left to
// the planner at run time (planner/launch.h). The plan is tagged with the dialect so the executor
// refuses a CUDA module on an OpenCL device.
ExecutablePlan lower_program(const ir::Program& program, const ir::ParamValues& values,
                             const codegen::GeneratedProgram& generated);

// Without codegen (tests, hand-written kernels): launches from Program::kernels, argument lists from
// ir::Kernel::args. `module.kernel_names` may be left empty: it is filled from Program::kernels.
ExecutablePlan lower_program(const ir::Program& program, const ir::ParamValues& values, ModuleSource module);

}  // namespace hqc::runtime

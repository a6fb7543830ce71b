// build_program + default passes (ir/compile.h).
#include "ir/compile.h"

namespace hqc::ir {

Program compile_program(std::shared_ptr<const plan::LogicalPlan> plan, const Catalog& catalog, const BuildOptions& options,
                        const PassOptions& pass_options, std::vector<PassTiming>* timings) {
  Program program = build_program(std::move(plan), catalog, options);
  std::vector<PassTiming> t = run_passes(program, default_passes(), pass_options);
  if (timings) *timings = std::move(t);
  return program;
}

}  // namespace hqc::ir

// One call from a bound logical plan to a verified kernel program: build_program() followed by the
// default passes (ir/passes.h). What the command-line programs call (tools/driver/query_driver.cpp);
// tests also call the pieces.
#pragma once

#include <memory>

#include "ir/build_pipelines.h"
#include "ir/passes.h"

namespace hqc::ir {

Program compile_program(std::shared_ptr<const plan::LogicalPlan> plan, const Catalog& catalog,
                        const BuildOptions& options = {}, const PassOptions& pass_options = {},
                        std::vector<PassTiming>* timings = nullptr);

}  // namespace hqc::ir

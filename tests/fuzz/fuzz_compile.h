// The horseqc-compile chain for the front-end fuzz targets (fuzz_sql, fuzz_json_plan).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "frontend/logical_plan.h"
#include "storage/catalog.h"

namespace hqc::fuzz {

// Compiles a bound plan as horseqc-compile does (tools/driver/query_driver.h: IR building, the
// default passes, source generation) for both micro execution models and both dialects
// (resolution → CUDA, pipelined → OpenCL). Needs no device. Refusals go through expect_refusal.
void compile_everywhere(std::shared_ptr<const plan::LogicalPlan> plan, const Catalog& catalog);

// Binds `text` with `bind` against each of `catalogs` and compiles every plan that binds
// (compile_everywhere); a refusal of either step goes through expect_refusal.
using Binder = std::function<plan::LogicalPlan(const std::string& text, const Catalog& catalog)>;
void bind_and_compile(const std::string& text, const std::vector<Catalog>& catalogs, const Binder& bind);

}  // namespace hqc::fuzz

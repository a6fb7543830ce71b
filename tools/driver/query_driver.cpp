#include "tools/driver/query_driver.h"

#include <chrono>

#include "codegen/generate.h"
#include "ir/build_pipelines.h"
#include "ir/resolve_parameters.h"
#include "runtime/lower_program.h"

namespace hqc::driver {

namespace {
double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

CompiledQuery compile_query(std::shared_ptr<const plan::LogicalPlan> plan, const Catalog& catalog,
                            const CompileOptions& options) {
  CompiledQuery q;
  q.name = plan->name;
  auto t0 = std::chrono::steady_clock::now();
  ir::BuildOptions build;
  build.model = options.model;
  build.stats = options.stats;
  q.program = ir::build_program(std::move(plan), catalog, build);
  q.passes = ir::run_passes(q.program, ir::default_passes());
  q.plan_ms = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  q.generated = codegen::generate(q.program, options.dialect);
  q.codegen_ms = ms_since(t0);
  return q;
}

runtime::ExecutablePlan lower_query(const CompiledQuery& query, const Database& db) {
  const ir::ParamValues values = ir::resolve_parameters(query.program, db);
  return runtime::lower_program(query.program, values, query.generated);
}

runtime::Execution run_query(const CompiledQuery& query, const Database& db, runtime::Executor& executor,
                             const runtime::ExecutorOptions& options) {
  return executor.run(lower_query(query, db), db, options);
}

}  // namespace hqc::driver

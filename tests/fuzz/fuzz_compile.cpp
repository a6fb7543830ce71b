#include "tests/fuzz/fuzz_compile.h"

#include "codegen/dialect.h"
#include "ir/kernel.h"
#include "tests/fuzz/fuzz_support.h"
#include "tools/driver/query_driver.h"

namespace hqc::fuzz {

void compile_everywhere(std::shared_ptr<const plan::LogicalPlan> plan, const Catalog& catalog) {
  const struct {
    ir::ExecutionModel model;
    codegen::Dialect dialect;
  } targets[] = {{ir::ExecutionModel::Resolution, codegen::Dialect::Cuda},
                 {ir::ExecutionModel::Pipelined, codegen::Dialect::OpenCL}};
  for (const auto& t : targets) {
    driver::CompileOptions options;
    options.model = t.model;
    options.dialect = t.dialect;
    try {
      (void)driver::compile_query(plan, catalog, options);
    } catch (const Error& e) {
      expect_refusal(e);
    }
  }
}

void bind_and_compile(const std::string& text, const std::vector<Catalog>& catalogs, const Binder& bind) {
  for (const Catalog& catalog : catalogs) {
    std::shared_ptr<const plan::LogicalPlan> plan;
    try {
      plan = std::make_shared<const plan::LogicalPlan>(bind(text, catalog));
    } catch (const Error& e) {
      expect_refusal(e);
      continue;
    }
    compile_everywhere(std::move(plan), catalog);
  }
}

}  // namespace hqc::fuzz

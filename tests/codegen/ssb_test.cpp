// The SSB plans (ssb/plans/*.json) through the real front end and IR: all 13 queries under both
// models generate source that compiles with NVRTC and builds with the OpenCL compiler (PoCL here);
// Q1.1, Q2.1, Q3.1 and Q4.1 (resolution model) are golden-tested in both dialects.
#include <doctest/doctest.h>

#include <cstdlib>
#include <memory>

#include "codegen/generate.h"
#include "frontend/json_plan.h"
#include "ir/build_pipelines.h"
#include "ir/passes.h"
#include "storage/catalog.h"
#include "tests/codegen/golden.h"
#include "tests/templates/device_harness.h"

using hqc::codegen::Dialect;

namespace {

const char* const kQueries[] = {"q1.1", "q1.2", "q1.3", "q2.1", "q2.2", "q2.3", "q3.1",
                                "q3.2", "q3.3", "q3.4", "q4.1", "q4.2", "q4.3"};

hqc::ir::Program ssb_program(const std::string& query, hqc::ir::ExecutionModel model) {
  const char* dir = std::getenv("HORSEQC_SOURCE_DIR");
  static const hqc::Catalog catalog = hqc::Catalog::ssb();
  auto plan = std::make_shared<hqc::plan::LogicalPlan>(
      hqc::plan::load_json_plan(std::string(dir != nullptr ? dir : ".") + "/ssb/plans/" + query + ".json", catalog));
  hqc::ir::BuildOptions options;
  options.model = model;
  hqc::ir::Program program = hqc::ir::build_program(plan, catalog, options);
  hqc::ir::run_passes(program, hqc::ir::default_passes());
  return program;
}

}  // namespace

TEST_CASE("golden: SSB Q1.1, Q2.1, Q3.1, Q4.1 (resolution) in both dialects") {
  for (const char* q : {"q1.1", "q2.1", "q3.1", "q4.1"}) {
    CAPTURE(q);
    hqc::ir::Program p = ssb_program(q, hqc::ir::ExecutionModel::Resolution);
    std::string name = std::string("ssb_") + q;
    for (char& c : name)
      if (c == '.') c = '_';
    for (Dialect d : {Dialect::Cuda, Dialect::OpenCL}) hqc::test::check_golden(name, hqc::codegen::generate(p, d));
  }
}

TEST_CASE("every SSB query, both models: generated source compiles with NVRTC and builds with OpenCL") {
  hqc::test::OpenClDevice device;
  int kernels = 0;
  for (const char* q : kQueries) {
    for (auto model : {hqc::ir::ExecutionModel::Resolution, hqc::ir::ExecutionModel::Pipelined}) {
      CAPTURE(q);
      CAPTURE(hqc::ir::execution_model_name(model));
      hqc::ir::Program p = ssb_program(q, model);
      auto cuda = hqc::codegen::generate(p, Dialect::Cuda);
      CHECK(hqc::test::nvrtc_compile_log(cuda.source, "sm_90") == "");
      auto ocl = hqc::codegen::generate(p, Dialect::OpenCL);
      CHECK(device.build_log(ocl.source) == "");
      kernels += static_cast<int>(ocl.kernels.size());
    }
  }
  CHECK(kernels >= 2 * 13 * 2);
}

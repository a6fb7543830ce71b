// Aggregates without an alias are named after their text ("count(*)", "sum(l_quantity)"); the
// registers and buffers codegen makes for them must still be C identifiers. Both dialects, both
// models: the CUDA source compiles with NVRTC, the OpenCL source builds (PoCL here).
#include <doctest/doctest.h>

#include "codegen/generate.h"
#include "frontend/sql/sql_frontend.h"
#include "ir/compile.h"
#include "storage/catalog.h"
#include "tests/templates/device_harness.h"

using namespace hqc;

TEST_CASE("aggregates named by their text compile: count(*), sum(l_quantity), scalar and grouped") {
  const Catalog catalog = Catalog::tpch();
  test::OpenClDevice device;
  for (const char* sql : {"select count(*) from nation", "select count(*), sum(l_quantity) from lineitem",
                          "select l_returnflag, count(*), avg(l_quantity) from lineitem group by l_returnflag"}) {
    CAPTURE(sql);
    for (auto model : {ir::ExecutionModel::Resolution, ir::ExecutionModel::Pipelined}) {
      auto logical = std::make_shared<const plan::LogicalPlan>(parse_sql(sql, "unnamed.sql", catalog));
      ir::BuildOptions options;
      options.model = model;
      const ir::Program program = ir::compile_program(logical, catalog, options);
      for (codegen::Dialect d : {codegen::Dialect::Cuda, codegen::Dialect::OpenCL}) {
        const codegen::GeneratedProgram generated = codegen::generate(program, d);
        CHECK(generated.source.find("count(*)") == std::string::npos);
        if (d == codegen::Dialect::Cuda) CHECK(test::nvrtc_compile_log(generated.source, "sm_90") == "");
        else CHECK(device.build_log(generated.source) == "");
      }
    }
  }
}

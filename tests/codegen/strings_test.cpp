// Golden kernels of queries over strings and dates (tests/codegen/golden/strings_*.{cu,cl} and their
// manifests), compiled from SQL against the TPC-H catalog: heap-string LIKE / NOT LIKE, SUBSTRING in
// an IN list and a comparison against a literal in the compound kernel (offsets + bytes arguments,
// byte ranges loaded before the first filter), a LIKE over a dictionary as a code-set buffer, a
// prefix LIKE inside CASE as a code range, and a group key EXTRACT(YEAR ...). Both dialects, both
// models; the CUDA source compiles with NVRTC and the OpenCL source builds (PoCL here). Regenerate
// with HORSEQC_UPDATE_GOLDEN=1 and read the diff.
#include <doctest/doctest.h>

#include "codegen/generate.h"
#include "frontend/sql/sql_frontend.h"
#include "ir/compile.h"
#include "storage/catalog.h"
#include "tests/codegen/golden.h"
#include "tests/templates/device_harness.h"

using namespace hqc;

TEST_CASE("golden: string predicates and EXTRACT from SQL, both dialects, both models") {
  const Catalog catalog = Catalog::tpch();
  test::OpenClDevice device;
  const struct {
    const char* name;
    const char* sql;
  } cases[] = {
      {"strings_heap",
       "select extract(year from o_orderdate) as o_year, count(*) as n from orders "
       "where o_comment not like '%special%requests%' and substring(o_clerk from 7 for 3) in ('000', '001') "
       "and o_clerk >= 'Clerk#000000500' group by o_year"},
      {"strings_dictionary",
       "select sum(case when p_type like 'PROMO%' then p_retailprice else 0 end) as promo, count(*) as n from part "
       "where p_type like '%BRASS' and p_container not in ('SM BOX', 'LG CASE')"},
  };
  for (const auto& c : cases) {
    for (auto model : {ir::ExecutionModel::Resolution, ir::ExecutionModel::Pipelined}) {
      auto logical = std::make_shared<const plan::LogicalPlan>(parse_sql(c.sql, std::string(c.name) + ".sql", catalog));
      ir::BuildOptions options;
      options.model = model;
      ir::Program program = ir::compile_program(logical, catalog, options);
      for (codegen::Dialect d : {codegen::Dialect::Cuda, codegen::Dialect::OpenCL}) {
        const std::string name = std::string(c.name) + "." + ir::execution_model_name(model);
        CAPTURE(name);
        codegen::GeneratedProgram generated = codegen::generate(program, d);
        test::check_golden(name, generated);
        if (d == codegen::Dialect::Cuda) CHECK(test::nvrtc_compile_log(generated.source, "sm_90") == "");
        else CHECK(device.build_log(generated.source) == "");
      }
    }
  }
}

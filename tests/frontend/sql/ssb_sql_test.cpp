// SSB acceptance for the SQL frontend: each ssb/queries/*.sql binds to the same logical plan as its
// hand-written JSON plan ssb/plans/*.json, and both lower to the same pipelines and kernels.
#include <doctest/doctest.h>

#include <memory>

#include "frontend/json_plan.h"
#include "frontend/sql/sql_frontend.h"
#include "ir/build_pipelines.h"
#include "ir/explain.h"
#include "ir/passes.h"
#include "storage/catalog.h"
#include "tests/frontend/sql/sql_test_util.h"

using namespace hqc;

namespace {

const char* const kSsbQueries[] = {"q1.1", "q1.2", "q1.3", "q2.1", "q2.2", "q2.3", "q3.1",
                                   "q3.2", "q3.3", "q3.4", "q4.1", "q4.2", "q4.3"};


ir::Program compile(plan::LogicalPlan logical, const Catalog& catalog) {
  auto shared = std::make_shared<plan::LogicalPlan>(std::move(logical));
  ir::Program program = ir::build_program(shared, catalog);
  ir::run_passes(program, ir::default_passes());
  return program;
}

}  // namespace

TEST_CASE("every SSB query binds from SQL to the same logical plan as its JSON plan") {
  Catalog catalog = Catalog::ssb();
  for (const char* q : kSsbQueries) {
    CAPTURE(q);
    plan::LogicalPlan from_sql = load_sql(test::repo_dir() + "/ssb/queries/" + q + ".sql", catalog);
    plan::LogicalPlan from_json = plan::load_json_plan(test::repo_dir() + "/ssb/plans/" + q + ".json", catalog);
    CHECK(from_sql.name == q);
    // Without the row estimates the SQL join orderer adds (JSON plans carry none).
    CHECK(plan::explain_logical(from_sql, false) == plan::explain_logical(from_json, false));
  }
}

TEST_CASE("every SSB query lowers from SQL to the same pipelines and kernels as its JSON plan") {
  Catalog catalog = Catalog::ssb();
  for (const char* q : kSsbQueries) {
    CAPTURE(q);
    ir::Program a = compile(load_sql(test::repo_dir() + "/ssb/queries/" + q + ".sql", catalog), catalog);
    ir::Program b = compile(plan::load_json_plan(test::repo_dir() + "/ssb/plans/" + q + ".json", catalog), catalog);
    CHECK(ir::explain_pipelines(a) == ir::explain_pipelines(b));
    CHECK(ir::explain_kernels(a) == ir::explain_kernels(b));
  }
}

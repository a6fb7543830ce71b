// Golden EXPLAIN LOGICAL (plan::explain_logical) of every TPC-H query the SQL frontend binds
// (tpch/queries/<n>.sql → tests/frontend/sql/golden/tpch_q<n>.txt). A change to binding, unnesting or join
// ordering shows up here in review. Regenerate with HORSEQC_UPDATE_GOLDEN=1 after an intended change.
// Also: what the pipeline IR makes of each bound plan (lowered, or Unsupported).
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "frontend/sql/sql_frontend.h"
#include "ir/build_pipelines.h"
#include "ir/passes.h"
#include "storage/catalog.h"
#include "storage/error.h"
#include "tests/frontend/sql/sql_test_util.h"

using namespace hqc;

TEST_CASE("EXPLAIN of every TPC-H query that binds matches its golden file") {
  Catalog catalog = Catalog::tpch();
  const char* update = std::getenv("HORSEQC_UPDATE_GOLDEN");
  const bool updating = update && std::string(update) == "1";
  int compared = 0;
  for (int q = 1; q <= 22; ++q) {
    CAPTURE(q);
    std::string golden = test::repo_dir() + "/tests/frontend/sql/golden/tpch_q" + std::to_string(q) + ".txt";
    std::string actual;
    try {
      actual = plan::explain_logical(load_sql(test::repo_dir() + "/tpch/queries/" + std::to_string(q) + ".sql", catalog));
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::Unsupported);  // tpch_sql_test.cpp checks which ones
      if (updating) std::filesystem::remove(golden);
      CHECK_MESSAGE(!std::filesystem::exists(golden), golden << " exists but Q" << q << " no longer binds: " << e.what());
      continue;
    }
    ++compared;
    if (updating) {
      std::ofstream(golden, std::ios::binary) << actual;
      MESSAGE("updated " << golden);
      continue;
    }
    std::ifstream in(golden, std::ios::binary);
    REQUIRE_MESSAGE(in.good(), "missing golden file " << golden << " (run with HORSEQC_UPDATE_GOLDEN=1)");
    std::stringstream expected;
    expected << in.rdbuf();
    CHECK_MESSAGE(expected.str() == actual, "EXPLAIN of Q" << q << " differs from " << golden << ":\n" << actual);
  }
  CHECK(compared >= 10);
}

// Downstream of the frontend, every bound TPC-H plan either lowers to pipelines or stops with a
// user-facing Error(Unsupported) (semi/anti joins, keyless joins, LIKE ...) — never a crash or an
// internal error.
TEST_CASE("every bound TPC-H plan lowers or is rejected as Unsupported by the pipeline IR") {
  Catalog catalog = Catalog::tpch();
  for (int q = 1; q <= 22; ++q) {
    CAPTURE(q);
    std::shared_ptr<const plan::LogicalPlan> logical;
    try {
      logical = std::make_shared<plan::LogicalPlan>(load_sql(test::repo_dir() + "/tpch/queries/" + std::to_string(q) + ".sql", catalog));
    } catch (const Error&) {
      continue;
    }
    try {
      ir::Program program = ir::build_program(logical, catalog);
      ir::run_passes(program, ir::default_passes());
      MESSAGE("Q" << q << ": lowers to pipelines");
    } catch (const Error& e) {
      MESSAGE("Q" << q << ": " << std::string(e.what()));
      CHECK(e.kind() == ErrorKind::Unsupported);
    }
  }
}

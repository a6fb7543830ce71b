// EXPLAIN golden files (tests/ir/golden/<query>.txt) for a few SSB queries, compiled against the
// small fixture database. Regenerate with HORSEQC_UPDATE_GOLDEN=1 after an intended change and
// review the diff.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "ir/explain.h"
#include "ir/resolve_parameters.h"
#include "planner/statistics.h"
#include "tests/ir/ir_test_util.h"

using namespace hqc;

namespace {

void check_golden(const std::string& name, const std::string& actual) {
  std::string path = test::source_dir() + "/tests/ir/golden/" + name + ".txt";
  const char* update = std::getenv("HORSEQC_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    MESSAGE("updated " << path);
    return;
  }
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "missing golden file " << path << " (run with HORSEQC_UPDATE_GOLDEN=1)");
  std::stringstream expected;
  expected << in.rdbuf();
  CHECK_MESSAGE(expected.str() == actual, "EXPLAIN of " << name << " differs from " << path);
}

}  // namespace

TEST_CASE("EXPLAIN of SSB queries matches the golden files") {
  Database db = test::ssb_database();
  planner::DatabaseStatistics stats(db);
  for (const char* q : {"q1.1", "q2.2", "q3.3", "q4.1"}) {
    ir::Program p = test::build_ssb(q, &stats);
    ir::run_passes(p, ir::default_passes());
    check_golden(q, ir::explain(p));
  }
  ir::Program pipelined = test::build_ssb("q4.1", &stats, ir::ExecutionModel::Pipelined);
  ir::run_passes(pipelined, ir::default_passes());
  check_golden("q4.1.pipelined", ir::explain_kernels(pipelined));
}

TEST_CASE("EXPLAIN is stable: two compilations print the same text") {
  ir::Program a = test::build_ssb("q4.3");
  ir::Program b = test::build_ssb("q4.3");
  ir::run_passes(a, ir::default_passes());
  ir::run_passes(b, ir::default_passes());
  CHECK(ir::explain(a) == ir::explain(b));
}

TEST_CASE("the compiled program does not depend on the data's size: only parameter values change") {
  Database small = test::ssb_database(3000);
  Database large = test::ssb_database(24000);
  planner::DatabaseStatistics small_stats(small), large_stats(large);
  for (const char* q : {"q1.1", "q2.2", "q4.3"}) {
    ir::Program a = test::build_ssb(q, &small_stats);
    ir::Program b = test::build_ssb(q, &large_stats);
    ir::run_passes(a, ir::default_passes());
    ir::run_passes(b, ir::default_passes());
    CHECK(ir::explain(a) == ir::explain(b));
    CHECK(ir::resolve_parameters(a, small).at("rows_lineorder") == 3000);
    CHECK(ir::resolve_parameters(b, large).at("rows_lineorder") == 24000);
  }
}

// Golden text reports of horseqc-inspect (resolution model, CUDA) for SSB Q1.1, Q3.1, Q4.1 and
// TPC-H Q1, Q18, compared byte for byte with tests/inspect/golden/*.txt.
// Regenerate: HORSEQC_UPDATE_GOLDEN=1 ctest -R inspect
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "inspect/inspect.h"
#include "tests/inspect/inspect_queries.h"

namespace {

std::string golden_path(const std::string& file) {
  const char* dir = std::getenv("HORSEQC_SOURCE_DIR");
  return std::string(dir != nullptr ? dir : ".") + "/tests/inspect/golden/" + file;
}

void check_golden(const std::string& file, const std::string& actual) {
  const std::string path = golden_path(file);
  const char* update = std::getenv("HORSEQC_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream out(path, std::ios::binary);
    REQUIRE_MESSAGE(out.good(), "cannot write " << path);
    out << actual;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "missing golden report " << path << " (regenerate: HORSEQC_UPDATE_GOLDEN=1 ctest -R inspect)");
  std::stringstream expected;
  expected << in.rdbuf();
  if (expected.str() == actual) return;
  // Name the first line that differs.
  std::istringstream e(expected.str()), a(actual);
  std::string el, al;
  for (int line = 1;; ++line) {
    const bool he = static_cast<bool>(std::getline(e, el)), ha = static_cast<bool>(std::getline(a, al));
    if (he != ha || el != al) {
      FAIL(path << ":" << line << " differs\n  golden: " << (he ? el : "<end>") << "\n  report: " << (ha ? al : "<end>")
                << "\n(regenerate: HORSEQC_UPDATE_GOLDEN=1 ctest -R inspect)");
    }
    if (!he) break;
  }
  FAIL(path << " differs in its line endings");
}

}  // namespace

TEST_CASE("golden text reports (resolution, cuda)") {
  for (const char* query : {"ssb:q1.1", "ssb:q3.1", "ssb:q4.1", "tpch:q1", "tpch:q18"}) {
    CAPTURE(query);
    const auto compiled = hqc::test::compile_benchmark_query(query, hqc::ir::ExecutionModel::Resolution, hqc::codegen::Dialect::Cuda);
    const auto report = hqc::inspect::inspect_query(compiled.program, compiled.generated, hqc::test::benchmark_catalog(query));
    CHECK(report.errors.empty());
    std::string file = std::string(query);
    file.replace(file.find(':'), 1, "_");
    check_golden(file + ".txt", hqc::inspect::render_text(report));
  }
}

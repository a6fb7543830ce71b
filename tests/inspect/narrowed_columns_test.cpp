// Narrowed columns (ir pass narrow_columns) as the inspector sees them: SSB Q1.1 compiled with the
// fixture's statistics parses and passes the consistency check in both dialects, its loads read the
// stored widths, and the byte estimate counts each column at its stored width.
#include <doctest/doctest.h>

#include <string>

#include "inspect/inspect.h"
#include "planner/statistics.h"
#include "tests/ir/ssb_fixture.h"
#include "tools/driver/query_driver.h"
#include "frontend/sql/sql_frontend.h"
#include "ssb/benchmark_queries.h"

TEST_CASE("inspect: SSB Q1.1 with narrowed columns, both dialects") {
  using namespace hqc;
  const Catalog catalog = Catalog::ssb();
  Database db = test::ssb_database();
  planner::DatabaseStatistics stats(db);
  for (codegen::Dialect dialect : {codegen::Dialect::Cuda, codegen::Dialect::OpenCL}) {
    const std::string target = codegen::dialect_name(dialect);
    CAPTURE(target);
    driver::CompileOptions options;
    options.dialect = dialect;
    options.stats = &stats;
    auto plan = std::make_shared<const plan::LogicalPlan>(parse_sql(ssb::query_sql("q1.1"), "ssb/queries/q1.1.sql", catalog));
    const auto q = driver::compile_query(plan, catalog, options);
    const auto report = inspect::inspect_query(q.program, q.generated, catalog, 1);
    CHECK(report.errors.empty());
    const inspect::KernelReport* scan = nullptr;
    for (const auto& k : report.kernels)
      if (k.bytes.rows > 1000000) scan = &k;
    REQUIRE(scan != nullptr);  // the lineorder scan (6 M rows at SF 1)
    // Four columns of lineorder: lo_orderdate's four bytes, lo_quantity's and lo_discount's one each
    // and lo_extendedprice's four of its eight — 10 bytes a row, not 20.
    CHECK(scan->bytes.unconditional_read + scan->bytes.conditional_read == scan->bytes.rows * (4 + 1 + 1 + 4));
    const std::string text = inspect::render_text(report);
    // lo_quantity and lo_discount are read for every row (the filters on them come first), one byte each.
    CHECK(text.find("col_lo_quantity read: unconditional") != std::string::npos);
    // On CUDA the scan's B3 takes several tiles per iteration, so its loads are the flat ones.
    const std::string load = dialect == codegen::Dialect::Cuda ? "hqc_flat_load_" : "hqc_load_";
    CHECK(text.find(load + "i8") != std::string::npos);
    CHECK(text.find(load + "i32") == std::string::npos);  // no column is read at full width but the date
  }
}

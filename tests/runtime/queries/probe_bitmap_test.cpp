// Probe bitmaps (ir::HashTable::bitmap_buffer): a perfect-hash table built from a subset of its rows
// marks its built slots in a bitmap that probes test before reading a key. The production threshold
// (planner::kProbeBitmapMinSlots) is past every table at the test scale, so here it is lowered to one
// slot: every TPC-H query whose perfect-hash tables get a bitmap then gives the rows it gives
// without one (the queries themselves are checked against DuckDB by the tpch_queries oracle), on the
// resolution model and on the multi-pass model.
#include <doctest/doctest.h>

#include <algorithm>
#include <memory>
#include <string>

#include "frontend/sql/sql_frontend.h"
#include "planner/statistics.h"
#include "runtime/execution/executor.h"
#include "storage/catalog.h"
#include "tools/driver/query_driver.h"
#include "tpch/benchmark_queries.h"
#include "tests/runtime/queries/tpch_sf001.h"

using namespace hqc;
using namespace hqc::runtime;

namespace {

const Database& tpch_data() { return test::tpch_sf001(); }

struct Compiled {
  ExecutablePlan plan;
  int bitmaps = 0;
};

Compiled compile(const std::string& name, uint64_t bitmap_min_slots, ir::ExecutionModel model, Backend& backend) {
  const Database& db = tpch_data();
  const Catalog catalog = Catalog::tpch();
  const planner::DatabaseStatistics stats(db);
  driver::CompileOptions options;
  options.dialect = backend.dialect();
  options.stats = &stats;
  options.model = model;
  options.probe_bitmap_min_slots = bitmap_min_slots;
  auto plan = std::make_shared<const plan::LogicalPlan>(parse_sql(tpch::query_sql(name), name, catalog));
  const driver::CompiledQuery compiled = driver::compile_query(plan, catalog, options);
  Compiled out{driver::lower_query(compiled, db), 0};
  for (const ir::HashTable& ht : compiled.program.hash_tables) out.bitmaps += ht.bitmap_buffer.empty() ? 0 : 1;
  return out;
}

}  // namespace

TEST_CASE("probe bitmaps: every TPC-H query gives the rows it gives without them") {
  std::unique_ptr<Backend> backend = open_backend(DeviceChoice::OpenCL);
  Executor executor(*backend, nullptr);
  int with_bitmaps = 0;
  for (ir::ExecutionModel model : {ir::ExecutionModel::Resolution, ir::ExecutionModel::MultiPass}) {
    for (const std::string& name : tpch::query_names()) {
      CAPTURE(name);
      CAPTURE(ir::execution_model_name(model));
      const Compiled plain = compile(name, UINT64_MAX, model, *backend);
      const Compiled marked = compile(name, 1, model, *backend);
      CHECK(plain.bitmaps == 0);
      if (marked.bitmaps == 0) continue;
      ++with_bitmaps;
      const std::string expected = executor.run(plain.plan, tpch_data(), ExecutorOptions{}).result.format(ResultFormat::Csv);
      const std::string got = executor.run(marked.plan, tpch_data(), ExecutorOptions{}).result.format(ResultFormat::Csv);
      CHECK(got == expected);
    }
  }
  // Selective builds keyed by their table's primary key (Q2's, Q8's, Q17's, Q19's part...), each model.
  CHECK(with_bitmaps >= 6);
}

TEST_CASE("probe bitmaps only for builds the statistics expect to keep few rows") {
  std::unique_ptr<Backend> backend = open_backend(DeviceChoice::OpenCL);
  // Q17: part filtered by brand and container (1/40 by the statistics): its tables keyed by p_partkey.
  CHECK(compile("q17", 1, ir::ExecutionModel::Resolution, *backend).bitmaps > 0);
  // Q14: every part built; Q4: lineitem rows with l_commitdate < l_receiptdate (no estimate: all of
  // them); Q3: orders before a date (about half): none.
  CHECK(compile("q14", 1, ir::ExecutionModel::Resolution, *backend).bitmaps == 0);
  CHECK(compile("q4", 1, ir::ExecutionModel::Resolution, *backend).bitmaps == 0);
  CHECK(compile("q3", 1, ir::ExecutionModel::Resolution, *backend).bitmaps == 0);
}

// models-bench: the HorseQC paper's Experiments 1–3 (seed 004, §8.4–8.6, Figures 17–19) on one
// device, under horseqc's four micro execution models. Each experiment writes one CSV; the script
// bench/gpu_models.sh runs them on the GPU machine, adds Nsight Compute's DRAM bytes to Experiment 3
// and plots (bench/plot_models.py).
//
//   models-bench --data DIR --experiment 1|2|3 [--device auto|cuda|opencl] [--repeat N] [--csv FILE]
//                [--query NAME | --groups N] [--model M]   (one query / group count, one model: for ncu)
//
// Experiment 1 (Figure 17): SELECT lo_extendedprice * lo_discount + lo_tax FROM lineorder WHERE
//   lo_quantity BETWEEN 25 - x AND 25 + x, x from -1 (nothing: lo_quantity > 50) to 25 (everything), under multi_pass,
//   pipelined, resolution:SIMD and resolution:work-efficient. Bounds per point: the memory bound
//   (columns read + rows written) ÷ the read bandwidth, the PCIe time (the same bytes ÷ the host →
//   device rate), both measured in the same run.
// Experiment 2 (Figure 18): SELECT lo_orderkey % x, SUM(lo_extendedprice) FROM lineorder GROUP BY 1,
//   x = 2, 4, ..., 16384, under operator_at_a_time, pipelined and resolution; memory bound = columns
//   read ÷ read bandwidth.
// Experiment 3 (Figure 19): the 13 SSB queries under the four models: kernel time and the PCIe time
//   of the columns they read (DRAM bytes come from Nsight Compute in the script).
// Kernel times are the best of --repeat runs (default 5) of the query's kernels and library calls
// (ExecutionStats::kernel_ms). Exit codes as docs/cli.md. Not a test: timings depend on the machine.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "bench/scanned_bytes.h"
#include "codegen/dialect.h"
#include "frontend/sql/sql_frontend.h"
#include "planner/statistics.h"
#include "runtime/device/backend.h"
#include "runtime/device/kernel_cache.h"
#include "runtime/device/probes.h"
#include "runtime/execution/concurrent_executor.h"
#include "ssb/benchmark_queries.h"
#include "storage/error.h"
#include "storage/tbl_loader.h"
#include "tools/cli/args.h"
#include "tools/driver/query_driver.h"

namespace {

using namespace hqc;

struct ModelChoice {
  std::string label;  // as plotted: "resolution:SIMD"
  ir::ExecutionModel model;
  ir::LocalResolution local;
};

const ModelChoice kMultiPass{"multi_pass", ir::ExecutionModel::MultiPass, ir::LocalResolution::WorkEfficient};
const ModelChoice kPipelined{"pipelined", ir::ExecutionModel::Pipelined, ir::LocalResolution::WorkEfficient};
const ModelChoice kSimd{"resolution:SIMD", ir::ExecutionModel::Resolution, ir::LocalResolution::Simd};
const ModelChoice kWorkEfficient{"resolution:WE", ir::ExecutionModel::Resolution, ir::LocalResolution::WorkEfficient};
const ModelChoice kOperator{"operator_at_a_time", ir::ExecutionModel::OperatorAtATime, ir::LocalResolution::WorkEfficient};

class Bench {
 public:
  Bench(const Database& db, runtime::Backend& backend, runtime::KernelCache* cache, int repeat)
      : db_(db), backend_(backend), executor_(backend, cache), stats_(db) {
    exec_.repeat = repeat;
    exec_.pipelines = runtime::PipelineSchedule::Sequential;  // the library models' schedule, for all
  }

  struct Run {
    driver::CompiledQuery query;
    runtime::Execution execution;
  };

  Run run(const std::string& sql, const std::string& name, const ModelChoice& m) {
    driver::CompileOptions compile;
    compile.model = m.model;
    compile.local_resolution = m.local;
    compile.dialect = backend_.dialect();
    compile.stats = &stats_;
    auto plan = std::make_shared<const plan::LogicalPlan>(parse_sql(sql, name, catalog_, &stats_));
    Run r{driver::compile_query(plan, catalog_, compile), {}};
    r.execution = driver::run_query(r.query, db_, executor_, exec_);
    return r;
  }

  const runtime::Calibration& calibration() { return executor_.calibration(); }

 private:
  const Database& db_;
  const Catalog catalog_ = Catalog::ssb();
  runtime::Backend& backend_;
  runtime::Executor executor_;
  runtime::ExecutorOptions exec_;
  const planner::DatabaseStatistics stats_;
};

void experiment1(Bench& bench, const Database& db, std::FILE* csv) {
  const auto& cal = bench.calibration();
  std::fprintf(csv, "x,selectivity,model,rows,kernel_ms,bytes_read,bytes_written,memory_bound_ms,pcie_ms\n");
  const double rows_total = static_cast<double>(db.table("lineorder").rows);
  for (int x : {-1, 2, 4, 7, 9, 12, 14, 17, 19, 22, 25}) {
    // x = -1 selects nothing; as BETWEEN 26 AND 24 the compilers fold the predicate to false and skip
    // the loads, so that point asks for lo_quantity > 50 (no row has more than 50), which they cannot.
    const std::string where = x < 0 ? "lo_quantity > 50"
                                    : "lo_quantity BETWEEN " + std::to_string(25 - x) + " AND " + std::to_string(25 + x);
    const std::string sql = "SELECT lo_extendedprice * lo_discount + lo_tax AS revenue FROM lineorder WHERE " + where;
    for (const ModelChoice& m : {kMultiPass, kPipelined, kSimd, kWorkEfficient}) {
      Bench::Run r = bench.run(sql, "exp1", m);
      const uint64_t rows = r.execution.result.rows();
      const uint64_t read = bench::scanned_bytes(r.query.program, db), written = rows * 8;
      const double bound = static_cast<double>(read + written) / cal.kernel_bytes_per_s * 1e3;
      const double pcie = static_cast<double>(read + written) / cal.h2d_bytes_per_s * 1e3;
      std::fprintf(csv, "%d,%.4f,%s,%llu,%.4f,%llu,%llu,%.4f,%.4f\n", x, rows / rows_total, m.label.c_str(),
                   static_cast<unsigned long long>(rows), r.execution.stats.kernel_ms, static_cast<unsigned long long>(read),
                   static_cast<unsigned long long>(written), bound, pcie);
      std::fflush(csv);
    }
  }
}

void experiment2(Bench& bench, const Database& db, std::FILE* csv, int only_groups, const std::string& only_model) {
  const auto& cal = bench.calibration();
  std::fprintf(csv, "groups,model,rows,kernel_ms,bytes_read,memory_bound_ms,pcie_ms\n");
  for (int x = 2; x <= 16384; x *= 2) {
    if (only_groups != 0 && x != only_groups) continue;
    const std::string sql = "SELECT lo_orderkey % " + std::to_string(x) +
                            " AS g, SUM(lo_extendedprice) AS s FROM lineorder GROUP BY lo_orderkey % " + std::to_string(x);
    for (const ModelChoice& m : {kOperator, kPipelined, kWorkEfficient}) {
      if (!only_model.empty() && only_model != (m.model == ir::ExecutionModel::Resolution ? "resolution" : m.label)) continue;
      Bench::Run r = bench.run(sql, "exp2", m);
      const uint64_t read = bench::scanned_bytes(r.query.program, db);
      std::fprintf(csv, "%d,%s,%llu,%.4f,%llu,%.4f,%.4f\n", x, m.model == ir::ExecutionModel::Resolution ? "resolution" : m.label.c_str(),
                   static_cast<unsigned long long>(r.execution.result.rows()), r.execution.stats.kernel_ms,
                   static_cast<unsigned long long>(read), static_cast<double>(read) / cal.kernel_bytes_per_s * 1e3,
                   static_cast<double>(read) / cal.h2d_bytes_per_s * 1e3);
      std::fflush(csv);
    }
  }
}

void experiment3(Bench& bench, const Database& db, std::FILE* csv, const std::string& only_query, const std::string& only_model) {
  const bool calibrate = only_query.empty();  // an ncu run profiles the queries' kernels only
  std::fprintf(csv, "query,model,rows,kernel_ms,bytes_read,pcie_ms\n");
  for (const std::string& name : ssb::query_names()) {
    if (!only_query.empty() && name != only_query) continue;
    for (const ModelChoice& m : {kOperator, kMultiPass, kPipelined, kWorkEfficient}) {
      const std::string label = m.model == ir::ExecutionModel::Resolution ? "resolution" : m.label;
      if (!only_model.empty() && label != only_model) continue;
      Bench::Run r = bench.run(ssb::query_sql(name), name, m);
      const uint64_t read = bench::scanned_bytes(r.query.program, db);
      const double pcie = calibrate ? static_cast<double>(read) / bench.calibration().h2d_bytes_per_s * 1e3 : 0.0;
      std::fprintf(csv, "%s,%s,%llu,%.4f,%llu,%.4f\n", name.c_str(), label.c_str(),
                   static_cast<unsigned long long>(r.execution.result.rows()), r.execution.stats.kernel_ms,
                   static_cast<unsigned long long>(read), pcie);
      std::fflush(csv);
    }
  }
}

int run(int argc, char** argv) {
  const cli::Args args =
      cli::parse(argc, argv, {{"data"}, {"experiment"}, {"device"}, {"repeat"}, {"csv"}, {"query"}, {"model"}, {"groups"}});
  if (args.has("help") || !args.get("data") || !args.get("experiment")) {
    std::puts("usage: models-bench --data DIR --experiment 1|2|3 [--device auto|cuda|opencl] [--repeat N] [--csv FILE]\n"
              "                    [--query NAME | --groups N] [--model operator_at_a_time|multi_pass|pipelined|resolution]");
    return args.has("help") ? 0 : 2;
  }
  const std::string experiment = args.get_choice("experiment", {"1", "2", "3"}, "3");
  LoadOptions load;
  load.progress = false;
  const Database db = load_database(Catalog::ssb(), *args.get("data"), load);
  auto backend = runtime::open_backend(runtime::parse_device_choice(args.get_choice("device", {"auto", "cuda", "opencl"}, "auto")));
  auto cache = runtime::KernelCache::open_default();
  std::fprintf(stderr, "device: %s\n", backend->device_description().c_str());
  Bench bench(db, *backend, cache.get(), static_cast<int>(args.get_long("repeat", 5)));
  std::FILE* csv = stdout;
  if (auto path = args.get("csv")) {
    csv = std::fopen(path->c_str(), "w");
    if (csv == nullptr) throw Error(ErrorKind::Input, "cannot write " + *path);
  }
  if (experiment == "1") experiment1(bench, db, csv);
  if (experiment == "2") experiment2(bench, db, csv, static_cast<int>(args.get_long("groups", 0)), args.get_or("model", ""));
  if (experiment == "3") experiment3(bench, db, csv, args.get_or("query", ""), args.get_or("model", ""));
  if (csv != stdout) std::fclose(csv);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return hqc::cli::run_main("models-bench", run, argc, argv); }

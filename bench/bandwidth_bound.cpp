// bandwidth-bound: per SSB or TPC-H query on a device, the kernels' time next to the memory-bandwidth
// bound = bytes of the columns the query's pipelines read ÷ the device's read bandwidth, measured in
// the same run with the streaming read kernel the runtime calibrates with (runtime/device/probes.h,
// templates/probe/probes.h); the same per pipeline. A ratio of 1.0 means the kernels run at the
// speed of reading their input once. The bound counts base-table columns only (each pipeline reading
// its source columns once): hash-table builds and probes, aggregation tables and materialized
// outputs are not in it, so a query dominated by them shows a high ratio.
//
//   bandwidth-bound ssb|tpch [QUERY...] --data DIR [--device auto|cuda|opencl] [--model ...]
//                   [--multimap chained|linear_probing] [--repeat N] [--json FILE]
//
// QUERY... runs only those (default: every query of the benchmark). --multimap chooses the layout of
// join tables over non-unique keys (ir::BuildOptions::multimap; default chained), to compare the two.
//
// Queries are compiled from their SQL text with the data's statistics, as horseqc-run does. Exit
// codes as docs/cli.md. Not a test: timings depend on the machine (bench/results/ has runs).
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/scanned_bytes.h"
#include "codegen/dialect.h"
#include "frontend/sql/sql_frontend.h"
#include "planner/statistics.h"
#include "runtime/device/backend.h"
#include "runtime/device/kernel_cache.h"
#include "runtime/device/probes.h"
#include "ssb/benchmark_queries.h"
#include "storage/error.h"
#include "storage/tbl_loader.h"
#include "tools/cli/args.h"
#include "tools/driver/query_driver.h"
#include "tpch/benchmark_queries.h"

namespace {

using namespace hqc;

// Device read bandwidth in bytes per millisecond: runtime/device/probes.h's streaming read over a large
// buffer (an eighth of the device memory, at most 4 GiB; 256 MiB off a GPU), best of 6 passes.
double measure_read_bandwidth(runtime::Backend& backend, runtime::KernelCache* cache) {
  const auto& p = backend.properties();
  const codegen::Dialect dialect = backend.dialect();
  auto compiled = backend.compile(
      runtime::probe_module(codegen::dialect_prelude(dialect), codegen::compile_options(dialect)), cache);
  const uint64_t bytes = p.is_gpu ? std::min<uint64_t>(p.global_memory / 8, 4ull << 30) / 8 * 8 : (256ull << 20);
  return runtime::measure_read_bandwidth(backend, *compiled.module, bytes, 6) / 1e3;
}

int run(int argc, char** argv) {
  const cli::Args args = cli::parse(argc, argv, {{"data"}, {"device"}, {"model"}, {"multimap"}, {"repeat"}, {"json"}});
  const char* usage =
      "usage: bandwidth-bound ssb|tpch [QUERY...] --data DIR [--device auto|cuda|opencl] [--model resolution|pipelined] "
      "[--multimap chained|linear_probing] [--repeat N] [--json FILE]";
  if (args.has("help")) {
    std::puts(usage);
    return 0;
  }
  if (args.positionals.empty() || (args.positionals[0] != "ssb" && args.positionals[0] != "tpch") || !args.get("data"))
    throw Error(ErrorKind::Usage, usage);
  const bool tpch = args.positionals[0] == "tpch";
  const Catalog catalog = tpch ? Catalog::tpch() : Catalog::ssb();
  LoadOptions load;
  load.progress = false;
  const Database db = load_database(catalog, *args.get("data"), load);
  auto backend = runtime::open_backend(
      runtime::parse_device_choice(args.get_choice("device", {"auto", "cuda", "opencl"}, "auto")));
  auto cache = runtime::KernelCache::open_default();
  const double bw = measure_read_bandwidth(*backend, cache.get());
  std::printf("device: %s\nread bandwidth: %.1f GB/s\n\n", backend->device_description().c_str(), bw / 1e6);
  std::printf("%-6s %12s %12s %12s %10s\n", "query", "MiB read", "bound ms", "kernels ms", "ratio");

  runtime::Executor executor(*backend, cache.get());
  runtime::ExecutorOptions exec;
  exec.repeat = static_cast<int>(args.get_long("repeat", 10));
  driver::CompileOptions compile;
  compile.model = ir::parse_execution_model(args.get_choice("model", {"resolution", "pipelined"}, "resolution"));
  compile.dialect = backend->dialect();
  const planner::DatabaseStatistics stats(db);
  compile.stats = &stats;
  const std::string multimap = args.get_choice("multimap", {"chained", "linear_probing"}, "chained");
  compile.multimap = multimap == "chained" ? ir::HashLayout::Chained : ir::HashLayout::LinearProbing;
  std::vector<std::string> names(args.positionals.begin() + 1, args.positionals.end());
  const std::vector<std::string>& known = tpch ? tpch::query_names() : ssb::query_names();
  for (const std::string& n : names)
    if (std::find(known.begin(), known.end(), n) == known.end())
      throw Error(ErrorKind::Usage, "unknown " + args.positionals[0] + " query \"" + n + "\"");
  if (names.empty()) names = known;
  nlohmann::json out = {{"device", backend->device_description()}, {"read_bandwidth_gb_s", bw / 1e6},
                        {"benchmark", args.positionals[0]}, {"model", ir::execution_model_name(compile.model)},
                        {"multimap", multimap}, {"queries", nlohmann::json::array()}};
  for (const auto& name : names) {
    const std::string sql = tpch ? tpch::query_sql(name) : ssb::query_sql(name);
    auto plan = std::make_shared<const plan::LogicalPlan>(parse_sql(sql, name, catalog, &stats));
    const auto q = driver::compile_query(plan, catalog, compile);
    const auto e = driver::run_query(q, db, executor, exec);
    const uint64_t bytes = bench::scanned_bytes(q.program, db);
    const double bound_ms = static_cast<double>(bytes) / bw;
    std::printf("%-6s %12.1f %12.3f %12.3f %10.2f\n", name.c_str(), bytes / 1048576.0, bound_ms, e.stats.kernel_ms,
                e.stats.kernel_ms / bound_ms);
    nlohmann::json pipelines = nlohmann::json::array();
    // Per pipeline, where the run reports one timing per pipeline of the program (in its order).
    if (e.stats.pipelines.size() == q.program.pipelines.size()) {
      for (size_t i = 0; i < q.program.pipelines.size(); ++i) {
        const uint64_t b = bench::scanned_bytes(q.program, i, db);
        const double ms = e.stats.pipelines[i].kernel_ms;
        std::printf("  %-60.60s %10.1f %12.3f %12.3f %10.2f\n", e.stats.pipelines[i].name.c_str(), b / 1048576.0,
                    b / bw, ms, b > 0 ? ms / (b / bw) : 0.0);
        pipelines.push_back({{"pipeline", e.stats.pipelines[i].name}, {"bytes_read", b}, {"bound_ms", b / bw}, {"kernels_ms", ms}});
      }
    }
    out["queries"].push_back({{"query", name}, {"bytes_read", bytes}, {"bound_ms", bound_ms},
                              {"kernels_ms", e.stats.kernel_ms}, {"ratio", e.stats.kernel_ms / bound_ms},
                              {"rows", e.result.rows()}, {"pipelines", pipelines}});
  }
  if (auto path = args.get("json")) std::ofstream(*path) << out.dump(1) << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return hqc::cli::run_main("bandwidth-bound", run, argc, argv); }

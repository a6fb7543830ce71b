// plan-time-bench: how long the SQL frontend takes — parse (libpg_query) + bind + optimize (unnesting,
// pushdown, pruning, join ordering: frontend/sql) — for every TPC-H and SSB query, on one thread.
// Reports the best and the median of --repeat runs per query and whether each is under the budget
// (5 ms, issue 4). A benchmark, not a test: timings depend on the machine.
//
//   plan-time-bench [--repeat N] [--budget-ms X] [--json FILE]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "frontend/sql/sql_frontend.h"
#include "ssb/benchmark_queries.h"
#include "storage/catalog.h"
#include "storage/error.h"
#include "tools/cli/args.h"
#include "tpch/benchmark_queries.h"

namespace {

constexpr const char* kUsage = R"(usage: plan-time-bench [--repeat N] [--budget-ms X] [--json FILE]

Times parse + bind + optimize (the SQL frontend, on this thread) of every TPC-H and SSB query: best and
median of N runs (default 200), checked against a budget (default 5 ms). Exit code 0 when every
supported query is under the budget, 1 otherwise; queries horseqc does not support yet are listed.
)";

struct Timing {
  std::string benchmark, query;
  double best_ms = 0, median_ms = 0;
  std::string unsupported;
};

Timing time_query(const std::string& benchmark, const std::string& name, const std::string& sql,
                  const std::string& path, const hqc::Catalog& catalog, long repeat) {
  Timing t{benchmark, name};
  std::vector<double> ms;
  for (long i = 0; i < repeat; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    try {
      const hqc::plan::LogicalPlan plan = hqc::parse_sql(sql, path, catalog);
    } catch (const hqc::Error& e) {
      if (e.kind() != hqc::ErrorKind::Unsupported) throw;
      t.unsupported = e.what();
      return t;
    }
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  t.best_ms = ms.front();
  t.median_ms = ms[ms.size() / 2];
  return t;
}

int run(int argc, char** argv) {
  using namespace hqc;
  const cli::Args args = cli::parse(argc, argv, {{"repeat"}, {"budget-ms"}, {"json"}});
  if (args.has("help")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  const long repeat = args.get_long("repeat", 200);
  if (repeat < 1) throw Error(ErrorKind::Usage, "--repeat: expected a count of at least 1");
  const double budget = args.get_double("budget-ms", 5.0);

  std::vector<Timing> timings;
  const Catalog tpch_catalog = Catalog::tpch(), ssb_catalog = Catalog::ssb();
  for (const auto& q : tpch::query_names())
    timings.push_back(time_query("tpch", q, tpch::query_sql(q), tpch::query_path(q), tpch_catalog, repeat));
  for (const auto& q : ssb::query_names())
    timings.push_back(time_query("ssb", q, ssb::query_sql(q), "ssb/queries/" + q + ".sql", ssb_catalog, repeat));

  int over = 0;
  nlohmann::json out = nlohmann::json::array();
  std::printf("%-5s %-6s %10s %10s\n", "bench", "query", "best ms", "median ms");
  for (const Timing& t : timings) {
    if (!t.unsupported.empty()) {
      std::printf("%-5s %-6s unsupported: %s\n", t.benchmark.c_str(), t.query.c_str(), t.unsupported.c_str());
      out.push_back({{"benchmark", t.benchmark}, {"query", t.query}, {"unsupported", t.unsupported}});
      continue;
    }
    const bool ok = t.median_ms <= budget;
    over += !ok;
    std::printf("%-5s %-6s %10.3f %10.3f%s\n", t.benchmark.c_str(), t.query.c_str(), t.best_ms, t.median_ms,
                ok ? "" : "  OVER BUDGET");
    out.push_back({{"benchmark", t.benchmark}, {"query", t.query}, {"best_ms", t.best_ms}, {"median_ms", t.median_ms}});
  }
  std::printf("%d quer%s over the %.1f ms budget (median of %ld runs)\n", over, over == 1 ? "y" : "ies", budget, repeat);
  if (auto path = args.get("json")) std::ofstream(*path) << out.dump(1) << "\n";
  return over ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) { return hqc::cli::run_main("plan-time-bench", run, argc, argv); }

// Generation-speed harness shared by ssb-gen-bench and tpch-gen-bench; see gen_bench_harness.h.
#include "bench/gen_bench_harness.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "storage/error.h"
#include "tools/cli/args.h"

namespace hqc::bench {

namespace {

std::vector<unsigned> parse_threads(const std::string& list) {
  std::vector<unsigned> out;
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ',')) {
    size_t used = 0;
    long v = -1;
    try {
      v = std::stol(item, &used);
    } catch (const std::exception&) {
    }
    if (used != item.size() || v < 1 || v > 4096)
      throw Error(ErrorKind::Usage, "--threads: expected positive integers separated by commas, found \"" + list + "\"");
    out.push_back(static_cast<unsigned>(v));
  }
  if (out.empty()) throw Error(ErrorKind::Usage, "--threads: empty list");
  return out;
}

}  // namespace

int run_gen_bench(const GenBench& bench, int argc, char** argv) {
  const cli::Args args = cli::parse(argc, argv, {{"sf"}, {"threads"}, {"repeat"}, {"seed"}});
  if (args.has("help")) {
    std::printf("usage: %s [--sf X (10)] [--threads N[,N...] (1,hardware threads)] [--repeat R (3)] [--seed S]\n",
                bench.tool);
    return 0;
  }
  if (!args.positionals.empty()) throw Error(ErrorKind::Usage, "unexpected argument \"" + args.positionals[0] + "\"");
  gen::GenOptions options;
  options.sf = args.get_double("sf", 10);
  options.seed = static_cast<uint64_t>(args.get_long("seed", static_cast<long>(options.seed)));
  const long repeat = args.get_long("repeat", 3);
  if (repeat < 1) throw Error(ErrorKind::Usage, "--repeat: expected a positive integer");
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const std::vector<unsigned> threads = parse_threads(args.get_or("threads", "1," + std::to_string(hw)));

  const std::string fact_label = std::string(bench.fact_table) + " rows/s";
  const std::string checksum_label = std::string(bench.checksum_column) + " checksum";
  std::printf("# %s: SF %g, seed %llu, %u hardware threads\n", bench.tool, options.sf,
              static_cast<unsigned long long>(options.seed), hw);
  std::printf("%-8s %-4s %10s %14s %14s %16s %22s\n", "threads", "run", "seconds", "rows", "rows/s", fact_label.c_str(),
              checksum_label.c_str());
  long long reference = -1;
  for (unsigned t : threads) {
    options.threads = t;
    double best = 1e300;
    uint64_t rows = 0, fact_rows = 0;
    for (long run = 1; run <= repeat; ++run) {
      const auto start = std::chrono::steady_clock::now();
      const Database db = bench.generate(options);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      rows = 0;
      for (const auto& [name, table] : db.tables) rows += table.rows;
      fact_rows = db.table(bench.fact_table).rows;
      long long sum = 0;
      for (int64_t v : db.table(bench.checksum_table).column(bench.checksum_column).i64) sum += v;
      if (reference < 0) reference = sum;
      if (sum != reference)
        throw Error(ErrorKind::Internal, "generated data differs between runs (" + checksum_label + ")");
      best = std::min(best, seconds);
      std::printf("%-8u %-4ld %10.3f %14llu %14.0f %16.0f %22lld\n", t, run, seconds,
                  static_cast<unsigned long long>(rows), static_cast<double>(rows) / seconds,
                  static_cast<double>(fact_rows) / seconds, sum);
      std::fflush(stdout);
    }
    std::printf("%-8u %-4s %10.3f %14llu %14.0f %16.0f\n", t, "best", best, static_cast<unsigned long long>(rows),
                static_cast<double>(rows) / best, static_cast<double>(fact_rows) / best);
  }
  return 0;
}

}  // namespace hqc::bench

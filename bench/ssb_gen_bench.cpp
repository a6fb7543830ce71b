// ssb-gen-bench: how fast the SSB generator fills memory.
//
//   ssb-gen-bench [--sf X] [--threads N[,N...]] [--repeat R] [--seed S]
//
// For each thread count, generates SSB at scale factor X (default 10) into memory R times (default 3)
// and prints one line per run plus the best run: seconds, rows of all five tables, rows/s and
// lineorder rows/s. Nothing is written to disk, so this measures generation alone; horseqc-gen adds
// the .tbl formatting and the file system. The generated data is the same for every thread count
// (checked here on the lineorder row count and a checksum of lo_revenue), so the runs are comparable.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "ssb/generator.h"
#include "storage/error.h"
#include "tools/cli/args.h"

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
      throw hqc::Error(hqc::ErrorKind::Usage, "--threads: expected positive integers separated by commas, found \"" + list + "\"");
    out.push_back(static_cast<unsigned>(v));
  }
  if (out.empty()) throw hqc::Error(hqc::ErrorKind::Usage, "--threads: empty list");
  return out;
}

int bench_main(int argc, char** argv) {
  const hqc::cli::Args args = hqc::cli::parse(argc, argv, {{"sf"}, {"threads"}, {"repeat"}, {"seed"}});
  if (args.has("help")) {
    std::puts("usage: ssb-gen-bench [--sf X (10)] [--threads N[,N...] (1,hardware threads)] [--repeat R (3)] [--seed S]");
    return 0;
  }
  if (!args.positionals.empty()) throw hqc::Error(hqc::ErrorKind::Usage, "unexpected argument \"" + args.positionals[0] + "\"");
  hqc::ssb::GenOptions options;
  options.sf = args.get_double("sf", 10);
  options.seed = static_cast<uint64_t>(args.get_long("seed", static_cast<long>(options.seed)));
  const long repeat = args.get_long("repeat", 3);
  if (repeat < 1) throw hqc::Error(hqc::ErrorKind::Usage, "--repeat: expected a positive integer");
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const std::vector<unsigned> threads = parse_threads(args.get_or("threads", "1," + std::to_string(hw)));

  std::printf("# ssb-gen-bench: SF %g, seed %llu, %u hardware threads\n", options.sf,
              static_cast<unsigned long long>(options.seed), hw);
  std::printf("%-8s %-4s %10s %14s %14s %16s %20s\n", "threads", "run", "seconds", "rows", "rows/s", "lineorder rows/s",
              "lo_revenue checksum");
  long long reference_sum = -1;
  for (unsigned t : threads) {
    options.threads = t;
    double best = 1e300;
    uint64_t rows = 0, lineorder = 0;
    for (long run = 1; run <= repeat; ++run) {
      const auto start = std::chrono::steady_clock::now();
      hqc::Database db = hqc::ssb::generate(options);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      rows = 0;
      for (const auto& [name, table] : db.tables) rows += table.rows;
      lineorder = db.table("lineorder").rows;
      long long sum = 0;
      for (int64_t v : db.table("lineorder").column("lo_revenue").i64) sum += v;
      if (reference_sum < 0) reference_sum = sum;
      if (sum != reference_sum)
        throw hqc::Error(hqc::ErrorKind::Internal, "generated data differs between runs (lo_revenue checksum)");
      best = std::min(best, seconds);
      std::printf("%-8u %-4ld %10.3f %14llu %14.0f %16.0f %20lld\n", t, run, seconds,
                  static_cast<unsigned long long>(rows), double(rows) / seconds, double(lineorder) / seconds, sum);
      std::fflush(stdout);
    }
    std::printf("%-8u %-4s %10.3f %14llu %14.0f %16.0f\n", t, "best", best, static_cast<unsigned long long>(rows),
                double(rows) / best, double(lineorder) / best);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return hqc::cli::run_main("ssb-gen-bench", bench_main, argc, argv); }

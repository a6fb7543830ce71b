// tpch-gen-bench: how fast the TPC-H generator fills memory.
//
//   tpch-gen-bench [--sf X] [--threads N[,N...]] [--repeat R] [--seed S]
//
// For each thread count, generates TPC-H at scale factor X (default 10) into memory R times (default 3)
// and prints one line per run: seconds, rows of all eight tables, rows/s, lineitem rows/s, and a checksum
// of o_totalprice. Nothing is written to disk (horseqc-gen adds .tbl formatting and the file system).
// The data must be the same for every thread count and run; a differing checksum is an error (exit 70).
#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "storage/error.h"
#include "tools/cli/args.h"
#include "tpch/generator.h"

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
      throw hqc::Error(hqc::ErrorKind::Usage,
                       "--threads: expected positive integers separated by commas, found \"" + list + "\"");
    out.push_back(static_cast<unsigned>(v));
  }
  if (out.empty()) throw hqc::Error(hqc::ErrorKind::Usage, "--threads: empty list");
  return out;
}

int bench_main(int argc, char** argv) {
  const hqc::cli::Args args = hqc::cli::parse(argc, argv, {{"sf"}, {"threads"}, {"repeat"}, {"seed"}});
  if (args.has("help")) {
    std::puts("usage: tpch-gen-bench [--sf X (10)] [--threads N[,N...] (1,hardware threads)] [--repeat R (3)] [--seed S]");
    return 0;
  }
  if (!args.positionals.empty())
    throw hqc::Error(hqc::ErrorKind::Usage, "unexpected argument \"" + args.positionals[0] + "\"");
  hqc::tpch::GenOptions options;
  options.sf = args.get_double("sf", 10);
  options.seed = static_cast<uint64_t>(args.get_long("seed", static_cast<long>(options.seed)));
  const long repeat = args.get_long("repeat", 3);
  if (repeat < 1) throw hqc::Error(hqc::ErrorKind::Usage, "--repeat: expected a positive integer");
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const std::vector<unsigned> threads = parse_threads(args.get_or("threads", "1," + std::to_string(hw)));

  std::printf("# tpch-gen-bench: SF %g, seed %llu, %u hardware threads\n", options.sf,
              static_cast<unsigned long long>(options.seed), hw);
  std::printf("%-8s %-4s %10s %14s %14s %16s %22s\n", "threads", "run", "seconds", "rows", "rows/s", "lineitem rows/s",
              "o_totalprice checksum");
  long long reference = -1;
  for (unsigned t : threads) {
    options.threads = t;
    for (long run = 1; run <= repeat; ++run) {
      const auto start = std::chrono::steady_clock::now();
      const hqc::Database db = hqc::tpch::generate(options);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      uint64_t rows = 0;
      for (const auto& [name, table] : db.tables) rows += table.rows;
      const uint64_t lineitem = db.table("lineitem").rows;
      long long sum = 0;
      for (int64_t v : db.table("orders").column("o_totalprice").i64) sum += v;
      if (reference < 0) reference = sum;
      if (sum != reference)
        throw hqc::Error(hqc::ErrorKind::Internal, "generated data differs between runs (o_totalprice checksum)");
      std::printf("%-8u %-4ld %10.3f %14llu %14.0f %16.0f %22lld\n", t, run, seconds,
                  static_cast<unsigned long long>(rows), static_cast<double>(rows) / seconds,
                  static_cast<double>(lineitem) / seconds, sum);
      std::fflush(stdout);
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return hqc::cli::run_main("tpch-gen-bench", bench_main, argc, argv); }

// tpch-gen-bench: how fast the TPC-H generator fills memory.
//
//   tpch-gen-bench [--sf X] [--threads N[,N...]] [--repeat R] [--seed S]
//
// For each thread count, generates TPC-H at scale factor X (default 10) into memory R times (default 3)
// and prints one line per run plus the best run: seconds, rows of all eight tables, rows/s, lineitem
// rows/s and a checksum of o_totalprice, which must not change between runs (bench/gen_bench_harness.h).
// horseqc-gen adds the .tbl formatting and the file system on top of this.
#include "bench/gen_bench_harness.h"
#include "tools/cli/args.h"
#include "tpch/generator.h"

namespace {

int bench_main(int argc, char** argv) {
  return hqc::bench::run_gen_bench({"tpch-gen-bench", "lineitem", "orders", "o_totalprice", hqc::tpch::generate},
                                   argc, argv);
}

}  // namespace

int main(int argc, char** argv) { return hqc::cli::run_main("tpch-gen-bench", bench_main, argc, argv); }

// ssb-gen-bench: how fast the SSB generator fills memory.
//
//   ssb-gen-bench [--sf X] [--threads N[,N...]] [--repeat R] [--seed S]
//
// For each thread count, generates SSB at scale factor X (default 10) into memory R times (default 3)
// and prints one line per run plus the best run: seconds, rows of all five tables, rows/s, lineorder
// rows/s and a checksum of lo_revenue, which must not change between runs (bench/gen_bench_harness.h).
// horseqc-gen adds the .tbl formatting and the file system on top of this.
#include "bench/gen_bench_harness.h"
#include "ssb/generator.h"
#include "tools/cli/args.h"

namespace {

int bench_main(int argc, char** argv) {
  return hqc::bench::run_gen_bench({"ssb-gen-bench", "lineorder", "lineorder", "lo_revenue", hqc::ssb::generate},
                                   argc, argv);
}

}  // namespace

int main(int argc, char** argv) { return hqc::cli::run_main("ssb-gen-bench", bench_main, argc, argv); }

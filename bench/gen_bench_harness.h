// The harness of ssb-gen-bench and tpch-gen-bench: how fast a benchmark data generator fills memory.
//
// Contract: run_gen_bench(bench, argc, argv) parses [--sf X (10)] [--threads N[,N...] (1,hardware
// threads)] [--repeat R (3)] [--seed S], generates the data set R times per thread count, and prints one
// line per run (seconds, rows of all tables, rows/s, fact-table rows/s, a checksum of one integer
// column) and the best run per thread count. Nothing is written to disk, so this measures generation
// alone. The data must be the same for every thread count and run: a differing checksum is an Internal
// error (exit 70). Usage errors are hqc::Error(Usage); run it under hqc::cli::run_main for exit codes.
#pragma once

#include <functional>

#include "storage/generation/gen_options.h"
#include "storage/table.h"

namespace hqc::bench {

struct GenBench {
  const char* tool;             // program name in usage and output, e.g. "ssb-gen-bench"
  const char* fact_table;       // the table whose rows/s is reported on its own, e.g. "lineorder"
  const char* checksum_table;   // the checksum sums this Int64/Decimal column of this table
  const char* checksum_column;
  std::function<Database(const gen::GenOptions&)> generate;
};

int run_gen_bench(const GenBench& bench, int argc, char** argv);

}  // namespace hqc::bench

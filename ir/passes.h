// The pass driver: the passes that turn a freshly built Program into a kernel program, in ONE
// readable list (default_passes()). Each pass is a function in its own file with its contract on
// top. The driver runs them in order, verifies the IR after each (ir/verifier.h), times them, can
// skip passes by name, and dumps the IR (ir/explain.h) to stderr after each pass when the
// environment variable HORSEQC_DUMP_IR is set (to anything but "0").
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ir/program.h"

namespace hqc::ir {

struct Pass {
  std::string name;
  std::function<void(Program&)> run;
};

struct PassTiming {
  std::string name;
  double milliseconds = 0.0;
  bool skipped = false;
};

struct PassOptions {
  std::vector<std::string> skip;  // pass names not to run; an unknown name is Error(Usage)
  bool dump = false;              // also dump when HORSEQC_DUMP_IR is not set
};

// The passes, in order (default_passes() returns exactly this list):
//   shared_aggregations an aggregation computed twice from the same rows (a view or CTE read twice:
//                      TPC-H Q15's revenue0) is computed once (ir/pass_shared_aggregations.cpp)
//   shared_builds      a join table built twice from the same rows (a subquery joining what its outer
//                      query joins: TPC-H Q2, Q11, Q20) is built once (ir/pass_shared_builds.cpp)
//   reduce_builds      a hash table probed once, on a key another (selective) table restricts, builds
//                      only the rows that can match: its build (or the pipeline materializing the
//                      rows a distributed build gathers) probes that table first
//                      (ir/pass_reduce_builds.cpp)
//   order_probes       cheap probes (one lookup) before those that walk chains or test residuals,
//                      within runs of probes that keep or drop a tuple (ir/pass_order_probes.cpp)
//   split_combine      distributed compiles: phase 2 of a two-phase aggregation that a later
//                      aggregation for the result groups again by one of its keys splits its rows
//                      across ranks by ranges of that key (ir/pass_split_combine.cpp)
//   output_bounds      a table filled from an earlier pipeline's output rows (a two-phase
//                      aggregation's final groups, a build over gathered rows) is sized at run time
//                      by the rows that output holds, not by the statistics (ir/pass_output_bounds.cpp)
//   dictionary_tables  what is computed from one dictionary column's string (LIKE, SUBSTRING, string
//                      functions, and the predicates over them) → a per-code table the host fills
//                      (ir/pass_dictionary_tables.cpp)
//   assign_parameters  DictCode literals → named run-time params (ir/pass_assign_parameters.cpp)
//   flag_arithmetic    a flag word for each pipeline with overflow-checked 64-bit arithmetic
//                      (ir/pass_flag_arithmetic.cpp)
//   fuse_pipelines     one compound kernel per pipeline, reductions + techniques (ir/pass_fuse_pipelines.cpp)
//   compact_result     the result's aggregation table compacted on the device before the host reads
//                      it: two kernels after its pipeline (ir/pass_compact_result.cpp)
//   rank_key_ranges    distributed compiles: a rank-local table placed by slot = key - min spans
//                      only its rank's keys: its key params resolved per rank (ir/pass_rank_key_ranges.cpp)
//   narrow_columns     a base-table column stored on the device in the fewest bytes (1, 2, 4) its
//                      statistics' range needs, widened as kernels load it (ir/pass_narrow_columns.cpp)
//   launch_constraints each kernel's tuple count and scratchpad demand, for the planner's launch
//                      decision at run time (ir/pass_launch_constraints.cpp)
std::vector<Pass> default_passes();

void shared_aggregations(Program& program);
void shared_builds(Program& program);
void reduce_builds(Program& program);
void order_probes(Program& program);
void split_combine(Program& program);
void output_bounds(Program& program);
void dictionary_tables(Program& program);
void assign_parameters(Program& program);
void flag_arithmetic(Program& program);
void fuse_pipelines(Program& program);
void compact_result(Program& program);
void rank_key_ranges(Program& program);
void narrow_columns(Program& program);
void launch_constraints(Program& program);

// Runs `passes` over `program`; returns one timing per pass in order.
std::vector<PassTiming> run_passes(Program& program, const std::vector<Pass>& passes,
                                   const PassOptions& options = {});

}  // namespace hqc::ir

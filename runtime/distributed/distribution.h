// Where a plan's work goes in a distributed run: which pipelines scan a rank's partition, which state
// objects are merged across ranks and after which launch, which pipelines only rank 0 runs.
//
// Rules (docs/distributed.md has the picture):
//   - a pipeline whose source scans a partitioned table runs on every rank over its own rows, as does
//     a phase 2 split across ranks (PipelineSpec::rank_split: its rows of the rank's key range);
//   - a state object (aggregation table, output) such a pipeline fills is partial on each rank: it is
//     merged (plan.merges, state_merge.h) right after the sink launches of the LAST pipeline filling it
//     — so every pipeline reading it, and the result, sees the whole state on every rank;
//   - a rank-local state (StateMerge::Kind::Local: phase 1 of a two-phase hashed aggregation) is
//     never merged; the pipeline scanning it (its source_state) runs on every rank over that partial
//     state, as a partitioned pipeline, and must materialize into an output (merged as rows) — the
//     only reader a Local state may have;
//   - every other pipeline (over replicated tables or merged state) computes the same on every rank;
//     one of them that also fills a merged state runs on rank 0 only, so its rows count once;
//   - a hash table is never merged: the distributed compile builds from a merged output instead
//     (ir BuildOptions::partitioned_tables), or keeps a build of co-partitioned tables on its rank
//     (StateMerge::Kind::Local: its only prober scans the same rank's co-partitioned rows); any other
//     build filled by a partitioned pipeline is a bug.
// Refused (Error(Unsupported) naming the query and what): the library models (multi_pass,
// operator_at_a_time), a merge StateMerge::unsupported names, row references (heap strings) into a
// partitioned table in merged state.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "runtime/execution/executable_plan.h"
#include "storage/table.h"

namespace hqc::runtime {

struct Distribution {
  std::vector<bool> partitioned;  // per pipeline: scans the rank's partition
  std::vector<bool> rank0_only;   // per pipeline: runs on rank 0 only
  // Per pipeline: the merges after its last sink launch (PipelineSpec::sink_launches - 1), or after
  // its last launch where one merges the compaction's rows (StateMerge::after_compaction).
  std::vector<std::vector<const StateMerge*>> merges_after;
  // Per pipeline: the launch the exchange follows (the failure agreement, the flags, the merges).
  std::vector<size_t> exchange_after;
  size_t merges = 0;  // in all
};

// `partitioned_tables`: the base tables each rank holds a partition of. The plan must outlive the result.
Distribution distribute(const ExecutablePlan& plan, const std::set<std::string>& partitioned_tables);

// The smallest and largest value of a column in a rank's share.
struct KeyRange {
  int64_t min = 0;
  int64_t max = 0;
};
using LocalKeyRanges = std::map<std::pair<std::string, std::string>, KeyRange>;  // by (table, column)

// A copy of `plan` for one rank: every row count of a partitioned table (ParamSpec::rows_of) is the
// rank's rows, `local_rows` by table, and a capacity sized per rank (ParamSpec::per_rank: a
// rank-local partial table) is sized for them; a key placement resolved per rank
// (ParamSpec::per_rank_range) takes the share's range from `local_ranges` (share_key_ranges; a
// column absent there keeps the whole table's range), and the params computed from those
// (per_rank_derived) are computed again; a bound of a split key's range (ParamSpec::per_rank_split)
// becomes rank `rank` of `ranks`'s; everything else (other capacities, statistics) stays the whole
// table's.
ExecutablePlan rank_plan(const ExecutablePlan& plan, const std::map<std::string, uint64_t>& local_rows,
                         const LocalKeyRanges& local_ranges = {}, unsigned rank = 0, unsigned ranks = 1);

// The (table, column) pairs whose share's range rank_plan needs (ParamSpec::per_rank_range).
std::set<std::pair<std::string, std::string>> per_rank_range_columns(const ExecutablePlan& plan);
// Those columns' ranges over the rows `share` holds (integer columns; an empty share's is [0, 0]:
// one slot, which no key of its (no) rows needs).
LocalKeyRanges share_key_ranges(const Database& share, const std::set<std::pair<std::string, std::string>>& columns);

}  // namespace hqc::runtime

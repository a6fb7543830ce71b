// Lowering of a bound logical plan into pipelines and state objects. Pipeline breaking lives in
// ONE function (break_into_pipelines in build_pipelines.cpp): a hash build or an aggregation sink
// ends a pipeline, the probe side of a join continues it, and an explicit "pipeline_break" marker
// materializes a node's output into an OutputTable that a new pipeline scans.
//
// Contract:
//   expects: a LogicalPlan produced by the binder (typed, resolved; OrderBy/Limit only on top).
//   guarantees: pipelines in dependency order; every state object, buffer and param declared;
//   layouts chosen (perfect hash vs linear probing, direct-indexed vs global hash aggregation)
//   from `catalog` facts (keys, dictionary encodings) and the statistics when given. Kernels are
//   NOT built here (the fusion pass does that).
//   throws: Error(Unsupported) for constructs that parse but do not compile yet (left outer joins,
//   multi-column perfect-hash keys, ...), naming the plan's JSON path.
#pragma once

#include <map>
#include <memory>
#include <set>

#include "frontend/logical_plan.h"
#include "ir/program.h"
#include "planner/sizing.h"
#include "planner/statistics.h"
#include "storage/catalog.h"

namespace hqc::ir {

// How a distributed join brings its build rows and its probe rows together when the build side scans
// a partitioned table that is not co-partitioned with the probe's on the join key (ir/shuffle_join.cpp).
enum class JoinExchange {
  Auto,       // whichever moves fewer bytes by the statistics' estimates (Broadcast without statistics)
  Broadcast,  // the build's rows gathered to every rank; the probe stays where it is
  Shuffle,    // both sides' rows sent to the rank their key hashes to; each rank joins its keys
};
const char* join_exchange_name(JoinExchange e);  // "auto", "broadcast", "shuffle"
JoinExchange parse_join_exchange(const std::string& name);  // Error(Usage) for another name

struct BuildOptions {
  ExecutionModel model = ExecutionModel::Resolution;
  // The resolution model's local resolution of write positions and single-tuple aggregates (A3,
  // B3): SIMD (warp votes and shuffles) or work-efficient (a scratchpad tree). C3 is always the
  // privatised table. Program::local_resolution.
  LocalResolution local_resolution = LocalResolution::WorkEfficient;
  // When given, layout decisions (perfect hash, direct-indexed, scratchpad) use the data's
  // statistics; otherwise the catalog's keys alone (perfect hash for single-column primary keys of
  // integer type, direct-indexed for dictionary/narrow keys) — the run-time sizes still come from
  // resolve_parameters().
  const planner::Statistics* stats = nullptr;
  // Scratchpad a CTA's privatised aggregation table may take on the target device
  // (planner::scratchpad_budget of its profile; the default is every current GPU's).
  uint64_t scratchpad_budget_bytes = planner::kScratchpadBudgetBytes;
  // Distributed runs (runtime/distributed/): base tables each rank holds only a partition of. The
  // build side of a join that scans one ends in a Materialize of the rows it would insert, and the
  // hash table is built from that output — merged across ranks in between, so every rank probes the
  // whole table. A hashed aggregation over one is aggregated in two phases (ir/two_phase_aggregation.cpp):
  // rank-local partial groups, materialized, merged as rows and combined by key on every rank.
  // Empty (one process): nothing changes.
  std::set<std::string> partitioned_tables;
  // Of those, the tables split by ranges of one key (a table → its key column: TPC-H orders →
  // o_orderkey, lineitem → l_orderkey, each rank holding one range of order keys in both; partsupp →
  // ps_partkey). A join of two such tables of one group (partition_groups) on their keys matches only
  // rows of the same rank: its build stays on the rank (HashTable::rank_local) and nothing is
  // materialized or merged for it; groups by such a key are complete on their rank (rank_local_groups.cpp).
  std::map<std::string, std::string> partition_keys;
  // The group of each table in partition_keys (storage PartitionedTable::group(): orders and lineitem
  // "orders", partsupp "partsupp"): only keys of one group share their ranges. A table not listed is
  // in group "" (so every table is, where none is listed).
  std::map<std::string, std::string> partition_groups;
  // A join over a partitioned build side on another key: broadcast or shuffle (ir/shuffle_join.cpp),
  // and the ranks Auto weighs the two for (the same program must come out on every rank).
  JoinExchange join_exchange = JoinExchange::Auto;
  unsigned ranks = 2;
  // The layout of a join table that stores every build row under non-unique keys, where each build
  // row inserts once: Chained (a list per distinct key), or LinearProbing (duplicates in separate
  // slots of one chain; what a build row inserting several times always uses) — for comparisons.
  HashLayout multimap = HashLayout::Chained;
  // A perfect-hash table of at least this many slots whose build keeps few of its table's rows
  // (planner::kProbeBitmapSparsity) gets a bitmap of the slots built (HashTable::bitmap_buffer); tests lower it to reach small tables.
  uint64_t probe_bitmap_min_slots = planner::kProbeBitmapMinSlots;
};

Program build_program(std::shared_ptr<const plan::LogicalPlan> plan, const Catalog& catalog,
                      const BuildOptions& options = {});

}  // namespace hqc::ir

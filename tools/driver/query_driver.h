// The whole path of one query, stage by stage, as the command-line programs use it:
//
//   plan (JSON or SQL) ─▶ ir::build_program ─▶ ir passes (default_passes) ─▶ codegen::generate
//                                        ─▶ ir::resolve_parameters ─▶ runtime::lower_program ─▶ Executor
//
// Contract: compile_query() needs no device and no data (statistics are optional and only steer
// layout choices); run_query() resolves the run-time parameters against the database it runs on,
// so one compiled query serves every scale factor. Each stage's wall time is recorded.
#pragma once

#include <memory>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "codegen/dialect.h"
#include "codegen/generated_program.h"
#include "frontend/logical_plan.h"
#include "ir/build_pipelines.h"
#include "ir/kernel.h"
#include "ir/passes.h"
#include "ir/program.h"
#include "planner/device_profile.h"
#include "planner/statistics.h"
#include "runtime/execution/executor.h"
#include "storage/catalog.h"
#include "storage/table.h"

namespace hqc::driver {

struct CompileOptions {
  ir::ExecutionModel model = ir::ExecutionModel::Resolution;
  ir::LocalResolution local_resolution = ir::LocalResolution::WorkEfficient;  // resolution model: A3/B3
  codegen::Dialect dialect = codegen::Dialect::OpenCL;
  const planner::Statistics* stats = nullptr;
  // The target device's profile (its scratchpad budget steers the resolution model's privatised
  // tables); null when compiling without a device: every current GPU's budget.
  const planner::DeviceProfile* device = nullptr;
  // Distributed runs: the tables each rank holds a partition of (ir::BuildOptions::partitioned_tables).
  std::set<std::string> partitioned_tables;
  std::map<std::string, std::string> partition_keys;    // ir::BuildOptions::partition_keys
  std::map<std::string, std::string> partition_groups;  // ir::BuildOptions::partition_groups
  ir::JoinExchange join_exchange = ir::JoinExchange::Auto;  // ir::BuildOptions::join_exchange
  unsigned ranks = 2;                                       // ir::BuildOptions::ranks
  ir::HashLayout multimap = ir::HashLayout::Chained;   // ir::BuildOptions::multimap
  uint64_t probe_bitmap_min_slots = planner::kProbeBitmapMinSlots;  // ir::BuildOptions::probe_bitmap_min_slots
};

struct CompiledQuery {
  std::string name;
  ir::Program program;
  codegen::GeneratedProgram generated;
  std::vector<ir::PassTiming> passes;
  double plan_ms = 0;     // IR building + passes
  double codegen_ms = 0;  // source generation
};

// The statistics horseqc-run compiles with, for a tool that compiles without running (horseqc-compile,
// horseqc-inspect --data DIR): every column's statistics from the headers of DIR's columnar files,
// or, where DIR holds .tbl files, the tables loaded.
Database statistics_database(const Catalog& catalog, const std::string& dir);
// That database and the statistics over it, together (CompileOptions::stats points into it: keep it
// alive while compiling; made in place, never moved).
struct DataStatistics {
  DataStatistics(const Catalog& catalog, const std::string& dir) : data(statistics_database(catalog, dir)) {}
  DataStatistics(const DataStatistics&) = delete;
  DataStatistics& operator=(const DataStatistics&) = delete;
  Database data;
  planner::DatabaseStatistics stats{data};
};

CompiledQuery compile_query(std::shared_ptr<const plan::LogicalPlan> plan, const Catalog& catalog,
                            const CompileOptions& options);

// The partitioned tables and co-partition keys of `catalog`'s scheme (storage/partition.h) into
// `options`, as every rank of a distributed run compiles.
void partition_like_ranks(const Catalog& catalog, CompileOptions& options);


// The query lowered against `db`'s parameters (what run_query() hands the Executor).
runtime::ExecutablePlan lower_query(const CompiledQuery& query, const Database& db);

// The base-table columns `program` reads, in its pipelines or through its run-time parameters
// (statistics, dictionary codes), as "table.column": all the data a run of it needs
// (horseqc-run --in-memory generates only these).
std::set<std::string> columns_read(const ir::Program& program, const Catalog& catalog);

// The base tables the logical plan scans.
std::set<std::string> tables_scanned(const plan::LogicalPlan& plan);

runtime::Execution run_query(const CompiledQuery& query, const Database& db, runtime::Executor& executor,
                             const runtime::ExecutorOptions& options);

}  // namespace hqc::driver

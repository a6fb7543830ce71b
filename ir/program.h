// The pipeline IR of one query: the whole compiled form between the logical plan and source code.
//
// Overview (read this first):
//
//   plan::LogicalPlan ──build_program()──▶ Program{ pipelines, state objects, params, buffers }
//                      ──fuse (pass)─────▶ Program{ ..., kernels }          (ir/passes.h lists the
//                                                                             passes in order)
//   Program + Database ──resolve_parameters()──▶ ParamValues (every run-time number)
//
//   - Pipeline (ir/pipeline.h): source scan (a table, a materialized output, or an aggregation
//     table of an earlier pipeline) → Filter / Probe / Map ops → one Sink (HashBuild, Aggregate or
//     Materialize). Pipelines are listed in dependency order: a hash table is built
//     by an earlier pipeline than any that probes it. Breaking happens in ONE function,
//     ir/build_pipelines.cpp: a hash build or an aggregation sink ends a pipeline, the probe side
//     continues.
//   - State objects (ir/state.h): HashTable, AggregationTable, OutputTable. Each names its device
//     buffers (Program::buffers) and the params that size them (Program::params). Codegen names
//     kernel arguments after them; the executor allocates Program::buffers generically.
//   - Params: every data-dependent value (row counts, key minima/domains, capacities, dictionary
//     codes of string literals) is a kernel argument, so the source is the same at every scale
//     factor and the kernel cache hits.
//   - Kernels (ir/kernel.h): one compound kernel per pipeline under the resolution (default) or
//     pipelined model, each reduction annotated with its technique (A3/B3/C3 or A2/B2/C2).
//   - ResultDesc: how the host turns the final state object into rows (group keys decoded through
//     dictionaries, AVG = sum / count), then ORDER BY and LIMIT on the host (a top-k when LIMIT
//     keeps fewer rows than the result has).
//   - Text form: ir/explain.h (stable, golden-tested). Invariants: ir/verifier.h.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "frontend/logical_plan.h"
#include "ir/kernel.h"
#include "ir/pipeline.h"
#include "ir/state.h"
#include "planner/sizing.h"

namespace hqc::ir {

struct ResultColumn {
  enum class Source : uint8_t {
    GroupKey,     // AggregationTable::keys[index]
    Accumulator,  // AggregationTable::accumulators[index]
    Average,      // accumulators[index] (sum) / accumulators[count_index] (count), as Float64
    Output,       // OutputTable::columns[index]
  };
  std::string name;
  DataType type;  // type shown to the user (strings for dictionary-coded keys)
  Source source = Source::Accumulator;
  size_t index = 0;
  size_t count_index = 0;
  std::string dict_table;   // non-empty: decode codes through this dictionary
  std::string dict_column;
  std::string heap_table;   // non-empty: the values are row references into this heap string column
  std::string heap_column;
  // Output columns computed from a single-tuple aggregate's SUM/MIN/MAX/AVG: NULL when no row
  // reached that aggregate (ResultDesc::input_rows_state), as SQL answers.
  bool null_without_input = false;
  // Output: the column of the same output that holds this one's validity (1 = a value, 0 = NULL),
  // or -1 (OutputColumn::validity_for). Such a column is never a result column of its own.
  int validity_index = -1;
};

struct ResultDesc {
  enum class Kind : uint8_t { Aggregation, Output };
  Kind kind = Kind::Aggregation;
  std::string state;  // AggregationTable or OutputTable name
  std::vector<ResultColumn> columns;
  // Kind::Output whose rows derive from one single-tuple aggregate (a Map over it, e.g. TPC-H Q14):
  // that AggregationTable; its tuple count 0 makes the columns marked null_without_input NULL.
  std::string input_rows_state;
  // Window functions over the assembled result (their placeholder columns are result columns),
  // computed on the device by the runtime before ORDER BY (runtime/execution/window_stage.h); `hidden`
  // result columns feed them only and are dropped after ORDER BY and LIMIT.
  std::vector<plan::WindowExpr> windows;
  std::vector<std::string> hidden;
  std::vector<plan::SortKey> order_by;  // by result column name, applied on the host
  int64_t limit = -1;                   // -1: none
  int64_t offset = 0;                   // rows skipped (after ORDER BY) before `limit` counts
};

struct Program {
  std::string label;  // query name, a C identifier prefix: "q1_1"
  ExecutionModel model = ExecutionModel::Resolution;
  // Resolution model: the mechanism of A3 and B3 (BuildOptions::local_resolution); codegen generates
  // work-efficient where the dialect has no SIMD level (OpenCL) and says so in the manifest.
  LocalResolution local_resolution = LocalResolution::WorkEfficient;
  std::shared_ptr<const plan::LogicalPlan> logical;  // for EXPLAIN; may be null in tests
  // Bytes of scratchpad a CTA's privatised aggregation table may take on the target device
  // (planner::scratchpad_budget of its profile; BuildOptions). Read by pass fuse_pipelines.
  uint64_t scratchpad_budget_bytes = planner::kScratchpadBudgetBytes;
  // Distributed compiles: the tables each rank holds a share of (BuildOptions::partitioned_tables);
  // EXPLAIN shows which pipelines run on each rank's share and which state is merged across ranks.
  std::set<std::string> partitioned_tables;
  // Rows of every base table a pipeline scans, from the statistics the program was built with
  // (BuildOptions::stats; whole tables, not a rank's share); empty without statistics. For passes
  // that weigh a rewrite by the size of what it touches (reduce_builds).
  std::map<std::string, uint64_t> table_rows;
  // [min, max] of every integer-backed base-table column a pipeline scans ("table.column"), from the
  // same statistics (exact: computed over the values at load or generation, the whole table's on a
  // rank); empty without statistics. Pass narrow_columns stores such a column in fewer bytes on the
  // device where its range fits (KernelArg::stored_bytes).
  std::map<std::string, std::pair<int64_t, int64_t>> column_ranges;

  std::vector<Param> params;
  std::vector<Buffer> buffers;
  std::vector<HashTable> hash_tables;
  std::vector<AggregationTable> aggregations;
  std::vector<OutputTable> outputs;
  std::vector<Pipeline> pipelines;  // dependency order
  std::vector<Kernel> kernels;      // filled by the fusion pass
  std::vector<LibraryCall> library_calls;  // multi-pass: library primitives between kernels (fusion pass)
  ResultDesc result;

  // nullptr when absent.
  const Param* find_param(const std::string& name) const;
  const Buffer* find_buffer(const std::string& name) const;
  const HashTable* find_hash_table(const std::string& name) const;
  const AggregationTable* find_aggregation(const std::string& name) const;
  const OutputTable* find_output(const std::string& name) const;
  HashTable* find_hash_table(const std::string& name);
  OutputTable* find_output(const std::string& name);
  // Distributed compiles: the pipeline's rows are the rank's own — it scans a partitioned table's
  // share, or an output a shuffle join sent the rank (OutputTable::shuffle_columns).
  bool scans_share(const Pipeline& p) const;
};

// The values of every Param of a program for one database.
struct ParamValues {
  std::map<std::string, int64_t> values;
  // Initial contents of Fill::CodeTable buffers, by buffer name: one value per
  // dictionary code (a flag, a packed string), at least as many as the buffer's elements; stored
  // at the buffer's element width.
  std::map<std::string, std::vector<int64_t>> contents;
  // Capacity params sized per rank (Param::per_rank), by name: the estimate's parts, so that a rank
  // holding `rows` of `table` sizes the table with terms.slots(rows).
  struct PerRank {
    std::string table;
    planner::CapacityTerms terms;
  };
  std::map<std::string, PerRank> per_rank;
  // Key placements resolved per rank (Param::per_rank_range), by name: a rank holding a share of
  // `table` takes its smallest value of `column` (`domain` false) or max - min + 1 of them (true);
  // and the params computed from them (Product, BitmapWords), by name: their source and factors, so
  // that the rank computes them again.
  struct PerRankRange {
    std::string table;
    std::string column;
    bool domain = false;
  };
  std::map<std::string, PerRankRange> per_rank_ranges;
  struct Derived {
    Param::Source source = Param::Source::Product;
    std::vector<std::string> factors;
  };
  std::map<std::string, Derived> per_rank_derived;
  // Capacity params bounded by a run-time count (Param::count_buffer), by name: once the build that
  // writes `count_buffer` ran, the value is at most the slots of count x `groups_per_count` groups
  // (the product of the other distinct_columns' distinct counts) at `load_factor`.
  struct Counted {
    std::string count_buffer;
    double groups_per_count = 1.0;
    double load_factor = 0.5;
  };
  std::map<std::string, Counted> counted;
  // Throws Error(Internal) naming the parameter when absent.
  int64_t at(const std::string& name) const;
};

}  // namespace hqc::ir

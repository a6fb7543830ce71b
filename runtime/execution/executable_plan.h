// What the executor runs, in runtime terms: one generated module, the run-time parameters its
// kernels take, the device buffers (state objects and outputs) with sizes that are functions of
// those parameters, the pipelines in dependency order (one compound kernel launch each, normally),
// the overflow checks after each pipeline, and how to turn device buffers into a Result.
//
// Contract (what a producer — the ir/codegen lowering — must guarantee):
//   - every name an ArgSpec, CheckSpec or ResultColumnSpec refers to is declared in `params` or
//     `buffers` (validate_plan() checks this and names the dangling reference);
//   - data-dependent values (capacities, key minima, dictionary codes of literals, row counts) are
//     ParamSpecs, so the source does not change with the data and the kernel cache hits;
//   - a capacity that may prove too small is a Constant param listed in a CheckSpec with
//     Action::Grow; the executor doubles it and re-runs from the first pipeline, so a result is
//     never assembled from an overflowed table.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "frontend/logical_plan.h"
#include "planner/sizing.h"
#include "runtime/device/backend.h"
#include "runtime/device/device_primitives.h"
#include "runtime/execution/result.h"
#include "storage/error.h"

namespace hqc::runtime {

// F64 parameters travel through the executor's int64 parameter map as their bit pattern.
enum class ScalarKind { I32, I64, U64, F64 };
enum class ElementType { I32, U32, I64, U64, F64 };
uint32_t element_bytes(ElementType t);

// A capacity sized per rank (ir::Param::per_rank): a rank holding `rows` of `table` resolves it as
// terms.slots(rows) (rank_plan).
struct PerRankCapacity {
  std::string table;
  planner::CapacityTerms terms;
};

// A key placement resolved per rank (ir::Param::per_rank_range): a rank holding a share of `table`
// takes its smallest value of `column`, or (domain) max - min + 1 of them (rank_plan).
struct PerRankKeyRange {
  std::string table;
  std::string column;
  bool domain = false;
};

// A param computed from per-rank ones (a Product of key domains, BitmapWords of slots): the rank
// computes it again from its values of `factors` (rank_plan).
struct PerRankDerived {
  bool bitmap_words = false;  // ceil(factors[0] / 32); else the product of the factors
  std::vector<std::string> factors;
};

// A bound of one rank's range of a split key (ir::Param::split_min_param, ir/pass_split_combine.cpp):
// rank r of n keeps the keys in [min + domain * r / n, min + domain * (r + 1) / n), the first rank's
// lower and the last rank's upper bound open (the value as resolved: the key type's extreme).
struct PerRankSplit {
  std::string min_param;
  std::string domain_param;
  bool upper = false;
};

// A run-time parameter (a kernel argument) with its value, resolved against the database once, by
// ir::resolve_parameters when the program was lowered (execution/lower_program.h). `rows_of`: for a
// tuple count, the table whose rows it counts (the concurrent executor recognises a scan of the fact
// table by it, and gives each chunk its own count); empty otherwise. `per_rank`: see PerRankCapacity;
// `per_rank_range`, `per_rank_derived`: see PerRankKeyRange, PerRankDerived.
struct ParamSpec {
  std::string name;
  int64_t value = 0;
  std::string rows_of;
  std::optional<PerRankCapacity> per_rank;
  std::optional<PerRankKeyRange> per_rank_range;
  std::optional<PerRankDerived> per_rank_derived;
  std::optional<PerRankSplit> per_rank_split;
};

struct BufferSpec {
  std::string name;
  ElementType element = ElementType::I64;
  // elements = fixed_elements + multiplier * params[elements_param] (when elements_param is set)
  uint64_t fixed_elements = 0;
  std::string elements_param;
  uint64_t multiplier = 1;
  // Initial contents, written before the first pipeline of every run.
  enum class Init { Zero, Pattern, None, Contents };
  Init init = Init::Zero;
  uint64_t pattern = 0;  // Init::Pattern: repeated value of the element's width (4 or 8 bytes)
  // Init::Contents: the first elements x element bytes of these bytes (computed on the host from
  // the data, e.g. a dictionary code set; at least that many).
  std::vector<unsigned char> contents;
};

struct ArgSpec {
  enum class Kind {
    Column,      // device values of table.column (codes for dictionary strings; offsets for heap strings)
    ColumnHeap,  // the byte heap of a Heap string column
    Buffer,      // a BufferSpec by name
    Param,       // a ParamSpec by name, passed as `scalar`
    Scratch,     // dynamic scratchpad (OpenCL __local argument; skipped on CUDA)
  };
  Kind kind = Kind::Param;
  std::string table;
  std::string column;
  std::string name;
  ScalarKind scalar = ScalarKind::I64;
  // Buffer: the kernel may write it (ir::KernelArg::written; a buffer it only reads is a const
  // pointer in the generated kernel). Two pipelines that only read a buffer may run at once
  // (pipeline_waves.h); unknown is written.
  bool written = true;
  // Column: bytes per value on the device when narrowed (ir::KernelArg::stored_bytes; 0: the
  // column's physical width). Every Column argument of one table.column in a plan agrees.
  unsigned stored_bytes = 0;

  static ArgSpec col(std::string table, std::string column, unsigned stored_bytes = 0) {
    ArgSpec a{Kind::Column, std::move(table), std::move(column), "", ScalarKind::I64};
    a.stored_bytes = stored_bytes;
    return a;
  }
  static ArgSpec heap(std::string table, std::string column) { return {Kind::ColumnHeap, std::move(table), std::move(column), "", ScalarKind::I64}; }
  static ArgSpec buf(std::string name, bool written = true) { return {Kind::Buffer, "", "", std::move(name), ScalarKind::I64, written}; }
  static ArgSpec param(std::string name, ScalarKind k) { return {Kind::Param, "", "", std::move(name), k}; }
  static ArgSpec scratch() { return {Kind::Scratch, "", "", "", ScalarKind::I64}; }
};

struct LaunchSpec {
  std::string kernel;
  std::vector<ArgSpec> args;
  // The grid covers params[tuples_param] tuples, or is `fixed_grid` blocks when tuples_param is
  // empty; the planner chooses block size and grid (planner/launch.h). A kernel with one work-item
  // per tuple may cover items_per_thread tuples per work-item (a tile-striding kernel's is the
  // planner's choice).
  std::string tuples_param;
  // Parameters a launch over one chunk of a streamed table takes from the chunk (ir::Param::ChunkBase;
  // 0 otherwise): Row = the chunk's first row among the table's (a chained build's entry base, heap
  // strings' row references); HeapByte = the heap position of the first byte of `column`'s heap the
  // chunk's staging holds.
  struct ChunkBase {
    std::string param;
    bool heap = false;   // HeapByte (else Row)
    std::string column;  // HeapByte: the heap string column
  };
  std::vector<ChunkBase> chunk_bases;
  uint32_t items_per_thread = 1;
  uint64_t fixed_grid = 1;
  // Dynamic scratchpad per block = scratch_bytes + scratch_bytes_per_thread * block_size
  //   + sum(bytes * params[name]) over scratch_bytes_per_param (e.g. a privatised group table).
  uint32_t scratch_bytes = 0;
  uint32_t scratch_bytes_per_thread = 0;
  std::vector<std::pair<std::string, uint64_t>> scratch_bytes_per_param;
  // Bounds the compiler chose a scratchpad layout against (a grouped aggregation privatised per
  // CTA, C3): at run time params[param] must not exceed max_slots, or the kernel's scratchpad
  // indexing would be outside what the plan was made for. The executor checks before launching.
  struct ScratchSlotBound {
    std::string param;   // the slots parameter (e.g. "agg0_slots")
    uint64_t max_slots = 0;
    std::string what;    // "aggregation table agg0 privatised in scratchpad (24 B/slot)"
  };
  std::vector<ScratchSlotBound> scratch_slot_bounds;
  // Launch constraints of the local-resolution primitives the kernel uses.
  uint32_t block_size_multiple = 1;
  bool power_of_two_block = false;
  // The kernel loops over tiles until every tuple is covered (codegen's compound kernels,
  // templates/device/tile.h), so any grid is correct and the launcher caps it at a few resident
  // waves; false for kernels with one work-item per tuple, which get the full grid above.
  bool strides_over_tiles = false;
  // "": a kernel of ExecutablePlan::module; else the library module holding it (codegen::
  // kCompactionModule: the compaction kernels), which the executor loads for its backend
  // (library_modules.h) and links to the plan's module.
  std::string module;
};

struct CheckSpec {
  // After the pipeline, element 0 of `flag_buffer` (read as its element type) must be 0.
  std::string flag_buffer;
  enum class Action { Grow, Fail };
  Action action = Action::Grow;
  std::vector<std::string> grow_params;  // Grow: doubled before the re-run
  std::string what;                      // "hash table of join 2 (build on date.d_datekey)"
  // Fail: the error kind; Unsupported for an exactness limit (an accumulator that overflowed),
  // Internal for a flag that means the statistics or the compiler were wrong.
  ErrorKind fail_kind = ErrorKind::Unsupported;
  // Grow, optional: element 0 of this buffer is the capacity the pipeline needed (an output's write
  // counter, which reserves a position for every row, also those past the capacity); the re-run
  // gets at least that, so a join that makes far more rows than estimated needs one rebuild.
  std::string need_buffer;
};

// Before a pipeline runs, `param` takes the value of element 0 of `buffer` — e.g. the row count of
// an output materialised by an earlier pipeline (its write-position counter), which the pipeline
// reading that output scans.
// Also the value of a one-row stage (an uncorrelated scalar subquery, ir Param::Source::OutputValue):
// element 0 of its output column, copied bit for bit (doubles keep their bit pattern).
// When `nonzero_buffer` is set, its element 0 must be nonzero (the single-tuple aggregate behind
// the value saw rows); otherwise the value is SQL NULL, which horseqc does not represent, and the
// run fails with Error(Unsupported) naming `what`.
// A 128-bit value (a Decimal(38, s) column: two words per row) is two params, `element` 0 (low
// word) and 1 (high word).
struct ParamFromBuffer {
  std::string param;
  std::string buffer;
  std::string nonzero_buffer;
  std::string what;
  uint64_t element = 0;
};

// A device-wide primitive of a library (CUB / Boost.Compute: device/device_primitives.h) run after
// launch `after_launch` of its pipeline — the multi-pass model's prefix sums and reductions
// (ir::LibraryCall says what each does with its buffers). It processes params[count_param]
// elements; `result_param`, when set, takes its outcome for the launches and steps after it:
// InclusiveScan the total (capped at params[limit_param] when set), Reduce 1 or 0 (values seen),
// ReduceByKey the number of runs.
struct LibraryStep {
  enum class Op { InclusiveScan, SortByKey, Gather, Reduce, ReduceByKey };
  Op op = Op::InclusiveScan;
  size_t after_launch = 0;
  std::vector<std::string> buffers;
  std::string count_param;
  std::string result_param;
  std::string limit_param;
  ScanOp reduce = ScanOp::Sum;
  ValueType type = ValueType::I64;
  std::string what;
};
const char* library_step_name(LibraryStep::Op op);  // "inclusive_scan", ...

struct PipelineSpec {
  std::string name;  // "pipeline 0: build date"
  std::vector<LaunchSpec> launches;
  std::vector<CheckSpec> checks;
  std::vector<ParamFromBuffer> params_from_buffers;
  // Library primitives between the launches (multi-pass); such a pipeline runs with the device
  // synchronised around each step, so the Executor runs its plan's pipelines one after the other.
  std::vector<LibraryStep> library_steps;
  // What it reads and fills, for distributed runs (runtime/distributed/distribution.h): the base
  // table its source scans (empty: an output or aggregation table of an earlier pipeline), the state
  // object its sink fills (a hash table, aggregation table or output: StateMerge::state), and how
  // many of its launches fill that state (the compound kernels; compaction kernels follow them).
  std::string source_table;
  // The output or aggregation table its source scans (empty: a base table): a pipeline scanning a
  // StateMerge::Kind::Local state reads a rank's partial state, so it is partitioned too.
  std::string source_state;
  std::string sink_state;
  // Phase 2 of a two-phase aggregation split across ranks (ir/pass_split_combine.cpp): it keeps the
  // rows of the rank's range of a key, so it works on the rank's part like a scan of its share.
  bool rank_split = false;
  size_t sink_launches = 1;
};

struct ResultColumnSpec {
  enum class Source {
    Buffer,     // element r of `buffer`
    SlotKey,    // a group key decoded from the slot index (buffer empty) or from a packed key buffer
    AverageOf,  // sum_column / count_column (both other columns of this spec, usually hidden)
  };
  std::string name;
  DataType type;  // output type; dictionary strings: the string type
  Source source = Source::Buffer;
  std::string buffer;
  // The column's value of slot r is element r * stride + lane of `buffer` (hashed group keys of
  // several columns share one buffer, one lane each per slot).
  uint32_t stride = 1;
  uint32_t lane = 0;
  // Buffer: a 128-bit integer per slot, words 2r (low) and 2r + 1 (high) (exact decimal sums).
  bool wide = false;
  // SlotKey: key = ((raw / divisor) % modulus) + offset, raw = slot index or element of `buffer`;
  // modulus 0 means none. Covers mixed-radix direct-indexed tables and bit-packed hash keys.
  int64_t divisor = 1;
  int64_t modulus = 0;
  std::string offset_param;  // name of a param added to the key (e.g. the key minimum); empty = 0
  // Dictionary decoding: the codes index table.column's dictionary.
  std::string dictionary_table;
  std::string dictionary_column;
  // Heap strings: the values are row indices of heap_table.heap_column; the text is read there.
  std::string heap_table;
  std::string heap_column;
  std::string sum_column;
  std::string count_column;
  bool hidden = false;  // computed for another column (an AVG's count) but not output
  // ResultSpec::merge_groups: how rows with equal keys combine ("key": part of the key; "sum",
  // "min", "max": the accumulator's combine; "": computed after the merge, e.g. AverageOf).
  std::string merge;
  // SQL NULL semantics of a single-tuple aggregate: when ResultSpec::input_rows_buffer says no row
  // reached the aggregate, this column is NULL (SUM/MIN/MAX/AVG halves); COUNT columns leave it
  // false and show their 0.
  bool null_without_input = false;
  // Buffer: one i32 per row, 0 = NULL (a left outer join's payload without a match); empty: none.
  std::string valid_buffer;
};

struct ResultSpec {
  enum class Rows {
    Counter,  // rows = element 0 of `counter_buffer` (materialised output, A2/A3 write positions)
    Slots,    // one row per slot of the first Buffer column, kept where `occupancy_buffer` != empty
  };
  Rows rows = Rows::Slots;
  std::string counter_buffer;
  std::string occupancy_buffer;  // empty: every slot is a row (e.g. a single-tuple aggregate)
  int64_t empty_value = 0;
  uint64_t slots = 0;            // Slots: number of slots; 0 = the occupancy (or first column) buffer's length
  std::vector<ResultColumnSpec> columns;
  // SQL window functions over the assembled rows (runtime/execution/window_stage.h), before ORDER BY: each
  // fills its placeholder column `name`; the columns they read are usually hidden.
  std::vector<plan::WindowExpr> windows;
  std::vector<std::pair<std::string, bool>> order_by;  // (column name, descending)
  int64_t limit = -1;                                  // -1: no LIMIT
  int64_t offset = 0;                                  // OFFSET: rows skipped before LIMIT counts
  // Single-tuple aggregate: element 0 counts the rows that reached it; 0 → the columns marked
  // null_without_input are NULL. Empty: no column is ever NULL.
  std::string input_rows_buffer;
  // Groups were formed on the device by row references of heap-string keys (ir::AggregationTable::
  // merge_on_host): after decoding, rows with equal keys are merged per ResultColumnSpec::merge.
  bool merge_groups = false;
};

// How a state object that pipelines over a partitioned table filled on every rank is made whole on
// every rank (runtime/distributed/state_merge.h), after the last pipeline that fills it:
//   Elementwise   a scalar or direct-indexed aggregation table: slot s is the same group on every rank,
//                 so each buffer is reduced slot by slot (`lanes`, with each accumulator's combine);
//   HashedGroups  a hashed aggregation table: the occupied slots of every rank combined by their keys
//                 (`keys`), written back one group per slot (a later pipeline scans the table; nothing
//                 probes it);
//   Rows          an output: every rank's rows concatenated in rank order, the counter their sum;
//   Local         not merged: each rank keeps its own — a join build of co-partitioned tables on their
//                 key (ir HashTable::rank_local: its only prober scans the same rank's rows), or phase
//                 1 of a two-phase hashed aggregation (ir AggregationTable::rank_local: only the
//                 pipeline materializing its groups reads it, and that pipeline counts as partitioned).
// Any other hash table (join build) has no merge: the distributed compile materialises the rows of a
// build over a partitioned table and builds from the merged output on every rank (ir BuildOptions).
struct StateMerge {
  enum class Kind { Elementwise, HashedGroups, Rows, Local, Shuffle };
  enum class Op { Sum, Min, Max, Sum128 };  // Sum128: two words (low, high) per slot, added exactly
  struct Lane {
    std::string buffer;
    Op op = Op::Sum;
    uint32_t words = 1;  // elements per slot (per row): 2 for a 128-bit value, key lanes
  };
  Kind kind = Kind::Elementwise;
  std::string state;  // "agg0", "out1"
  std::string what;   // "aggregation table agg0 (direct-indexed)", for messages and the run's timings
  std::vector<Lane> lanes;       // Elementwise, HashedGroups: accumulators and the occupancy; Rows: columns
  // HashedGroups: the key buffers (words = key lanes per slot). Shuffle: the lanes (among `lanes`, in
  // the join's key order) whose values pick each row's rank.
  std::vector<Lane> keys;
  std::string occupancy_buffer;  // HashedGroups: a slot holds a group where it is non-zero
  std::string slots_param;       // Elementwise, HashedGroups: slots (empty: one, a single-tuple aggregate)
  std::string counter_buffer;    // Rows, Shuffle: the rows written
  std::string capacity_param;    // Rows, Shuffle: the rows the buffers hold
  // Rows of a compaction (a split table's dense rows, ir/pass_split_combine.cpp): merged after the
  // pipeline's last launch, the compaction's, instead of after its sink launches.
  bool after_compaction = false;
  // Rows: the result's compacted groups under ORDER BY ... LIMIT (a split table the result reads):
  // before they are concatenated, each rank keeps only its rows that can be among the first `top_k`
  // (LIMIT + OFFSET) by the result's ORDER BY — those its first key puts there, ties with the k-th
  // included (device_top_k_candidates). -1: every row.
  int64_t top_k = -1;
  // Base tables whose heap strings the state holds as row references (ir/state.h, "heap strings"):
  // a reference is a row of the rank's own partition, so a partitioned table here cannot be merged.
  std::vector<std::string> heap_tables;
  // Non-empty: this state cannot be merged yet (why); a distributed run refuses a query that would.
  std::string unsupported;
};
const char* state_merge_kind_name(StateMerge::Kind k);  // "elementwise", "hashed groups", "rows", "local"

// A capacity bounded by a count made at run time (ir::Param::count_buffer): once pipeline
// `counted_by` (the build that writes `count_buffer`, or the last pipeline writing the output whose
// row counter it is) ran, the executor lowers `param` to slots(count) when that is smaller, and
// allocates the buffers it sizes only then, before `first_use` (the first pipeline reading the
// param or one of those buffers) — the single-query executor before that pipeline, the concurrent
// and streamed one before its phase; neither counts those buffers in the state it places up front.
// Q18's groups of the orders IN (those of more than 300 items): 2^14 slots where the statistics
// gave 2^29 at SF 100; under mpirun, phase 2 of Q3's groups: 2^22 for the 1.1 M gathered rows where
// they gave 2^27.
struct CountedCapacity {
  std::string param;
  // Parameters whose value is this capacity's until a pipeline replaces it (the rows of an output it
  // sizes, before the output's counter is read): set with it, their buffers deferred with it.
  std::vector<std::string> same;
  std::string count_buffer;
  double groups_per_count = 1.0;  // groups a counted row can make (the other keys' distinct product)
  double load_factor = 0.5;
  size_t counted_by = 0;
  size_t first_use = 0;
  // Slots for `count` counted rows.
  int64_t slots(int64_t count) const;
  // `param` and `same`: the parameters whose buffers wait for the count.
  std::vector<std::string> deferred_params() const;
};

struct ExecutablePlan {
  std::string label;  // the query's name, used in messages
  std::string model;  // the micro execution model it was compiled for ("resolution", ...), for messages; may be empty
  std::optional<codegen::Dialect> dialect;  // the kernels' dialect: must be the backend's; none = not checked
  ModuleSource module;
  std::vector<ParamSpec> params;
  std::vector<BufferSpec> buffers;
  std::vector<PipelineSpec> pipelines;
  ResultSpec result;
  std::vector<StateMerge> merges;  // one per aggregation table and output (distributed runs)
  std::vector<CountedCapacity> counted;
};

// Throws Error(Internal) naming the first dangling reference or inconsistent field.
void validate_plan(const ExecutablePlan& plan);
// validate_plan, then Error(Usage) when the plan's kernels were generated for another dialect than
// the backend runs. Every executor calls this before anything touches the device.
void check_plan_runs_on(const ExecutablePlan& plan, const Backend& backend);

// The plan's parameter values by name (resolved when the plan was lowered), the starting point of a
// run's parameters (later pipelines and overflow restarts change their copy).
std::map<std::string, int64_t> param_values(const ExecutablePlan& plan);

}  // namespace hqc::runtime

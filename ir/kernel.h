// Kernels: what the fusion pass (ir/fuse_pipelines.h) makes of pipelines under a micro execution
// model, and what the code generator turns into source.
//
// Contract:
//   - under Resolution and Pipelined, each pipeline becomes exactly one compound kernel (the
//     pipeline's ops run in registers; nothing is materialized in between);
//   - under MultiPass, a pipeline with a reduction becomes a count kernel, a library prefix sum and
//     a write kernel, and an aggregating one also library calls (reduce; sort, gather,
//     reduce-by-key) and a finish kernel that stores the reduced values into its table
//     (Program::library_calls lists the calls between the kernels; ir/pass_fuse_multi_pass.cpp);
//     a hash build stays one kernel (no reduction); under OperatorAtATime the pipeline builder
//     first materializes every operator's result (ir/build_pipelines.cpp), then the same split runs;
//   - every reduction a kernel performs (write positions of a materialization, a single-tuple
//     aggregate, a grouped aggregate) is listed with its technique from Table 4 of the HorseQC
//     paper: A/B/C x 1 (multi-pass) / 2 (pipelined: one atomic per tuple) / 3 (resolution: local
//     resolution in the CTA, then one atomic per CTA or per group);
//   - `args` is the kernel's full parameter list in order; codegen emits them in that order and
//     the executor binds them in that order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/state.h"

namespace hqc::ir {

enum class ExecutionModel : uint8_t {
  Resolution,       // default: compound kernel, local resolution + one atomic per CTA (A3/B3/C3)
  Pipelined,        // compound kernel, one atomic per tuple (A2/B2/C2)
  OperatorAtATime,  // every operator's result materialized (a pipeline per operator), each run multi-pass
  MultiPass,        // count kernel, library prefix sum, write kernel (A1/B1/C1: library reductions)
};
// Whether the model runs reductions through library calls between kernels (A1/B1/C1): multi_pass,
// and operator_at_a_time, whose one-operator pipelines run the same way.
inline bool library_reductions(ExecutionModel m) { return m == ExecutionModel::MultiPass || m == ExecutionModel::OperatorAtATime; }
const char* execution_model_name(ExecutionModel m);  // "resolution", "pipelined", ...
// Parses the names above ("operator_at_a_time", "multi_pass"); throws Error(Usage) otherwise.
ExecutionModel parse_execution_model(const std::string& name);

enum class Technique : uint8_t { A1, A2, A3, B1, B2, B3, C1, C2, C3 };
const char* technique_name(Technique t);  // "A3"

enum class ReductionKind : uint8_t {
  WritePosition,     // A: output positions of a Materialize sink
  SingleAggregate,   // B: scalar aggregation
  GroupedAggregate,  // C: grouped aggregation
};
const char* reduction_kind_name(ReductionKind k);

// How a CTA resolves its tuples locally before the one global atomic (resolution model only).
enum class LocalResolution : uint8_t {
  None,           // pipelined model: straight to global atomics
  Simd,           // warp ballot / shuffle, no barrier
  WorkEfficient,  // Blelloch tree / privatized table in scratchpad, with barriers
};
const char* local_resolution_name(LocalResolution l);

struct Reduction {
  ReductionKind kind = ReductionKind::WritePosition;
  Technique technique = Technique::A3;
  LocalResolution local = LocalResolution::WorkEfficient;
  std::string state;  // the OutputTable or AggregationTable reduced into
  std::string note;   // why the technique is not the model's first choice (C2 under resolution), or ""
};

struct KernelArg {
  enum class Kind : uint8_t {
    Column,   // device values of table.column (codes for dictionary strings; for a heap string
              // column its U64 offsets, rows + 1 of them)
    ColumnHeap,  // the bytes of heap string column table.column (element type U64 by convention;
                 // the kernel reads bytes); always right after that column's Column argument
    Buffer,   // Program::buffers[name]
    Param,    // Program::params[name], passed by value as `type`
    Scratch,  // dynamic scratchpad (an OpenCL __local argument; CUDA uses dynamic shared memory)
  };
  Kind kind = Kind::Param;
  std::string name;    // Buffer/Param name; Column: the kernel-side identifier ("col_lo_quantity")
  std::string table;   // Column
  std::string column;  // Column
  ScalarType type = ScalarType::I64;  // element type (Column/Buffer) or value type (Param)
  bool written = false;               // Buffer: the kernel writes it
  // Column of an integer type (I32/I64): bytes per value on the device when fewer than the type's
  // (1, 2 or 4: signed, widened to `type` as the kernel loads it; pass narrow_columns); 0: as `type`.
  uint8_t stored_bytes = 0;
};

// What a launch of the kernel must respect (pass launch_constraints); the block size, grid and
// tuples per thread are the planner's decision at run time (planner/launch.h).
struct LaunchConstraints {
  std::string tuples_param;  // the rows the grid covers
  uint64_t fixed_grid = 0;   // tuples_param empty: this many CTAs (compaction kernels)
  uint32_t scratch_bytes_per_thread = 0;  // scratchpad per work-item for local resolution
  // A privatized aggregation table adds scratch_slot_bytes x value(scratch_slots_param) bytes
  // (known at run time only; the executor checks it against the device's limit).
  std::string scratch_slots_param;
  uint32_t scratch_slot_bytes = 0;
};

// Compound: a pipeline's fused kernel. CompactCount / CompactGather: the two launches that compact
// the aggregation table `state` after its pipeline (ir/state.h Compaction; pass compact_result);
// they run over a fixed grid (LaunchConstraints::fixed_grid) and stride over the table's chunks.
// PassCount / PassWrite / PassFinish: the multi-pass model's kernels of a pipeline (the count of
// outputs per source row; the write at the prefix-summed positions; the store of the library's
// reduced values into the aggregation table).
enum class KernelKind : uint8_t { Compound, CompactCount, CompactGather, PassCount, PassWrite, PassFinish };
const char* kernel_kind_name(KernelKind k);  // "compound", "compact_count", ..., "pass_finish"

// A device-wide primitive of a library (CUB on CUDA, Boost.Compute on OpenCL:
// runtime/device/device_primitives.h) that runs between two kernels of a pipeline; never generated.
enum class LibraryOp : uint8_t {
  InclusiveScan,  // buffers {in/out}: in place, int64 sums (per-row counts → end offsets)
  SortByKey,      // buffers {keys (u64), values (u32)}: stable, in place
  Gather,         // buffers {map (u32), in, out}: out[i] = in[map[i]], 64-bit elements
  Reduce,         // buffers {in, out}: out[0] = op over the values
  ReduceByKey,    // buffers {keys, values, out_keys, out_values}: one output per run of equal keys
};
const char* library_op_name(LibraryOp op);  // "inclusive_scan", "sort_by_key", ...
enum class ReduceOp : uint8_t { Sum, Min, Max };
const char* reduce_op_name(ReduceOp op);  // "sum", "min", "max"

struct LibraryCall {
  LibraryOp op = LibraryOp::InclusiveScan;
  int pipeline = 0;
  std::string after;                 // the kernel (Kernel::name) it runs after
  std::vector<std::string> buffers;  // per LibraryOp above
  std::string count_param;           // the elements it processes
  // Set from the call's outcome for the kernels and calls after it: InclusiveScan: the last
  // element (the total), capped at `limit_param`'s value when that is set; Reduce: 1 when it saw
  // values, else 0; ReduceByKey: the number of runs. Empty: none.
  std::string result_param;
  std::string limit_param;
  ReduceOp reduce = ReduceOp::Sum;   // Reduce, ReduceByKey
  bool f64 = false;                  // Reduce, ReduceByKey: doubles (else int64)
  std::string what;                  // what it is for (EXPLAIN, statistics)
};

// The multi-pass model's materialization of a pipeline's reduction (ir/pass_fuse_multi_pass.cpp):
// the buffers its count, write and finish kernels and its library calls share.
struct PassLane {               // one materialized value per qualifying tuple, in write order
  std::string accumulator;      // Accumulator::name, or "" for the occupancy (ones, never gathered)
  std::string part;             // "" (the value), "hi" / "lo" (a 128-bit SUM's int64 halves: v >> 32, v & 2^32-1)
  std::string buffer;           // the materialized values
  std::string reduced;          // the library's result: one per group (grouped), element 0 (scalar)
  bool f64 = false;
  ReduceOp reduce = ReduceOp::Sum;
};
struct MultiPass {
  std::string offsets;          // I64 per source row: outputs of the row (count), then end offsets (scan)
  // A1: rows earlier writers appended to the output (UNION ALL arms): the output's counter, read by
  // the host before the pipeline (runtime ParamFromBuffer); positions start there.
  std::string base_param;
  bool match_loop = false;      // a probe may match several times: counts accumulate (offsets zero-filled)
  std::string rows_param;       // qualifying tuples: the scan's total, capped at capacity_param
  std::string capacity_param;   // elements of the lanes (aggregation)
  std::string overflow_buffer;  // U32: a tuple past the capacity (an estimate) — grow; "" when a bound
  std::string total_buffer;     // U64: the scan's total, the capacity the re-run needs ("" when a bound)
  std::string keys, perm, sorted, reduced_keys;  // grouped: slot per tuple, its position, a gathered lane, slot per group
  std::string groups_param;     // groups the finish kernel stores (grouped: runs; scalar: 1 or 0)
  std::vector<PassLane> lanes;
};

struct Kernel {
  std::string name;  // C identifier: "<label>_p<pipeline>_<sink>", e.g. "q1_1_p1_aggregate"
  KernelKind kind = KernelKind::Compound;
  std::string state;  // CompactCount / CompactGather: the aggregation table compacted
  int pipeline = 0;
  std::vector<KernelArg> args;
  std::vector<Reduction> reductions;
  LaunchConstraints launch;
  MultiPass multi_pass;  // PassCount / PassWrite / PassFinish only
};

}  // namespace hqc::ir

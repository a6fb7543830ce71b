// Kernels: what the fusion pass (ir/fuse_pipelines.h) makes of pipelines under a micro execution
// model, and what the code generator turns into source.
//
// Contract:
//   - under Resolution and Pipelined, each pipeline becomes exactly one compound kernel (the
//     pipeline's ops run in registers; nothing is materialized in between);
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
  OperatorAtATime,  // representable, not implemented: Unsupported
  MultiPass,        // representable, not implemented: Unsupported
};
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
enum class KernelKind : uint8_t { Compound, CompactCount, CompactGather };
const char* kernel_kind_name(KernelKind k);  // "compound", "compact_count", "compact_gather"

struct Kernel {
  std::string name;  // C identifier: "<label>_p<pipeline>_<sink>", e.g. "q1_1_p1_aggregate"
  KernelKind kind = KernelKind::Compound;
  std::string state;  // CompactCount / CompactGather: the aggregation table compacted
  int pipeline = 0;
  std::vector<KernelArg> args;
  std::vector<Reduction> reductions;
  LaunchConstraints launch;
};

}  // namespace hqc::ir

// What the code generator hands to the runtime and to `horseqc-compile`: the source of one module
// (device library + one compound kernel per pipeline) in one dialect, and a launch manifest per
// kernel saying how to call it.
//
// Contract:
//   - KernelManifest::args is exactly the kernel's parameter list in order (the IR's order: column
//     buffers, state buffers, scalar params), with a Scratch entry last when the kernel takes dynamic
//     scratchpad (an OpenCL __local argument; absent from the CUDA signature, see dialect.h).
//   - work_items_param names the Param holding the rows of the scanned table: one work-item per row,
//     any grid size (kernels stride over tiles).
//   - ScratchSize gives the dynamic scratchpad bytes per CTA as a function of the block size and the
//     run-time params, so the planner can size blocks without recompiling.
//   - block_size_multiple / power_of_two_block: the launch constraints of the local-resolution
//     primitives used (templates/device/scan.h).
//   - library_calls (multi_pass) are run by the runtime's device primitives (CUB, Boost.Compute)
//     after the kernel each names; to_json() lists them under "library_calls" (absent otherwise).
//   - A kernel whose `module` is set (the compaction kernels: kCompactionModule) is not in `source`:
//     it is a kernel of that library module (codegen::compaction_module), launched like the others.
//   - to_json() is deterministic (stable key order, args in order) — it is the launch manifest file.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "codegen/dialect.h"
#include "ir/kernel.h"

namespace hqc::codegen {

struct ScratchSize {
  uint64_t fixed_bytes = 0;
  uint64_t bytes_per_thread = 0;
  // (param name, bytes per unit of the param's value): e.g. a privatised group table.
  std::vector<std::pair<std::string, uint64_t>> bytes_per_param_unit;

  bool empty() const { return fixed_bytes == 0 && bytes_per_thread == 0 && bytes_per_param_unit.empty(); }
  uint64_t bytes(uint32_t block_size, const std::function<int64_t(const std::string&)>& param_value) const;
};

struct ManifestReduction {
  std::string state;      // the OutputTable / AggregationTable reduced into
  ir::ReductionKind kind = ir::ReductionKind::WritePosition;
  ir::Technique technique = ir::Technique::A3;  // as generated (may differ from the IR's request,
  ir::LocalResolution local = ir::LocalResolution::WorkEfficient;  // see `note`)
  std::string note;       // why the generated technique differs from the requested one, or ""
};

// KernelManifest::module of the compaction kernels (codegen::compaction_module).
inline constexpr const char* kCompactionModule = "compaction";

struct KernelManifest {
  std::string name;
  std::string module;  // "": the program's own source; else the library module holding the kernel
  int pipeline = 0;
  std::vector<ir::KernelArg> args;
  std::string work_items_param;  // empty: a fixed grid of `fixed_grid` CTAs (compaction kernels)
  uint64_t fixed_grid = 0;
  std::string work_items_table;  // the scanned table ("" when scanning a materialized output)
  ScratchSize scratch;
  std::vector<ManifestReduction> reductions;
  uint32_t block_size_multiple = 1;    // 32 when a SIMD (warp) mechanism is used
  bool power_of_two_block = false;     // work-efficient trees need a power of two
};

struct GeneratedProgram {
  Dialect dialect = Dialect::Cuda;
  std::string label;
  std::string source;          // complete module: prelude + device library + kernels
  std::string kernels_source;  // the query-specific part only (what golden tests compare)
  std::vector<std::string> compile_options;
  std::vector<KernelManifest> kernels;
  // Multi-pass: the library primitives between the kernels, each after the kernel it names.
  std::vector<ir::LibraryCall> library_calls;

  nlohmann::json to_json() const;
};

}  // namespace hqc::codegen

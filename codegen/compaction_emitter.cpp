// The compaction kernels of pass compact_result (ir/state.h Compaction) are not generated: they are
// the kernels of the compaction module (templates/compact/compact.h), the same for every query of a
// dialect, compiled once per kernel cache beside the query's module and linked to it at run time
// (runtime Executor). Here: their manifests (the IR's arguments, which follow the module's
// signatures; a fixed grid; blocks of a power of two and a multiple of ir::kCompactBlock work-items;
// one scratchpad word per work-item), and the module's source.
#include "codegen/generate.h"
#include "codegen/kernel_context.h"
#include "codegen/names.h"
#include "storage/error.h"
#include "templates/template_library.h"

namespace hqc::codegen {

namespace detail {

void compaction_manifest(const ir::Program& program, const ir::Kernel& kernel, KernelManifest& manifest) {
  const ir::AggregationTable* agg = program.find_aggregation(kernel.state);
  if (agg == nullptr || !agg->compaction)
    throw Error(ErrorKind::Internal, "kernel " + kernel.name + ": " + kernel.state + " is not a compacted aggregation table");
  manifest.name = kernel.name;
  manifest.module = kCompactionModule;
  manifest.pipeline = kernel.pipeline;
  manifest.fixed_grid = kernel.launch.fixed_grid;
  manifest.power_of_two_block = true;
  // Blocks of 256 or more: a chunk's slots are read by the whole CTA (and the SIMD scan needs warps).
  manifest.block_size_multiple = ir::kCompactBlock;
  manifest.scratch.bytes_per_thread = 8;  // one word per work-item: the CTA sum
  manifest.args = kernel.args;
  ir::KernelArg scratch;
  scratch.kind = ir::KernelArg::Kind::Scratch;
  scratch.name = names::scratch_base();
  manifest.args.push_back(scratch);
}

}  // namespace detail

LibraryModule compaction_module(Dialect dialect) {
  LibraryModule m;
  m.name = kCompactionModule;
  m.source = device_library_source(dialect) + "\n// ==== templates/compact/compact.h ====\n" +
             templates::template_source("compact/compact.h");
  m.compile_options = compile_options(dialect);
  m.kernel_names = {ir::kCompactCountKernel, ir::kCompactGatherKernel, ir::kCompactGatherSlotsKernel, ir::kOrderWordsKernel};
  m.label = "compaction (templates/compact/compact.h)";
  return m;
}

}  // namespace hqc::codegen

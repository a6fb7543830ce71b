// Pass launch_constraints: what the planner must know of each kernel to launch it. No block size,
// grid or tuples per thread is chosen here: those depend on the compiled kernel, the device and the
// run's row counts, and planner::decide_launch (planner/launch.h) takes them at run time.
//   expects: kernels built (fuse_pipelines, compact_result).
//   guarantees: every compound kernel names the tuple-count param that sizes its grid and its
//     scratchpad demand: 8 bytes per thread for a work-efficient local resolution (A3/B3 prefix sum
//     or reduction over 64-bit values), plus the privatized aggregation table (C3), whose size is
//     slots x bytes per slot with slots known at run time.
//   Compaction kernels (pass compact_result): a fixed grid of kCompactGrid CTAs (any grid is
//   correct: they stride over the table's chunks), 8 bytes of scratchpad per work-item.
//   Multi-pass kernels: count and write cover the source rows, finish the groups (MultiPass::
//   groups_param); no scratchpad (their reductions are the library's).
//   The kernel source never depends on these.
#include "ir/passes.h"
#include "storage/error.h"

namespace hqc::ir {

void launch_constraints(Program& program) {
  for (Kernel& k : program.kernels) {
    k.launch = {};
    if (k.kind == KernelKind::PassFinish) {
      k.launch.tuples_param = k.multi_pass.groups_param;
      continue;
    }
    if (k.kind == KernelKind::CompactCount || k.kind == KernelKind::CompactGather) {
      // Compaction (templates/compact/compact.h): a fixed grid striding over the table's chunks, a
      // work-efficient CTA scan and sum over one 8-byte word per work-item.
      k.launch.fixed_grid = kCompactGrid;
      k.launch.scratch_bytes_per_thread = 8;
      continue;
    }
    const Pipeline& p = program.pipelines.at(static_cast<size_t>(k.pipeline));
    k.launch.tuples_param = p.source.rows_param;
    for (const Reduction& r : k.reductions) {
      if (r.local == LocalResolution::WorkEfficient) k.launch.scratch_bytes_per_thread = 8;
      if (r.technique == Technique::C3) {
        const AggregationTable* agg = program.find_aggregation(r.state);
        if (!agg) throw Error(ErrorKind::Internal, "launch_constraints: reduction into unknown aggregation " + r.state);
        // A hashed table's CTA copy has local_slots_param slots; a direct-indexed one all of them.
        k.launch.scratch_slots_param = agg->layout == AggLayout::GlobalHash ? agg->local_slots_param : agg->slots_param;
        k.launch.scratch_slot_bytes = agg->scratchpad_bytes_per_slot;
      }
    }
  }
}

}  // namespace hqc::ir

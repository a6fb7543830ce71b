// Pass plan_launch: a first launch configuration per kernel (planner::simple_launch), until the
// occupancy / knapsack planner of a later issue replaces it.
//   expects: kernels built (fuse_pipelines).
//   guarantees: every compound kernel has a block size, the tuple-count param that sizes its grid, and its
//     scratchpad demand: 8 bytes per thread for a work-efficient local resolution (A3/B3 prefix sum
//     or reduction over 64-bit values), plus the privatized aggregation table (C3), whose size is
//     slots x bytes per slot with slots known at run time.
//   Compaction kernels (pass compact_result): block 256, a fixed grid of 256 CTAs (any grid is
//   correct: they stride over the table's chunks), 8 bytes of scratchpad per work-item.
//   Tuples per thread stay 1 here: the value depends on the row count, which the executor knows
//   (it may call planner::simple_launch itself); the kernel source must not depend on it.
#include "ir/passes.h"
#include "planner/sizing.h"
#include "storage/error.h"

namespace hqc::ir {

void plan_launch(Program& program) {
  for (Kernel& k : program.kernels) {
    if (k.kind != KernelKind::Compound) {
      // Compaction (templates/device/compact.h): a fixed grid striding over the table's chunks, a
      // work-efficient CTA scan and sum over one 8-byte word per work-item.
      k.launch = {};
      k.launch.block_size = 256;
      k.launch.fixed_grid = 256;
      k.launch.scratch_bytes = k.launch.block_size * 8;
      continue;
    }
    const Pipeline& p = program.pipelines.at(static_cast<size_t>(k.pipeline));
    planner::SimpleLaunch l = planner::simple_launch(0);
    k.launch.block_size = l.block_size;
    k.launch.items_per_thread = 1;
    k.launch.tuples_param = p.source.rows_param;
    k.launch.scratch_bytes = 0;
    k.launch.scratch_slots_param.clear();
    k.launch.scratch_slot_bytes = 0;
    for (const Reduction& r : k.reductions) {
      if (r.local == LocalResolution::WorkEfficient) k.launch.scratch_bytes = k.launch.block_size * 8;
      if (r.technique == Technique::C3) {
        const AggregationTable* agg = program.find_aggregation(r.state);
        if (!agg) throw Error(ErrorKind::Internal, "plan_launch: reduction into unknown aggregation " + r.state);
        // A hashed table's CTA copy has local_slots_param slots; a direct-indexed one all of them.
        k.launch.scratch_slots_param = agg->layout == AggLayout::GlobalHash ? agg->local_slots_param : agg->slots_param;
        k.launch.scratch_slot_bytes = agg->scratchpad_bytes_per_slot;
      }
    }
  }
}

}  // namespace hqc::ir

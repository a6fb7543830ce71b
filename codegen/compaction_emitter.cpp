// The two compaction kernels of pass compact_result (ir/state.h Compaction), written against
// templates/device/compact.h:
//
//   HQC_KERNEL void <label>_p<N>_<agg>_compact_count(occupancy, chunk counts, slots HQC_SCRATCH_PARAMS)
//     hqc_compact_count(...)                 // occupied slots per chunk
//   HQC_KERNEL void <label>_p<N>_<agg>_compact_gather(occupancy, chunk counts, table buffers...,
//                                                     dense buffers..., [slot index], rows, slots ...)
//     for (chunk = HQC_BID(); chunk < HQC_COMPACT_CHUNKS; chunk += HQC_GDIM())
//       row = hqc_compact_chunk_base(...)    // occupied slots of the chunks before
//       for (tile over the chunk's slots)    // CTA prefix sum of the occupied flags → dense row
//         if (occupied) dense[row * words + w] = table[slot * words + w] for every word
//       hqc_compact_total(...)               // the chunk holding the table's end writes the rows
//
// Both kernels take any grid and any power-of-two block (the work-efficient CTA scan and sum).
#include "codegen/kernel_context.h"
#include "codegen/names.h"
#include "storage/error.h"

namespace hqc::codegen::detail {

void emit_compaction_kernel(const ir::Program& program, const ir::Kernel& kernel, SourceWriter& w, KernelManifest& manifest) {
  const ir::AggregationTable* agg = program.find_aggregation(kernel.state);
  if (agg == nullptr || !agg->compaction)
    throw Error(ErrorKind::Internal, "kernel " + kernel.name + ": " + kernel.state + " is not a compacted aggregation table");
  const ir::Compaction& c = *agg->compaction;
  manifest.name = kernel.name;
  manifest.pipeline = kernel.pipeline;
  manifest.fixed_grid = kernel.launch.fixed_grid;
  manifest.power_of_two_block = true;
  manifest.scratch.bytes_per_thread = 8;  // one word per work-item: hqc_cta_sum_i64_we
  std::vector<std::string> params;
  for (const ir::KernelArg& a : kernel.args) {
    manifest.args.push_back(a);
    params.push_back(kernel_parameter(a));
  }
  ir::KernelArg scratch;
  scratch.kind = ir::KernelArg::Kind::Scratch;
  scratch.name = names::scratch_base();
  manifest.args.push_back(scratch);

  const std::string slots = agg->slots_param;
  w.line(std::string("// ") + (kernel.kind == ir::KernelKind::CompactCount ? "compaction of " + agg->name + ", 1/2: occupied slots per chunk"
                                                                            : "compaction of " + agg->name + ", 2/2: occupied slots to dense rows, in slot order"));
  w.line("// work-items: any grid; block size: power of two");
  std::string head = "HQC_KERNEL void " + kernel.name + "(";
  for (size_t i = 0; i < params.size(); ++i) head += (i ? ",\n    " : "\n    ") + params[i];
  head += " HQC_SCRATCH_PARAMS)";
  auto body = w.block(head);
  w.line("HQC_SCRATCH_BEGIN");
  const std::string s = names::scratch_base();
  if (kernel.kind == ir::KernelKind::CompactCount) {
    // The occupancy is an int64 tuple count (u64 in some hand-built programs: the same bits).
    const ir::Buffer* occupancy = program.find_buffer(agg->occupancy_buffer);
    const std::string cast = occupancy != nullptr && occupancy->element == ir::ScalarType::I64 ? "" : "(HQC_GLOBAL const hqc_i64*)";
    w.line("hqc_compact_count(" + cast + agg->occupancy_buffer + ", " + slots + ", " + c.counts_buffer + ", " + s + ");");
    return;
  }
  auto chunks = w.block("for (hqc_i64 chunk = HQC_BID(); chunk < HQC_COMPACT_CHUNKS; chunk += HQC_GDIM())");
  w.line("const hqc_u64 base = hqc_compact_chunk_base(" + c.counts_buffer + ", chunk, " + s + ");");
  w.line("hqc_u64 row = base;");
  w.line("const hqc_i64 end = hqc_compact_chunk_end(chunk, " + slots + ");");
  {
    auto tiles = w.block("for (hqc_i64 tile = hqc_compact_chunk_begin(chunk, " + slots + "); tile < end; tile += HQC_BDIM())");
    w.line("const hqc_i64 slot = tile + HQC_LID();");
    w.line("const hqc_u32 occupied = slot < end && " + agg->occupancy_buffer + "[slot] != 0 ? 1u : 0u;");
    w.line("hqc_u32 occupied_in_tile;");
    w.line("const hqc_u64 r = row + hqc_cta_scan_we_u32(occupied, " + s + ", &occupied_in_tile);");
    {
      auto copy = w.block("if (occupied)");
      if (!c.slot_buffer.empty()) w.line(c.slot_buffer + "[r] = slot;");
      for (const ir::CompactedColumn& col : c.columns) {
        if (col.words == 1) {
          w.line(col.to + "[r] = " + col.from + "[slot];");
        } else {
          const std::string n = std::to_string(col.words);
          w.line("for (hqc_i32 word = 0; word < " + n + "; ++word) " + col.to + "[r * " + n + " + word] = " + col.from +
                 "[slot * " + n + " + word];");
        }
      }
    }
    w.line("row += occupied_in_tile;");
  }
  w.line("hqc_compact_total(" + c.counts_buffer + ", chunk, base, " + c.rows_buffer + ");");
}

}  // namespace hqc::codegen::detail

// The two compaction kernels of pass compact_result (ir/state.h Compaction), written against
// templates/device/compact.h:
//
//   HQC_KERNEL void <label>_p<N>_<agg>_compact_count(occupancy, chunk counts, slots HQC_SCRATCH_PARAMS)
//     hqc_compact_count(...)                 // occupied slots per chunk
//   HQC_KERNEL void <label>_p<N>_<agg>_compact_gather(occupancy, chunk counts, table buffers...,
//                                                     dense buffers..., [slot index], rows, slots ...)
//     row = hqc_compact_chunk_base(...)      // occupied slots before this CTA's first chunk
//     for (chunk over this CTA's consecutive chunks)
//       after = row + counts[chunk]
//       for (tile over the chunk's slots while row < after)   // none for an empty chunk
//         CTA prefix sum of the occupied flags → dense row
//         if (occupied) dense[row * words + w] = table[slot * words + w] for every word
//       hqc_compact_total(...)               // the chunk holding the table's end writes the rows
//
// Both kernels take any grid and any power-of-two block (a multiple of the warp where the dialect
// scans by SIMD); the manifest asks for blocks of a multiple of ir::kCompactBlock work-items.
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
  // Blocks of 256 or more: a chunk's slots are read by the whole CTA (and the SIMD scan needs warps).
  manifest.block_size_multiple = ir::kCompactBlock;
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
  w.line("const hqc_i64 chunks = hqc_compact_chunk_count(" + slots + ");");
  w.line("const hqc_i64 last = hqc_compact_cta_chunk(chunks, (hqc_i64)HQC_BID() + 1);");
  w.line("hqc_i64 chunk = hqc_compact_cta_chunk(chunks, (hqc_i64)HQC_BID());");
  w.line("hqc_u64 row = hqc_compact_chunk_base(" + c.counts_buffer + ", chunk, " + s + ");");
  auto chunks = w.block("for (; chunk < last; ++chunk)");
  w.line("const hqc_u64 after = row + " + c.counts_buffer + "[chunk];");
  w.line("const hqc_i64 end = hqc_compact_chunk_end(chunk, " + slots + ");");
  {
    // `row` is the same in every work-item: a chunk without groups is skipped, a sparse one left
    // after its last group.
    auto tiles = w.block("for (hqc_i64 tile = hqc_compact_chunk_begin(chunk, " + slots + "); tile < end && row < after; tile += HQC_BDIM())");
    w.line("const hqc_i64 slot = tile + HQC_LID();");
    w.line("const hqc_u32 occupied = slot < end && " + agg->occupancy_buffer + "[slot] != 0 ? 1u : 0u;");
    w.line("hqc_u32 occupied_in_tile;");
    w.line("const hqc_u64 r = row + hqc_compact_scan(occupied, " + s + ", &occupied_in_tile);");
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
  w.line("hqc_compact_total(chunk, chunks, after, " + c.rows_buffer + ");");
}

}  // namespace hqc::codegen::detail

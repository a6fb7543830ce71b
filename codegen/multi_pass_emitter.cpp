// The multi-pass model's kernels (ir/pass_fuse_multi_pass.cpp; HorseQC §4.2, Table 4's A1/B1/C1):
//
//   <k>_count   the pipeline; its sink stores each source row's outputs (0/1, or its matches under
//               a match loop) into the offsets buffer — no reduction in the kernel
//   (library)   inclusive prefix sum of the offsets, in place
//   <k>_write   the pipeline again; materialize (A1): MaterializeSink at the row's positions
//               (sink_emitter.cpp); aggregate (B1/C1): the LaneSink below stores per qualifying tuple
//               its slot (grouped), its position, and each accumulator's input (a 128-bit SUM as
//               two int64 halves) at the row's positions
//   (library)   reduce per lane (scalar); sort by slot, gather + reduce-by-key per lane (grouped)
//   <k>_finish  one work-item per group: the reduced values stored at the group's slot
//
// Expects: the kernels' MultiPass (ir/kernel.h) names the buffers; templates/multi_pass/multi_pass.h
//   is part of the module (codegen::generate appends it for this model).
// Guarantees:
//   - the count and write kernels see the same tuples in the same order per row: a row's outputs
//     occupy [offsets[r - 1], offsets[r]) — also those whose group slot is not found (a key outside
//     a direct-indexed domain, a full hashed table): they raise the table's flag and are written with
//     slot -1, which the finish kernel skips; the run is then failed or re-run by the host.
//   - positions past an estimated lane capacity raise MultiPass::overflow_buffer instead of writing,
//     and the last row's work-item stores the scan's total in MultiPass::total_buffer.
//   - the finish kernel writes each occupied slot once (groups are distinct slots): plain stores.
#include "codegen/kernel_context.h"
#include "codegen/names.h"
#include "storage/error.h"

namespace hqc::codegen::detail {
namespace {

std::string tile_args() { return std::string(names::tile()) + ", " + names::tile_items(); }

// The count kernel's sink: this row's outputs.
class CountSink : public SinkEmitter {
 public:
  void plan(KernelContext&) override {}
  void before_loop(KernelContext&) override {}
  void in_loop(KernelContext& ctx) override {
    const ir::MultiPass& mp = ctx.kernel.multi_pass;
    ctx.w.banner("count the outputs of this row (multi-pass 1/2: the library scans them)");
    ctx.w.line("hqc_mp_count(" + ctx.require_arg(mp.offsets) + ", " + tile_args() + ", " + names::flag() + ", " +
               (mp.match_loop ? "1" : "0") + ");");
  }
  void after_loop(KernelContext&) override {}
};

// The write kernel's sink of an aggregation: lanes at the row's positions.
class LaneSink : public SinkEmitter {
 public:
  void plan(KernelContext& ctx) override {
    agg_ = ctx.program.find_aggregation(ctx.pipeline.sink.state);
    if (agg_ == nullptr) throw Error(ErrorKind::Internal, ctx.where() + ": unknown aggregation " + ctx.pipeline.sink.state);
    grouped_ = agg_->layout != ir::AggLayout::Scalar;
    technique_ = grouped_ ? ir::Technique::C1 : ir::Technique::B1;
    accs_ = plan_accumulators(ctx, *agg_);
    ctx.manifest.reductions.push_back({agg_->name, grouped_ ? ir::ReductionKind::GroupedAggregate : ir::ReductionKind::SingleAggregate,
                                       technique_, ir::LocalResolution::None, ""});
  }
  void before_loop(KernelContext&) override {}
  void begin_tuple(KernelContext& ctx) override {
    const ir::MultiPass& mp = ctx.kernel.multi_pass;
    const std::string& offsets = ctx.require_arg(mp.offsets);
    ctx.w.line("hqc_u64 " + names::next_position(agg_->name) + " = hqc_mp_first_position(" + offsets + ", 0, " + tile_args() + ");");
    if (!mp.total_buffer.empty())
      ctx.w.line("hqc_mp_store_total(" + offsets + ", 0, " + tile_args() + ", " + ctx.require_arg(ctx.pipeline.source.rows_param) + ", " +
                 ctx.require_arg(mp.total_buffer) + ");");
  }
  void in_loop(KernelContext& ctx) override {
    const ir::MultiPass& mp = ctx.kernel.multi_pass;
    ctx.w.banner("aggregate " + agg_->name + ": materialize for the library's reduction (" + ir::technique_name(technique_) + ", sink)");
    const std::string pos = names::write_position(agg_->name), next = names::next_position(agg_->name);
    const std::string counted = names::counted(agg_->name), g = names::group_index(agg_->name);
    ctx.w.line("const hqc_u64 " + pos + " = " + next + ";");
    ctx.w.line("const hqc_i32 " + counted + " = " + names::flag() + ";");
    ctx.w.line(next + " += " + counted + " ? 1 : 0;");
    if (agg_->layout == ir::AggLayout::DirectIndexed) {
      emit_direct_slot(ctx, *agg_);
    } else if (grouped_) {
      const std::string key = emit_group_key(ctx, *agg_);
      ctx.w.line("const hqc_i64 " + g + " = " + names::flag() + " ? " + hashed_group_slot(ctx, *agg_, key) + " : -1;");
    }
    std::string cond = counted;
    if (!mp.overflow_buffer.empty())
      cond += " && hqc_mp_fits(" + pos + ", " + ctx.require_arg(mp.capacity_param) + ", " + ctx.require_arg(mp.overflow_buffer) + ")";
    auto s = ctx.w.block("if (" + cond + ")");
    if (grouped_) {
      // A tuple whose slot was not found keeps its position with slot -1 (flagged; finish skips it).
      ctx.w.line(ctx.require_arg(mp.keys) + "[" + pos + "] = (hqc_u64)(" + names::flag() + " ? " + g + " : -1);");
      ctx.w.line(ctx.require_arg(mp.perm) + "[" + pos + "] = (hqc_u32)" + pos + ";");
    }
    for (const ir::PassLane& lane : mp.lanes) ctx.w.line(ctx.require_arg(lane.buffer) + "[" + pos + "] = " + lane_value(ctx, lane) + ";");
  }
  void after_loop(KernelContext&) override {}

 private:
  std::string lane_value(const KernelContext& ctx, const ir::PassLane& lane) const {
    if (lane.accumulator.empty()) return "1";
    for (const AccumulatorPlan& a : accs_) {
      if (a.name != lane.accumulator || a.buffer == agg_->occupancy_buffer) continue;
      if (lane.part == "hi") return "hqc_mp_high_half(" + a.input + ")";
      if (lane.part == "lo") return "hqc_mp_low_half(" + a.input + ")";
      // A 128-bit MIN/MAX: its words as sort keys and values, and the tuple's position.
      if (lane.part == "low_key") return "hqc_mp_low_key(" + a.input + ")";
      if (lane.part == "high_key") return "hqc_mp_high_key(" + a.input + ")";
      if (lane.part == "low") return "(hqc_i64)(" + a.input + ").lo";
      if (lane.part == "high") return "(" + a.input + ").hi";
      if (lane.part == "order") return "(hqc_u32)" + names::write_position(agg_->name);
      return a.input;
    }
    throw Error(ErrorKind::Internal, ctx.where() + ": lane " + lane.buffer + " names no accumulator of " + agg_->name);
  }

  const ir::AggregationTable* agg_ = nullptr;
  bool grouped_ = false;
  ir::Technique technique_ = ir::Technique::C1;
  std::vector<AccumulatorPlan> accs_;
};

}  // namespace

std::unique_ptr<SinkEmitter> make_multi_pass_sink(const ir::Pipeline& pipeline, const ir::Kernel& kernel) {
  if (kernel.kind == ir::KernelKind::PassCount) return std::make_unique<CountSink>();
  if (kernel.kind == ir::KernelKind::PassWrite && pipeline.sink.kind == ir::SinkKind::Aggregate) return std::make_unique<LaneSink>();
  throw Error(ErrorKind::Internal, "kernel " + kernel.name + ": no multi-pass sink for a " + ir::kernel_kind_name(kernel.kind) + " kernel");
}

void emit_finish_kernel(const ir::Program& program, const ir::Kernel& kernel, SourceWriter& w, KernelManifest& manifest) {
  const ir::Pipeline& pipeline = program.pipelines.at(static_cast<size_t>(kernel.pipeline));
  const ir::AggregationTable* agg = program.find_aggregation(pipeline.sink.state);
  if (agg == nullptr) throw Error(ErrorKind::Internal, "kernel " + kernel.name + ": aggregates into unknown " + pipeline.sink.state);
  const ir::MultiPass& mp = kernel.multi_pass;
  const bool grouped = agg->layout != ir::AggLayout::Scalar;
  manifest.name = kernel.name;
  manifest.pipeline = kernel.pipeline;
  manifest.work_items_param = mp.groups_param;
  manifest.args = kernel.args;

  w.line("// " + pipeline.name + ", multi-pass " + (grouped ? "C1" : "B1") + " 3/3: the library's reduced values into " + agg->name);
  w.line("// work-items: one per " + std::string(grouped ? "group" : "aggregate (1, or 0 without qualifying tuples)") + " (" +
         mp.groups_param + "); block size: any");
  std::vector<std::string> params;
  for (const ir::KernelArg& a : kernel.args) params.push_back(kernel_parameter(a));
  std::string head = "HQC_KERNEL void " + kernel.name + "(";
  for (size_t i = 0; i < params.size(); ++i) head += (i ? ",\n    " : "\n    ") + params[i];
  auto body = w.block(head + ")");
  const std::string& groups = mp.groups_param;
  auto loop = w.block(std::string("for (hqc_i64 ") + names::tile() + " = hqc_tile_first(); " + names::tile() + " < " + groups + "; " +
                      names::tile() + " += hqc_tile_stride())");
  w.line(std::string("if (HQC_LID() >= hqc_tile_items(") + names::tile() + ", " + groups + ")) continue;");
  w.line(std::string("const hqc_i64 g = ") + names::tile() + " + HQC_LID();");
  if (grouped) {
    w.line("const hqc_i64 slot = (hqc_i64)" + mp.reduced_keys + "[g];");
    w.line("if (slot < 0 || slot >= " + agg->slots_param + ") continue;  // tuples without a slot: the table's flag is raised");
  } else {
    w.line("if (" + mp.rows_param + " == 0) continue;  // no qualifying tuple: the table keeps its identity");
    w.line("const hqc_i64 slot = 0;");
  }
  for (const ir::Accumulator& acc : agg->accumulators) {
    const ir::Buffer* b = program.find_buffer(acc.buffer);
    const std::string type = element_type(b->element);
    std::string hi, lo, whole, order, low, high;
    for (const ir::PassLane& l : mp.lanes) {
      if (l.accumulator != acc.name) continue;
      if (l.part == "order") order = l.buffer;
      if (l.part == "low") low = l.buffer;
      if (l.part == "high") high = l.buffer;
      if (l.reduced.empty()) continue;
      (l.part == "hi" ? hi : l.part == "lo" ? lo : whole) = l.reduced + "[g]";
    }
    if (!acc.state_buffer.empty()) {
      // The tuples' positions sorted by value: MIN is the first, MAX the last.
      const std::string at = order + "[" + (acc.func == plan::AggFunc::Min ? std::string("0") : mp.rows_param + " - 1") + "]";
      w.line("hqc_i128_store(" + acc.buffer + ", 0, hqc_i128_from_words(" + low + "[" + at + "], " + high + "[" + at + "]));");
      w.line(acc.state_buffer + "[0] = 2u;  // holds a value (templates/device/base.h's locked update)");
      continue;
    }
    if (acc.wide)
      w.line("hqc_i128_store(" + acc.buffer + ", (hqc_u64)slot, hqc_mp_i128_from_halves(" + hi + ", " + lo + "));");
    else
      w.line(acc.buffer + "[slot] = (" + type + ")" + whole + ";");
  }
  if (!agg->occupancy_buffer.empty()) {
    const std::string type = element_type(program.find_buffer(agg->occupancy_buffer)->element);
    std::string count = mp.rows_param;
    for (const ir::PassLane& l : mp.lanes)
      if (l.accumulator.empty()) count = l.reduced + "[g]";
    w.line(agg->occupancy_buffer + "[slot] = (" + type + ")" + count + ";");
  }
}

}  // namespace hqc::codegen::detail

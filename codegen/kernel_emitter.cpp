// The kernel frame of a compound kernel (templates/device/tile.h describes its shape) and the
// program assembly behind codegen::generate():
//
//   HQC_KERNEL void <name>(<args in IR order> HQC_SCRATCH_PARAMS) {
//     HQC_SCRATCH_BEGIN                       // only when the kernel uses scratchpad
//     <scratch pointers>                      // regions registered by the sink
//     <sink: before the loop>                 // B3 register accumulators, C3 scratch fill
//     for (tile ...) {                        // grid-stride over tiles of HQC_BDIM() rows
//       <loads / filters / probes / maps>     // operator_emitter.cpp
//       <sink: per tile>                      // sink_emitter.cpp
//     }
//     -- or, where the sink takes T tiles per iteration (SinkEmitter::tiles_per_iteration) --
//     for (tile_block ...) {                  // grid-stride over blocks of T tiles
//       <sink: before the tiles>              // what it keeps of each tile
//       for (tile_step ...) { <as above> }    // unrolled: T tiles' loads in flight at once
//       <sink: after the tiles>               // e.g. one warp combining of all T tiles
//     }
//     <sink: after the loop>                  // B3/C3 global propagation
//   }
//
// Expects / guarantees: see generate.h and kernel_context.h.
#include "codegen/expr_emitter.h"
#include "codegen/generate.h"
#include "codegen/kernel_context.h"
#include "codegen/names.h"
#include "storage/error.h"
#include "templates/template_library.h"

namespace hqc::codegen {
namespace detail {

std::string KernelContext::where() const {
  return "kernel " + kernel.name + " (pipeline " + std::to_string(pipeline.id) + ")";
}

const ir::AttributeBinding& KernelContext::binding(const std::string& source, const std::string& name) const {
  const ir::AttributeBinding* b = pipeline.find_attribute(source, name);
  if (b == nullptr)
    throw Error(ErrorKind::Internal, where() + ": attribute " + (source.empty() ? "" : source + ".") + name +
                                         " is not bound in the pipeline");
  return *b;
}

std::string KernelContext::variable(const std::string& source, const std::string& name) const {
  return binding(source, name).variable;
}

const std::string& KernelContext::require_arg(const std::string& name) const {
  for (const ir::KernelArg& a : kernel.args)
    if ((a.kind == ir::KernelArg::Kind::Buffer || a.kind == ir::KernelArg::Kind::Param) && a.name == name) return a.name;
  throw Error(ErrorKind::Internal, where() + ": \"" + name + "\" is used by the kernel but not one of its arguments");
}

const ir::Buffer& KernelContext::require_buffer(const std::string& name) const {
  require_arg(name);
  const ir::Buffer* b = program.find_buffer(name);
  if (b == nullptr) throw Error(ErrorKind::Internal, where() + ": buffer \"" + name + "\" is not declared in the program");
  return *b;
}

std::string KernelContext::expr(const plan::Expr& e) const {
  return expr(
      e, [this](const std::string& source, const std::string& column) { return variable(source, column); },
      [this](const std::string& source, const std::string& column) { return string_view(source, column); });
}

std::string KernelContext::expr(const plan::Expr& e, const AttributeResolver& resolve, const StringResolver& resolve_string) const {
  return emit_expr(
      e, resolve, resolve_string,
      OverflowChecks{[this]() -> std::string {
                       if (pipeline.arith_flags.empty())
                         throw Error(ErrorKind::Internal, where() + ": an overflow-checked expression but the pipeline has no flag word");
                       return require_arg(pipeline.arith_flags);
                     },
                     names::flag()});
}

StringView KernelContext::string_view(const std::string& source, const std::string& name) const {
  const ir::AttributeBinding& b = binding(source, name);
  const std::string what = (source.empty() ? "" : source + ".") + name;
  if (b.origin == ir::AttributeBinding::Origin::ProbePayload ||
      (b.origin == ir::AttributeBinding::Origin::SourceColumn && !pipeline.source.output.empty())) {
    // A row reference from a probe or a materialized output: the range of that row of the base
    // column (ir fuse_pipelines added its offsets and bytes as col_<v>, col_<v>_bytes). Tuples
    // without a match (flag clear, a left outer probe's NULL) read as the empty string.
    const std::string offsets = "col_" + b.variable, bytes = offsets + "_bytes";
    bool has_offsets = false, has_bytes = false;
    for (const ir::KernelArg& a : kernel.args) {
      has_offsets = has_offsets || (a.kind == ir::KernelArg::Kind::Column && a.name == offsets);
      has_bytes = has_bytes || (a.kind == ir::KernelArg::Kind::ColumnHeap && a.name == bytes);
    }
    if (has_offsets && has_bytes) {
      const std::string slot = null_slot(*this, source, name);
      const std::string valid = std::string(names::flag()) + (slot.empty() ? "" : " && " + slot + " >= 0");
      return {bytes, "hqc_row_str_begin(" + offsets + ", " + b.variable + ", " + valid + ")",
              "hqc_row_str_end(" + offsets + ", " + b.variable + ", " + valid + ")"};
    }
  }
  // A later stage (over an aggregation table or an output) carries row references without the bytes.
  if (b.origin != ir::AttributeBinding::Origin::SourceColumn || pipeline.source.table.empty())
    throw Error(ErrorKind::Unsupported, where() + ": heap string " + what +
                                            " is not a column of the table this pipeline scans; LIKE, SUBSTRING, string"
                                            " functions and string comparisons read heap strings only there");
  for (const ir::KernelArg& a : kernel.args) {
    if (a.kind == ir::KernelArg::Kind::ColumnHeap && a.table == pipeline.source.table && a.column == name)
      return {a.name, names::string_begin(b.variable), names::string_end(b.variable)};
  }
  throw Error(ErrorKind::Internal, where() + ": heap string " + what + " has no bytes argument");
}

std::string KernelContext::add_scratch(const std::string& pointer, const std::string& element,
                                       const std::string& words_expr, const ScratchSize& size) {
  scratch.push_back({pointer, element, words_expr, size});
  return pointer;
}

const char* element_type(ir::ScalarType t) {
  switch (t) {
    case ir::ScalarType::I32: return "hqc_i32";
    case ir::ScalarType::I64: return "hqc_i64";
    case ir::ScalarType::U32: return "hqc_u32";
    case ir::ScalarType::U64: return "hqc_u64";
    case ir::ScalarType::F64: return "hqc_f64";
  }
  return "hqc_i64";
}

const char* template_suffix(ir::ScalarType t) {
  switch (t) {
    case ir::ScalarType::I32:
    case ir::ScalarType::U32: return "i32";
    case ir::ScalarType::F64: return "f64";
    default: return "i64";
  }
}

const char* column_element_type(const ir::KernelArg& a) {
  switch (a.stored_bytes) {
    case 1: return "hqc_i8";
    case 2: return "hqc_i16";
    case 4: return "hqc_i32";
    default: return element_type(a.type);
  }
}

const char* column_load_suffix(const ir::KernelArg& a) {
  switch (a.stored_bytes) {
    case 1: return "i8";
    case 2: return "i16";
    case 4: return "i32";
    default: return template_suffix(a.type);
  }
}

ir::LocalResolution effective_local(ir::LocalResolution requested, Dialect dialect) {
  if (requested == ir::LocalResolution::Simd && !dialect_table(dialect).has_simd) return ir::LocalResolution::WorkEfficient;
  if (requested == ir::LocalResolution::None) return ir::LocalResolution::WorkEfficient;  // resolution needs one
  return requested;
}

std::string kernel_parameter(const ir::KernelArg& a) {
  switch (a.kind) {
    case ir::KernelArg::Kind::Column:
      return std::string("HQC_GLOBAL const ") + column_element_type(a) + "* HQC_RESTRICT " + a.name;
    case ir::KernelArg::Kind::ColumnHeap: return "HQC_GLOBAL const hqc_u8* HQC_RESTRICT " + a.name;
    case ir::KernelArg::Kind::Buffer:
      return std::string("HQC_GLOBAL ") + (a.written ? "" : "const ") + element_type(a.type) + "* " + a.name;
    case ir::KernelArg::Kind::Param: return std::string(element_type(a.type)) + " " + a.name;
    case ir::KernelArg::Kind::Scratch: return "";
  }
  return "";
}

namespace {

void emit_kernel(const ir::Program& program, const ir::Kernel& kernel, Dialect dialect, SourceWriter& w,
                 KernelManifest& manifest) {
  if (kernel.pipeline < 0 || static_cast<size_t>(kernel.pipeline) >= program.pipelines.size())
    throw Error(ErrorKind::Internal, "kernel " + kernel.name + " refers to pipeline " + std::to_string(kernel.pipeline) +
                                         ", which does not exist");
  const ir::Pipeline& pipeline = program.pipelines[static_cast<size_t>(kernel.pipeline)];
  manifest.name = kernel.name;
  manifest.pipeline = kernel.pipeline;
  manifest.work_items_param = pipeline.source.rows_param;
  manifest.work_items_table = pipeline.source.table;

  detail::KernelContext ctx{program, pipeline, kernel, dialect, w, manifest, {}};
  std::unique_ptr<detail::SinkEmitter> sink = detail::make_sink_emitter(pipeline, kernel);
  sink->plan(ctx);
  ctx.flat_loads = sink->tiles_per_iteration() > 1;
  detail::plan_operators(ctx);

  // Arguments: the IR's order; the scratchpad (if any) last, where HQC_SCRATCH_PARAMS puts it.
  bool ir_has_scratch = false;
  std::vector<std::string> params;
  for (const ir::KernelArg& a : kernel.args) {
    if (a.kind == ir::KernelArg::Kind::Scratch) {
      ir_has_scratch = true;
      continue;
    }
    manifest.args.push_back(a);
    params.push_back(kernel_parameter(a));
  }
  const bool uses_scratch = ir_has_scratch || !ctx.scratch.empty();
  if (uses_scratch) {
    ir::KernelArg s;
    s.kind = ir::KernelArg::Kind::Scratch;
    s.name = names::scratch_base();
    manifest.args.push_back(s);
  }
  // The IR may reserve a scratchpad the generated technique does not need (a hand-built kernel's
  // C2): the argument stays, so argument positions match the IR, with the smallest legal size.
  if (uses_scratch && ctx.scratch.empty()) manifest.scratch.fixed_bytes = 8;
  for (const detail::ScratchRegion& r : ctx.scratch) {
    manifest.scratch.fixed_bytes += r.size.fixed_bytes;
    manifest.scratch.bytes_per_thread += r.size.bytes_per_thread;
    for (const auto& t : r.size.bytes_per_param_unit) manifest.scratch.bytes_per_param_unit.push_back(t);
  }

  w.line("// " + pipeline.name);
  std::string block_rule = manifest.power_of_two_block ? "; block size: power of two" : "; block size: any";
  if (manifest.block_size_multiple > 1) block_rule += ", multiple of " + std::to_string(manifest.block_size_multiple);
  w.line("// work-items: one per row of " + pipeline.source.rows_param + block_rule);
  std::string head = "HQC_KERNEL void " + kernel.name + "(";
  if (params.empty()) throw Error(ErrorKind::Internal, ctx.where() + ": a kernel needs at least its row count argument");
  for (size_t i = 0; i < params.size(); ++i) head += (i ? ",\n    " : "\n    ") + params[i];
  head += uses_scratch ? " HQC_SCRATCH_PARAMS)" : ")";
  auto body = w.block(head);
  if (uses_scratch) w.line("HQC_SCRATCH_BEGIN");
  std::string offset = "0";
  for (const detail::ScratchRegion& r : ctx.scratch) {
    std::string base = std::string(names::scratch_base()) + " + " + offset;
    std::string cast = r.element == "hqc_u64" ? "" : "(HQC_LOCAL " + r.element + "*)(";
    w.line("HQC_LOCAL " + r.element + "* " + r.pointer + " = " + cast + base + (cast.empty() ? "" : ")") + ";");
    offset = offset == "0" ? r.words_expr : offset + " + " + r.words_expr;
  }
  sink->before_loop(ctx);
  {
    const std::string rows = ctx.require_arg(pipeline.source.rows_param);
    const auto tile_body = [&](const char* items) {
      w.line(std::string("const hqc_i32 ") + names::tile_items() + " = " + items + "(" + names::tile() + ", " + rows + ");");
      w.line(std::string("hqc_i32 ") + names::flag() + " = hqc_tile_valid(" + names::tile_items() + ");");
      sink->begin_tuple(ctx);
      detail::emit_operators(ctx, [&] { sink->in_loop(ctx); });
    };
    w.blank();
    const uint32_t tiles = sink->tiles_per_iteration();
    if (tiles == 1) {
      auto loop = w.block(std::string("for (hqc_i64 ") + names::tile() + " = hqc_tile_first(); " + names::tile() + " < " +
                          rows + "; " + names::tile() + " += hqc_tile_stride())");
      tile_body("hqc_tile_items");
    } else {
      // Blocks of `tiles` consecutive tiles per CTA, grid-strided; a tile past the rows has no valid
      // row (hqc_tile_rows() <= 0), so the unrolled loop needs no bound of its own.
      const std::string n = std::to_string(tiles), block = names::tile_block(), step = names::tile_step();
      auto loop = w.block("for (hqc_i64 " + block + " = hqc_tile_first() * " + n + "; " + block + " < " + rows + "; " +
                          block + " += hqc_tile_stride() * " + n + ")");
      w.line("hqc_tile_block_begin();");
      sink->before_tiles(ctx);
      w.line("#pragma unroll");
      {
        auto steps = w.block("for (hqc_i32 " + step + " = 0; " + step + " < " + n + "; ++" + step + ")");
        w.line(std::string("const hqc_i64 ") + names::tile() + " = " + block + " + " + step + " * (hqc_i64)HQC_BDIM();");
        tile_body("hqc_tile_rows");
      }
      sink->after_tiles(ctx);
    }
  }
  sink->after_loop(ctx);
}

}  // namespace
}  // namespace detail

namespace {

// What a reduction of HorseQC Table 4 does in the generated code, in a few words.
std::string technique_summary(const ManifestReduction& r) {
  const std::string local = r.local == ir::LocalResolution::Simd ? "SIMD" : "work-efficient";
  switch (r.technique) {
    case ir::Technique::A2: return "one global atomic per tuple";
    case ir::Technique::A3: return "prefix sum in the CTA (" + local + "), one global atomic per CTA";
    case ir::Technique::B2: return "one global atomic per tuple";
    case ir::Technique::B3: return "reduction in the CTA (" + local + "), one global atomic per CTA";
    case ir::Technique::C2:
      return r.local == ir::LocalResolution::Simd ? "global atomics per run of one group in a warp (SIMD)" : "global atomics per tuple";
    case ir::Technique::C3: return "table privatised in scratchpad, merged with global atomics per CTA";
    case ir::Technique::A1: return "count kernel, library prefix sum, write kernel";
    case ir::Technique::B1: return "count, prefix sum, inputs materialized, library reduce per aggregate";
    case ir::Technique::C1: return "count, prefix sum, (slot, inputs) materialized, library sort + reduce-by-key, finish kernel";
  }
  return "";
}

// "// ==== horseqc query q: N compound kernel(s), M model ====" and one line per reduction with the
// technique generated for it (which may differ from the model's request: the line then says why).
std::string query_banner(const ir::Program& program, const std::vector<KernelManifest>& kernels) {
  SourceWriter w;
  if (ir::library_reductions(program.model))
    w.line("// ==== horseqc query " + program.label + ": " + std::to_string(program.kernels.size()) + " kernel(s) and " +
           std::to_string(program.library_calls.size()) + " library call(s) for " + std::to_string(program.pipelines.size()) +
           " pipeline(s), " + ir::execution_model_name(program.model) + " model ====");
  else
    w.line("// ==== horseqc query " + program.label + ": " + std::to_string(program.pipelines.size()) + " compound kernel(s), " +
           ir::execution_model_name(program.model) + " model ====");
  for (const KernelManifest& k : kernels)
    for (const ManifestReduction& r : k.reductions)
      w.line("// p" + std::to_string(k.pipeline) + " " + ir::reduction_kind_name(r.kind) + " into " + r.state + ": " +
             ir::technique_name(r.technique) + ", " + technique_summary(r) + (r.note.empty() ? "" : " (" + r.note + ")"));
  return w.str();
}

}  // namespace

GeneratedProgram generate(const ir::Program& program, Dialect dialect) {
  if (program.kernels.empty())
    throw Error(ErrorKind::Internal, "query " + program.label + ": no kernels; run the fusion pass before codegen");
  GeneratedProgram out;
  out.dialect = dialect;
  out.label = program.label;
  out.compile_options = compile_options(dialect);
  SourceWriter w;
  for (const ir::Kernel& k : program.kernels) {
    KernelManifest m;
    if (k.kind == ir::KernelKind::CompactCount || k.kind == ir::KernelKind::CompactGather) {
      detail::compaction_manifest(program, k, m);  // the compaction module's kernel: no source here
      out.kernels.push_back(std::move(m));
      continue;
    }
    w.blank();
    if (k.kind == ir::KernelKind::Compound || k.kind == ir::KernelKind::PassCount || k.kind == ir::KernelKind::PassWrite)
      detail::emit_kernel(program, k, dialect, w, m);
    else
      detail::emit_finish_kernel(program, k, w, m);
    out.kernels.push_back(std::move(m));
  }
  // The banner is written last: the technique of each reduction is known once its sink was emitted.
  out.kernels_source = query_banner(program, out.kernels) + "\n" + w.str();
  out.library_calls = program.library_calls;
  // The multi-pass kernels' helpers follow the device library only in their model's modules.
  const std::string multi_pass = ir::library_reductions(program.model)
                                     ? "\n// ==== templates/multi_pass/multi_pass.h ====\n" + templates::template_source("multi_pass/multi_pass.h")
                                     : "";
  out.source = device_library_source(dialect) + multi_pass + "\n" + out.kernels_source;
  return out;
}

}  // namespace hqc::codegen

// Pipeline operators of a compound kernel, inside the tile loop: column loads, Filter, Probe, Map.
//
// Expects: the tile loop variables (names::tile(), names::tile_items(), names::flag()) are in
//   scope; `flag` starts as hqc_tile_valid(tile_items).
// Guarantees:
//   - a source column (of a base table, or of the materialized output the pipeline scans) is loaded once, right before the first operator that reads it: a full/partial
//     tile load before the first filter or probe, a predicated load (only rows whose flag is set
//     touch memory) after one. Columns only the sink reads are loaded after the last operator.
//   - a heap string column is loaded as its row's byte range (names::string_begin/end); the
//     expressions reading it take the heap's bytes argument (templates/device/strings.h).
//   - Filter: flag = flag && predicate. Probe: the lookup runs only for rows still qualifying;
//     inner and semi: flag = flag && found, anti: flag = flag && !found (NOT EXISTS: a probe key
//     with no equal build key survives); then (inner only, semi/anti tables have no payload) the
//     payload attributes the rest of the pipeline uses are read from the payload columns. Left
//     outer probes throw Unsupported. Map: one const variable per expression.
//   - every operator leaves a banner "// ---- <what> (op N) ----".
#include <set>

#include "codegen/expr_emitter.h"
#include "codegen/kernel_context.h"
#include "codegen/names.h"
#include "storage/error.h"

namespace hqc::codegen::detail {
namespace {

using Origin = ir::AttributeBinding::Origin;

// Source columns referenced by an expression, as (source, column) pairs.
void collect_columns(const plan::Expr& e, std::set<std::pair<std::string, std::string>>& out) {
  plan::visit(e, [&out](const plan::Expr& x) {
    if (x.kind == plan::ExprKind::Column) out.insert({x.source, x.column});
  });
}

class OperatorWriter {
 public:
  explicit OperatorWriter(KernelContext& ctx) : ctx_(ctx) {}

  void run() {
    const ir::Pipeline& p = ctx_.pipeline;
    for (const ir::PipelineOp& op : p.ops) {
      std::set<std::pair<std::string, std::string>> used;
      switch (op.kind) {
        case ir::PipelineOpKind::Filter: collect_columns(*op.predicate, used); break;
        case ir::PipelineOpKind::Probe:
          for (const auto& k : op.probe_keys) collect_columns(*k, used);
          break;
        case ir::PipelineOpKind::Map:
          for (const auto& ne : op.exprs) collect_columns(*ne.expr, used);
          break;
      }
      load_columns(&used, "scan " + p.source.alias + " (for op " + std::to_string(op.id) + ")");
      switch (op.kind) {
        case ir::PipelineOpKind::Filter: filter(op); break;
        case ir::PipelineOpKind::Probe: probe(op); break;
        case ir::PipelineOpKind::Map: map(op); break;
      }
    }
    load_columns(nullptr, "scan " + p.source.alias + " (for the sink)");
  }

 private:
  // Loads the not-yet-loaded source columns in `used` (all of them when `used` is null).
  void load_columns(const std::set<std::pair<std::string, std::string>>* used, const std::string& title) {
    bool bannered = false;
    for (const ir::AttributeBinding& b : ctx_.pipeline.attributes) {
      if (b.origin != Origin::SourceColumn || loaded_.count(b.variable) != 0) continue;
      if (used != nullptr && used->count({b.attr.source, b.attr.name}) == 0) continue;
      const ir::KernelArg* arg = source_argument(b);
      if (!bannered) {
        ctx_.w.banner(title);
        bannered = true;
      }
      if (arg->kind == ir::KernelArg::Kind::Column && b.attr.type.is_string() && b.attr.dict_table.empty()) {
        load_string(b, *arg);
        continue;
      }
      const char* t = template_suffix(arg->type);
      std::string load = narrowed_ ? std::string("hqc_pred_load_") + t + "(" + arg->name + ", " + names::tile() + ", " +
                                         names::flag() + ")"
                                   : std::string("hqc_load_") + t + "(" + arg->name + ", " + names::tile() + ", " +
                                         names::tile_items() + ")";
      ctx_.w.line(std::string("const ") + element_type(arg->type) + " " + b.variable + " = " + load + ";");
      loaded_.insert(b.variable);
    }
  }

  // A heap string column of the scanned table: this row's byte range [begin, end) of its heap.
  void load_string(const ir::AttributeBinding& b, const ir::KernelArg& offsets) {
    const std::string where = narrowed_ ? std::string(names::flag()) : names::tile_items();
    const std::string prefix = narrowed_ ? "hqc_pred_load_str_" : "hqc_load_str_";
    for (const char* part : {"begin", "end"}) {
      const std::string var = part[0] == 'b' ? names::string_begin(b.variable) : names::string_end(b.variable);
      ctx_.w.line("const hqc_u64 " + var + " = " + prefix + part + "(" + offsets.name + ", " + names::tile() + ", " + where + ");");
    }
    loaded_.insert(b.variable);
  }

  // The argument a source attribute is read from: a table column, or the buffer of a column of the
  // materialized output this pipeline scans.
  const ir::KernelArg* source_argument(const ir::AttributeBinding& b) const {
    const ir::SourceScan& src = ctx_.pipeline.source;
    std::string buffer;
    if (!src.output.empty()) {
      const ir::OutputTable* out = ctx_.program.find_output(src.output);
      if (out == nullptr) throw Error(ErrorKind::Internal, ctx_.where() + ": scans unknown output " + src.output);
      for (const ir::OutputColumn& c : out->columns)
        if (c.expr && c.expr->source == b.attr.source && c.name == b.attr.name) buffer = c.buffer;
    }
    for (const ir::KernelArg& a : ctx_.kernel.args) {
      if (src.output.empty() && a.kind == ir::KernelArg::Kind::Column && a.table == src.table && a.column == b.attr.name)
        return &a;
      if (!src.output.empty() && a.kind == ir::KernelArg::Kind::Buffer && a.name == buffer) return &a;
    }
    throw Error(ErrorKind::Internal, ctx_.where() + ": no argument holds source attribute " + b.attr.source + "." +
                                         b.attr.name + (src.output.empty() ? "" : " of output " + src.output));
  }

  void filter(const ir::PipelineOp& op) {
    ctx_.w.banner("filter (op " + std::to_string(op.id) + ")");
    ctx_.w.line(std::string(names::flag()) + " = " + names::flag() + " && " + ctx_.expr(*op.predicate) + ";");
    narrowed_ = true;
  }

  void probe(const ir::PipelineOp& op) {
    const ir::HashTable* ht = ctx_.program.find_hash_table(op.hash_table);
    if (ht == nullptr) throw Error(ErrorKind::Internal, ctx_.where() + ": probe of unknown hash table " + op.hash_table);
    if (op.join_type == plan::JoinType::LeftOuter)
      throw Error(ErrorKind::Unsupported, ctx_.where() + ": " + plan::join_type_name(op.join_type) +
                                              " join probes are not generated yet (inner, semi and anti joins only)");
    if (op.probe_keys.size() != 1 || ht->key_buffers.size() != 1)
      throw Error(ErrorKind::Unsupported, ctx_.where() + ": probe of " + ht->name + " on " +
                                              std::to_string(op.probe_keys.size()) +
                                              " keys: only single-column join keys are generated yet");
    const bool anti = op.join_type == plan::JoinType::Anti;
    ctx_.w.banner(std::string(op.join_type == plan::JoinType::Inner ? "probe " : anti ? "anti probe " : "semi probe ") +
                  ht->name + " (op " + std::to_string(op.id) + ")");
    const ir::Buffer& keys = ctx_.require_buffer(ht->key_buffers[0]);
    const char* kt = template_suffix(keys.element);
    std::string key = "(" + std::string(element_type(keys.element)) + ")" + ctx_.expr(*op.probe_keys[0]);
    std::string call;
    if (ht->layout == ir::HashLayout::PerfectHash)
      call = std::string("hqc_ph_probe_") + kt + "(" + keys.name + ", " + ctx_.require_arg(ht->capacity_param) + ", " +
             ctx_.require_arg(ht->key_min_param) + ", " + key + ")";
    else
      call = std::string("hqc_oa_probe_") + kt + "(" + keys.name + ", " + ctx_.require_arg(ht->capacity_param) + ", " +
             key + ")";
    std::string slot = names::probe_slot(op.id);
    ctx_.w.line("const hqc_i64 " + slot + " = " + names::flag() + " ? " + call + " : -1;");
    // A row already dropped has slot -1 too, so the anti test must keep `flag &&` in front.
    ctx_.w.line(std::string(names::flag()) + " = " + names::flag() + " && " + slot + (anti ? " < 0;" : " >= 0;"));
    narrowed_ = true;
    for (const ir::AttributeBinding& b : ctx_.pipeline.attributes) {
      if (b.origin != Origin::ProbePayload || b.op_id != op.id) continue;
      if (b.payload_index >= ht->payload_buffers.size())
        throw Error(ErrorKind::Internal, ctx_.where() + ": payload index out of range for " + ht->name);
      const ir::Buffer& pay = ctx_.require_buffer(ht->payload_buffers[b.payload_index]);
      ctx_.w.line(std::string("const ") + element_type(pay.element) + " " + b.variable + " = hqc_ht_get_" +
                  template_suffix(pay.element) + "(" + pay.name + ", " + slot + ");");
    }
  }

  void map(const ir::PipelineOp& op) {
    ctx_.w.banner("map (op " + std::to_string(op.id) + ")");
    for (const plan::NamedExpr& ne : op.exprs) {
      const ir::AttributeBinding& b = ctx_.binding("", ne.name);
      ctx_.w.line(std::string("const ") + device_type_of(b.attr.type) + " " + names::map_value(b.variable) + " = " +
                  ctx_.expr(*ne.expr) + ";");
    }
  }

  KernelContext& ctx_;
  std::set<std::string> loaded_;
  bool narrowed_ = false;  // a filter or probe has run: later loads are predicated on `flag`
};

}  // namespace

void emit_operators(KernelContext& ctx) { OperatorWriter(ctx).run(); }

}  // namespace hqc::codegen::detail

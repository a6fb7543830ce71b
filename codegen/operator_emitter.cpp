// Pipeline operators of a compound kernel, inside the tile loop: column loads, Filter, Probe, Map.
//
// Expects: the tile loop variables (names::tile(), names::tile_items(), names::flag()) are in
//   scope; `flag` starts as hqc_tile_valid(tile_items).
// Guarantees:
//   - a pipeline over an aggregation table (SourceScan::aggregation) first drops empty slots; its
//     group keys and accumulators load like columns (keys of a direct-indexed table are computed
//     from the slot index).
//   - a source column (of a base table, or of the materialized output the pipeline scans) is loaded once, right before the first operator that reads it: a full/partial
//     tile load before the first filter or probe, a predicated load (only rows whose flag is set
//     touch memory) after one. Columns only the sink reads are loaded after the last operator.
//   - a heap string of a base-table scan is its row reference (ir/state.h), not a load; where an
//     expression reads its bytes (the kernel then has its offsets and bytes arguments), also its
//     row's byte range (names::string_begin/end) for templates/device/strings.h.
//   - Filter: flag = flag && predicate. Probe: the lookup runs only for rows still qualifying;
//     inner and semi: flag = flag && found, anti: flag = flag && !found (NOT EXISTS: a probe key
//     with no equal build key survives); left outer: flag unchanged. Then (inner and left outer)
//     the payload attributes the rest of the pipeline uses are read from the payload columns (0 =
//     NULL without a match). Composite keys hash all columns and compare the others at each slot
//     of the chain walk (of a chained table: at each entry of the key's list, where `slot` is the
//     entry and indexes the payload). A semi/anti residual is tested per match inside the probe (the walk stops
//     at the first match where it holds). Map: one const variable per expression.
//   - Match loop (inner / left outer probe of a table whose keys are not unique): the rest of the
//     pipeline, sink included, is written inside `do { flag = before && match; ... advance } while
//     (more)`, so the pipeline stays ONE compound kernel (HorseQC: the probe visits every match).
//     When the sink resolves inside the tile loop (A3), `more` is hqc_cta_any(...) so all
//     work-items run the CTA scan equally often; a left outer loop runs once for a tuple without a
//     match (flag kept, payload NULL). Nested probes nest loops; they close after the sink.
//   - every operator leaves a banner "// ---- <what> (op N) ----".
#include <functional>
#include <map>
#include <set>

#include "codegen/expr_emitter.h"
#include "codegen/kernel_context.h"
#include "codegen/names.h"
#include "ir/walk.h"
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

  void run(const std::function<void()>& sink) {
    const ir::Pipeline& p = ctx_.pipeline;
    const std::string source = p.source.aggregation.empty() ? p.source.alias : p.source.aggregation;
    if (!p.source.aggregation.empty()) scan_aggregation_slots();
    for (const ir::PipelineOp& op : p.ops) {
      std::set<std::pair<std::string, std::string>> used;
      switch (op.kind) {
        case ir::PipelineOpKind::Filter: collect_columns(*op.predicate, used); break;
        case ir::PipelineOpKind::Probe:
          for (const auto& k : op.probe_keys) collect_columns(*k, used);
          if (op.residual) collect_columns(*op.residual, used);
          break;
        case ir::PipelineOpKind::Map:
          // A map that only copies a NULL-able column passes the NULL on (Pipeline::null_probe).
          for (const auto& ne : op.exprs)
            if (ne.expr->kind != plan::ExprKind::Column) collect_columns(*ne.expr, used);
          break;
      }
      reject_nulls(used, "op " + std::to_string(op.id));
      if (op.kind == ir::PipelineOpKind::Map)
        for (const auto& ne : op.exprs)
          if (ne.expr->kind == plan::ExprKind::Column) used.insert({ne.expr->source, ne.expr->column});
      load_columns(&used, "scan " + source + " (for op " + std::to_string(op.id) + ")");
      switch (op.kind) {
        case ir::PipelineOpKind::Filter: filter(op); break;
        case ir::PipelineOpKind::Probe: probe(op); break;
        case ir::PipelineOpKind::Map: map(op); break;
      }
    }
    load_columns(nullptr, "scan " + source + " (for the sink)");
    sink();
    // Close the match loops, innermost first: advance to the next match, then test for more.
    while (!open_.empty()) {
      for (const std::string& l : open_.back().advance) ctx_.w.line(l);
      open_.pop_back();
    }
  }

 private:
  // A pipeline over an earlier pipeline's aggregation table runs one work-item per slot: a slot
  // whose tuple count is 0 holds no group and drops out before any operator (a scalar table's one
  // slot always stays: SQL gives one row even over no input).
  void scan_aggregation_slots() {
    const ir::AggregationTable& agg = aggregation();
    ctx_.w.banner("scan aggregation " + agg.name + " (one work-item per slot)");
    if (agg.layout == ir::AggLayout::Scalar) return;
    const ir::Buffer& occupancy = ctx_.require_buffer(agg.occupancy_buffer);
    ctx_.w.line(std::string(names::flag()) + " = " + names::flag() + " && hqc_load_i64(" + occupancy.name + ", " +
                names::tile() + ", " + names::tile_items() + ") > 0;");
    narrowed_ = true;
  }

  const ir::AggregationTable& aggregation() const {
    const ir::AggregationTable* agg = ctx_.program.find_aggregation(ctx_.pipeline.source.aggregation);
    if (agg == nullptr) throw Error(ErrorKind::Internal, ctx_.where() + ": scans unknown aggregation " + ctx_.pipeline.source.aggregation);
    return *agg;
  }

  // The value of a group key or accumulator of the scanned aggregation table, as an expression of
  // the attribute's device type: accumulators and hashed keys are stored 64-bit (widened), the
  // keys of a direct-indexed table follow from the slot index (mixed radix, last key stride 1).
  std::string aggregation_value(const ir::AttributeBinding& b) const {
    const ir::AggregationTable& agg = aggregation();
    const std::string to = device_type_of(b.attr.type);
    for (size_t i = 0; i < agg.keys.size(); ++i) {
      const ir::GroupKey& key = agg.keys[i];
      if (key.name != b.attr.name) continue;
      if (agg.layout == ir::AggLayout::DirectIndexed) {
        std::string slot = std::string("hqc_tile_row(") + names::tile() + ")";
        std::string stride;
        for (size_t j = i + 1; j < agg.keys.size(); ++j) stride += (stride.empty() ? "" : " * ") + ctx_.require_arg(agg.keys[j].domain_param);
        if (!stride.empty()) slot = "(" + slot + " / (" + stride + "))";
        return "(" + to + ")(" + slot + " % " + ctx_.require_arg(key.domain_param) + " + " + ctx_.require_arg(key.min_param) + ")";
      }
      if (agg.layout != ir::AggLayout::GlobalHash)
        throw Error(ErrorKind::Internal, ctx_.where() + ": group key " + key.name + " of scalar aggregation " + agg.name);
      const ir::Buffer& keys = ctx_.require_buffer(key.key_buffer);
      if (agg.key_lanes <= 1) return load_of(keys, to);
      // Several keys share one buffer: lane key_lane of each slot's key_lanes elements.
      return "(" + to + ")(" + names::flag() + " ? " + keys.name + "[hqc_tile_row(" + names::tile() + ") * " +
             std::to_string(agg.key_lanes) + " + " + std::to_string(key.key_lane) + "] : 0)";
    }
    for (const ir::Accumulator& acc : agg.accumulators) {
      if (acc.name != b.attr.name) continue;
      // A 128-bit SUM (two words per slot) is read whole where the IR typed it Decimal(38, s).
      if (acc.wide != ir::is_decimal128(b.attr.type))
        throw Error(ErrorKind::Internal, ctx_.where() + ": accumulator " + acc.name + " is bound as " + b.attr.type.to_string());
      return acc.wide ? load_i128(ctx_.require_buffer(acc.buffer).name) : load_of(ctx_.require_buffer(acc.buffer), to);
    }
    throw Error(ErrorKind::Internal, ctx_.where() + ": " + b.attr.name + " is no column of aggregation " + agg.name);
  }

  // This tile's element of `buffer` by device/tile.h's load of suffix `t`: only where the row still
  // qualifies once a filter or probe narrowed the rows (hqc_pred_load_*), and the flat (branch-free)
  // form in a kernel over several tiles per iteration (KernelContext::flat_loads).
  std::string tile_load(const std::string& t, const std::string& buffer) const {
    const std::string family = std::string(ctx_.flat_loads ? "hqc_flat_" : "hqc_") + (narrowed_ ? "pred_load_" : "load_");
    return family + t + "(" + buffer + ", " + names::tile() + ", " + (narrowed_ ? names::flag() : names::tile_items()) + ")";
  }

  // Element hqc_tile_row(tile) of a column of 128-bit values (two words per row).
  std::string load_i128(const std::string& buffer) const { return tile_load("i128", buffer); }

  std::string load_of(const ir::Buffer& buffer, const std::string& to) const {
    const std::string load = tile_load(template_suffix(buffer.element), buffer.name);
    return to == element_type(buffer.element) ? load : "(" + to + ")" + load;
  }

  // Loads the not-yet-loaded source columns in `used` (all of them when `used` is null).
  void load_columns(const std::set<std::pair<std::string, std::string>>* used, const std::string& title) {
    bool bannered = false;
    for (const ir::AttributeBinding& b : ctx_.pipeline.attributes) {
      if (b.origin != Origin::SourceColumn || loaded_.count(b.variable) != 0) continue;
      if (used != nullptr && used->count({b.attr.source, b.attr.name}) == 0) continue;
      if (!bannered) {
        ctx_.w.banner(title);
        bannered = true;
      }
      if (!ctx_.pipeline.source.aggregation.empty()) {
        ctx_.w.line(std::string("const ") + device_type_of(b.attr.type) + " " + b.variable + " = " + aggregation_value(b) + ";");
        loaded_.insert(b.variable);
        continue;
      }
      if (b.attr.type.is_string() && b.attr.dict_table.empty() && !b.attr.type.packed && ctx_.pipeline.source.output.empty()) {
        // A heap string's device value is its row reference (ir/state.h, "Heap strings"); where an
        // expression reads its bytes, also its byte range.
        ctx_.w.line("const hqc_i32 " + b.variable + " = (hqc_i32)(" + chunk_base(ir::Param::ChunkBase::Row, "") +
                    " + hqc_tile_row(" + names::tile() + "));  // row of " + b.attr.source + "." + b.attr.name);
        if (const ir::KernelArg* offsets = heap_offsets_argument(b)) load_string(b, *offsets);
        loaded_.insert(b.variable);
        continue;
      }
      const ir::KernelArg* arg = source_argument(b);
      if (ir::is_decimal128(b.attr.type)) {  // a 128-bit column of the scanned output
        ctx_.w.line("const hqc_i128 " + b.variable + " = " + load_i128(arg->name) + ";");
        loaded_.insert(b.variable);
        continue;
      }
      const char* t = arg->kind == ir::KernelArg::Kind::Column ? column_load_suffix(*arg) : template_suffix(arg->type);
      std::string load = tile_load(t, arg->name);
      // A narrowed column (ir pass narrow_columns) is widened to its type as it is loaded.
      if (arg->kind == ir::KernelArg::Kind::Column && arg->stored_bytes != 0) load = std::string("(") + element_type(arg->type) + ")" + load;
      ctx_.w.line(std::string("const ") + element_type(arg->type) + " " + b.variable + " = " + load + ";");
      loaded_.insert(b.variable);
    }
  }

  // The offsets argument of a heap string column of the scanned table, or nullptr when no
  // expression of the kernel reads its bytes (ir fuse_pipelines adds the arguments only then).
  const ir::KernelArg* heap_offsets_argument(const ir::AttributeBinding& b) const {
    for (const ir::KernelArg& a : ctx_.kernel.args)
      if (a.kind == ir::KernelArg::Kind::Column && a.table == ctx_.pipeline.source.table && a.column == b.attr.name) return &a;
    return nullptr;
  }

  // A heap string column of the scanned table: this row's byte range [begin, end) of its bytes
  // argument, which starts at the column's heap base (the offsets are positions in the whole heap).
  void load_string(const ir::AttributeBinding& b, const ir::KernelArg& offsets) {
    const std::string where = narrowed_ ? std::string(names::flag()) : names::tile_items();
    const std::string prefix = narrowed_ ? "hqc_pred_load_str_" : "hqc_load_str_";
    const std::string base = chunk_base(ir::Param::ChunkBase::HeapByte, b.attr.name);
    for (const char* part : {"begin", "end"}) {
      const std::string var = part[0] == 'b' ? names::string_begin(b.variable) : names::string_end(b.variable);
      ctx_.w.line("const hqc_u64 " + var + " = " + prefix + part + "(" + offsets.name + ", " + base + ", " + names::tile() + ", " +
                  where + ");");
    }
    loaded_.insert(b.variable);
  }

  // The kernel's chunk base of the scanned table (ir fuse_pipelines: Param::ChunkBase), for a heap
  // base that of `column`.
  std::string chunk_base(ir::Param::ChunkBase kind, const std::string& column) const {
    for (const ir::KernelArg& a : ctx_.kernel.args) {
      if (a.kind != ir::KernelArg::Kind::Param) continue;
      const ir::Param* p = ctx_.program.find_param(a.name);
      if (p != nullptr && p->chunk_base == kind && p->table == ctx_.pipeline.source.table && p->column == column) return a.name;
    }
    throw Error(ErrorKind::Internal, ctx_.where() + ": the scan of " + ctx_.pipeline.source.table + " has no " +
                                         (kind == ir::Param::ChunkBase::Row ? "row base" : "heap base of " + column) + " param");
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
    if (op.probe_keys.size() != ht->key_buffers.size() || op.probe_keys.empty())
      throw Error(ErrorKind::Internal, ctx_.where() + ": probe keys of op " + std::to_string(op.id) + " do not pair with " + ht->name);
    const bool existence = op.join_type == plan::JoinType::Semi || op.join_type == plan::JoinType::Anti;
    const bool outer = op.join_type == plan::JoinType::LeftOuter;
    const bool composite = ht->key_buffers.size() > 1;
    const bool match_loop = !existence && !ht->unique_keys;
    narrowed_ = true;
    if (!composite && !op.residual && (ht->unique_keys || existence)) {
      single_lookup(op, *ht);
      return;
    }
    ctx_.w.banner(std::string(existence ? (op.join_type == plan::JoinType::Anti ? "anti probe " : "semi probe ")
                                        : outer ? "left outer probe " : "probe ") +
                  ht->name + (match_loop ? ": every match" : "") + " (op " + std::to_string(op.id) + ")");
    const std::string slot = names::probe_slot(op.id);
    Walk walk = chain_walk(op, *ht);
    ctx_.w.line("hqc_i64 " + slot + " = " + names::flag() + " ? " + walk.first + " : -1;");
    if (!walk.rest_equal.empty())
      ctx_.w.line("while (" + slot + " >= 0 && !(" + walk.rest_equal + ")) " + slot + " = " + walk.next + ";");
    if (existence) {
      existence_test(op, *ht, walk);
      return;
    }
    if (!match_loop) {
      // Unique (composite) keys: at most one match, no loop.
      if (!outer) ctx_.w.line(std::string(names::flag()) + " = " + names::flag() + " && " + slot + " >= 0;");
      read_payload(op, *ht);
      return;
    }
    // The match loop: everything after this probe, the sink included, runs once per match (and,
    // for a left outer join, once with NULL payload for a tuple without one); closed after the
    // sink. The probe tuple's remaining columns are loaded once, before the loop, not per match.
    load_columns(nullptr, "scan " + ctx_.pipeline.source.alias + " (before the match loop of op " + std::to_string(op.id) + ")");
    const std::string before = names::probe_flag(op.id), first = names::probe_first(op.id);
    ctx_.w.line("const hqc_i32 " + before + " = " + names::flag() + ";");
    if (outer) ctx_.w.line("hqc_i32 " + first + " = 1;");
    std::string more = slot + " >= 0";
    std::string cond = ctx_.match_any_scratch.empty() ? more : "hqc_cta_any(" + more + ", " + ctx_.match_any_scratch + ")";
    OpenLoop loop{ctx_.w.block("do", " while (" + cond + ");"), {}};
    ctx_.w.line(std::string(names::flag()) + " = " + before + " && " + (outer ? "(" + slot + " >= 0 || " + first + ")" : slot + " >= 0") + ";");
    read_payload(op, *ht);
    if (outer) loop.advance.push_back(first + " = 0;");
    loop.advance.push_back(slot + " = " + walk.next + ";");
    if (!walk.rest_equal.empty())
      loop.advance.push_back("while (" + slot + " >= 0 && !(" + walk.rest_equal + ")) " + slot + " = " + walk.next + ";");
    open_.push_back(std::move(loop));
  }

  // One lookup, at most one match (unique keys, or an existence test on one key column).
  void single_lookup(const ir::PipelineOp& op, const ir::HashTable& ht) {
    const bool anti = op.join_type == plan::JoinType::Anti;
    const bool outer = op.join_type == plan::JoinType::LeftOuter;
    ctx_.w.banner(std::string(op.join_type == plan::JoinType::Inner ? "probe " : outer ? "left outer probe " : anti ? "anti probe " : "semi probe ") +
                  ht.name + " (op " + std::to_string(op.id) + ")");
    const ir::Buffer& keys = ctx_.require_buffer(ht.key_buffers[0]);
    const char* kt = template_suffix(keys.element);
    std::string key = "(" + std::string(element_type(ht.key_bits ? ir::ScalarType::I64 : keys.element)) + ")" + ctx_.expr(*op.probe_keys[0]);
    std::string call;
    if (ht.key_bits)
      call = "hqc_ph_probe_bits(" + keys.name + ", " + ctx_.require_arg(ht.capacity_param) + ", " + ctx_.require_arg(ht.key_min_param) +
             ", " + key + ")";
    else if (ht.layout == ir::HashLayout::PerfectHash || ht.perfect_slots)
      call = perfect_probe(ht, keys.name, kt, key);
    else
      call = std::string("hqc_oa_probe_") + kt + "(" + keys.name + ", " + ctx_.require_arg(ht.capacity_param) + ", " +
             key + ")";
    std::string slot = names::probe_slot(op.id);
    ctx_.w.line("const hqc_i64 " + slot + " = " + names::flag() + " ? " + call + " : -1;");
    // A row already dropped has slot -1 too, so the anti test must keep `flag &&` in front. A left
    // outer probe keeps every row; the payload of a row without a match reads as 0 (NULL).
    if (!outer) ctx_.w.line(std::string(names::flag()) + " = " + names::flag() + " && " + slot + (anti ? " < 0;" : " >= 0;"));
    read_payload(op, ht);
  }

  // The slot of `key` in a table indexed by key - min, or -1: through its probe bitmap where it has one.
  std::string perfect_probe(const ir::HashTable& ht, const std::string& keys, const char* kt, const std::string& key) {
    const std::string rest = ctx_.require_arg(ht.capacity_param) + ", " + ctx_.require_arg(ht.key_min_param) + ", " + key + ")";
    if (ht.bitmap_buffer.empty()) return std::string("hqc_ph_probe_") + kt + "(" + keys + ", " + rest;
    return std::string("hqc_ph_probe_bm_") + kt + "(" + keys + ", " + ctx_.require_arg(ht.bitmap_buffer) + ", " + rest;
  }

  struct Walk {
    std::string first;       // device expression: the first slot whose first key column equals
    std::string next;        // the next such slot after names::probe_slot(op)
    std::string rest_equal;  // the other key columns equal at the slot (empty for one column)
  };

  // The entry after `slot` in a chained table's list.
  std::string chained_next(const ir::HashTable& ht, const std::string& slot) {
    return "hqc_ch_next(" + ctx_.require_arg(ht.next_buffer) + ", " + slot + ")";
  }

  // Declares the probe key columns and the home slot; returns the walk expressions.
  Walk chain_walk(const ir::PipelineOp& op, const ir::HashTable& ht) {
    Walk walk;
    const std::string slot = names::probe_slot(op.id);
    const std::string& cap = ctx_.require_arg(ht.capacity_param);
    std::string hash;
    std::vector<std::string> keys;
    for (size_t i = 0; i < ht.key_buffers.size(); ++i) {
      const ir::Buffer& b = ctx_.require_buffer(ht.key_buffers[i]);
      std::string k = names::probe_key(op.id, i);
      ctx_.w.line(std::string("const ") + element_type(b.element) + " " + k + " = (" + element_type(b.element) + ")" +
                  ctx_.expr(*op.probe_keys[i]) + ";");
      std::string h = std::string("hqc_key_hash_") + template_suffix(b.element) + "(" + k + ")";
      hash = i == 0 ? h : "hqc_hash_combine(" + hash + ", " + h + ")";
      keys.push_back(k);
      if (i > 0) walk.rest_equal += (i > 1 ? " && " : "") + b.name + "[" + slot + "] == " + k;
    }
    const ir::Buffer& k0 = ctx_.require_buffer(ht.key_buffers[0]);
    const char* kt = template_suffix(k0.element);
    if (ht.layout == ir::HashLayout::PerfectHash) {
      // One key column, unique: the slot is the key's offset; there is no chain.
      walk.first = perfect_probe(ht, k0.name, kt, keys[0]);
      walk.next = "-1";
      return walk;
    }
    if (ht.perfect_slots) {
      // A chained table on one dense key: the key's offset is its slot, which heads its list.
      walk.first = "hqc_ch_head(" + ctx_.require_arg(ht.head_buffer) + ", hqc_ph_probe_" + kt + "(" + k0.name + ", " + cap + ", " +
                   ctx_.require_arg(ht.key_min_param) + ", " + keys[0] + "))";
      walk.next = chained_next(ht, slot);
      return walk;
    }
    const std::string home = names::probe_home(op.id);
    ctx_.w.line("const hqc_i64 " + home + " = hqc_oa_home(" + hash + ", " + cap + ");");
    if (ht.layout == ir::HashLayout::Chained) {
      // The key's slot heads its list of entries; `slot` walks the entries.
      walk.first = std::string("hqc_ch_first_") + kt + "(" + k0.name + ", " + ctx_.require_arg(ht.head_buffer) + ", " + cap + ", " +
                   home + ", " + keys[0] + ")";
      walk.next = chained_next(ht, slot);
      return walk;
    }
    walk.first = std::string("hqc_oa_first_") + kt + "(" + k0.name + ", " + cap + ", " + home + ", " + keys[0] + ")";
    walk.next = std::string("hqc_oa_next_") + kt + "(" + k0.name + ", " + cap + ", " + home + ", " + slot + ", " + keys[0] + ")";
    return walk;
  }

  // Semi/anti: a match counts only where the residual holds over the probe tuple and the match's
  // payload; the walk stops at the first that does.
  void existence_test(const ir::PipelineOp& op, const ir::HashTable& ht, const Walk& walk) {
    const std::string slot = names::probe_slot(op.id);
    const std::string found = names::probe_found(op.id);
    if (!op.residual) {
      ctx_.w.line("const hqc_i32 " + found + " = " + slot + " >= 0;");
    } else {
      ctx_.w.line("hqc_i32 " + found + " = 0;");
      auto loop = ctx_.w.block("while (" + slot + " >= 0)");
      std::map<std::pair<std::string, std::string>, std::string> local;
      for (size_t i = 0; i < ht.payload.size(); ++i) {
        const ir::Buffer& pay = ctx_.require_buffer(ht.payload_buffers[i]);
        std::string v = names::residual_value(op.id, std::to_string(i) + "_" + sanitize(ht.payload[i].name));
        local[{ht.payload[i].source, ht.payload[i].name}] = v;
        ctx_.w.line(std::string("const ") + element_type(pay.element) + " " + v + " = hqc_ht_get_" +
                    template_suffix(pay.element) + "(" + pay.name + ", " + slot + ");");
      }
      std::string residual = ctx_.expr(
          *op.residual,
          [&](const std::string& source, const std::string& column) {
            auto it = local.find({source, column});
            return it != local.end() ? it->second : ctx_.variable(source, column);
          },
          {});
      {
        auto hit = ctx_.w.block("if (" + residual + ")");
        ctx_.w.line(found + " = 1;");
        ctx_.w.line("break;");
      }
      ctx_.w.line(slot + " = " + walk.next + ";");
      if (!walk.rest_equal.empty())
        ctx_.w.line("while (" + slot + " >= 0 && !(" + walk.rest_equal + ")) " + slot + " = " + walk.next + ";");
    }
    const bool anti = op.join_type == plan::JoinType::Anti;
    ctx_.w.line(std::string(names::flag()) + " = " + names::flag() + " && " + (anti ? "!" : "") + found + ";");
  }

  static std::string sanitize(const std::string& text) {
    std::string out;
    for (char c : text) out += ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) ? c : '_';
    return out;
  }

  // The payload attributes the rest of the pipeline uses, read at the match's slot (0 without one).
  void read_payload(const ir::PipelineOp& op, const ir::HashTable& ht) {
    const std::string slot = names::probe_slot(op.id);
    for (const ir::AttributeBinding& b : ctx_.pipeline.attributes) {
      if (b.origin != Origin::ProbePayload || b.op_id != op.id) continue;
      if (b.payload_index >= ht.payload_buffers.size())
        throw Error(ErrorKind::Internal, ctx_.where() + ": payload index out of range for " + ht.name);
      const ir::Buffer& pay = ctx_.require_buffer(ht.payload_buffers[b.payload_index]);
      const bool wide = ir::is_decimal128(b.attr.type);  // a 128-bit sum of the build side: two words per slot
      ctx_.w.line(std::string("const ") + (wide ? "hqc_i128" : element_type(pay.element)) + " " + b.variable + " = hqc_ht_get_" +
                  (wide ? "i128" : template_suffix(pay.element)) + "(" + pay.name + ", " + slot + ");");
    }
  }

  void map(const ir::PipelineOp& op) {
    ctx_.w.banner("map (op " + std::to_string(op.id) + ")");
    for (const plan::NamedExpr& ne : op.exprs) {
      const ir::AttributeBinding& b = computed_binding(op, ne.name);
      ctx_.w.line(std::string("const ") + device_type_of(b.attr.type) + " " + names::map_value(b.variable) + " = " +
                  ctx_.expr(*ne.expr) + ";");
    }
  }

  // A left outer probe's payload is NULL for a tuple without a match; only COUNT(column) (the sink
  // tests the match) handles that so far, so no later operator may read it.
  void reject_nulls(const std::set<std::pair<std::string, std::string>>& used, const std::string& what) const {
    for (const auto& [source, name] : used) {
      if (!null_slot(ctx_, source, name).empty())
        throw Error(ErrorKind::Unsupported, ctx_.where() + ": " + what + " reads " + source + "." + name +
                                                ", which a left outer join makes NULL where nothing matched; only COUNT(" +
                                                name + ") of such a column is generated yet");
    }
  }

  struct OpenLoop {
    SourceWriter::Scope scope;        // "do {" ... "} while (<more matches>);"
    std::vector<std::string> advance;  // lines before the closing brace: move to the next match
  };

  // The attribute a Map computes: bound with the Map's op id. Its source is "" for a Map or
  // Project of the query, the derived table's alias for a subquery in FROM (TPC-H Q7's shipping).
  const ir::AttributeBinding& computed_binding(const ir::PipelineOp& op, const std::string& name) const {
    for (const ir::AttributeBinding& b : ctx_.pipeline.attributes)
      if (b.origin == Origin::Computed && b.op_id == op.id && b.attr.name == name) return b;
    return ctx_.binding("", name);
  }

  KernelContext& ctx_;
  std::vector<OpenLoop> open_;
  std::set<std::string> loaded_;
  bool narrowed_ = false;  // a filter or probe has run: later loads are predicated on `flag`
};

}  // namespace

std::string null_slot(const KernelContext& ctx, const std::string& source, const std::string& name) {
  int op = ctx.pipeline.null_probe(source, name);
  return op < 0 ? "" : names::probe_slot(op);
}

void plan_operators(KernelContext& ctx) {
  const bool match_loop = ir::matches_several_times(ctx.program, ctx.pipeline);
  // A sink that resolves inside the tile loop (A3's CTA scan) needs every work-item to run it
  // equally often: the match loops then run while ANY work-item of the CTA has a match left.
  bool collective = false;
  for (const ManifestReduction& r : ctx.manifest.reductions)
    if (r.technique == ir::Technique::A3) collective = true;
  if (match_loop && collective) {
    ScratchSize size;
    size.fixed_bytes = 8;
    ctx.match_any_scratch = ctx.add_scratch(names::scratch_pointer("probe", "any"), "hqc_u64", "1", size);
  }
}

void emit_operators(KernelContext& ctx, const std::function<void()>& sink) { OperatorWriter(ctx).run(sink); }

}  // namespace hqc::codegen::detail

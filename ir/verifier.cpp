// IR verifier (ir/verifier.h). Checks, in order: declarations (unique names, every referenced
// param/buffer declared, params only referring to earlier params), state objects, pipelines
// (dependency order, attribute binding before use, expression typing, sinks), kernels, result.
#include "ir/verifier.h"

#include <algorithm>
#include <map>
#include <set>

#include "ir/walk.h"
#include "storage/error.h"

namespace hqc::ir {

namespace {

class Verifier {
 public:
  explicit Verifier(const Program& p) : p_(p) {}

  void run() {
    declarations();
    state_objects();
    for (const Pipeline& pl : p_.pipelines) pipeline(pl);
    for (const HashTable& h : p_.hash_tables) sink_count_.emplace(h.name, 0);
    for (const AggregationTable& a : p_.aggregations) sink_count_.emplace(a.name, 0);
    for (const OutputTable& o : p_.outputs) sink_count_.emplace(o.name, 0);
    for (const auto& [state, count] : sink_count_) {
      // An output may have several writers (the operands of a UNION ALL); every other state one.
      const bool output = p_.find_output(state) != nullptr;
      if (count < 1 || (count > 1 && !output))
        fail("state object " + state + " is the sink of " + std::to_string(count) + " pipelines (expected 1" + (output ? " or more)" : ")"));
    }
    kernels();
    library_calls();
    result();
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw Error(ErrorKind::Internal, "IR verifier (" + p_.label + "): " + what);
  }

  void need_param(const std::string& name, const std::string& who) const {
    if (!p_.find_param(name)) fail(who + ": unknown param \"" + name + "\"");
  }
  void need_buffer(const std::string& name, const std::string& who) const {
    if (!p_.find_buffer(name)) fail(who + ": unknown buffer \"" + name + "\"");
  }

  void declarations() {
    std::set<std::string> names;
    for (const Param& prm : p_.params) {
      if (!names.insert(prm.name).second) fail("param " + prm.name + " declared twice");
      for (const std::string& f : prm.factors) {
        if (!names.count(f)) fail("param " + prm.name + ": factor " + f + " is not declared before it");
      }
      if (prm.source == Param::Source::DictCode && (prm.table.empty() || prm.column.empty())) fail("param " + prm.name + ": dictionary code without a column");
    }
    std::set<std::string> buffers;
    for (const Buffer& b : p_.buffers) {
      if (!buffers.insert(b.name).second) fail("buffer " + b.name + " declared twice");
      if (!b.elements_param.empty()) need_param(b.elements_param, "buffer " + b.name);
      if (b.elements_param.empty() && b.fixed_elements == 0) fail("buffer " + b.name + " has no elements");
    }
  }

  void state_objects() {
    std::set<std::string> names;
    for (const HashTable& ht : p_.hash_tables) {
      std::string who = "hash table " + ht.name;
      if (!names.insert(ht.name).second) fail(who + " declared twice");
      need_param(ht.capacity_param, who);
      if (ht.layout == HashLayout::PerfectHash) {
        need_param(ht.key_min_param, who);
        if (ht.build_keys.size() != 1) fail(who + ": a perfect hash needs exactly one key");
      }
      if (ht.perfect_slots && (ht.layout != HashLayout::Chained || ht.build_keys.size() != 1)) fail(who + ": perfect-hash slots are for chained tables on one key");
      if (ht.perfect_slots) need_param(ht.key_min_param, who);
      if (ht.layout == HashLayout::Chained) {
        need_param(ht.entries_param, who);
        need_param(ht.entry_base_param, who);
        need_buffer(ht.head_buffer, who);
        need_buffer(ht.next_buffer, who);
      }
      if (ht.key_buffers.size() != ht.build_keys.size() || ht.build_keys.empty()) fail(who + ": one key buffer per build key expected");
      if (ht.payload_buffers.size() != ht.payload.size()) fail(who + ": one payload buffer per payload attribute expected");
      for (const auto& b : ht.key_buffers) need_buffer(b, who);
      for (const auto& b : ht.payload_buffers) need_buffer(b, who);
      if (ht.overflow_buffer.empty()) fail(who + ": no overflow flag");
      need_buffer(ht.overflow_buffer, who);
    }
    for (const AggregationTable& a : p_.aggregations) {
      std::string who = "aggregation " + a.name;
      if (!names.insert(a.name).second) fail(who + " declared twice");
      if ((a.layout == AggLayout::Scalar) != a.keys.empty()) fail(who + ": scalar layout iff no group keys");
      if (a.layout != AggLayout::Scalar) need_param(a.slots_param, who);
      need_buffer(a.occupancy_buffer, who);
      for (const GroupKey& k : a.keys) {
        if (a.layout == AggLayout::DirectIndexed) {
          need_param(k.min_param, who + " key " + k.name);
          need_param(k.domain_param, who + " key " + k.name);
        }
        if (a.layout == AggLayout::GlobalHash) {
          need_buffer(k.key_buffer, who + " key " + k.name);
          if (k.key_lane >= a.key_lanes) fail(who + " key " + k.name + ": lane beyond the key buffer's lanes");
        }
      }
      if (a.layout == AggLayout::GlobalHash || a.layout == AggLayout::DirectIndexed) need_buffer(a.overflow_buffer, who);
      if (a.scratchpad && a.layout == AggLayout::Scalar) fail(who + ": a scalar aggregate is not privatized in scratchpad");
      if (a.scratchpad && a.layout == AggLayout::GlobalHash) need_param(a.local_slots_param, who + " (per-CTA hashed table)");
      for (const Accumulator& acc : a.accumulators) {
        if (acc.func == plan::AggFunc::Avg) fail(who + ": accumulator " + acc.name + " is an AVG (must be split into sum and count)");
        if ((acc.func == plan::AggFunc::CountStar) != (acc.arg == nullptr)) fail(who + ": accumulator " + acc.name + " argument mismatch");
        need_buffer(acc.buffer, who + " accumulator " + acc.name);
        const bool extreme = acc.func == plan::AggFunc::Min || acc.func == plan::AggFunc::Max;
        if (extreme && acc.wide) need_buffer(acc.state_buffer, who + " accumulator " + acc.name + " (128-bit state)");
        if (!acc.state_buffer.empty() && !(extreme && acc.wide))
          fail(who + ": accumulator " + acc.name + " has a state buffer but is not a 128-bit MIN/MAX");
      }
    }
    for (const OutputTable& o : p_.outputs) {
      std::string who = "output " + o.name;
      if (!names.insert(o.name).second) fail(who + " declared twice");
      need_param(o.capacity_param, who);
      need_buffer(o.counter_buffer, who);
      if (!o.overflow_buffer.empty()) need_buffer(o.overflow_buffer, who);
      for (const OutputColumn& c : o.columns) {
        need_buffer(c.buffer, who + " column " + c.name);
        if (!c.valid_buffer.empty()) need_buffer(c.valid_buffer, who + " column " + c.name);
      }
    }
  }

  void expr(const plan::Expr& e, const std::set<std::pair<std::string, std::string>>& bound, const std::string& who) const {
    using plan::ExprKind;
    auto is_bool = [](const plan::ExprPtr& x) { return x->type.id == TypeId::Bool; };
    switch (e.kind) {
      case ExprKind::Column:
        if (!bound.count({e.source, e.column})) fail(who + ": attribute " + e.to_string() + " is used before it is bound");
        break;
      case ExprKind::DictCode:
        if (!e.param.empty()) {
          const Param* prm = p_.find_param(e.param);
          if (!prm || prm->source != Param::Source::DictCode || prm->table != e.dict_table || prm->column != e.dict_column ||
              prm->literal != e.string_value || prm->match != e.match) {
            fail(who + ": " + e.to_string() + " does not match its param");
          }
        }
        break;
      case ExprKind::Param:
        if (!p_.find_param(e.param)) fail(who + ": " + e.to_string() + " names no declared param");
        if (is_decimal128(e.type) && !p_.find_param(high_word_param(e.param)))
          fail(who + ": 128-bit " + e.to_string() + " has no high-word param " + high_word_param(e.param));
        break;
      case ExprKind::CodeTable: {
        const Buffer* b = p_.find_buffer(e.param);
        if (!b || b->fill != Buffer::Fill::CodeTable || e.args.size() != 1 || b->set_table != e.args[0]->dict_table ||
            b->set_column != e.args[0]->dict_column || !(b->per_code->type == e.type))
          fail(who + ": " + e.to_string() + " does not match its per-code table " + e.param);
        break;
      }
      case ExprKind::Substring:
        if (e.type.packed && e.args.at(2)->int_value > static_cast<int64_t>(kMaxPackedStringBytes))
          fail(who + ": " + e.to_string() + " is packed but longer than " + std::to_string(kMaxPackedStringBytes) + " bytes");
        break;
      case ExprKind::And:
      case ExprKind::Or:
      case ExprKind::Not:
        if (e.args.empty() || !std::all_of(e.args.begin(), e.args.end(), is_bool)) fail(who + ": " + e.to_string() + " has a non-boolean operand");
        break;
      case ExprKind::Arith:
      case ExprKind::Compare:
        if (e.args.size() != 2) fail(who + ": " + e.to_string() + " needs two operands");
        if (is_bool(e.args[0]) || is_bool(e.args[1])) fail(who + ": " + e.to_string() + " has a boolean operand");
        break;
      case ExprKind::Between:
        if (e.args.size() != 3) fail(who + ": between needs three operands");
        break;
      case ExprKind::InList:
        if (e.args.size() < 2) fail(who + ": in needs a value and at least one item");
        break;
      case ExprKind::Case:
        if (e.args.size() < 3 || e.args.size() % 2 == 0) fail(who + ": case needs when/then pairs and an else");
        break;
      default:
        break;
    }
    for (const auto& a : e.args) {
      if (!a) fail(who + ": null operand in " + e.to_string());
      expr(*a, bound, who);
    }
  }

  void predicate(const plan::ExprPtr& e, const std::set<std::pair<std::string, std::string>>& bound, const std::string& who) const {
    if (!e) fail(who + ": missing expression");
    if (e->type.id != TypeId::Bool) fail(who + ": predicate " + e->to_string() + " is not boolean");
    expr(*e, bound, who);
  }

  void pipeline(const Pipeline& pl) {
    std::string who = "pipeline p" + std::to_string(pl.id);
    size_t index = static_cast<size_t>(&pl - p_.pipelines.data());
    if (pl.id != static_cast<int>(index)) fail(who + ": id does not match its position " + std::to_string(index));
    for (int d : pl.depends_on) {
      if (d < 0 || d >= pl.id) fail(who + ": depends on p" + std::to_string(d) + ", which does not come earlier");
    }
    if (!pl.arith_flags.empty()) need_buffer(pl.arith_flags, who);
    int sources = !pl.source.table.empty() + !pl.source.output.empty() + !pl.source.aggregation.empty();
    if (sources != 1) fail(who + ": the source must be exactly one of a table, an output or an aggregation");
    if (!pl.source.aggregation.empty()) {
      const AggregationTable* agg = p_.find_aggregation(pl.source.aggregation);
      if (!agg) fail(who + ": scans unknown aggregation " + pl.source.aggregation);
      // Each rank holds its own partial groups: only their materialization may read them — or, for
      // groups keyed by the partition key, a join build that stays on the rank too.
      if (agg->rank_local && pl.sink.kind != SinkKind::Materialize) {
        const HashTable* ht = pl.sink.kind == SinkKind::HashBuild ? p_.find_hash_table(pl.sink.state) : nullptr;
        if (!agg->partition_keyed || ht == nullptr || !ht->rank_local)
          fail(who + ": scans the rank-local aggregation " + agg->name + " but neither materializes its groups nor builds a rank-local table");
      }
      if (!built_by_dependency(pl, agg->name)) fail(who + ": scans aggregation " + agg->name + " not filled by a pipeline it depends on");
      for (const std::string& c : pl.source.columns) {
        bool known = std::any_of(agg->keys.begin(), agg->keys.end(), [&](const GroupKey& k) { return k.name == c; }) ||
                     std::any_of(agg->accumulators.begin(), agg->accumulators.end(), [&](const Accumulator& a) { return a.name == c; });
        if (!known) fail(who + ": column " + c + " is neither a group key nor an accumulator of " + agg->name);
      }
    }
    need_param(pl.source.rows_param, who + " source");
    if (!pl.source.output.empty()) {
      const OutputTable* out = p_.find_output(pl.source.output);
      if (!out) fail(who + ": scans unknown output " + pl.source.output);
      if (!built_by_dependency(pl, pl.source.output)) fail(who + ": scans output " + pl.source.output + " not written by a pipeline it depends on");
    }
    std::set<std::pair<std::string, std::string>> bound;
    std::set<int> op_ids;
    auto bind_from = [&](int op_id) {
      for (const AttributeBinding& b : pl.attributes) {
        if (b.op_id == op_id) bound.insert({b.attr.source, b.attr.name});
      }
    };
    bind_from(-1);
    for (const PipelineOp& op : pl.ops) {
      std::string w = who + " op " + std::to_string(op.id);
      if (!op_ids_.insert(op.id).second) fail(w + ": op id used twice in the program");
      switch (op.kind) {
        case PipelineOpKind::Filter:
          predicate(op.predicate, bound, w);
          break;
        case PipelineOpKind::Probe: {
          const HashTable* ht = p_.find_hash_table(op.hash_table);
          if (!ht) fail(w + ": probe of unknown hash table " + op.hash_table);
          if (!built_by_dependency(pl, ht->name)) fail(w + ": probes " + ht->name + " before a pipeline it depends on builds it");
          if (op.probe_keys.size() != ht->build_keys.size()) fail(w + ": probe keys do not pair with the build keys of " + ht->name);
          for (const auto& k : op.probe_keys) expr(*k, bound, w);
          if (op.residual) {
            if (op.join_type != plan::JoinType::Semi && op.join_type != plan::JoinType::Anti)
              fail(w + ": a residual predicate on a " + plan::join_type_name(op.join_type) + " probe (semi/anti only)");
            // The residual reads the probe's attributes and the table's payload (bound inside the probe).
            auto with_payload = bound;
            for (const auto& a : ht->payload) with_payload.insert({a.source, a.name});
            predicate(op.residual, with_payload, w + " residual");
          }
          break;
        }
        case PipelineOpKind::Map:
          if (op.exprs.empty()) fail(w + ": map without expressions");
          for (const auto& m : op.exprs) expr(*m.expr, bound, w + " (" + m.name + ")");
          break;
      }
      bind_from(op.id);
    }
    for (const AttributeBinding& b : pl.attributes) {
      if (b.op_id >= 0 && !std::any_of(pl.ops.begin(), pl.ops.end(), [&](const PipelineOp& o) { return o.id == b.op_id; })) {
        fail(who + ": attribute " + b.attr.name + " bound by op " + std::to_string(b.op_id) + ", which is not in the pipeline");
      }
    }
    std::string sw = who + " sink";
    ++sink_count_[pl.sink.state];
    switch (pl.sink.kind) {
      case SinkKind::HashBuild: {
        const HashTable* ht = p_.find_hash_table(pl.sink.state);
        if (!ht) fail(sw + ": builds unknown hash table " + pl.sink.state);
        for (const auto& k : ht->build_keys) expr(*k, bound, sw);
        for (const auto& a : ht->payload) {
          if (!bound.count({a.source, a.name})) fail(sw + ": payload " + a.name + " of " + ht->name + " is not bound");
        }
        break;
      }
      case SinkKind::Aggregate: {
        const AggregationTable* a = p_.find_aggregation(pl.sink.state);
        if (!a) fail(sw + ": aggregates into unknown table " + pl.sink.state);
        for (const auto& k : a->keys) expr(*k.expr, bound, sw + " key " + k.name);
        for (const auto& acc : a->accumulators) {
          if (acc.arg) expr(*acc.arg, bound, sw + " accumulator " + acc.name);
          if (acc.filter) expr(*acc.filter, bound, sw + " filter of accumulator " + acc.name);
        }
        break;
      }
      case SinkKind::Materialize: {
        const OutputTable* o = p_.find_output(pl.sink.state);
        if (!o) fail(sw + ": materializes into unknown output " + pl.sink.state);
        for (const auto& c : o->columns) expr(*c.expr, bound, sw + " column " + c.name);
        break;
      }
    }
    sink_of_[pl.sink.state].push_back(pl.id);
  }

  // Whether every sink of `state` so far is `pl` or a pipeline `pl` (transitively) depends on.
  bool built_by_dependency(const Pipeline& pl, const std::string& state) const {
    auto it = sink_of_.find(state);
    if (it == sink_of_.end()) return false;
    std::set<int> reached;
    std::vector<int> todo = pl.depends_on;
    while (!todo.empty()) {
      int d = todo.back();
      todo.pop_back();
      if (!reached.insert(d).second || d < 0 || d >= static_cast<int>(p_.pipelines.size())) continue;
      for (int x : p_.pipelines[static_cast<size_t>(d)].depends_on) todo.push_back(x);
    }
    return std::all_of(it->second.begin(), it->second.end(), [&](int writer) { return reached.count(writer) != 0; });
  }

  // Whether kernels[i] is one of pipeline kernels: a compound kernel, or multi-pass kernels.
  static bool pipeline_kernel(KernelKind k) {
    return k == KernelKind::Compound || k == KernelKind::PassCount || k == KernelKind::PassWrite || k == KernelKind::PassFinish;
  }

  void kernels() const {
    if (p_.kernels.empty()) return;
    // The kernels of each pipeline, in pipeline order (one compound kernel; under multi_pass a
    // count, a write and, for an aggregation, a finish kernel, or the compound kernel of a hash
    // build); then the compaction kernels.
    size_t compound = 0;
    while (compound < p_.kernels.size() && pipeline_kernel(p_.kernels[compound].kind)) ++compound;
    std::set<int> pipelines_seen;
    int last = -1;
    for (size_t i = 0; i < compound; ++i) {
      const Kernel& k = p_.kernels[i];
      if (k.pipeline < last) fail("kernel " + k.name + ": pipeline kernels out of pipeline order");
      last = k.pipeline;
      pipelines_seen.insert(k.pipeline);
      const bool pass = k.kind != KernelKind::Compound;
      if (pass != (library_reductions(p_.model) && p_.pipelines.at(static_cast<size_t>(k.pipeline)).sink.kind != SinkKind::HashBuild))
        fail("kernel " + k.name + ": a " + kernel_kind_name(k.kind) + " kernel under the " + execution_model_name(p_.model) + " model");
    }
    if (pipelines_seen.size() != p_.pipelines.size() || (last >= 0 && last + 1 != static_cast<int>(p_.pipelines.size())))
      fail("expected the kernels of every pipeline, found kernels of " + std::to_string(pipelines_seen.size()) + " of " +
           std::to_string(p_.pipelines.size()));
    std::set<std::string> names;
    for (size_t i = 0; i < p_.kernels.size(); ++i) {
      const Kernel& k = p_.kernels[i];
      std::string who = "kernel " + k.name;
      if (!names.insert(k.name).second) fail(who + " declared twice");
      if (i >= compound) {
        if (pipeline_kernel(k.kind)) fail(who + ": a pipeline kernel after the compaction kernels");
        if (k.pipeline < 0 || k.pipeline >= static_cast<int>(p_.pipelines.size())) fail(who + ": unknown pipeline");
        const AggregationTable* a = p_.find_aggregation(k.state);
        if (a == nullptr || !a->compaction) fail(who + ": compacts " + k.state + ", which has no compaction");
        const Pipeline& writer = p_.pipelines[static_cast<size_t>(k.pipeline)];
        if (writer.sink.kind != SinkKind::Aggregate || writer.sink.state != k.state)
          fail(who + ": belongs to p" + std::to_string(k.pipeline) + ", which does not aggregate into " + k.state);
      } else if (k.pipeline < 0 || k.pipeline >= static_cast<int>(p_.pipelines.size())) {
        fail(who + ": belongs to unknown pipeline p" + std::to_string(k.pipeline));
      }
      for (const KernelArg& a : k.args) {
        if (a.kind == KernelArg::Kind::Buffer) need_buffer(a.name, who);
        if (a.kind == KernelArg::Kind::Param) need_param(a.name, who);
      }
      for (const Reduction& r : k.reductions) {
        bool pipelined_technique = r.technique == Technique::A2 || r.technique == Technique::B2 || r.technique == Technique::C2;
        if (p_.model == ExecutionModel::Pipelined && !pipelined_technique) fail(who + ": technique " + technique_name(r.technique) + " under the pipelined model");
        if (p_.model == ExecutionModel::Resolution && (r.technique == Technique::A2 || r.technique == Technique::B2)) {
          fail(who + ": technique " + technique_name(r.technique) + " under the resolution model");
        }
        const bool multi_pass_technique = r.technique == Technique::A1 || r.technique == Technique::B1 || r.technique == Technique::C1;
        if (multi_pass_technique != library_reductions(p_.model))
          fail(who + ": technique " + technique_name(r.technique) + " under the " + execution_model_name(p_.model) + " model");
      }
    }
  }

  // Each library call follows a kernel of its pipeline and names declared buffers and params.
  void library_calls() const {
    static const std::map<LibraryOp, size_t> arity = {{LibraryOp::InclusiveScan, 1}, {LibraryOp::SortByKey, 2}, {LibraryOp::Gather, 3},
                                                      {LibraryOp::Reduce, 2}, {LibraryOp::ReduceByKey, 4}};
    if (!p_.library_calls.empty() && !library_reductions(p_.model))
      fail("library calls under the " + std::string(execution_model_name(p_.model)) + " model");
    for (const LibraryCall& c : p_.library_calls) {
      const std::string who = std::string("library call ") + library_op_name(c.op) + " (" + c.what + ")";
      const bool follows = std::any_of(p_.kernels.begin(), p_.kernels.end(),
                                       [&](const Kernel& k) { return k.name == c.after && k.pipeline == c.pipeline; });
      if (!follows) fail(who + ": follows " + c.after + ", which is no kernel of p" + std::to_string(c.pipeline));
      if (c.buffers.size() != arity.at(c.op)) fail(who + ": expected " + std::to_string(arity.at(c.op)) + " buffers");
      for (const std::string& b : c.buffers) need_buffer(b, who);
      need_param(c.count_param, who);
      if (!c.result_param.empty()) need_param(c.result_param, who);
      if (!c.limit_param.empty()) need_param(c.limit_param, who);
    }
  }

  void result() const {
    const ResultDesc& r = p_.result;
    if (r.kind == ResultDesc::Kind::Aggregation) {
      const AggregationTable* a = p_.find_aggregation(r.state);
      if (!a) fail("result reads unknown aggregation " + r.state);
      if (a->rank_local) fail("result reads the rank-local aggregation " + r.state);
      for (const ResultColumn& c : r.columns) {
        size_t limit = c.source == ResultColumn::Source::GroupKey ? a->keys.size() : a->accumulators.size();
        if (c.source == ResultColumn::Source::Output) fail("result column " + c.name + " reads an output from an aggregation");
        if (c.index >= limit || (c.source == ResultColumn::Source::Average && c.count_index >= a->accumulators.size())) {
          fail("result column " + c.name + " index out of range");
        }
      }
    } else {
      const OutputTable* o = p_.find_output(r.state);
      if (!o) fail("result reads unknown output " + r.state);
      for (const ResultColumn& c : r.columns) {
        if (c.source != ResultColumn::Source::Output || c.index >= o->columns.size()) fail("result column " + c.name + " does not name an output column");
      }
    }
    auto is_column = [&](const std::string& name) {
      return std::any_of(r.columns.begin(), r.columns.end(), [&](const ResultColumn& c) { return c.name == name; });
    };
    for (const plan::SortKey& k : r.order_by) {
      if (!is_column(k.name)) fail("ORDER BY names " + k.name + ", which is not a result column");
    }
    for (const plan::WindowExpr& w : r.windows) {
      for (const std::string& n : plan::window_attributes(w))
        if (!is_column(n)) fail("window " + w.name + " names " + n + ", which is not a result column");
    }
    for (const std::string& n : r.hidden)
      if (!is_column(n)) fail("hidden column " + n + " is not a result column");
  }

  const Program& p_;
  std::set<int> op_ids_;
  std::map<std::string, int> sink_count_;
  std::map<std::string, std::vector<int>> sink_of_;
};

}  // namespace

void verify(const Program& program) { Verifier(program).run(); }

}  // namespace hqc::ir

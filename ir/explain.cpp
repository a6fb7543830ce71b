// EXPLAIN text of a Program (ir/explain.h). Format, one item per line, two-space indentation:
//   program <label> model <model>
//   params:      <name> = <source>(...)            # comment
//   buffers:     <name>: <elem>[<size>] fill <fill>  # comment
//   hash tables, aggregations, outputs, pipelines (ops with ids, sink), kernels, result.
#include "ir/explain.h"

#include <algorithm>
#include <cstdio>

namespace hqc::ir {

namespace {

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string param_text(const Param& p) {
  std::string s = p.name + ": " + scalar_type_name(p.type) + " = ";
  switch (p.source) {
    case Param::Source::RowCount: s += "rows(" + p.table + ")"; break;
    case Param::Source::ColumnMin: s += "min(" + p.table + "." + p.column + ")"; break;
    case Param::Source::ColumnMax: s += "max(" + p.table + "." + p.column + ")"; break;
    case Param::Source::ColumnDomain: s += "domain(" + p.table + "." + p.column + ")"; break;
    case Param::Source::DictCode:
      s += std::string("dict_") + plan::dict_match_name(p.match) + "(" + p.table + "." + p.column + ", '" + p.literal + "')";
      break;
    case Param::Source::Capacity: {
      s += "capacity(rows(" + (p.table.empty() ? (p.factors.empty() ? "?" : p.factors[0]) : p.table) + ")";
      if (p.predicate) s += " x sel" + p.predicate->to_string();
      for (const auto& [table, predicate] : p.join_filters) s += " x join sel" + predicate->to_string() + " of " + table;
      if (!p.distinct_columns.empty()) {
        s += " capped by distinct(";
        for (size_t i = 0; i < p.distinct_columns.size(); ++i)
          s += (i ? " x " : "") + (p.distinct_columns[i] == p.count_term ? p.distinct_columns[i] + " at most " + p.count_buffer
                                                                           : p.distinct_columns[i]);
        s += ")";
      }
      char lf[32];
      std::snprintf(lf, sizeof lf, "%.2f", p.load_factor);
      s += std::string(", load ") + lf + ")";
      if (!p.count_buffer.empty() && p.count_term.empty()) s += " at most slots(" + p.count_buffer + ")";
      break;
    }
    case Param::Source::BitmapWords: s += "bitmap_words(" + (p.factors.empty() ? std::string("?") : p.factors[0]) + ")"; break;
    case Param::Source::Product: {
      s += "product(";
      for (size_t i = 0; i < p.factors.size(); ++i) s += (i ? ", " : "") + p.factors[i];
      s += ")";
      break;
    }
    case Param::Source::Sum: {
      s += "sum(";
      for (size_t i = 0; i < p.factors.size(); ++i) s += (i ? ", " : "") + p.factors[i];
      s += ")";
      break;
    }
    case Param::Source::OutputRows: s += "rows_written(" + p.table + ")"; break;
    case Param::Source::OutputValue: s += "value(" + p.table + "." + p.column + ")" + (p.word ? " high word" : ""); break;
    case Param::Source::Constant: s += std::to_string(p.value); break;
  }
  return s;
}

std::string buffer_text(const Buffer& b) {
  std::string size;
  if (b.elements_param.empty()) size = std::to_string(b.fixed_elements);
  else {
    if (b.fixed_elements) size = std::to_string(b.fixed_elements) + " + ";
    if (b.multiplier != 1) size += std::to_string(b.multiplier) + " * ";
    size += b.elements_param;
  }
  std::string fill = b.fill == Buffer::Fill::Zero      ? "zero"
                     : b.fill == Buffer::Fill::None    ? "none"
                     : b.fill == Buffer::Fill::CodeTable ? "per_code(" + b.per_code->to_string() + ")"
                                                       : hex(b.pattern);
  return b.name + ": " + scalar_type_name(b.element) + "[" + size + "] fill " + fill;
}

std::string attr_name(const plan::Attribute& a) { return a.source.empty() ? a.name : a.source + "." + a.name; }

std::string with_comment(const std::string& text, const std::string& comment) {
  return comment.empty() ? text : text + "  # " + comment;
}

const char* origin_name(AttributeBinding::Origin o) {
  switch (o) {
    case AttributeBinding::Origin::SourceColumn: return "source";
    case AttributeBinding::Origin::ProbePayload: return "payload";
    case AttributeBinding::Origin::Computed: return "computed";
  }
  return "?";
}

}  // namespace

std::string explain_pipelines(const Program& p) {
  std::string s = "program " + p.label + " model " + execution_model_name(p.model) + "\n";
  s += "params:\n";
  for (const Param& prm : p.params) s += "  " + with_comment(param_text(prm), prm.comment) + "\n";
  s += "buffers:\n";
  for (const Buffer& b : p.buffers) s += "  " + with_comment(buffer_text(b), b.comment) + "\n";
  for (const HashTable& ht : p.hash_tables) {
    s += "hash table " + ht.name + " " + hash_layout_name(ht.layout) + " on " + ht.build_alias + " keys [";
    for (size_t i = 0; i < ht.build_keys.size(); ++i) s += (i ? ", " : "") + ht.build_keys[i]->to_string();
    s += "] slots " + ht.capacity_param;
    if (!ht.key_min_param.empty()) s += " key_min " + ht.key_min_param;
    s += std::string(ht.keys_only ? " keys-only" : ht.unique_keys ? " unique" : " multi") +
         (ht.shuffled     ? " rank-local (shuffled: each rank builds and probes the rows whose keys hash to it)"
          : ht.rank_local ? " rank-local (co-partitioned: each rank builds and probes its own rows)"
                          : "") +
         (ht.merged_keys ? " merged (each rank builds its share's keys; the tables merge slot by slot)" : "") + "\n  payload [";
    for (size_t i = 0; i < ht.payload.size(); ++i) s += (i ? ", " : "") + attr_name(ht.payload[i]) + " -> " + ht.payload_buffers[i];
    s += ht.key_bits ? (ht.key_bits_read_first ? "]\n  key bits (read first) [" : "]\n  key bits [") : "]\n  keys [";
    for (size_t i = 0; i < ht.key_buffers.size(); ++i) s += (i ? ", " : "") + ht.key_buffers[i];
    s += "] overflow " + ht.overflow_buffer;
    if (!ht.count_buffer.empty()) s += " rows built " + ht.count_buffer;
    if (!ht.bitmap_buffer.empty()) s += " bitmap " + ht.bitmap_buffer;
    if (ht.layout == HashLayout::Chained)
      s += "\n  entries " + ht.entries_param + " from " + ht.entry_base_param + " heads " + ht.head_buffer + " next " + ht.next_buffer +
           (ht.perfect_slots ? " (slot = key - " + ht.key_min_param + ")" : "");
    s += "\n";
  }
  for (const AggregationTable& a : p.aggregations) {
    s += "aggregation " + a.name + " " + agg_layout_name(a.layout);
    if (!a.slots_param.empty()) s += " slots " + a.slots_param;
    if (a.layout == AggLayout::DirectIndexed) {
      s += a.scratchpad ? " scratchpad" : " global";
      s += " (" + std::to_string(a.scratchpad_bytes_per_slot) + " B/slot, budget " + std::to_string(a.max_scratchpad_slots) + " slots)";
    }
    if (a.layout == AggLayout::GlobalHash && a.scratchpad)
      s += " per-CTA hashed " + a.local_slots_param + " (" + std::to_string(a.scratchpad_bytes_per_slot) + " B/slot)";
    s += " tuples " + a.occupancy_buffer;
    if (a.rank_local) s += " rank-local";
    if (!a.combines.empty()) s += " combines " + a.combines;
    if (!a.split_key.empty()) s += " split across ranks by " + a.split_key;
    if (a.sorted_key) s += " sorted-key";
    s += "\n";
    for (const GroupKey& k : a.keys) {
      s += "  key " + k.name + " := " + k.expr->to_string() + ": " + k.type.to_string();
      if (!k.min_param.empty()) s += " min " + k.min_param + " domain " + k.domain_param;
      if (!k.key_buffer.empty()) s += " -> " + k.key_buffer + (a.key_lanes > 1 ? " lane " + std::to_string(k.key_lane) : "");
      if (!k.dict_table.empty()) s += " decode " + k.dict_table + "." + k.dict_column;
      if (!k.heap_table.empty()) s += " row of " + k.heap_table + "." + k.heap_column;
      s += "\n";
    }
    for (const Accumulator& acc : a.accumulators) {
      s += "  " + acc.name + " := " + plan::agg_func_name(acc.func) + "(" + (acc.arg ? acc.arg->to_string() : "*") + ")" +
           (acc.filter ? " filter " + acc.filter->to_string() : "") + ": " + acc.type.to_string() + (acc.wide ? " 128-bit" : "") + " -> " + acc.buffer +
           (acc.state_buffer.empty() ? "" : " state " + acc.state_buffer) + "\n";
    }
    if (!a.overflow_buffer.empty()) s += "  overflow " + a.overflow_buffer + "\n";
    if (a.compaction) {
      s += "  compacted for the host: rows " + a.compaction->rows_buffer + ", chunks " + a.compaction->counts_buffer;
      if (!a.compaction->slot_buffer.empty()) s += ", slot index -> " + a.compaction->slot_buffer;
      s += "\n";
      for (const CompactedColumn& c : a.compaction->columns)
        s += "    " + c.from + " -> " + c.to + (c.words > 1 ? " (" + std::to_string(c.words) + " words/slot)" : "") + "\n";
    }
  }
  for (const OutputTable& o : p.outputs) {
    s += "output " + o.name + " capacity " + o.capacity_param + " counter " + o.counter_buffer +
         (o.overflow_buffer.empty() ? "" : " overflow " + o.overflow_buffer) + "\n";
    for (const OutputColumn& c : o.columns)
      s += "  " + c.name + " := " + c.expr->to_string() + ": " + c.type.to_string() + " -> " + c.buffer +
           (c.valid_buffer.empty() ? "" : " valid " + c.valid_buffer) + "\n";
  }
  for (const Pipeline& pl : p.pipelines) {
    s += "pipeline " + pl.name + (p.scans_share(pl) ? " [each rank's share]" : "") + "\n";
    s += "  depends on [";
    for (size_t i = 0; i < pl.depends_on.size(); ++i) s += (i ? ", p" : "p") + std::to_string(pl.depends_on[i]);
    s += "]\n  source " + (!pl.source.aggregation.empty() ? "aggregation " + pl.source.aggregation
                         : !pl.source.output.empty()     ? "output " + pl.source.output
                                                         : "scan " + pl.source.table + (pl.source.alias != pl.source.table ? " as " + pl.source.alias : ""));
    s += " rows " + pl.source.rows_param + " columns [";
    for (size_t i = 0; i < pl.source.columns.size(); ++i) s += (i ? ", " : "") + pl.source.columns[i];
    s += "]\n";
    for (const PipelineOp& op : pl.ops) {
      s += "  op " + std::to_string(op.id) + " " + pipeline_op_kind_name(op.kind);
      switch (op.kind) {
        case PipelineOpKind::Filter: s += " " + op.predicate->to_string(); break;
        case PipelineOpKind::Probe: {
          s += std::string(" ") + plan::join_type_name(op.join_type) + " " + op.hash_table + " keys [";
          for (size_t i = 0; i < op.probe_keys.size(); ++i) s += (i ? ", " : "") + op.probe_keys[i]->to_string();
          s += "]";
          if (op.residual) s += " residual " + op.residual->to_string();
          break;
        }
        case PipelineOpKind::Map:
          for (size_t i = 0; i < op.exprs.size(); ++i) s += std::string(i ? ", " : " ") + op.exprs[i].name + " := " + op.exprs[i].expr->to_string();
          break;
      }
      s += "\n";
    }
    s += "  sink " + std::string(sink_kind_name(pl.sink.kind)) + " " + pl.sink.state + "\n";
    s += "  attributes [";
    for (size_t i = 0; i < pl.attributes.size(); ++i) {
      const AttributeBinding& b = pl.attributes[i];
      s += (i ? ", " : "") + b.variable + "=" + attr_name(b.attr) + ":" + origin_name(b.origin);
    }
    s += "]\n";
  }
  const ResultDesc& r = p.result;
  s += std::string("result from ") + (r.kind == ResultDesc::Kind::Aggregation ? "aggregation " : "output ") + r.state + "\n";
  static const char* sources[] = {"key", "accumulator", "average", "output"};
  for (const ResultColumn& c : r.columns) {
    s += "  " + c.name + ": " + c.type.to_string() + " = " + sources[static_cast<int>(c.source)] + " " + std::to_string(c.index);
    if (c.source == ResultColumn::Source::Average) s += " / " + std::to_string(c.count_index);
    if (!c.dict_table.empty()) s += " decode " + c.dict_table + "." + c.dict_column;
    if (!c.heap_table.empty()) s += " row of " + c.heap_table + "." + c.heap_column;
    if (c.null_without_input) s += " null without input";
    s += "\n";
  }
  if (!r.input_rows_state.empty()) s += "  input rows of " + r.input_rows_state + "\n";
  for (const plan::WindowExpr& w : r.windows) s += "  window " + plan::explain_window(w) + " (on the device, after the result)\n";
  if (!r.hidden.empty()) {
    s += "  hidden";
    for (size_t i = 0; i < r.hidden.size(); ++i) s += std::string(i ? ", " : " ") + r.hidden[i];
    s += "\n";
  }
  if (!r.order_by.empty()) {
    s += "  order by";
    for (size_t i = 0; i < r.order_by.size(); ++i) s += std::string(i ? ", " : " ") + r.order_by[i].name + (r.order_by[i].descending ? " desc" : " asc");
    s += "\n";
  }
  if (r.limit >= 0) s += "  limit " + std::to_string(r.limit) + (r.order_by.empty() ? "" : " (top-k on the host)") + "\n";
  if (r.offset > 0) s += "  offset " + std::to_string(r.offset) + "\n";
  return s;
}

std::string explain_kernels(const Program& p) {
  std::string s;
  for (const Kernel& k : p.kernels) {
    s += "kernel " + k.name + " (p" + std::to_string(k.pipeline) + ") ";
    if (k.kind != KernelKind::Compound) s += std::string(kernel_kind_name(k.kind)) + " " + k.state + " ";
    s += "over " + (k.launch.tuples_param.empty() ? "a grid of " + std::to_string(k.launch.fixed_grid) : k.launch.tuples_param) +
         ", scratch " + std::to_string(k.launch.scratch_bytes_per_thread) + " B/thread";
    if (!k.launch.scratch_slots_param.empty()) s += " + " + std::to_string(k.launch.scratch_slot_bytes) + " B x " + k.launch.scratch_slots_param;
    s += "\n";
    for (const KernelArg& a : k.args) {
      s += "  arg ";
      switch (a.kind) {
        case KernelArg::Kind::Column:
          s += "column " + a.name + " = " + a.table + "." + a.column + ": " + scalar_type_name(a.type);
          if (a.stored_bytes != 0) s += " stored as i" + std::to_string(8 * a.stored_bytes);
          break;
        case KernelArg::Kind::ColumnHeap: s += "column " + a.name + " = " + a.table + "." + a.column + ": bytes"; break;
        case KernelArg::Kind::Buffer: s += std::string(a.written ? "out " : "in ") + a.name + ": " + scalar_type_name(a.type) + "*"; break;
        case KernelArg::Kind::Param: s += "param " + a.name + ": " + scalar_type_name(a.type); break;
        case KernelArg::Kind::Scratch: s += "scratch"; break;
      }
      s += "\n";
    }
    for (const Reduction& r : k.reductions) {
      s += std::string("  reduction ") + reduction_kind_name(r.kind) + " " + technique_name(r.technique) + " local " +
           local_resolution_name(r.local) + " into " + r.state + (r.note.empty() ? "" : " (" + r.note + ")") + "\n";
    }
    for (const LibraryCall& c : p.library_calls) {
      if (c.after != k.name) continue;
      s += std::string("library ") + library_op_name(c.op) + "(";
      for (size_t i = 0; i < c.buffers.size(); ++i) s += (i ? ", " : "") + c.buffers[i];
      s += ") over " + c.count_param;
      if (c.op == LibraryOp::Reduce || c.op == LibraryOp::ReduceByKey) s += std::string(", ") + reduce_op_name(c.reduce) + (c.f64 ? " f64" : " i64");
      if (!c.result_param.empty()) s += " -> " + c.result_param + (c.limit_param.empty() ? "" : " (at most " + c.limit_param + ")");
      s += ": " + c.what + "\n";
    }
  }
  return s;
}

// Distributed compiles: the state filled from a rank's share and merged across ranks after the last
// pipeline filling it (runtime/distributed/distribution.h decides the same at run time).
std::string explain_exchanges(const Program& p) {
  std::string s;
  auto on_share = [&](const Pipeline& pl) {
    if (p.scans_share(pl)) return true;  // a partitioned table, or the rows a shuffle sent the rank
    const AggregationTable* a = pl.source.aggregation.empty() ? nullptr : p.find_aggregation(pl.source.aggregation);
    const AggregationTable* sink = pl.sink.kind == SinkKind::Aggregate ? p.find_aggregation(pl.sink.state) : nullptr;
    if (sink != nullptr && !sink->split_key.empty()) return true;  // phase 2 over the rank's range of a key
    // the partial groups of a two-phase aggregation, or groups by the partition key, or the rank's part of split groups
    return a != nullptr && (a->rank_local || a->split_groups);
  };
  auto split_by = [&](const AggregationTable& a) {  // the key it or the table it aggregates is split by
    if (!a.split_key.empty()) return " (by " + a.split_key + ")";
    for (const Pipeline& q : p.pipelines) {
      const AggregationTable* from = q.sink.state == a.name ? p.find_aggregation(q.source.aggregation) : nullptr;
      if (from != nullptr && !from->split_key.empty()) return " (by " + from->split_key + ", as " + from->name + ")";
    }
    return std::string();
  };
  // The result's split table under ORDER BY ... LIMIT: each rank sends only its possible first rows.
  auto top_k_of = [](const AggregationTable& a) {
    return a.top_k < 0 ? std::string() : " (each rank's that can be among the first " + std::to_string(a.top_k) + ")";
  };
  auto on_share_groups = [&](const Pipeline& pl) {
    const AggregationTable* a = pl.source.aggregation.empty() ? nullptr : p.find_aggregation(pl.source.aggregation);
    return a != nullptr && a->partition_keyed;
  };
  for (const Pipeline& pl : p.pipelines) {
    if (!on_share(pl)) continue;
    int last = pl.id;
    for (const Pipeline& q : p.pipelines)
      if (q.sink.state == pl.sink.state) last = std::max(last, q.id);
    if (last != pl.id) continue;  // said at the last writer
    std::string how;
    if (const AggregationTable* a = p.find_aggregation(pl.sink.state))
      how = a->partition_keyed                   ? "none: groups of the rank's own partition keys, complete there"
            : a->rank_local                      ? "none: the rank's partial groups, materialized next"
            : a->split_groups && a->compaction   ? "the rank's part of the groups" + split_by(*a) + ", compacted rows" + top_k_of(*a) +
                                                       " concatenated in rank order"
            : a->split_groups                    ? "none: the rank's part of the groups" + split_by(*a) + ", read on the rank"
            : a->layout == AggLayout::GlobalHash ? "groups combined by key"
                                                 : "slot by slot";
    else if (const OutputTable* o = p.find_output(pl.sink.state); o != nullptr && !o->shuffle_columns.empty()) {
      how = "rows shuffled by key (";
      for (size_t i = 0; i < o->shuffle_columns.size(); ++i) how += (i ? ", " : "") + o->columns.at(o->shuffle_columns[i]).name;
      how += "): each to the rank its key hashes to";
    } else if (o != nullptr)
      how = "rows concatenated in rank order";
    else if (const HashTable* ht = p.find_hash_table(pl.sink.state); ht != nullptr && ht->rank_local)
      how = ht->shuffled             ? "none: rank-local build of the rows shuffled to the rank"
            : on_share_groups(pl)    ? "none: rank-local build of the rank's own groups"
                                     : "none: rank-local build of co-partitioned rows";
    else if (ht != nullptr && ht->merged_keys)
      how = "slot by slot (the maximum: every rank's keys)";
    s += "  after p" + std::to_string(last) + ": " + pl.sink.state + " — " + (how.empty() ? "?" : how) + "\n";
  }
  for (const HashTable& ht : p.hash_tables)
    if (!ht.exchange_note.empty()) s += "  join on " + ht.name + ": " + ht.exchange_note + "\n";
  if (s.empty()) return "";  // no pipeline reads a partitioned table: nothing is exchanged
  std::string head = "exchanges across ranks (partitioned:";
  for (const std::string& t : p.partitioned_tables) head += " " + t;
  return head + "):\n" + s;
}

std::string explain(const Program& p) {
  std::string s;
  if (p.logical) s += plan::explain_logical(*p.logical);
  s += explain_pipelines(p);
  s += explain_exchanges(p);
  s += explain_kernels(p);
  return s;
}

}  // namespace hqc::ir

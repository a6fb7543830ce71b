// Pass fuse_pipelines: one compound kernel per pipeline (HorseQC fusion operator).
//   expects: pipelines with sinks and state objects (build_program), DictCode params assigned
//            (assign_parameters) so kernels can list them as arguments.
//   guarantees: Program::kernels[i] is pipeline i's compound kernel with its complete, ordered
//     argument list: source columns (or the materialized output's buffers, or the scanned
//     aggregation table's occupancy, key and accumulator buffers; a heap string column only where
//     an expression reads its bytes, then as offsets + bytes; a scan of a base table with heap
//     strings also takes the chunk bases row_base_<table> and heap_base_<table>_<column>,
//     Param::ChunkBase, 0 unless the scan streams in chunks), probed hash-table
//     buffers (read), the sink's buffers (written), then every param the kernel reads (the
//     tuple count first); each reduction annotated with its technique:
//       model        materialize  scalar aggregate  grouped aggregate
//       resolution   A3           B3                C3 if the table is privatized in scratchpad,
//                                                   else C2 (no local table fits: per-tuple atomics)
//       pipelined    A2           B2                C2
//     Hash builds have no reduction (one atomicCAS insert per tuple in every model).
//     The privatisation is decided here (resolution model): a direct-indexed table whose expected
//     slots fit Program::scratchpad_budget_bytes is copied per CTA whole; a global hash table gets a
//     per-CTA hashed table of the largest power-of-two slots the budget holds (a Constant param,
//     AggregationTable::local_slots_param) unless the statistics expect more than
//     kLocalHashCrowding times as many groups; a table with a locked 128-bit MIN/MAX never is.
//     A C2 under the resolution model carries the reason in Reduction::note.
//     multi_pass: each pipeline's compound kernel is split into count / write / finish kernels with
//     library calls between them (A1/B1/C1; ir/pass_fuse_multi_pass.cpp).
//     operator_at_a_time: the same split, of the one-operator pipelines the builder made.
#include <algorithm>
#include <tuple>
#include <utility>


#include "ir/fusion.h"
#include "ir/passes.h"
#include "planner/sizing.h"
#include "ir/walk.h"
#include "storage/error.h"

namespace hqc::ir {

namespace {

// A CTA's hashed table (C3) is used while the expected groups are at most this many times its slots.
constexpr uint64_t kLocalHashCrowding = 4;

// Bytes of one slot of a CTA's private copy of `t`: the tuple count, the accumulators, and for a
// hashed table its key lanes.
uint32_t private_slot_bytes(const AggregationTable& t) {
  uint32_t bytes = 8;  // the tuple count
  if (t.layout == AggLayout::GlobalHash) bytes += 8 * t.key_lanes;
  for (const Accumulator& a : t.accumulators) bytes += scalar_bytes(a.element) * (a.wide ? 2 : 1);
  return bytes;
}

// Slots of the private copy the budget allows: all of a direct-indexed table's (the bound its
// expected slots are checked against), the largest power of two for a hashed one.
uint64_t private_slots(const AggregationTable& t, uint64_t budget) {
  const uint64_t bytes = private_slot_bytes(t);
  if (t.layout == AggLayout::DirectIndexed) return budget / bytes;
  uint64_t slots = 1;
  while (slots * 2 * bytes <= budget) slots *= 2;
  return slots;
}

// Why a grouped aggregation cannot keep a private copy per CTA in scratchpad, or "".
std::string why_not_private(const Program& program, const AggregationTable& t) {
  // A 128-bit MIN/MAX is updated under a per-slot lock in global memory only (no scratchpad form).
  if (std::any_of(t.accumulators.begin(), t.accumulators.end(), [](const Accumulator& a) { return !a.state_buffer.empty(); }))
    return "a 128-bit MIN/MAX is updated under a lock per slot in global memory: one locked update per tuple";
  const uint64_t budget = program.scratchpad_budget_bytes, slots = private_slots(t, budget);
  if (t.layout == AggLayout::DirectIndexed) {
    if (t.expected_slots == 0) return "no statistics bound its slots: one atomic per tuple";
    if (!planner::fits_scratchpad(t.expected_slots, private_slot_bytes(t), budget))
      return "the table (" + std::to_string(t.expected_slots) + " slots) does not fit " + std::to_string(budget) +
             " B of scratchpad: one atomic per tuple";
    return "";
  }
  if (t.expected_slots > kLocalHashCrowding * slots)
    return "the statistics expect " + std::to_string(t.expected_slots) + " groups, many more than a per-CTA hashed table of " +
           std::to_string(slots) + " slots holds: one atomic per tuple";
  return "";
}

// The resolution model's scratchpad decision for every grouped aggregation (see the contract).
void privatise_aggregations(Program& program) {
  for (AggregationTable& t : program.aggregations) {
    if (t.layout == AggLayout::Scalar) continue;
    t.scratchpad_bytes_per_slot = private_slot_bytes(t);
    t.max_scratchpad_slots = private_slots(t, program.scratchpad_budget_bytes);
    t.scratchpad = why_not_private(program, t).empty();
    if (t.scratchpad && t.layout == AggLayout::GlobalHash) {
      Param local{t.name + "_local_slots", Param::Source::Constant, ScalarType::I64};
      local.value = static_cast<int64_t>(t.max_scratchpad_slots);
      local.comment = "slots of the per-CTA hashed table in scratchpad (" + std::to_string(t.scratchpad_bytes_per_slot) + " B/slot)";
      if (program.find_param(local.name) == nullptr) program.params.push_back(local);
      t.local_slots_param = local.name;
    }
  }
}

class KernelBuilder {
 public:
  KernelBuilder(const Program& program, Kernel& k) : program_(program), k_(k) {}

  void buffer(const std::string& name, bool written) {
    for (KernelArg& a : k_.args) {
      if (a.kind == KernelArg::Kind::Buffer && a.name == name) {
        a.written = a.written || written;
        return;
      }
    }
    const Buffer* b = program_.find_buffer(name);
    if (!b) throw Error(ErrorKind::Internal, "fuse_pipelines: kernel " + k_.name + " uses undeclared buffer " + name);
    KernelArg a;
    a.kind = KernelArg::Kind::Buffer;
    a.name = name;
    a.type = b->element;
    a.written = written;
    k_.args.push_back(a);
  }

  void param(const std::string& name) {
    if (name.empty()) return;
    for (const std::string& p : params_) {
      if (p == name) return;
    }
    params_.push_back(name);
  }

  // A heap string column is two arguments: its offsets and its bytes.
  void column(const std::string& variable, const std::string& table, const std::string& column, const plan::Attribute& attr) {
    const bool heap = attr.type.is_string() && attr.dict_table.empty() && !attr.type.packed;
    KernelArg a;
    a.kind = KernelArg::Kind::Column;
    a.name = "col_" + variable;
    a.table = table;
    a.column = column;
    a.type = heap ? ScalarType::U64 : scalar_of(attr.type);
    k_.args.push_back(a);
    if (heap) {
      a.kind = KernelArg::Kind::ColumnHeap;
      a.name = "col_" + variable + "_bytes";
      k_.args.push_back(a);
    }
  }

  void finish_params() {
    for (const std::string& name : params_) {
      const Param* p = program_.find_param(name);
      if (!p) throw Error(ErrorKind::Internal, "fuse_pipelines: kernel " + k_.name + " uses undeclared param " + name);
      KernelArg a;
      a.kind = KernelArg::Kind::Param;
      a.name = name;
      a.type = p->type;
      k_.args.push_back(a);
    }
  }

 private:
  const Program& program_;
  Kernel& k_;
  std::vector<std::string> params_;
};

const char* sink_suffix(SinkKind k) {
  switch (k) {
    case SinkKind::HashBuild: return "build";
    case SinkKind::Aggregate: return "aggregate";
    case SinkKind::Materialize: return "materialize";
  }
  return "sink";
}

bool is_heap_string(const plan::Attribute& attr) { return attr.type.is_string() && attr.dict_table.empty() && !attr.type.packed; }

// The chunk bases of a scan of a base table (Param::ChunkBase): its heap strings' row references
// start at row_base_<table>; the offsets of a heap string whose bytes the kernel reads are
// positions in the whole heap, the bytes argument starts at heap_base_<table>_<column>. Both are 0
// unless the scan streams in chunks.
std::string row_base_param(const std::string& table) { return "row_base_" + table; }
std::string heap_base_param(const std::string& table, const std::string& column) { return "heap_base_" + table + "_" + column; }

// Whether an expression of pipeline `p` reads the bytes of heap string (source, column)
// (for_each_string_operand).
bool reads_string_bytes(const Program& program, const Pipeline& p, const std::string& source, const std::string& column) {
  bool reads = false;
  for (const plan::Expr* root : pipeline_exprs(program, p))
    for_each_string_operand(*root, [&](const plan::Expr& c) { reads = reads || (c.source == source && c.column == column); });
  return reads;
}

void declare_chunk_bases(Program& program) {
  auto declare = [&](Param p) {
    if (program.find_param(p.name) == nullptr) program.params.push_back(std::move(p));
  };
  for (const Pipeline& p : program.pipelines) {
    if (p.source.table.empty() || !p.source.output.empty() || !p.source.aggregation.empty()) continue;
    for (const AttributeBinding& a : p.attributes) {
      if (a.origin != AttributeBinding::Origin::SourceColumn || !is_heap_string(a.attr)) continue;
      Param row{row_base_param(p.source.table), Param::Source::Constant, ScalarType::I64};
      row.table = p.source.table;
      row.chunk_base = Param::ChunkBase::Row;
      row.comment = "row of the launch's first row (a chunk's first row when the scan streams): heap strings' row references";
      declare(row);
      if (!reads_string_bytes(program, p, a.attr.source, a.attr.name)) continue;
      Param heap{heap_base_param(p.source.table, a.attr.name), Param::Source::Constant, ScalarType::I64};
      heap.table = p.source.table;
      heap.column = a.attr.name;
      heap.chunk_base = Param::ChunkBase::HeapByte;
      heap.comment = "heap position of the bytes argument's first byte (a chunk's when the scan streams)";
      declare(heap);
    }
  }
}

}  // namespace

KernelArg buffer_arg(const Program& program, const std::string& name, bool written) {
  const Buffer* b = program.find_buffer(name);
  if (b == nullptr) throw Error(ErrorKind::Internal, "kernel argument: undeclared buffer " + name);
  KernelArg a;
  a.kind = KernelArg::Kind::Buffer;
  a.name = name;
  a.type = b->element;
  a.written = written;
  return a;
}

KernelArg param_arg(const Program& program, const std::string& name) {
  const Param* p = program.find_param(name);
  if (p == nullptr) throw Error(ErrorKind::Internal, "kernel argument: undeclared param " + name);
  KernelArg a;
  a.kind = KernelArg::Kind::Param;
  a.name = name;
  a.type = p->type;
  return a;
}

Kernel compound_kernel(const Program& program, const Pipeline& p) {
  bool resolution = program.model == ExecutionModel::Resolution;
  Kernel k;
  k.pipeline = p.id;
  k.name = program.label + "_p" + std::to_string(p.id) + "_" + sink_suffix(p.sink.kind);
  KernelBuilder b(program, k);
  b.param(p.source.rows_param);

  // Source.
  if (!p.source.aggregation.empty()) {
    // An earlier pipeline's aggregation table: the occupancy (which slots hold a group), the key
    // buffers (hashed) or the key domains (direct-indexed: keys follow from the slot index), and
    // the accumulators the pipeline reads.
    const AggregationTable* agg = program.find_aggregation(p.source.aggregation);
    if (agg->layout != AggLayout::Scalar) b.buffer(agg->occupancy_buffer, false);
    for (const std::string& c : p.source.columns) {
      for (const GroupKey& key : agg->keys) {
        if (key.name != c) continue;
        if (agg->layout == AggLayout::GlobalHash) b.buffer(key.key_buffer, false);
        if (agg->layout == AggLayout::DirectIndexed) {
          b.param(key.min_param);
          for (const GroupKey& k : agg->keys) b.param(k.domain_param);
        }
      }
      for (const Accumulator& acc : agg->accumulators) {
        if (acc.name == c) b.buffer(acc.buffer, false);
      }
    }
  } else if (p.source.output.empty()) {
    for (const AttributeBinding& a : p.attributes) {
      if (a.origin != AttributeBinding::Origin::SourceColumn) continue;
      const bool heap = is_heap_string(a.attr);
      if (heap) b.param(row_base_param(p.source.table));
      if (heap && !reads_string_bytes(program, p, a.attr.source, a.attr.name)) continue;  // a row reference only
      b.column(a.variable, p.source.table, a.attr.name, a.attr);
      if (heap) b.param(heap_base_param(p.source.table, a.attr.name));
    }
  } else {
    const OutputTable* out = program.find_output(p.source.output);
    for (const AttributeBinding& a : p.attributes) {
      if (a.origin != AttributeBinding::Origin::SourceColumn) continue;
      for (const OutputColumn& c : out->columns) {
        if (c.expr->source == a.attr.source && c.name == a.attr.name) b.buffer(c.buffer, false);
      }
    }
  }
  // A heap string a probe brought, or one read from a materialized output, is a row reference into
  // its base table: where an expression reads its bytes, that column's offsets and bytes are
  // arguments too (any row of them is read).
  const OutputTable* scanned_output = p.source.output.empty() ? nullptr : program.find_output(p.source.output);
  for (const AttributeBinding& a : p.attributes) {
    const bool heap = a.attr.type.is_string() && a.attr.dict_table.empty() && !a.attr.type.packed;
    const bool from_output = a.origin == AttributeBinding::Origin::SourceColumn && scanned_output != nullptr;
    if ((a.origin != AttributeBinding::Origin::ProbePayload && !from_output) || !heap ||
        !reads_string_bytes(program, p, a.attr.source, a.attr.name))
      continue;
    std::string table, column = a.attr.name;
    if (from_output) {
      for (const OutputColumn& c : scanned_output->columns)
        if (c.name == a.attr.name && c.expr && c.expr->source == a.attr.source) std::tie(table, column) = std::pair{c.heap_table, c.heap_column};
    } else {
      for (const Pipeline& q : program.pipelines)
        if (q.source.alias == a.attr.source && !q.source.table.empty()) table = q.source.table;
    }
    if (table.empty()) continue;  // not a base-table column: codegen reports it where its bytes are read
    b.column(a.variable, table, column, a.attr);
  }
  // Probes read their hash tables.
  for (const PipelineOp& op : p.ops) {
    if (op.kind != PipelineOpKind::Probe) continue;
    const HashTable* ht = program.find_hash_table(op.hash_table);
    for (const std::string& buf : ht->key_buffers) b.buffer(buf, false);
    for (const std::string& buf : ht->payload_buffers) b.buffer(buf, false);
    if (!ht->bitmap_buffer.empty()) b.buffer(ht->bitmap_buffer, false);
    if (!ht->head_buffer.empty()) b.buffer(ht->head_buffer, false);
    if (!ht->next_buffer.empty()) b.buffer(ht->next_buffer, false);
    b.param(ht->capacity_param);
    b.param(ht->key_min_param);
  }
  // Checked arithmetic reports overflows in the pipeline's flag word (pass flag_arithmetic).
  if (!p.arith_flags.empty()) b.buffer(p.arith_flags, true);
  // The sink writes its state.
  switch (p.sink.kind) {
    case SinkKind::HashBuild: {
      const HashTable* ht = program.find_hash_table(p.sink.state);
      for (const std::string& buf : ht->key_buffers) b.buffer(buf, true);
      for (const std::string& buf : ht->payload_buffers) b.buffer(buf, true);
      if (!ht->head_buffer.empty()) b.buffer(ht->head_buffer, true);
      if (!ht->next_buffer.empty()) b.buffer(ht->next_buffer, true);
      b.buffer(ht->overflow_buffer, true);
      if (!ht->count_buffer.empty()) b.buffer(ht->count_buffer, true);
      if (!ht->bitmap_buffer.empty()) b.buffer(ht->bitmap_buffer, true);
      b.param(ht->capacity_param);
      b.param(ht->key_min_param);
      b.param(ht->entry_base_param);
      break;
    }
    case SinkKind::Aggregate: {
      const AggregationTable* agg = program.find_aggregation(p.sink.state);
      for (const GroupKey& key : agg->keys) {
        if (!key.key_buffer.empty()) b.buffer(key.key_buffer, true);
      }
      b.buffer(agg->occupancy_buffer, true);
      for (const Accumulator& acc : agg->accumulators) {
        b.buffer(acc.buffer, true);
        if (!acc.state_buffer.empty()) b.buffer(acc.state_buffer, true);
      }
      if (!agg->overflow_buffer.empty()) b.buffer(agg->overflow_buffer, true);
      for (const GroupKey& key : agg->keys) {
        b.param(key.min_param);
        b.param(key.domain_param);
      }
      b.param(agg->slots_param);
      b.param(agg->local_slots_param);
      Reduction r;
      r.state = agg->name;
      if (agg->layout == AggLayout::Scalar) {
        r.kind = ReductionKind::SingleAggregate;
        r.technique = resolution ? Technique::B3 : Technique::B2;
        r.local = resolution ? program.local_resolution : LocalResolution::None;
      } else {
        r.kind = ReductionKind::GroupedAggregate;
        bool local = resolution && agg->scratchpad;
        r.technique = local ? Technique::C3 : Technique::C2;
        r.local = local ? LocalResolution::WorkEfficient : LocalResolution::None;
        if (resolution && !local) r.note = why_not_private(program, *agg);
      }
      k.reductions.push_back(r);
      break;
    }
    case SinkKind::Materialize: {
      const OutputTable* out = program.find_output(p.sink.state);
      for (const OutputColumn& c : out->columns) {
        b.buffer(c.buffer, true);
        if (!c.valid_buffer.empty()) b.buffer(c.valid_buffer, true);
      }
      b.buffer(out->counter_buffer, true);
      if (!out->overflow_buffer.empty()) b.buffer(out->overflow_buffer, true);
      b.param(out->capacity_param);
      Reduction r;
      r.kind = ReductionKind::WritePosition;
      r.state = out->name;
      r.technique = resolution ? Technique::A3 : Technique::A2;
      r.local = resolution ? program.local_resolution : LocalResolution::None;
      k.reductions.push_back(r);
      break;
    }
  }
  // Dictionary codes of literals; per-code tables of dictionary columns; values of earlier stages
  // (scalar subqueries; a 128-bit one is two params, its low and high word).
  for (const plan::Expr* root : pipeline_exprs(program, p)) {
    plan::visit(*root, [&](const plan::Expr& e) {
      if (e.kind == plan::ExprKind::DictCode || e.kind == plan::ExprKind::Param) b.param(e.param);
      if (e.kind == plan::ExprKind::Param && is_decimal128(e.type)) b.param(high_word_param(e.param));
      if (e.kind == plan::ExprKind::CodeTable) b.buffer(e.param, false);
    });
  }
  b.finish_params();
  return k;
}

void fuse_pipelines(Program& program) {
  program.kernels.clear();
  program.library_calls.clear();
  if (program.model == ExecutionModel::Resolution) privatise_aggregations(program);
  declare_chunk_bases(program);
  for (const Pipeline& p : program.pipelines) {
    if (library_reductions(program.model)) split_multi_pass(program, p, compound_kernel(program, p));
    else program.kernels.push_back(compound_kernel(program, p));
  }
}

}  // namespace hqc::ir

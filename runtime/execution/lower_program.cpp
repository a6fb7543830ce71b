// ir::Program + parameter values + module source → ExecutablePlan; see lower_program.h.
// Only the IR's data structures are read (no ir/ functions are called), so runtime does not need
// to link the compiler to run a plan.
#include "runtime/execution/lower_program.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <optional>
#include <set>

#include "ir/walk.h"
#include "storage/error.h"

namespace hqc::runtime {

namespace {

// An output's capacity and the params computed from it (its rows_written, a later output's
// capacity over those rows, sums and products of them): a Grow check grows them together, so a
// pipeline that reads the grown output is sized for the rows it now holds.
std::vector<std::string> capacity_and_dependents(const ir::Program& program, const std::string& capacity) {
  std::set<std::string> grown{capacity};
  for (bool changed = true; changed;) {
    changed = false;
    for (const ir::Param& p : program.params) {
      if (grown.count(p.name)) continue;
      bool depends = false;
      if (p.source == ir::Param::Source::OutputRows) {
        const ir::OutputTable* read = program.find_output(p.table);
        depends = read != nullptr && grown.count(read->capacity_param) > 0;
      } else if (p.source == ir::Param::Source::Product || p.source == ir::Param::Source::Sum) {
        depends = std::any_of(p.factors.begin(), p.factors.end(), [&](const std::string& f) { return grown.count(f) > 0; });
      }
      if (depends) changed = grown.insert(p.name).second;
    }
  }
  return {grown.begin(), grown.end()};
}

// The overflow-checked expressions of a pipeline, for the message when one overflows.
std::string checked_expressions(const ir::Program& program, const ir::Pipeline& pipeline) {
  std::vector<std::string> found;
  std::function<void(const plan::Expr&)> walk = [&](const plan::Expr& e) {
    if (e.overflow_check && std::find(found.begin(), found.end(), e.to_string()) == found.end()) found.push_back(e.to_string());
    for (const plan::ExprPtr& a : e.args) walk(*a);
  };
  for (const plan::Expr* e : ir::pipeline_exprs(program, pipeline)) walk(*e);
  std::string out;
  for (const std::string& f : found) out += (out.empty() ? "" : ", ") + f;
  return out;
}

[[noreturn]] void fail(const ir::Program& program, const std::string& what) {
  throw Error(ErrorKind::Internal, "lowering " + program.label + " for execution: " + what);
}

int64_t value_of(const ir::Program& program, const ir::ParamValues& values, const std::string& name) {
  auto it = values.values.find(name);
  if (it != values.values.end()) return it->second;
  // A constant needs no resolving (e.g. added by a pass after the values were: compact_result's shapes).
  for (const ir::Param& p : program.params)
    if (p.name == name && p.source == ir::Param::Source::Constant) return p.value;
  fail(program, "parameter \"" + name + "\" has no resolved value");
}

ElementType element_of(const ir::Program& program, ir::ScalarType t, const std::string& buffer) {
  switch (t) {
    case ir::ScalarType::I32: return ElementType::I32;
    case ir::ScalarType::U32: return ElementType::U32;
    case ir::ScalarType::I64: return ElementType::I64;
    case ir::ScalarType::U64: return ElementType::U64;
    case ir::ScalarType::F64: return ElementType::F64;
  }
  fail(program, "buffer " + buffer + " has an unknown element type");
}

ScalarKind scalar_of(const ir::Program& program, ir::ScalarType t, const std::string& param) {
  switch (t) {
    case ir::ScalarType::I32:
    case ir::ScalarType::U32: return ScalarKind::I32;  // same 32 bits; the kernel reads them as it declares
    case ir::ScalarType::I64: return ScalarKind::I64;
    case ir::ScalarType::U64: return ScalarKind::U64;
    case ir::ScalarType::F64: return ScalarKind::F64;
  }
  fail(program, "parameter " + param + " has an unknown type");
}

template <typename T>
const T& find_state(const ir::Program& program, const std::vector<T>& states, const std::string& name,
                    const char* kind) {
  for (const T& s : states) {
    if (s.name == name) return s;
  }
  fail(program, std::string(kind) + " \"" + name + "\" is not declared");
}

void lower_output_result(const ir::Program& program, const ir::ResultDesc& desc, ResultSpec& r) {
  const ir::OutputTable& out = find_state(program, program.outputs, desc.state, "output");
  r.rows = ResultSpec::Rows::Counter;
  r.counter_buffer = out.counter_buffer;
  if (!desc.input_rows_state.empty()) {
    r.input_rows_buffer = find_state(program, program.aggregations, desc.input_rows_state, "aggregation table").occupancy_buffer;
  }
  for (const ir::ResultColumn& rc : desc.columns) {
    if (rc.source != ir::ResultColumn::Source::Output || rc.index >= out.columns.size()) {
      fail(program, "result column " + rc.name + " does not name a column of output " + out.name);
    }
    const ir::OutputColumn& oc = out.columns[rc.index];
    ResultColumnSpec c;
    c.name = rc.name;
    c.type = rc.type;
    c.buffer = oc.buffer;
    c.dictionary_table = rc.dict_table.empty() ? oc.dict_table : rc.dict_table;
    c.dictionary_column = rc.dict_table.empty() ? oc.dict_column : rc.dict_column;
    c.null_without_input = rc.null_without_input;
    c.heap_table = oc.heap_table;
    c.heap_column = oc.heap_column;
    c.valid_buffer = rc.validity_index >= 0 ? out.columns.at(static_cast<size_t>(rc.validity_index)).buffer : oc.valid_buffer;
    c.wide = ir::is_decimal128(oc.type);  // a 128-bit decimal: two words per row
    r.columns.push_back(c);
  }
}

// The result read from an aggregation table: which rows (one for a scalar aggregate, the compacted
// rows, or the occupied slots), and each result column's buffer and decoding.
class AggregationResult {
 public:
  AggregationResult(const ir::Program& program, const ir::ParamValues& values, const ir::AggregationTable& agg, ResultSpec& r)
      : program_(program), values_(values), agg_(agg), r_(r), scalar_(agg.layout == ir::AggLayout::Scalar),
        dense_(agg.compaction ? &*agg.compaction : nullptr), strides_(agg.keys.size(), 1) {
    // Mixed-radix strides of a direct-indexed table: stride of the last key is 1.
    if (agg.layout == ir::AggLayout::DirectIndexed) {
      for (size_t i = agg.keys.size(); i-- > 1;) strides_[i - 1] = strides_[i] * value_of(program, values, agg.keys[i].domain_param);
    }
  }

  void rows() {
    r_.rows = ResultSpec::Rows::Slots;
    if (scalar_) {
      r_.slots = 1;  // a single-tuple aggregate has one row even when no tuple qualified
      // ... and then SUM/MIN/MAX/AVG of that row are NULL (COUNT is 0): the tuple count says so.
      r_.input_rows_buffer = agg_.occupancy_buffer;
    } else if (dense_ != nullptr) {
      // Compacted on the device (pass compact_result): dense rows of the table's buffers, as many
      // as the row counter says, in slot order; a direct-indexed table's keys decode from the slot index.
      r_.rows = ResultSpec::Rows::Counter;
      r_.counter_buffer = dense_->rows_buffer;
    } else {
      r_.occupancy_buffer = agg_.occupancy_buffer;
      r_.empty_value = 0;
    }
    r_.merge_groups = agg_.merge_on_host;
  }

  ResultColumnSpec column(const ir::ResultColumn& rc) {
    ResultColumnSpec c;
    c.name = rc.name;
    c.type = rc.type;
    switch (rc.source) {
      case ir::ResultColumn::Source::GroupKey: group_key(rc, c); break;
      case ir::ResultColumn::Source::Accumulator: {
        if (rc.index >= agg_.accumulators.size()) fail(program_, "result column " + rc.name + ": accumulator index out of range");
        const ir::Accumulator& acc = agg_.accumulators[rc.index];
        c.buffer = read_from(acc.buffer);
        c.wide = acc.wide;
        c.merge = merge_of(acc);
        // MIN/MAX of a dictionary string: the accumulator holds the (widened) code.
        c.dictionary_table = rc.dict_table;
        c.dictionary_column = rc.dict_column;
        c.null_without_input = null_without_input(acc);
        break;
      }
      case ir::ResultColumn::Source::Average:
        c.source = ResultColumnSpec::Source::AverageOf;
        c.sum_column = accumulator_column(rc.index);
        c.count_column = accumulator_column(rc.count_index);
        average_input_.resize(agg_.accumulators.size(), false);
        average_input_[rc.index] = true;
        average_input_[rc.count_index] = true;
        break;
      case ir::ResultColumn::Source::Output:
        fail(program_, "result column " + rc.name + " reads an output from an aggregation result");
    }
    return c;
  }

  // Merging groups on the host compares every group key: a key the query does not select is read
  // as a hidden column (else rows of different groups would merge into one).
  void hidden_keys(const std::vector<ir::ResultColumn>& selected_columns) {
    if (!agg_.merge_on_host) return;
    for (size_t k = 0; k < agg_.keys.size(); ++k) {
      const bool selected = std::any_of(selected_columns.begin(), selected_columns.end(), [&](const ir::ResultColumn& rc) {
        return rc.source == ir::ResultColumn::Source::GroupKey && rc.index == k;
      });
      if (selected) continue;
      if (agg_.layout != ir::AggLayout::GlobalHash)
        fail(program_, "group key " + agg_.keys[k].name + " merged on the host needs a hashed table");
      const ir::GroupKey& key = agg_.keys[k];
      ResultColumnSpec c;
      c.name = "__key_" + key.name;
      c.type = key.type;
      c.dictionary_table = key.dict_table;
      c.dictionary_column = key.dict_column;
      c.heap_table = key.heap_table;
      c.heap_column = key.heap_column;
      c.merge = "key";
      c.buffer = read_from(key.key_buffer);
      c.stride = agg_.key_lanes;
      c.lane = key.key_lane;
      c.hidden = true;
      r_.columns.push_back(c);
    }
  }

  // Accumulators an AVG reads (its SUM and COUNT halves), in accumulator order; only these get
  // hidden columns, so e.g. a MIN of a dictionary string is never read without its dictionary.
  void hidden_average_inputs() {
    for (size_t i = 0; i < average_input_.size(); ++i) {
      if (!average_input_[i]) continue;
      const ir::Accumulator& acc = agg_.accumulators[i];
      ResultColumnSpec c;
      c.name = "__" + acc.name;
      c.type = acc.type;
      c.buffer = read_from(acc.buffer);
      c.wide = acc.wide;
      c.merge = merge_of(acc);
      c.hidden = true;
      c.null_without_input = null_without_input(acc);
      r_.columns.push_back(c);
    }
  }

 private:
  void group_key(const ir::ResultColumn& rc, ResultColumnSpec& c) {
    if (rc.index >= agg_.keys.size()) fail(program_, "result column " + rc.name + ": group key index out of range");
    const ir::GroupKey& key = agg_.keys[rc.index];
    c.dictionary_table = rc.dict_table.empty() ? key.dict_table : rc.dict_table;
    c.dictionary_column = rc.dict_table.empty() ? key.dict_column : rc.dict_column;
    c.heap_table = key.heap_table;
    c.heap_column = key.heap_column;
    c.merge = "key";
    if (agg_.layout == ir::AggLayout::DirectIndexed) {
      c.source = ResultColumnSpec::Source::SlotKey;
      c.divisor = strides_[rc.index];
      c.modulus = value_of(program_, values_, key.domain_param);
      c.offset_param = key.min_param;
      if (dense_ != nullptr) c.buffer = dense_->slot_buffer;  // raw = the row's slot index
    } else if (agg_.layout == ir::AggLayout::GlobalHash) {
      c.buffer = read_from(key.key_buffer);
      c.stride = agg_.key_lanes;
      c.lane = key.key_lane;
    } else {
      fail(program_, "result column " + rc.name + " is a group key of a scalar aggregate");
    }
  }
  std::string read_from(const std::string& buffer) const {
    if (dense_ == nullptr) return buffer;
    const std::string* to = dense_->dense(buffer);
    if (to == nullptr) fail(program_, "buffer " + buffer + " of " + agg_.name + " is read by the result but not compacted");
    return *to;
  }
  static const char* merge_of(const ir::Accumulator& acc) {
    return acc.func == plan::AggFunc::Min ? "min" : acc.func == plan::AggFunc::Max ? "max" : "sum";
  }
  // A group of a grouped aggregate exists only because a row reached it, so only the single tuple
  // of a scalar aggregate can have no input; COUNT over no rows is 0, not NULL.
  bool null_without_input(const ir::Accumulator& acc) const { return scalar_ && !r_.input_rows_buffer.empty() && acc.nullable(); }
  std::string accumulator_column(size_t index) const {
    if (index >= agg_.accumulators.size()) fail(program_, "accumulator index " + std::to_string(index) + " out of range");
    return "__" + agg_.accumulators[index].name;
  }

  const ir::Program& program_;
  const ir::ParamValues& values_;
  const ir::AggregationTable& agg_;
  ResultSpec& r_;
  const bool scalar_;
  const ir::Compaction* dense_;
  std::vector<int64_t> strides_;
  std::vector<bool> average_input_;
};

void lower_result(const ir::Program& program, const ir::ParamValues& values, ExecutablePlan& plan) {
  const ir::ResultDesc& desc = program.result;
  ResultSpec& r = plan.result;
  if (desc.kind == ir::ResultDesc::Kind::Output) {
    lower_output_result(program, desc, r);
  } else {
    AggregationResult result(program, values, find_state(program, program.aggregations, desc.state, "aggregation table"), r);
    result.rows();
    for (const ir::ResultColumn& rc : desc.columns) r.columns.push_back(result.column(rc));
    result.hidden_keys(desc.columns);
    result.hidden_average_inputs();
  }
  for (ResultColumnSpec& c : r.columns)
    if (std::find(desc.hidden.begin(), desc.hidden.end(), c.name) != desc.hidden.end()) c.hidden = true;
  r.windows = desc.windows;
  for (const plan::SortKey& key : desc.order_by) r.order_by.emplace_back(key.name, key.descending);
  r.limit = desc.limit;
  r.offset = desc.offset;
}

std::vector<ArgSpec> lower_args(const ir::Program& program, const std::vector<ir::KernelArg>& args) {
  std::vector<ArgSpec> out;
  for (const ir::KernelArg& a : args) {
    switch (a.kind) {
      case ir::KernelArg::Kind::Column: out.push_back(ArgSpec::col(a.table, a.column, a.stored_bytes)); break;
      case ir::KernelArg::Kind::ColumnHeap: out.push_back(ArgSpec::heap(a.table, a.column)); break;
      case ir::KernelArg::Kind::Buffer: out.push_back(ArgSpec::buf(a.name, a.written)); break;
      case ir::KernelArg::Kind::Param: out.push_back(ArgSpec::param(a.name, scalar_of(program, a.type, a.name))); break;
      case ir::KernelArg::Kind::Scratch: out.push_back(ArgSpec::scratch()); break;
    }
  }
  return out;
}

// The chunk bases among a launch's parameters (ir::Param::ChunkBase).
std::vector<LaunchSpec::ChunkBase> chunk_bases_of(const ir::Program& program, const std::vector<ArgSpec>& args) {
  std::vector<LaunchSpec::ChunkBase> bases;
  for (const ArgSpec& a : args) {
    if (a.kind != ArgSpec::Kind::Param) continue;
    const ir::Param* p = program.find_param(a.name);
    if (p == nullptr || p->chunk_base == ir::Param::ChunkBase::None) continue;
    bases.push_back({a.name, p->chunk_base == ir::Param::ChunkBase::HeapByte, p->column});
  }
  return bases;
}


// The IR decided to privatise an aggregation table per CTA against max_scratchpad_slots; the launch
// carries that bound so the executor can refuse slot counts (from the run's statistics) beyond it.
void add_scratch_bounds(const ir::Program& program, LaunchSpec& launch) {
  for (const auto& [param, bytes] : launch.scratch_bytes_per_param) {
    (void)bytes;
    for (const ir::AggregationTable& agg : program.aggregations) {
      const std::string& slots = agg.layout == ir::AggLayout::GlobalHash ? agg.local_slots_param : agg.slots_param;
      if (!agg.scratchpad || slots != param || agg.max_scratchpad_slots == 0) continue;
      launch.scratch_slot_bounds.push_back(
          {param, agg.max_scratchpad_slots,
           "aggregation table " + agg.name + " privatised in scratchpad (" + std::to_string(agg.scratchpad_bytes_per_slot) +
               " B/slot)"});
    }
  }
}

LibraryStep::Op library_step_op(ir::LibraryOp op) {
  switch (op) {
    case ir::LibraryOp::InclusiveScan: return LibraryStep::Op::InclusiveScan;
    case ir::LibraryOp::SortByKey: return LibraryStep::Op::SortByKey;
    case ir::LibraryOp::Gather: return LibraryStep::Op::Gather;
    case ir::LibraryOp::Reduce: return LibraryStep::Op::Reduce;
    case ir::LibraryOp::ReduceByKey: return LibraryStep::Op::ReduceByKey;
  }
  return LibraryStep::Op::InclusiveScan;
}

// The pipeline's library calls (multi-pass), each after the launch of the kernel it follows.
std::vector<LibraryStep> library_steps(const ir::Program& program, const ir::Pipeline& pipeline, const std::vector<LaunchSpec>& launches) {
  std::vector<LibraryStep> out;
  for (const ir::LibraryCall& c : program.library_calls) {
    if (c.pipeline != pipeline.id) continue;
    LibraryStep step;
    step.op = library_step_op(c.op);
    step.after_launch = launches.size();
    for (size_t i = 0; i < launches.size(); ++i)
      if (launches[i].kernel == c.after) step.after_launch = i;
    if (step.after_launch == launches.size()) fail(program, "library call " + c.what + " follows " + c.after + ", which is not launched");
    step.buffers = c.buffers;
    step.count_param = c.count_param;
    step.result_param = c.result_param;
    step.limit_param = c.limit_param;
    step.reduce = c.reduce == ir::ReduceOp::Min ? ScanOp::Min : c.reduce == ir::ReduceOp::Max ? ScanOp::Max : ScanOp::Sum;
    step.type = c.f64 ? ValueType::F64 : ValueType::I64;
    step.what = c.what;
    out.push_back(std::move(step));
  }
  return out;
}

struct PipelineLaunch {
  int pipeline;
  LaunchSpec launch;
};

// How each aggregation table and output is made whole across ranks (executable_plan.h, StateMerge).
std::vector<StateMerge> state_merges(const ir::Program& program) {
  std::vector<StateMerge> merges;
  auto words_of = [&](const std::string& buffer, const std::string& per_param) -> uint32_t {
    const ir::Buffer* b = program.find_buffer(buffer);
    if (b == nullptr) fail(program, "state buffer " + buffer + " is not declared");
    return b->elements_param == per_param && !per_param.empty() ? static_cast<uint32_t>(b->multiplier) : 1u;
  };
  for (const ir::AggregationTable& agg : program.aggregations) {
    StateMerge m;
    m.state = agg.name;
    m.kind = agg.layout == ir::AggLayout::GlobalHash ? StateMerge::Kind::HashedGroups : StateMerge::Kind::Elementwise;
    m.what = "aggregation table " + agg.name + (agg.layout == ir::AggLayout::Scalar          ? " (single tuple)"
                                                 : agg.layout == ir::AggLayout::DirectIndexed ? " (direct-indexed)"
                                                                                              : " (hashed)");
    m.slots_param = agg.slots_param;
    m.occupancy_buffer = agg.occupancy_buffer;
    if (agg.rank_local) {
      // Phase 1 of a two-phase hashed aggregation: its groups leave the rank as an output's rows.
      m.kind = StateMerge::Kind::Local;
      m.what = "aggregation table " + agg.name + " (rank-local partial groups)";
      merges.push_back(std::move(m));
      continue;
    }
    if (agg.split_groups) {
      // The rank's part of the groups (ir/pass_split_combine.cpp): the result's compacted rows are
      // concatenated after the compaction; a table the next stage reads on its rank stays there.
      m.kind = StateMerge::Kind::Local;
      m.what = "aggregation table " + agg.name + " (the rank's part of the groups)";
      if (agg.compaction) {
        const ir::Compaction& c = *agg.compaction;
        m.kind = StateMerge::Kind::Rows;
        m.what = "compacted groups of " + agg.name + " (split across ranks)";
        m.after_compaction = true;
        m.counter_buffer = c.rows_buffer;
        m.top_k = agg.top_k;
        m.capacity_param = agg.slots_param;
        for (const ir::CompactedColumn& col : c.columns) m.lanes.push_back({col.to, StateMerge::Op::Sum, col.words});
        if (!c.slot_buffer.empty()) m.lanes.push_back({c.slot_buffer, StateMerge::Op::Sum, 1});
        for (const ir::GroupKey& k : agg.keys)
          if (!k.heap_table.empty()) m.heap_tables.push_back(k.heap_table);
      }
      merges.push_back(std::move(m));
      continue;
    }
    for (const ir::Accumulator& a : agg.accumulators) {
      StateMerge::Lane lane{a.buffer, StateMerge::Op::Sum, a.wide ? 2u : 1u};
      switch (a.func) {
        case plan::AggFunc::Min: lane.op = StateMerge::Op::Min; break;
        case plan::AggFunc::Max: lane.op = StateMerge::Op::Max; break;
        default: lane.op = a.wide ? StateMerge::Op::Sum128 : StateMerge::Op::Sum; break;
      }
      if (a.wide && lane.op != StateMerge::Op::Sum128)
        m.unsupported = "MIN/MAX of a 128-bit value (" + a.name + ") has no merge across ranks yet";
      m.lanes.push_back(lane);
    }
    m.lanes.push_back({agg.occupancy_buffer, StateMerge::Op::Sum, 1});
    for (const ir::GroupKey& k : agg.keys) {
      if (!k.heap_table.empty()) m.heap_tables.push_back(k.heap_table);
      if (m.kind != StateMerge::Kind::HashedGroups) continue;
      const bool seen = std::any_of(m.keys.begin(), m.keys.end(), [&](const StateMerge::Lane& l) { return l.buffer == k.key_buffer; });
      if (!seen) m.keys.push_back({k.key_buffer, StateMerge::Op::Sum, words_of(k.key_buffer, agg.slots_param)});
    }
    merges.push_back(std::move(m));
  }
  for (const ir::HashTable& ht : program.hash_tables) {
    if (ht.merged_keys) {
      // A keys-only perfect hash built from each rank's share: a slot holds its key or the empty
      // marker (the smallest value), so the maximum over ranks is the table of every rank's keys.
      StateMerge m;
      m.state = ht.name;
      m.kind = StateMerge::Kind::Elementwise;
      m.what = "hash table " + ht.name + " (keys only, on " + ht.build_table + ")";
      m.slots_param = ht.capacity_param;
      m.lanes.push_back({ht.key_buffers.at(0), StateMerge::Op::Max, 1});
      merges.push_back(std::move(m));
      continue;
    }
    if (!ht.rank_local) continue;
    StateMerge m;
    m.state = ht.name;
    m.kind = StateMerge::Kind::Local;
    m.what = "hash table " + ht.name + (ht.shuffled ? " (built from the rows shuffled to the rank)" : " (co-partitioned build on " + ht.build_table + ")");
    merges.push_back(std::move(m));
  }
  for (const ir::OutputTable& out : program.outputs) {
    StateMerge m;
    m.state = out.name;
    m.kind = StateMerge::Kind::Rows;
    m.what = "output " + out.name;
    m.counter_buffer = out.counter_buffer;
    m.capacity_param = out.capacity_param;
    for (const ir::OutputColumn& c : out.columns) {
      m.lanes.push_back({c.buffer, StateMerge::Op::Sum, words_of(c.buffer, out.capacity_param)});
      if (!c.valid_buffer.empty()) m.lanes.push_back({c.valid_buffer, StateMerge::Op::Sum, words_of(c.valid_buffer, out.capacity_param)});
      if (!c.heap_table.empty()) m.heap_tables.push_back(c.heap_table);
    }
    if (!out.shuffle_columns.empty()) {  // a shuffle join's side: each row to the rank its key hashes to
      m.kind = StateMerge::Kind::Shuffle;
      for (const size_t c : out.shuffle_columns) {
        const ir::OutputColumn& key = out.columns.at(c);
        m.keys.push_back({key.buffer, StateMerge::Op::Sum, words_of(key.buffer, out.capacity_param)});
      }
    }
    merges.push_back(std::move(m));
  }
  return merges;
}

// Capacities a count bounds at run time (ir::Param::count_buffer, CountedCapacity): the build that
// counts (or the last pipeline writing the output whose row counter it is) and the first pipeline
// touching the capacity or a buffer it sizes. An output the capacity sizes (a two-phase
// aggregation's partial groups as rows) follows it: its rows parameter, the capacity until its
// writer's counter replaces it, takes the counted value too. A capacity a product or sum is
// computed from, or one touched before its count exists, keeps its resolved value (another
// capacity estimated from it as its source rows does not hold it back: that estimate stays an
// upper bound).
std::vector<CountedCapacity> counted_capacities(const ir::Program& program, const ir::ParamValues& values, const ExecutablePlan& plan) {
  std::vector<CountedCapacity> out;
  for (const auto& [name, c] : values.counted) {
    bool derived = false;
    for (const ir::Param& p : program.params)
      derived = derived || (p.source != ir::Param::Source::Capacity && std::find(p.factors.begin(), p.factors.end(), name) != p.factors.end());
    if (derived) continue;
    std::vector<std::string> same;
    for (const ir::Param& p : program.params) {
      const ir::OutputTable* o = p.source == ir::Param::Source::OutputRows ? program.find_output(p.table) : nullptr;
      if (o != nullptr && o->capacity_param == name) same.push_back(p.name);
    }
    std::set<std::string> sized{name};  // the parameters and the buffers they size
    sized.insert(same.begin(), same.end());
    for (const BufferSpec& b : plan.buffers)
      if (b.elements_param == name || std::find(same.begin(), same.end(), b.elements_param) != same.end()) sized.insert(b.name);
    auto touches = [&](const PipelineSpec& ps) {
      for (const LaunchSpec& l : ps.launches) {
        if (sized.count(l.tuples_param)) return true;
        for (const ArgSpec& a : l.args)
          if ((a.kind == ArgSpec::Kind::Buffer || a.kind == ArgSpec::Kind::Param) && sized.count(a.name)) return true;
        for (const auto& [param, bytes] : l.scratch_bytes_per_param)
          if (sized.count(param)) return true;
      }
      for (const LibraryStep& step : ps.library_steps) {
        if (sized.count(step.count_param) || sized.count(step.limit_param)) return true;
        for (const std::string& b : step.buffers)
          if (sized.count(b)) return true;
      }
      for (const ParamFromBuffer& f : ps.params_from_buffers)
        if (sized.count(f.buffer)) return true;
      for (const CheckSpec& check : ps.checks)
        if (sized.count(check.flag_buffer) || sized.count(check.need_buffer)) return true;
      return false;
    };
    std::optional<size_t> counted_by, first_use;
    for (size_t p = 0; p < program.pipelines.size() && p < plan.pipelines.size(); ++p) {
      const ir::Pipeline& pipeline = program.pipelines[p];
      if (!first_use && touches(plan.pipelines[p])) first_use = p;
      if (pipeline.sink.kind == ir::SinkKind::HashBuild) {
        const ir::HashTable* ht = program.find_hash_table(pipeline.sink.state);
        if (ht != nullptr && ht->count_buffer == c.count_buffer) counted_by = p;
      } else if (pipeline.sink.kind == ir::SinkKind::Materialize) {
        // An output's rows (ir/pass_output_bounds.cpp): counted once its last writer ran (one
        // writing after the first use leaves the capacity as resolved, below).
        const ir::OutputTable* out = program.find_output(pipeline.sink.state);
        if (out != nullptr && out->counter_buffer == c.count_buffer) counted_by = p;
      }
    }
    if (!counted_by || !first_use || *first_use <= *counted_by) continue;
    out.push_back({name, same, c.count_buffer, c.groups_per_count, c.load_factor, *counted_by, *first_use});
  }
  return out;
}

ExecutablePlan lower_with(const ir::Program& program, const ir::ParamValues& values, ModuleSource module,
                          std::optional<codegen::Dialect> dialect, const std::vector<PipelineLaunch>& launches) {
  ExecutablePlan plan;
  plan.label = program.label;
  plan.model = ir::execution_model_name(program.model);
  plan.dialect = dialect;
  plan.module = std::move(module);
  if (plan.module.kernel_names.empty()) {
    for (const PipelineLaunch& l : launches)
      if (l.launch.module.empty()) plan.module.kernel_names.push_back(l.launch.kernel);
  }
  if (plan.module.label.empty() || plan.module.label == "kernel") plan.module.label = program.label;

  for (const ir::Param& p : program.params) {
    // A row count names its table: the concurrent executor recognises a fact-table scan by it.
    ParamSpec spec{p.name, value_of(program, values, p.name), p.source == ir::Param::Source::RowCount ? p.table : "", std::nullopt};
    if (auto it = values.per_rank.find(p.name); it != values.per_rank.end())
      spec.per_rank = PerRankCapacity{it->second.table, it->second.terms};
    if (auto it = values.per_rank_ranges.find(p.name); it != values.per_rank_ranges.end())
      spec.per_rank_range = PerRankKeyRange{it->second.table, it->second.column, it->second.domain};
    if (auto it = values.per_rank_derived.find(p.name); it != values.per_rank_derived.end())
      spec.per_rank_derived = PerRankDerived{it->second.source == ir::Param::Source::BitmapWords, it->second.factors};
    if (!p.split_min_param.empty()) spec.per_rank_split = PerRankSplit{p.split_min_param, p.split_domain_param, p.split_upper};
    plan.params.push_back(std::move(spec));
  }
  for (const ir::Buffer& b : program.buffers) {
    BufferSpec spec;
    spec.name = b.name;
    spec.element = element_of(program, b.element, b.name);
    spec.fixed_elements = b.fixed_elements;
    spec.elements_param = b.elements_param;
    spec.multiplier = b.multiplier;
    spec.init = b.fill == ir::Buffer::Fill::Zero      ? BufferSpec::Init::Zero
                : b.fill == ir::Buffer::Fill::Pattern ? BufferSpec::Init::Pattern
                : b.fill == ir::Buffer::Fill::CodeTable ? BufferSpec::Init::Contents
                                                      : BufferSpec::Init::None;
    spec.pattern = b.pattern;
    if (b.fill == ir::Buffer::Fill::CodeTable) {
      auto it = values.contents.find(b.name);
      if (it == values.contents.end()) fail(program, "per-code buffer " + b.name + " has no resolved contents");
      // At the buffer's element width (I32 flags, I64 packed strings), host byte order.
      const uint32_t width = element_bytes(element_of(program, b.element, b.name));  // runtime does not link ir/
      spec.contents.resize(it->second.size() * width);
      for (size_t i = 0; i < it->second.size(); ++i) {
        if (width == 4) {
          const auto v = static_cast<int32_t>(it->second[i]);
          std::memcpy(spec.contents.data() + i * width, &v, width);
        } else {
          std::memcpy(spec.contents.data() + i * width, &it->second[i], width);
        }
      }
    }
    plan.buffers.push_back(spec);
  }

  for (const ir::Pipeline& pipeline : program.pipelines) {
    PipelineSpec ps;
    ps.name = pipeline.name;
    for (const PipelineLaunch& l : launches) {
      if (l.pipeline != pipeline.id) continue;
      ps.launches.push_back(l.launch);
      add_scratch_bounds(program, ps.launches.back());
    }
    if (ps.launches.empty()) fail(program, "pipeline " + pipeline.name + " has no kernel");
    ps.library_steps = library_steps(program, pipeline, ps.launches);
    // A multi-pass write into an output starts after the rows earlier writers appended.
    for (const ir::Kernel& k : program.kernels) {
      if (k.pipeline != pipeline.id || k.kind != ir::KernelKind::PassWrite || k.multi_pass.base_param.empty()) continue;
      const ir::OutputTable& out = find_state(program, program.outputs, pipeline.sink.state, "output");
      ps.params_from_buffers.push_back({k.multi_pass.base_param, out.counter_buffer, "", ""});
    }

    // Values an earlier pipeline computed (rows it wrote, the value of a one-row stage) are read
    // back right after the pipeline that writes them, so every later pipeline's launch has them.
    // An output several pipelines append to (a UNION ALL) is read after the last of them.
    if (pipeline.id > 0) {
      const ir::Pipeline& writer = program.pipelines[static_cast<size_t>(pipeline.id - 1)];
      const bool written_later = std::any_of(program.pipelines.begin() + pipeline.id, program.pipelines.end(), [&](const ir::Pipeline& q) {
        return q.sink.kind == ir::SinkKind::Materialize && q.sink.state == writer.sink.state;
      });
      for (const ir::Param& p : program.params) {
        if (p.source != ir::Param::Source::OutputRows && p.source != ir::Param::Source::OutputValue) continue;
        if (writer.sink.kind != ir::SinkKind::Materialize || writer.sink.state != p.table || written_later) continue;
        const ir::OutputTable& out = find_state(program, program.outputs, p.table, "output");
        if (p.source == ir::Param::Source::OutputRows) {
          ps.params_from_buffers.push_back({p.name, out.counter_buffer, "", ""});
          continue;
        }
        ParamFromBuffer f{p.name, "", "", "the " + p.comment, p.word};
        for (const ir::OutputColumn& c : out.columns) {
          if (c.name == p.column) f.buffer = c.buffer;
        }
        if (f.buffer.empty()) fail(program, "parameter " + p.name + " reads unknown column " + p.column + " of " + out.name);
        // A single-tuple aggregate over no rows has a NULL SUM/MIN/MAX/AVG (unless the plan tests
        // that itself: AggregationTable::explicit_nulls).
        if (!writer.source.aggregation.empty()) {
          const ir::AggregationTable& agg = find_state(program, program.aggregations, writer.source.aggregation, "aggregation table");
          bool nullable = std::any_of(agg.accumulators.begin(), agg.accumulators.end(), [](const ir::Accumulator& a) { return a.nullable(); });
          if (agg.layout == ir::AggLayout::Scalar && nullable && !agg.explicit_nulls) f.nonzero_buffer = agg.occupancy_buffer;
        }
        ps.params_from_buffers.push_back(f);
      }
    }
    if (!pipeline.arith_flags.empty()) {
      CheckSpec check;
      check.flag_buffer = pipeline.arith_flags;
      check.action = CheckSpec::Action::Fail;
      check.fail_kind = ErrorKind::Unsupported;
      check.what = "64-bit arithmetic (" + checked_expressions(program, pipeline) + ")";
      ps.checks.push_back(check);
    }
    if (pipeline.sink.kind == ir::SinkKind::HashBuild) {
      const ir::HashTable& ht = find_state(program, program.hash_tables, pipeline.sink.state, "hash table");
      if (!ht.overflow_buffer.empty()) {
        CheckSpec check;
        check.flag_buffer = ht.overflow_buffer;
        check.what = "hash table " + ht.name + " (build on " + ht.build_table + ")";
        if (ht.layout != ir::HashLayout::PerfectHash && !ht.perfect_slots) {
          check.action = CheckSpec::Action::Grow;
          check.grow_params = {ht.capacity_param};
        } else {
          check.action = CheckSpec::Action::Fail;
          check.fail_kind = ErrorKind::Internal;
          check.what = "perfect-hash table " + ht.name + " (build on " + ht.build_table +
                       "; a build key outside the statistics' [min, max])";
        }
        ps.checks.push_back(check);
      }
    } else if (pipeline.sink.kind == ir::SinkKind::Materialize) {
      const ir::OutputTable& out = find_state(program, program.outputs, pipeline.sink.state, "output");
      if (!out.overflow_buffer.empty()) {
        CheckSpec check;
        check.flag_buffer = out.overflow_buffer;
        check.what = "output " + out.name + " (rows of several matches per probe)";
        check.action = CheckSpec::Action::Grow;
        check.grow_params = capacity_and_dependents(program, out.capacity_param);
        check.need_buffer = out.counter_buffer;
        ps.checks.push_back(check);
      }
    } else if (pipeline.sink.kind == ir::SinkKind::Aggregate) {
      // Multi-pass lanes sized by an estimate: a tuple past it raises the flag; the re-run gets the scan's total.
      for (const ir::Kernel& k : program.kernels) {
        if (k.pipeline != pipeline.id || k.kind != ir::KernelKind::PassWrite || k.multi_pass.overflow_buffer.empty()) continue;
        CheckSpec check;
        check.flag_buffer = k.multi_pass.overflow_buffer;
        check.what = "multi-pass lanes of " + pipeline.sink.state + " (qualifying tuples of several matches per probe)";
        check.action = CheckSpec::Action::Grow;
        check.grow_params = {k.multi_pass.capacity_param};
        check.need_buffer = k.multi_pass.total_buffer;
        ps.checks.push_back(check);
      }
      const ir::AggregationTable& agg = find_state(program, program.aggregations, pipeline.sink.state, "aggregation table");
      if (!agg.overflow_buffer.empty()) {
        CheckSpec check;
        check.flag_buffer = agg.overflow_buffer;
        check.what = "aggregation table " + agg.name;
        if (agg.layout == ir::AggLayout::GlobalHash && !agg.slots_param.empty()) {
          check.action = CheckSpec::Action::Grow;
          check.grow_params = {agg.slots_param};
        } else {
          // A direct-indexed table is sized by the key domains: a flag means a key outside them —
          // the statistics the kernels were sized with do not describe the data. No result.
          check.action = CheckSpec::Action::Fail;
          check.fail_kind = ErrorKind::Internal;
          check.what += " (direct-indexed by the group keys' [min, max]: a row's key fell outside the statistics' "
                        "domain, so the statistics do not describe the data; no result is given rather than one "
                        "without that row)";
        }
        ps.checks.push_back(check);
      }
    }
    ps.source_table = pipeline.source.table;
    ps.source_state = !pipeline.source.output.empty() ? pipeline.source.output : pipeline.source.aggregation;
    ps.sink_state = pipeline.sink.state;
    if (pipeline.sink.kind == ir::SinkKind::Aggregate && !pipeline.source.output.empty()) {
      const ir::AggregationTable* split = program.find_aggregation(pipeline.sink.state);
      ps.rank_split = split != nullptr && !split->split_key.empty();
    }
    ps.sink_launches = 0;
    for (const LaunchSpec& l : ps.launches) {
      const ir::Kernel* k = nullptr;
      for (const ir::Kernel& kernel : program.kernels)
        if (kernel.name == l.kernel) k = &kernel;
      if (k == nullptr || (k->kind != ir::KernelKind::CompactCount && k->kind != ir::KernelKind::CompactGather)) ++ps.sink_launches;
    }
    plan.pipelines.push_back(std::move(ps));
  }
  plan.merges = state_merges(program);
  plan.counted = counted_capacities(program, values, plan);
  lower_result(program, values, plan);
  validate_plan(plan);
  return plan;
}

}  // namespace

ExecutablePlan lower_program(const ir::Program& program, const ir::ParamValues& values, ModuleSource module) {
  if (program.kernels.empty()) fail(program, "the program has no kernels (did the fusion pass run?)");
  std::vector<PipelineLaunch> launches;
  for (const ir::Kernel& kernel : program.kernels) {
    LaunchSpec launch;
    launch.kernel = kernel.name;
    launch.args = lower_args(program, kernel.args);
    launch.chunk_bases = chunk_bases_of(program, launch.args);
    launch.tuples_param = kernel.launch.tuples_param;
    launch.fixed_grid = std::max<uint64_t>(1, kernel.launch.fixed_grid);
    const bool compaction = kernel.kind == ir::KernelKind::CompactCount || kernel.kind == ir::KernelKind::CompactGather;
    if (compaction) launch.module = codegen::kCompactionModule;  // not in `module`: the library's
    launch.power_of_two_block = compaction;
    launch.block_size_multiple = compaction ? ir::kCompactBlock : 1;  // as codegen's compaction manifest asks
    launch.strides_over_tiles = compaction || kernel.kind != ir::KernelKind::Compound;
    launch.scratch_bytes_per_thread = kernel.launch.scratch_bytes_per_thread;
    if (!kernel.launch.scratch_slots_param.empty()) {
      launch.scratch_bytes_per_param.emplace_back(kernel.launch.scratch_slots_param, kernel.launch.scratch_slot_bytes);
    }
    launches.push_back({kernel.pipeline, launch});
  }
  return lower_with(program, values, std::move(module), std::nullopt, launches);
}

ExecutablePlan lower_program(const ir::Program& program, const ir::ParamValues& values,
                             const codegen::GeneratedProgram& generated) {
  if (generated.kernels.empty()) fail(program, "the generated program has no kernels");
  std::vector<PipelineLaunch> launches;
  for (const codegen::KernelManifest& m : generated.kernels) {
    LaunchSpec launch;
    launch.kernel = m.name;
    launch.module = m.module;
    launch.args = lower_args(program, m.args);
    launch.chunk_bases = chunk_bases_of(program, launch.args);
    launch.tuples_param = m.work_items_param;
    launch.fixed_grid = std::max<uint64_t>(1, m.fixed_grid);  // without work items (compaction kernels)
    // The block size, grid and tuples per thread are the planner's at run time (planner/launch.h).
    launch.block_size_multiple = std::max<uint32_t>(1, m.block_size_multiple);
    launch.power_of_two_block = m.power_of_two_block;
    launch.scratch_bytes = static_cast<uint32_t>(m.scratch.fixed_bytes);
    launch.scratch_bytes_per_thread = static_cast<uint32_t>(m.scratch.bytes_per_thread);
    launch.scratch_bytes_per_param = m.scratch.bytes_per_param_unit;
    launch.strides_over_tiles = true;  // KernelManifest: any grid size, kernels stride over tiles
    launches.push_back({m.pipeline, launch});
  }
  ModuleSource module;
  module.source = generated.source;
  module.shared_prefix = generated.source.size() - generated.kernels_source.size();
  module.options = generated.compile_options;
  module.label = generated.label.empty() ? program.label : generated.label;
  return lower_with(program, values, std::move(module), generated.dialect, launches);
}

}  // namespace hqc::runtime

// Pass fuse_pipelines, multi-pass model (HorseQC §4.2, Figure 7; Table 4's A1/B1/C1): a pipeline's
// reduction is taken out of its compound kernel and run on materialized data by library primitives.
//   expects: the pipeline's compound kernel as fuse_pipelines built it (its argument list: columns,
//            probed tables, the sink's state, params).
//   guarantees (per pipeline; kernels appended to Program::kernels in this order, the library calls
//   between them to Program::library_calls, each naming the kernel it follows):
//     hash build    the compound kernel unchanged (no reduction: one atomicCAS insert per tuple).
//     materialize   A1: `<k>_count` writes each source row's outputs (0/1, or its matches) into
//                   `mp<p>_offsets`; InclusiveScan turns them into end offsets in place; `<k>_write`
//                   re-runs the pipeline and writes row r's outputs from base + offsets[r - 1] on, and
//                   the work-item of the last row stores base + the total in the output's counter;
//                   base (`mp<p>_base`) is that counter before the pipeline: the rows earlier writers
//                   of the output (UNION ALL arms) appended (rows past an estimated capacity raise
//                   the output's flag, as in every model).
//     scalar agg    B1: count, scan (its total, capped at the capacity, is `mp<p>_rows`), `<k>_write`
//                   materializes each qualifying tuple's accumulator inputs (a lane per accumulator;
//                   a 128-bit SUM as two int64 lanes, v >> 32 and v & (2^32 - 1), whose sums cannot
//                   overflow below 2^31 rows), Reduce per lane — a 128-bit MIN/MAX instead sorts the
//                   tuples' positions by low word, then stably by high word — and `<k>_finish`
//                   stores the values (and the tuple count) into the table's slot 0 when a tuple
//                   qualified.
//     grouped agg   C1: count, scan, `<k>_write` finds each qualifying tuple's slot (the mixed-radix
//                   index of a direct-indexed table; find-or-insert of the key in a hashed one, as a
//                   build inserts) and materializes (slot, position, lanes); SortByKey sorts the slots
//                   with the positions, per lane Gather + ReduceByKey (one value per group), a
//                   ReduceByKey over ones counts the tuples; `<k>_finish` stores each group's values
//                   at its slot. The table then looks exactly as under the other models (compaction,
//                   later stages and the result read it unchanged).
//   Capacity: the lanes hold one value per source row unless a probe matches several times; then
//   their capacity is an estimate (`mp<p>_capacity`), a tuple past it raises `mp<p>_overflow` and the
//   host re-runs with the scan's total (`mp<p>_total`).
//   throws: Error(Unsupported) for a grouped 128-bit MIN/MAX (no library reduction per group).
#include "ir/fusion.h"
#include "ir/lowering.h"
#include "ir/walk.h"
#include "storage/error.h"

namespace hqc::ir {

namespace {

std::string add_buffer(Program& program, Buffer b) {
  if (program.find_buffer(b.name) != nullptr)
    throw Error(ErrorKind::Internal, "fuse_pipelines (multi_pass): buffer " + b.name + " already exists");
  program.buffers.push_back(b);
  return b.name;
}

std::string add_param(Program& program, Param p) {
  if (program.find_param(p.name) != nullptr)
    throw Error(ErrorKind::Internal, "fuse_pipelines (multi_pass): param " + p.name + " already exists");
  program.params.push_back(p);
  return p.name;
}

// `args` with `extra` inserted before the first Param (kernels list columns, buffers, then params).
std::vector<KernelArg> with_buffers(std::vector<KernelArg> args, const std::vector<KernelArg>& extra) {
  auto at = args.begin();
  while (at != args.end() && at->kind != KernelArg::Kind::Param) ++at;
  args.insert(at, extra.begin(), extra.end());
  return args;
}

// `args` without the buffers named in `drop`.
std::vector<KernelArg> without(std::vector<KernelArg> args, const std::vector<std::string>& drop) {
  std::vector<KernelArg> out;
  for (KernelArg& a : args) {
    bool dropped = false;
    for (const std::string& d : drop) dropped = dropped || (a.kind == KernelArg::Kind::Buffer && a.name == d);
    if (!dropped) out.push_back(std::move(a));
  }
  return out;
}

void append_param(const Program& program, std::vector<KernelArg>& args, const std::string& name) {
  for (const KernelArg& a : args)
    if (a.kind == KernelArg::Kind::Param && a.name == name) return;
  args.push_back(param_arg(program, name));
}

// Whether the pipeline's operators (not its sink) evaluate overflow-checked arithmetic: the count
// kernel, which runs only them, then raises the pipeline's flag word too.
bool ops_check_arithmetic(const Pipeline& p) {
  for (const plan::Expr* e : op_exprs(p))
    if (has_overflow_check(*e)) return true;
  return false;
}

// The buffers the pipeline's sink writes under the compound kernel (the write kernel of an
// aggregation leaves the table's values to the finish kernel).
std::vector<std::string> table_value_buffers(const AggregationTable& agg) {
  std::vector<std::string> out;
  if (!agg.occupancy_buffer.empty()) out.push_back(agg.occupancy_buffer);
  for (const Accumulator& a : agg.accumulators) {
    out.push_back(a.buffer);
    if (!a.state_buffer.empty()) out.push_back(a.state_buffer);
  }
  return out;
}

// Every buffer of the table (the count kernel touches none of them).
std::vector<std::string> table_buffers(const AggregationTable& agg) {
  std::vector<std::string> out = table_value_buffers(agg);
  for (const GroupKey& k : agg.keys)
    if (!k.key_buffer.empty()) out.push_back(k.key_buffer);
  if (!agg.overflow_buffer.empty()) out.push_back(agg.overflow_buffer);
  return out;
}

class MultiPassSplit {
 public:
  MultiPassSplit(Program& program, const Pipeline& p, Kernel compound)
      : program_(program), p_(p), compound_(std::move(compound)), prefix_("mp" + std::to_string(p.id)) {}

  void run() {
    if (p_.sink.kind == SinkKind::HashBuild) {
      program_.kernels.push_back(std::move(compound_));
      return;
    }
    mp_.match_loop = matches_several_times(program_, p_);
    mp_.offsets = add_buffer(program_, {prefix_ + "_offsets", ScalarType::I64, 0, p_.source.rows_param, 1,
                                        mp_.match_loop ? Buffer::Fill::Zero : Buffer::Fill::None, 0,
                                        "outputs of each source row (count kernel), then their end offsets (library scan)"});
    if (p_.sink.kind == SinkKind::Materialize) {
      materialize();
    } else {
      aggregate(*program_.find_aggregation(p_.sink.state));
    }
  }

 private:
  Kernel pass_kernel(KernelKind kind, const std::string& suffix) const {
    Kernel k;
    k.name = compound_.name + "_" + suffix;
    k.kind = kind;
    k.pipeline = p_.id;
    return k;
  }

  // The count kernel: the compound kernel's columns, probed tables and params (and the flag word of
  // checked arithmetic where its operators have any); the offsets written.
  void count_kernel(std::vector<std::string> sink_buffers) {
    Kernel k = pass_kernel(KernelKind::PassCount, "count");
    if (!p_.arith_flags.empty() && !ops_check_arithmetic(p_)) sink_buffers.push_back(p_.arith_flags);
    k.args = with_buffers(without(compound_.args, sink_buffers), {buffer_arg(program_, mp_.offsets, true)});
    k.multi_pass = mp_;
    program_.kernels.push_back(std::move(k));
  }

  void library(LibraryOp op, const std::string& after, std::vector<std::string> buffers, const std::string& count,
               const std::string& result, const std::string& what) {
    LibraryCall c;
    c.op = op;
    c.pipeline = p_.id;
    c.after = after;
    c.buffers = std::move(buffers);
    c.count_param = count;
    c.result_param = result;
    c.what = what;
    program_.library_calls.push_back(std::move(c));
  }

  void scan(const std::string& after) {
    library(LibraryOp::InclusiveScan, after, {mp_.offsets}, p_.source.rows_param, mp_.rows_param,
            "write positions of " + p_.sink.state + ": prefix sum of the counts");
    program_.library_calls.back().limit_param = mp_.capacity_param;
  }

  Reduction reduction(ReductionKind kind, Technique technique) const {
    Reduction r;
    r.kind = kind;
    r.technique = technique;
    r.local = LocalResolution::None;
    r.state = p_.sink.state;
    return r;
  }

  void materialize() {
    const OutputTable& out = *program_.find_output(p_.sink.state);
    std::vector<std::string> sink;
    for (const OutputColumn& c : out.columns) {
      sink.push_back(c.buffer);
      if (!c.valid_buffer.empty()) sink.push_back(c.valid_buffer);
    }
    sink.push_back(out.counter_buffer);
    if (!out.overflow_buffer.empty()) sink.push_back(out.overflow_buffer);
    count_kernel(sink);
    library(LibraryOp::InclusiveScan, program_.kernels.back().name, {mp_.offsets}, p_.source.rows_param, "",
            "write positions of " + out.name + ": prefix sum of the counts");
    Param base{prefix_ + "_base", Param::Source::Constant, ScalarType::I64};
    base.comment = "rows earlier writers appended to " + out.name + " (its counter before this pipeline)";
    mp_.base_param = add_param(program_, base);
    Kernel w = pass_kernel(KernelKind::PassWrite, "write");
    w.args = with_buffers(compound_.args, {buffer_arg(program_, mp_.offsets, false)});
    append_param(program_, w.args, mp_.base_param);
    w.reductions.push_back(reduction(ReductionKind::WritePosition, Technique::A1));
    w.multi_pass = mp_;
    program_.kernels.push_back(std::move(w));
  }

  void capacity() {
    if (!mp_.match_loop) {
      mp_.capacity_param = p_.source.rows_param;  // at most one qualifying tuple per source row
      return;
    }
    Param cap{prefix_ + "_capacity", Param::Source::Product, ScalarType::I64};
    cap.factors = {p_.source.rows_param};
    cap.comment = "qualifying tuples the multi-pass lanes hold (an estimate: a probe matches several times)";
    mp_.capacity_param = add_param(program_, cap);
    mp_.overflow_buffer = add_buffer(program_, {prefix_ + "_overflow", ScalarType::U32, 1, "", 1, Buffer::Fill::Zero, 0,
                                                "nonzero: a qualifying tuple found no room in the lanes (rerun larger)"});
    mp_.total_buffer = add_buffer(program_, {prefix_ + "_total", ScalarType::U64, 1, "", 1, Buffer::Fill::Zero, 0,
                                             "qualifying tuples (the capacity a re-run needs)"});
  }

  std::string lane_buffer(const std::string& name, ScalarType t, const std::string& what) {
    return add_buffer(program_, {prefix_ + "_" + name, t, 0, mp_.capacity_param, 1, Buffer::Fill::None, 0, what});
  }

  void add_lanes(const AggregationTable& agg, bool grouped) {
    // Runs of equal slots: at most one per tuple (the library's contract: outputs hold the input's count).
    const std::string groups = grouped ? mp_.capacity_param : "";
    auto reduced = [&](const std::string& name, ScalarType t, const std::string& what) {
      return add_buffer(program_, {prefix_ + "_red_" + name, t, grouped ? 0u : 1u, groups, 1, Buffer::Fill::None, 0, what});
    };
    for (const Accumulator& a : agg.accumulators) {
      if (!a.state_buffer.empty()) {
        if (grouped)
          throw Error(ErrorKind::Unsupported, "pipeline " + p_.name + ": " + plan::agg_func_name(a.func) + " of a 128-bit value (" +
                                                  a.name + ") per group has no library reduction under the " +
                                                  execution_model_name(program_.model) + " model; use resolution or pipelined");
        add_extreme_lanes(a);
        continue;
      }
      const bool f64 = program_.find_buffer(a.buffer)->element == ScalarType::F64;
      const ScalarType t = f64 ? ScalarType::F64 : ScalarType::I64;
      const ReduceOp op = a.func == plan::AggFunc::Min ? ReduceOp::Min : a.func == plan::AggFunc::Max ? ReduceOp::Max : ReduceOp::Sum;
      const std::string base = sanitize_identifier(a.name);
      for (const std::string& part : a.wide ? std::vector<std::string>{"hi", "lo"} : std::vector<std::string>{""}) {
        const std::string name = part.empty() ? base : base + "_" + part;
        PassLane lane;
        lane.accumulator = a.name;
        lane.part = part;
        lane.f64 = f64;
        lane.reduce = op;
        lane.buffer = lane_buffer(name, t, "input of " + a.name + (part.empty() ? "" : " (" + part + " half)") + " per qualifying tuple");
        lane.reduced = reduced(name, t, std::string(reduce_op_name(op)) + " of " + lane.buffer + (grouped ? " per group" : ""));
        mp_.lanes.push_back(lane);
      }
    }
    if (grouped) {
      PassLane ones;
      ones.buffer = lane_buffer("ones", ScalarType::I64, "1 per qualifying tuple (the groups' tuple counts)");
      ones.reduced = reduced("count", ScalarType::I64, "tuples per group");
      mp_.lanes.push_back(ones);
    }
  }

  // A scalar MIN/MAX of 128-bit values: lanes of its low and high words as sort keys and as values,
  // and the tuples' positions; two stable sorts (low keys, then the high keys gathered into that
  // order) leave the positions in value order, and the finish kernel reads the first (MIN) or last
  // (MAX) tuple's words.
  void add_extreme_lanes(const Accumulator& a) {
    const std::string base = sanitize_identifier(a.name);
    auto lane = [&](const std::string& part, ScalarType t, const std::string& what) {
      PassLane l;
      l.accumulator = a.name;
      l.part = part;
      l.buffer = lane_buffer(base + "_" + part, t, what + " of " + a.name + " per qualifying tuple");
      mp_.lanes.push_back(l);
      return l.buffer;
    };
    const std::string low_key = lane("low_key", ScalarType::U64, "low word (sort key)");
    const std::string high_key = lane("high_key", ScalarType::U64, "high word, sign bit flipped (sort key)");
    const std::string perm = lane("order", ScalarType::U32, "position (sorted into value order)");
    lane("low", ScalarType::I64, "low word");
    lane("high", ScalarType::I64, "high word");
    extreme_calls_.push_back({low_key, high_key, perm, lane_buffer(base + "_high_sorted", ScalarType::U64,
                                                                   "high keys in low-key order (the second sort's keys)"),
                              a.name});
  }

  struct ExtremeCalls {
    std::string low_key, high_key, perm, high_sorted, accumulator;
  };
  std::vector<ExtremeCalls> extreme_calls_;


  void aggregate(const AggregationTable& agg) {
    const bool grouped = agg.layout != AggLayout::Scalar;
    // The finish kernel stores (not adds) the reduced values: one pipeline fills a table.
    for (const Pipeline& q : program_.pipelines)
      if (q.id != p_.id && q.sink.kind == SinkKind::Aggregate && q.sink.state == agg.name)
        throw Error(ErrorKind::Internal, "fuse_pipelines (multi_pass): " + agg.name + " is filled by p" + std::to_string(p_.id) +
                                             " and p" + std::to_string(q.id) + "; the finish kernel stores one pipeline's groups");
    capacity();
    mp_.rows_param = add_param(program_, {prefix_ + "_rows", Param::Source::Constant, ScalarType::I64});
    program_.params.back().comment = "qualifying tuples (the library scan's total)";
    Param groups{prefix_ + "_groups", Param::Source::Constant, ScalarType::I64};
    groups.value = grouped ? 0 : 1;  // scalar: one aggregate (the finish kernel skips it without tuples)
    groups.comment = grouped ? "groups (runs of the sorted slots)" : "one aggregate";
    mp_.groups_param = add_param(program_, groups);
    if (grouped) {
      mp_.keys = lane_buffer("keys", ScalarType::U64, "slot of each qualifying tuple (sorted by the library)");
      mp_.perm = lane_buffer("perm", ScalarType::U32, "write position of each qualifying tuple (permuted by the sort)");
      mp_.sorted = lane_buffer("sorted", ScalarType::I64, "one lane gathered into slot order");
      mp_.reduced_keys = add_buffer(program_, {prefix_ + "_red_keys", ScalarType::U64, 0, mp_.capacity_param, 1, Buffer::Fill::None, 0,
                                               "slot of each group"});
    }
    add_lanes(agg, grouped);

    count_kernel(table_buffers(agg));
    scan(program_.kernels.back().name);

    Kernel w = pass_kernel(KernelKind::PassWrite, "write");
    std::vector<KernelArg> lanes{buffer_arg(program_, mp_.offsets, false)};
    if (grouped) {
      lanes.push_back(buffer_arg(program_, mp_.keys, true));
      lanes.push_back(buffer_arg(program_, mp_.perm, true));
    }
    for (const PassLane& l : mp_.lanes) lanes.push_back(buffer_arg(program_, l.buffer, true));
    if (!mp_.overflow_buffer.empty()) {
      lanes.push_back(buffer_arg(program_, mp_.overflow_buffer, true));
      lanes.push_back(buffer_arg(program_, mp_.total_buffer, true));
    }
    w.args = with_buffers(without(compound_.args, table_value_buffers(agg)), lanes);
    append_param(program_, w.args, mp_.capacity_param);
    w.reductions.push_back(reduction(grouped ? ReductionKind::GroupedAggregate : ReductionKind::SingleAggregate,
                                     grouped ? Technique::C1 : Technique::B1));
    w.multi_pass = mp_;
    const std::string write = w.name;
    program_.kernels.push_back(std::move(w));

    if (grouped) {
      library(LibraryOp::SortByKey, write, {mp_.keys, mp_.perm}, mp_.rows_param, "", "qualifying tuples sorted by slot");
      for (const PassLane& l : mp_.lanes) {
        if (l.accumulator.empty()) {
          library(LibraryOp::ReduceByKey, write, {mp_.keys, l.buffer, mp_.reduced_keys, l.reduced}, mp_.rows_param,
                  mp_.groups_param, "tuples per group");
          continue;
        }
        library(LibraryOp::Gather, write, {mp_.perm, l.buffer, mp_.sorted}, mp_.rows_param, "", l.buffer + " in slot order");
        library(LibraryOp::ReduceByKey, write, {mp_.keys, mp_.sorted, mp_.reduced_keys, l.reduced}, mp_.rows_param,
                mp_.groups_param, std::string(reduce_op_name(l.reduce)) + " of " + l.accumulator + (l.part.empty() ? "" : " (" + l.part + ")") + " per group");
        program_.library_calls.back().reduce = l.reduce;
        program_.library_calls.back().f64 = l.f64;
      }
    } else {
      for (const ExtremeCalls& e : extreme_calls_) {
        library(LibraryOp::SortByKey, write, {e.low_key, e.perm}, mp_.rows_param, "", e.accumulator + ": tuples by low word");
        library(LibraryOp::Gather, write, {e.perm, e.high_key, e.high_sorted}, mp_.rows_param, "", e.accumulator + ": high words in that order");
        library(LibraryOp::SortByKey, write, {e.high_sorted, e.perm}, mp_.rows_param, "", e.accumulator + ": tuples by value (stable)");
      }
      for (const PassLane& l : mp_.lanes) {
        if (l.reduced.empty()) continue;  // a 128-bit MIN/MAX's lanes: sorted above
        library(LibraryOp::Reduce, write, {l.buffer, l.reduced}, mp_.rows_param, "",
                std::string(reduce_op_name(l.reduce)) + " of " + l.accumulator + (l.part.empty() ? "" : " (" + l.part + ")"));
        program_.library_calls.back().reduce = l.reduce;
        program_.library_calls.back().f64 = l.f64;
      }
    }

    Kernel f = pass_kernel(KernelKind::PassFinish, "finish");
    if (grouped) f.args.push_back(buffer_arg(program_, mp_.reduced_keys, false));
    for (const PassLane& l : mp_.lanes) {
      if (!l.reduced.empty()) f.args.push_back(buffer_arg(program_, l.reduced, false));
      else if (l.part == "order" || l.part == "low" || l.part == "high") f.args.push_back(buffer_arg(program_, l.buffer, false));
    }
    for (const std::string& b : table_value_buffers(agg)) f.args.push_back(buffer_arg(program_, b, true));
    f.args.push_back(param_arg(program_, mp_.groups_param));
    f.args.push_back(param_arg(program_, mp_.rows_param));
    if (grouped) f.args.push_back(param_arg(program_, agg.slots_param));
    f.multi_pass = mp_;
    program_.kernels.push_back(std::move(f));
  }

  Program& program_;
  const Pipeline& p_;
  Kernel compound_;
  std::string prefix_;
  MultiPass mp_;
};

}  // namespace

void split_multi_pass(Program& program, const Pipeline& p, Kernel compound) { MultiPassSplit(program, p, std::move(compound)).run(); }

}  // namespace hqc::ir

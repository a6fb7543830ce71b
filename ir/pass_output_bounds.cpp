// Pass output_bounds: a table filled from the rows an earlier pipeline wrote holds at most that many
// entries, so its capacity is counted at run time instead of taken from the statistics.
//   expects: state built; the rows of each OutputTable counted into its counter_buffer.
//   guarantees: on the Capacity param sizing
//     - a GlobalHash aggregation (its slots_param), or
//     - a LinearProbing hash table (its capacity_param),
//     that exactly one pipeline fills, where that pipeline reads an output O's rows — directly, or
//     through aggregations each filled by one such pipeline from O's rows — and no probe on the way
//     can pass a row more than once (an inner or left outer probe of a table whose keys are not
//     unique): Param::count_buffer = O's counter_buffer and an empty Param::count_term (the count
//     bounds the entries themselves, not one key's values). The executor lowers the capacity to the
//     slots of the rows O holds once O's last writer ran, and allocates the buffers it sizes only
//     then (runtime CountedCapacity). A capacity already counted (ir/build_state.cpp, counted_bound)
//     keeps its count.
//   Why this is sound: each of O's rows reaches the sink at most once, so the table receives at
//     most rows(O) keys — groups or build rows; an aggregation of those rows has at most that many
//     groups, and a pipeline over its groups passes at most that many rows on.
//   Why: a distributed two-phase aggregation's final table (phase 2, over the partial groups every
//     rank gathered) was sized like the whole table's groups by the statistics: TPC-H Q3 at SF 100,
//     2^27 slots (3.2 GB of keys) for 1.1 M gathered rows, 1.9 ms of its 4.6 ms on 4 H200s and the
//     state that stopped it running under a memory limit; likewise Q10's and Q16's, and the builds
//     over a gathered stage (Q9's partsupp rows of green parts, Q17's and Q20's grouped lines).
#include <map>
#include <optional>

#include "ir/passes.h"

namespace hqc::ir {

namespace {

// The one pipeline whose sink fills `state`, or nullptr (none, or several).
const Pipeline* only_filler(const Program& program, const std::string& state) {
  const Pipeline* found = nullptr;
  for (const Pipeline& p : program.pipelines) {
    if (p.sink.kind == SinkKind::Materialize || p.sink.state != state) continue;
    if (found != nullptr) return nullptr;
    found = &p;
  }
  return found;
}

// A probe that passes a row once per match of a table with repeated keys.
bool multiplies_rows(const Program& program, const Pipeline& p) {
  for (const PipelineOp& op : p.ops) {
    if (op.kind != PipelineOpKind::Probe) continue;
    if (op.join_type != plan::JoinType::Inner && op.join_type != plan::JoinType::LeftOuter) continue;
    const HashTable* t = program.find_hash_table(op.hash_table);
    if (t == nullptr || !t->unique_keys) return true;
  }
  return false;
}

// The output whose rows bound what pipeline `p` passes to its sink, if any.
std::optional<std::string> bounding_output(const Program& program, const Pipeline& p, int depth = 0) {
  if (depth > 16 || multiplies_rows(program, p)) return std::nullopt;
  if (!p.source.output.empty()) return p.source.output;
  if (p.source.aggregation.empty()) return std::nullopt;  // a base table: the statistics describe it
  const Pipeline* filler = only_filler(program, p.source.aggregation);
  if (filler == nullptr) return std::nullopt;
  return bounding_output(program, *filler, depth + 1);
}

}  // namespace

void output_bounds(Program& program) {
  std::map<std::string, std::string> bound;  // capacity param -> the output whose rows bound it
  auto consider = [&](const std::string& state, const std::string& capacity) {
    const Pipeline* filler = only_filler(program, state);
    if (filler == nullptr || capacity.empty()) return;
    if (const std::optional<std::string> out = bounding_output(program, *filler)) bound[capacity] = *out;
  };
  for (const AggregationTable& a : program.aggregations)
    if (a.layout == AggLayout::GlobalHash) consider(a.name, a.slots_param);
  for (const HashTable& h : program.hash_tables)
    if (h.layout == HashLayout::LinearProbing) consider(h.name, h.capacity_param);
  for (Param& p : program.params) {
    const auto it = bound.find(p.name);
    if (it == bound.end() || p.source != Param::Source::Capacity || !p.count_buffer.empty()) continue;
    const OutputTable* out = program.find_output(it->second);
    if (out == nullptr || out->counter_buffer.empty()) continue;
    p.count_buffer = out->counter_buffer;
    p.count_term.clear();
    p.comment += "; at run time at most the slots of the rows of " + out->name;
  }
}

}  // namespace hqc::ir

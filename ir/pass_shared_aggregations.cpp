// Pass shared_aggregations: an aggregation the query computes twice from the same rows is computed once.
//
// A view or CTE that a query reads twice is planned twice: TPC-H Q15's revenue0 (revenue per supplier
// over one quarter of lineitem) once for its maximum and once joined with supplier — two scans of
// lineitem into two equal tables, ~45 % of Q15's kernel time.
//   expects: a freshly built Program (the first pass: later passes see one table).
//   guarantees: when aggregation tables A and B (A filled first) are each filled by exactly one
//     pipeline, those pipelines scan the same base table under the same alias, read the same columns
//     and apply the same ops (their expressions equal as text, probes of the same hash tables), and A
//     and B have the same layout and the same keys and accumulators (names, expressions, types,
//     functions, filters), then every pipeline scanning B scans A instead (its rows param and its
//     dependency follow), a result read from B reads A, B's pipeline, table and buffers are removed
//     and the pipelines renumbered in their order. Tables of a distributed compile's two phases
//     (rank-local, combining) are left alone; so is a table anything else names (a hash table built
//     from it is built by a pipeline that scans it, which is redirected).
#include <algorithm>
#include <set>
#include <string>

#include "ir/passes.h"
#include "ir/walk.h"
#include "storage/error.h"

namespace hqc::ir {

namespace {

std::string text(const plan::ExprPtr& e) { return e ? e->to_string() : std::string("-"); }

// The pipeline without its id, name and sink state: its source and ops, as text.
std::string shape(const Pipeline& p) {
  if (p.source.table.empty() || !p.arith_flags.empty()) return "";  // base tables only
  std::string s = p.source.table + " as " + p.source.alias + " [";
  for (const std::string& c : p.source.columns) s += c + ",";
  s += "] rows " + p.source.rows_param;
  for (const PipelineOp& op : p.ops) {
    s += "\n" + std::string(pipeline_op_kind_name(op.kind)) + " " + text(op.predicate) + " " + op.hash_table + " " +
         plan::join_type_name(op.join_type) + " " + text(op.residual) + (op.explicit_nulls ? " nulls" : "");
    for (const plan::ExprPtr& k : op.probe_keys) s += " key " + text(k);
    for (const plan::NamedExpr& e : op.exprs) s += " " + e.name + ":=" + text(e.expr);
  }
  return s;
}

// The table without its name and buffers: layout, keys and accumulators, as text.
std::string shape(const AggregationTable& t) {
  if (t.rank_local || !t.combines.empty() || t.partition_keyed) return "";
  std::string s = std::to_string(static_cast<int>(t.layout)) + " lanes " + std::to_string(t.key_lanes);
  for (const GroupKey& k : t.keys)
    s += "\nkey " + k.name + " " + text(k.expr) + " " + k.type.to_string() + " " + k.dict_table + "." + k.dict_column + " " +
         k.heap_table + "." + k.heap_column + (k.merge_on_host ? " merged" : "");
  for (const Accumulator& a : t.accumulators)
    s += "\nacc " + a.name + " " + std::to_string(static_cast<int>(a.func)) + " " + text(a.arg) + " " + text(a.filter) + " " +
         a.type.to_string() + (a.wide ? " wide" : "") + (a.zero_without_input ? " zero" : "");
  return s;
}

// The buffers table `t` names.
std::set<std::string> buffers_of(const AggregationTable& t) {
  std::set<std::string> out{t.occupancy_buffer, t.overflow_buffer};
  for (const GroupKey& k : t.keys) out.insert(k.key_buffer);
  for (const Accumulator& a : t.accumulators) {
    out.insert(a.buffer);
    out.insert(a.state_buffer);
  }
  out.erase("");
  return out;
}

}  // namespace

void shared_aggregations(Program& program) {
  auto same = [](const AggregationTable& a, const Pipeline& pa, const AggregationTable& b, const Pipeline& pb) {
    const std::string table = shape(a), rows = shape(pa);
    return !table.empty() && table == shape(b) && !rows.empty() && rows == shape(pb) && pa.depends_on == pb.depends_on;
  };
  auto redirect = [&](const AggregationTable& keep, const AggregationTable& drop) {
    for (Pipeline& p : program.pipelines) {
      if (p.source.aggregation != drop.name) continue;
      p.source.aggregation = keep.name;
      if (!keep.slots_param.empty()) p.source.rows_param = keep.slots_param;  // a single tuple keeps its one slot
      const std::string from = " from " + drop.name;  // "p4 hash_build ht0 from agg2"
      if (p.name.size() >= from.size() && p.name.compare(p.name.size() - from.size(), from.size(), from) == 0)
        p.name = p.name.substr(0, p.name.size() - from.size()) + " from " + keep.name;
    }
    if (program.result.state == drop.name) program.result.state = keep.name;
    if (program.result.input_rows_state == drop.name) program.result.input_rows_state = keep.name;
  };
  share_equal_stages(program, program.aggregations, SinkKind::Aggregate, same, redirect, buffers_of);
}

}  // namespace hqc::ir

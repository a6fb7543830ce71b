// Pass split_combine: phase 2 of a two-phase aggregation split across ranks by ranges of one key.
//
// Phase 2 (ir/two_phase_aggregation.cpp) combines every rank's partial groups, gathered to every
// rank, into the final table — the same work on every rank, as long as on one device. Where the final
// table is aggregated again, by one of its keys, before the result (TPC-H Q16: distinct (brand, type,
// size, supplier) pairs, ~12 M at SF 100, then counts per (brand, type, size)), no rank needs all of
// it: each rank combines only the rows whose key K lies in its range of K's values, so the ranks'
// groups are disjoint, the next aggregation's groups too, and only those few, compacted for the
// result, are concatenated after the compaction (runtime StateMerge Rows, after the pipeline's last
// launch) — ORDER BY and LIMIT then run on rank 0 as before.
// Where the result reads the final table itself (TPC-H Q3, Q10), only under ORDER BY ... LIMIT k:
// each rank's compacted groups are narrowed on the device to those that can be among the first k
// (runtime StateMerge::top_k) before they are concatenated. Without a LIMIT every group would cross
// to rank 0 as a compacted row, and on 2 H200s at SF 100 that gather (Q10: 0.95 ms) cost more than
// half of phase 2 saved (bench/results/2026-11-29-h200x2-tpch-sf100, split/).
//   expects: a distributed compile's Program before fuse_pipelines (the filter this adds is fused as
//     any other), tables made by two-phase aggregation (AggregationTable::combines, split_candidates).
//   guarantees: a final table T is split (T.split_key, T.split_groups; its phase-2 pipeline starts
//     with the filter `K >= lo and K <= hi`, lo and hi Constant params of K's type bounding the
//     rank's range, Param::split_min_param) only when exactly one pipeline scans T and aggregates into
//     a table U that only the result reads, grouped by a plain copy of K among its keys — then U is
//     split_groups too and T is read on its rank only —, or when nothing scans T and the result reads
//     it under ORDER BY and LIMIT (no window functions). The split table the result reads (T or U)
//     takes top_k = LIMIT + OFFSET where the result reads it under ORDER BY and LIMIT and its groups
//     do not merge on the host. K is the first of T's split_candidates (the
//     most distinct) that U allows. Nothing else changes: one process (no two-phase table) gets the
//     same program; under mpirun with one rank the bounds are the key type's extremes (runtime
//     rank_plan narrows them per rank).
#include <algorithm>
#include <cstdint>
#include <limits>

#include "ir/passes.h"
#include "ir/walk.h"
#include "storage/error.h"

namespace hqc::ir {

namespace {

// The pipelines scanning aggregation table `name`.
std::vector<const Pipeline*> readers_of(const Program& program, const std::string& name) {
  std::vector<const Pipeline*> out;
  for (const Pipeline& p : program.pipelines)
    if (p.source.aggregation == name) out.push_back(&p);
  return out;
}

bool is_result(const Program& program, const std::string& table) {
  return program.result.kind == ResultDesc::Kind::Aggregation && program.result.state == table;
}

// Which of T's keys (by index) the readers of T allow splitting by; empty: none.
std::vector<bool> allowed_keys(Program& program, const AggregationTable& t) {
  std::vector<bool> allowed(t.keys.size(), false);
  const std::vector<const Pipeline*> readers = readers_of(program, t.name);
  // The result reading T itself: only a top-k of each rank's groups crosses to rank 0 (see the contract).
  if (readers.empty() && is_result(program, t.name)) {
    const ResultDesc& r = program.result;
    if (!r.order_by.empty() && r.limit >= 0 && r.windows.empty()) allowed.assign(t.keys.size(), true);
    return allowed;
  }
  if (readers.size() != 1 || is_result(program, t.name)) return allowed;
  const Pipeline& r = *readers[0];
  if (r.sink.kind != SinkKind::Aggregate || !is_result(program, r.sink.state) || !readers_of(program, r.sink.state).empty())
    return allowed;
  const AggregationTable* u = program.find_aggregation(r.sink.state);
  if (u == nullptr || u->layout == AggLayout::Scalar || !u->combines.empty() || u->rank_local || sole_writer(program, SinkKind::Aggregate, u->name) != &r)
    return allowed;
  for (const GroupKey& k : u->keys) {
    if (k.expr == nullptr || k.expr->kind != plan::ExprKind::Column) continue;
    const AttributeBinding* b = r.find_attribute(k.expr->source, k.expr->column);
    if (b == nullptr || b->origin != AttributeBinding::Origin::SourceColumn) continue;
    for (size_t i = 0; i < t.keys.size(); ++i)
      if (t.keys[i].name == b->attr.name) allowed[i] = true;
  }
  return allowed;
}

// LIMIT + OFFSET where the result reads split table `a` under ORDER BY ... LIMIT (no window
// functions, no groups merged on the host), else -1 (AggregationTable::top_k).
int64_t top_k(const Program& program, const AggregationTable& a) {
  const ResultDesc& r = program.result;
  if (!is_result(program, a.name) || r.order_by.empty() || r.limit < 0 || !r.windows.empty() || a.merge_on_host) return -1;
  return r.limit > std::numeric_limits<int64_t>::max() - r.offset ? std::numeric_limits<int64_t>::max() : r.limit + r.offset;
}

}  // namespace

void split_combine(Program& program) {
  for (size_t a = 0; a < program.aggregations.size(); ++a) {
    AggregationTable& t = program.aggregations[a];
    if (t.combines.empty() || t.split_candidates.empty() || !t.split_key.empty()) continue;
    Pipeline* phase2 = sole_writer(program, SinkKind::Aggregate, t.name);
    if (phase2 == nullptr || phase2->source.output.empty()) continue;
    const std::vector<bool> allowed = allowed_keys(program, t);
    const AggregationTable* partial = program.find_aggregation(t.combines);
    if (partial == nullptr || partial->keys.size() != t.keys.size()) continue;
    size_t key = t.keys.size();
    for (const size_t i : t.split_candidates) {
      if (i < allowed.size() && allowed[i]) {
        key = i;
        break;
      }
    }
    if (key == t.keys.size()) continue;

    // The bounds: the key type's extremes until a rank narrows them (runtime rank_plan).
    const GroupKey& k = t.keys[key];
    const GroupKey& range = partial->keys[key];
    const ScalarType type = scalar_of(k.type);
    const bool narrow = type == ScalarType::I32;
    const std::string base = t.name + "_split_" + k.name;
    Param lo{base + "_lo", Param::Source::Constant, type};
    lo.value = narrow ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int64_t>::min();
    lo.split_min_param = range.min_param;
    lo.split_domain_param = range.domain_param;
    lo.comment = "smallest " + k.name + " of the rank's part of " + t.name + "'s groups";
    Param hi = lo;
    hi.name = base + "_hi";
    hi.value = narrow ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int64_t>::max();
    hi.split_upper = true;
    hi.comment = "largest " + k.name + " of the rank's part of " + t.name + "'s groups";

    const AttributeBinding* b = nullptr;
    for (const AttributeBinding& ab : phase2->attributes)
      if (ab.origin == AttributeBinding::Origin::SourceColumn && ab.attr.name == k.name) b = &ab;
    if (b == nullptr) throw Error(ErrorKind::Internal, "split_combine: " + phase2->name + " binds no key " + k.name);
    const plan::ExprPtr value = plan::make_column(b->attr.source, b->attr.name, b->attr.type);
    value->dict_table = b->attr.dict_table;
    value->dict_column = b->attr.dict_column;
    const DataType bound = b->attr.type.is_string() ? DataType::int32() : b->attr.type;  // a dictionary string: its code
    PipelineOp filter;
    filter.kind = PipelineOpKind::Filter;
    filter.id = next_op_id(program);
    filter.predicate = plan::make_logical(plan::ExprKind::And, {plan::make_compare(plan::CompareOp::Ge, value, plan::make_param(lo.name, bound)),
                                                                 plan::make_compare(plan::CompareOp::Le, value, plan::make_param(hi.name, bound))});
    phase2->ops.insert(phase2->ops.begin(), std::move(filter));
    program.params.push_back(std::move(lo));
    program.params.push_back(std::move(hi));

    t.split_key = k.name;
    t.split_groups = true;
    const std::vector<const Pipeline*> readers = readers_of(program, t.name);
    AggregationTable* result_table = &t;  // the split table the result reads: T, or U aggregated from it
    for (AggregationTable& u : program.aggregations) {
      if (readers.empty() || u.name != readers[0]->sink.state) continue;
      u.split_groups = true;
      result_table = &u;
    }
    result_table->top_k = top_k(program, *result_table);
  }
}

}  // namespace hqc::ir

// Pass reduce_builds: a hash table's build keeps only the rows its one probe can match.
//   expects: a built program (pipelines in dependency order, ir/build_pipelines.h).
//   guarantees: where a pipeline P probes hash table A (inner or semi, on one key column k: every
//     tuple of P that goes on has k in A) and also hash table B, B is probed by no other op of the
//     program, and B brings k in — k is B's j-th probe key, or B is an inner join and k one of its
//     payload columns — B's rows first probe A (semi) with B's j-th build key or that column (or the
//     scan's column a copying Map renames into it: TPC-H Q21's EXISTS builds key on sq310_1 :=
//     l2.l_orderkey): a build row whose key is not in A could only match tuples P drops. TPC-H Q9: lineitem probes the
//     parts named '%green%' by l_partkey and partsupp by (l_suppkey, l_partkey), so partsupp's build
//     inserts the ~5 % of its rows of those parts instead of all (24 M rows at SF 30, 4.7 of Q9's
//     12.5 ms on an H200). Q3 (payload): lineitem probes orders, then the BUILDING customers by the
//     orders' o_custkey, so the orders build keeps the BUILDING customers' orders.
//     Where B's rows come from: a base table scanned by B's build, or — a distributed build of a
//     partitioned table, whose rows are gathered to every rank first — an output that only B's build
//     reads, materialized from a base table by one pipeline: the semi probe goes into that pipeline,
//     so the gather moves only the rows that can match (Q9 under mpirun: ~5 % of partsupp to every
//     rank instead of all of it).
//     Applied only when A's build is selective itself (it filters or probes; a probe this pass added
//     does not count) and is not rank-local — A may be built from a base table, an output or groups
//     (TPC-H Q18: the orders build keeps the orders whose lines sum past 300), and is whole on every
//     rank when B's rows are read: replicated, or merged before its users run (B may be rank-local:
//     a rank's share loses only rows none of its probes can match) — and when the key types agree;
//     the payload form only when B's rows come from a table of at least kPayloadReductionRows rows
//     by the statistics (it mostly reaches small dimension chains, nation by region or supplier by
//     nation, where the probe saves less than the wave it adds before B's build). The pipeline that gained the probe depends on A's build; the
//     pipelines are put back in dependency order (stable: a pipeline moves only after what it
//     depends on) and renumbered. The answer is the same; B's capacity stays as estimated (an
//     upper bound).
#include <algorithm>
#include <map>
#include <set>

#include "ir/passes.h"
#include "ir/walk.h"
#include "storage/error.h"

namespace hqc::ir {

namespace {

// The payload form's least rows of B's table (Program::table_rows): TPC-H orders and partsupp from
// SF 1 (Q3, Q8, Q20), customer from SF 10; never supplier, nation or region below SF 50.
constexpr uint64_t kPayloadReductionRows = uint64_t{1} << 19;

bool same_column(const plan::Expr& a, const plan::Expr& b) {
  return a.kind == plan::ExprKind::Column && b.kind == plan::ExprKind::Column && a.source == b.source && a.column == b.column;
}

// The pipeline whose sink builds `table`, or null.
Pipeline* build_of(Program& program, const std::string& table) {
  for (Pipeline& p : program.pipelines)
    if (p.sink.kind == SinkKind::HashBuild && p.sink.state == table) return &p;
  return nullptr;
}

bool from_base_table(const Pipeline& p) { return !p.source.table.empty() && p.source.output.empty() && p.source.aggregation.empty(); }

// Filters or probes of its own, not counting the probes this pass added (`added`): a table whose
// only restriction is such a probe restricts nothing its probe's table does not (TPC-H Q21's two
// lineitem builds, each reduced by the 'F' orders: one must not be reduced again by the other).
bool selective(const Pipeline& p, const std::set<int>& added) {
  return std::any_of(p.ops.begin(), p.ops.end(), [&](const PipelineOp& op) {
    return op.kind == PipelineOpKind::Filter ||
           (op.kind == PipelineOpKind::Probe && added.count(op.id) == 0 &&
            (op.join_type == plan::JoinType::Inner || op.join_type == plan::JoinType::Semi));
  });
}

bool probes(const Pipeline& p, const std::string& table) {
  return std::any_of(p.ops.begin(), p.ops.end(), [&](const PipelineOp& op) { return op.kind == PipelineOpKind::Probe && op.hash_table == table; });
}

// The pipeline whose rows B's build inserts and where a semi probe can drop them: the build itself
// when it scans a base table; when it reads an output that nothing else reads (not the result
// either), the one pipeline that materializes that output from a base table; otherwise null.
Pipeline* rows_of_build(Program& program, Pipeline& build) {
  if (from_base_table(build)) return &build;
  const std::string& output = build.source.output;
  if (output.empty() || (program.result.kind == ResultDesc::Kind::Output && program.result.state == output)) return nullptr;
  Pipeline* writer = nullptr;
  for (Pipeline& p : program.pipelines) {
    if (&p != &build && p.source.output == output) return nullptr;  // another reader
    if (p.sink.kind == SinkKind::Materialize && p.sink.state == output) {
      if (writer != nullptr) return nullptr;
      writer = &p;
    }
  }
  return writer != nullptr && from_base_table(*writer) ? writer : nullptr;
}

// `key` as a column the scan of `p` reads: itself, or the source column a copying Map binds it to
// (TPC-H Q21's EXISTS build keys on sq310_1 := l2.l_orderkey); null otherwise.
plan::ExprPtr source_column_of(const Pipeline& p, const plan::ExprPtr& key) {
  if (key->kind != plan::ExprKind::Column) return nullptr;
  const AttributeBinding* b = p.find_attribute(key->source, key->column);
  if (b == nullptr) return nullptr;
  if (b->origin == AttributeBinding::Origin::SourceColumn) return key;
  if (b->origin != AttributeBinding::Origin::Computed) return nullptr;
  for (const PipelineOp& op : p.ops) {
    if (op.id != b->op_id || op.kind != PipelineOpKind::Map) continue;
    for (const plan::NamedExpr& e : op.exprs) {
      if (e.name != key->column || e.expr->kind != plan::ExprKind::Column) continue;
      const AttributeBinding* src = p.find_attribute(e.expr->source, e.expr->column);
      if (src != nullptr && src->origin == AttributeBinding::Origin::SourceColumn) return e.expr;
    }
  }
  return nullptr;
}

// Pipelines in dependency order again after one gained a dependency, moving as little as possible
// (each in turn: the first in the current order whose dependencies are all placed); ids and names
// follow the new order.
void reorder(Program& program) {
  std::vector<Pipeline>& ps = program.pipelines;
  std::vector<Pipeline> ordered;
  std::set<int> placed;
  while (!ps.empty()) {
    auto ready = std::find_if(ps.begin(), ps.end(), [&](const Pipeline& p) {
      return std::all_of(p.depends_on.begin(), p.depends_on.end(), [&](int d) { return placed.count(d) != 0; });
    });
    if (ready == ps.end()) throw Error(ErrorKind::Internal, "reduce_builds: the pipelines' dependencies form a cycle");
    placed.insert(ready->id);
    ordered.push_back(std::move(*ready));
    ps.erase(ready);
  }
  ps = std::move(ordered);
  renumber_pipelines(program);
}

}  // namespace

void reduce_builds(Program& program) {
  int next_op = next_op_id(program);
  std::set<int> added;  // the semi probes this pass inserted

  bool changed = true;
  while (changed) {  // one reduction at a time: each may renumber the pipelines
    changed = false;
    for (const Pipeline& probe : program.pipelines) {
      for (const PipelineOp& a : probe.ops) {
        if (a.kind != PipelineOpKind::Probe || a.probe_keys.size() != 1 ||
            (a.join_type != plan::JoinType::Inner && a.join_type != plan::JoinType::Semi))
          continue;
        const HashTable* ha = program.find_hash_table(a.hash_table);
        const Pipeline* build_a = build_of(program, a.hash_table);
        if (ha == nullptr || build_a == nullptr || ha->rank_local || !selective(*build_a, added)) continue;
        for (const PipelineOp& b : probe.ops) {
          if (b.kind != PipelineOpKind::Probe || b.hash_table == a.hash_table) continue;
          const HashTable* hb = program.find_hash_table(b.hash_table);
          Pipeline* build_b = build_of(program, b.hash_table);
          Pipeline* rows_b = build_b == nullptr ? nullptr : rows_of_build(program, *build_b);
          if (hb == nullptr || rows_b == nullptr || probes(*rows_b, a.hash_table)) continue;
          int users = 0;
          for (const Pipeline& p : program.pipelines)
            for (const PipelineOp& op : p.ops) users += op.kind == PipelineOpKind::Probe && op.hash_table == b.hash_table ? 1 : 0;
          if (users != 1) continue;
          // B's build-side columns that carry A's key into the probe: a key B is probed by, or (an
          // inner join) a payload column of B that the probe of A then reads.
          std::vector<plan::ExprPtr> keys;
          for (size_t j = 0; j < b.probe_keys.size(); ++j)
            if (same_column(*b.probe_keys[j], *a.probe_keys[0])) keys.push_back(hb->build_keys.at(j));
          const plan::Expr& ka = *a.probe_keys[0];
          const AttributeBinding* carried = ka.kind == plan::ExprKind::Column ? probe.find_attribute(ka.source, ka.column) : nullptr;
          const auto rows = program.table_rows.find(rows_b->source.table);
          const bool large = rows != program.table_rows.end() && rows->second >= kPayloadReductionRows;
          if (large && b.join_type == plan::JoinType::Inner && carried != nullptr && carried->origin == AttributeBinding::Origin::ProbePayload &&
              carried->op_id == b.id)
            keys.push_back(a.probe_keys[0]);
          for (const plan::ExprPtr& candidate : keys) {
            // Probed before any op: a column of the scan (through a copying Map).
            const plan::ExprPtr key = source_column_of(*rows_b, candidate);
            if (key == nullptr || !(key->type == ha->build_keys.at(0)->type)) continue;
            PipelineOp semi;
            semi.kind = PipelineOpKind::Probe;
            semi.id = next_op++;
            added.insert(semi.id);
            semi.hash_table = a.hash_table;
            semi.probe_keys = {key};
            semi.join_type = plan::JoinType::Semi;
            rows_b->ops.insert(rows_b->ops.begin(), semi);  // before the pipeline's own filters: they may read more columns
            rows_b->depends_on.push_back(build_a->id);
            reorder(program);
            changed = true;
            break;
          }
          if (changed) break;
        }
        if (changed) break;
      }
      if (changed) break;
    }
  }
}

}  // namespace hqc::ir

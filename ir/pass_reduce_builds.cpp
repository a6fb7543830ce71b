// Pass reduce_builds: a hash table's build keeps only the rows its one probe can match.
//   expects: a built program (pipelines in dependency order, ir/build_pipelines.h).
//   guarantees: where a pipeline P probes hash table A (inner or semi, on one key column k: every
//     tuple of P that goes on has k in A) and also hash table B, whose j-th probe key is that same
//     k, and B is probed by no other op of the program, B's build pipeline first probes A (semi) with
//     B's j-th build key: a build row whose key is not in A could only match tuples P drops. TPC-H
//     Q9: lineitem probes the parts named '%green%' by l_partkey and partsupp by (l_suppkey,
//     l_partkey), so partsupp's build inserts the ~5 % of its rows of those parts instead of all
//     (24 M rows at SF 30, 4.7 of Q9's 12.5 ms on an H200). Applied only when A's build is selective
//     itself (it filters or probes), when both tables are built from base tables (not from an
//     output or groups: a distributed build of a partitioned table is gathered first) and neither
//     is rank-local, and when the key types agree. B's build then depends on A's, so the pipelines
//     are put back in dependency order (stable: only B's build moves, after A's) and renumbered.
//     The answer is the same; B's capacity stays as estimated (an upper bound).
#include <algorithm>
#include <map>

#include "ir/passes.h"
#include "storage/error.h"

namespace hqc::ir {

namespace {

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

bool selective(const Pipeline& p) {
  return std::any_of(p.ops.begin(), p.ops.end(), [](const PipelineOp& op) {
    return op.kind == PipelineOpKind::Filter ||
           (op.kind == PipelineOpKind::Probe && (op.join_type == plan::JoinType::Inner || op.join_type == plan::JoinType::Semi));
  });
}

bool probes(const Pipeline& p, const std::string& table) {
  return std::any_of(p.ops.begin(), p.ops.end(), [&](const PipelineOp& op) { return op.kind == PipelineOpKind::Probe && op.hash_table == table; });
}

// Pipelines in dependency order again after `moved` gained a dependency: `moved` goes right after
// the last pipeline it depends on when that one comes later; ids and names follow the new order.
void reorder(Program& program, int moved_id) {
  std::vector<Pipeline>& ps = program.pipelines;
  auto at = [&](int id) {
    return static_cast<size_t>(std::find_if(ps.begin(), ps.end(), [&](const Pipeline& p) { return p.id == id; }) - ps.begin());
  };
  const size_t from = at(moved_id);
  size_t after = from;
  for (int d : ps[from].depends_on) after = std::max(after, at(d));
  if (after == from) return;
  Pipeline moved = std::move(ps[from]);
  ps.erase(ps.begin() + static_cast<std::ptrdiff_t>(from));
  ps.insert(ps.begin() + static_cast<std::ptrdiff_t>(after), std::move(moved));  // `after` shifted down by one: right after it
  std::map<int, int> renamed;
  for (size_t i = 0; i < ps.size(); ++i) renamed[ps[i].id] = static_cast<int>(i);
  for (Pipeline& p : ps) {
    const std::string old_prefix = "p" + std::to_string(p.id) + " ";
    p.id = renamed.at(p.id);
    if (p.name.rfind(old_prefix, 0) == 0) p.name = "p" + std::to_string(p.id) + " " + p.name.substr(old_prefix.size());
    for (int& d : p.depends_on) d = renamed.at(d);
    std::sort(p.depends_on.begin(), p.depends_on.end());
  }
}

}  // namespace

void reduce_builds(Program& program) {
  int next_op = 0;
  for (const Pipeline& p : program.pipelines)
    for (const PipelineOp& op : p.ops) next_op = std::max(next_op, op.id + 1);

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
        if (ha == nullptr || build_a == nullptr || ha->rank_local || !from_base_table(*build_a) || !selective(*build_a)) continue;
        for (const PipelineOp& b : probe.ops) {
          if (b.kind != PipelineOpKind::Probe || b.hash_table == a.hash_table) continue;
          const HashTable* hb = program.find_hash_table(b.hash_table);
          Pipeline* build_b = build_of(program, b.hash_table);
          if (hb == nullptr || build_b == nullptr || hb->rank_local || !from_base_table(*build_b) || probes(*build_b, a.hash_table)) continue;
          int users = 0;
          for (const Pipeline& p : program.pipelines)
            for (const PipelineOp& op : p.ops) users += op.kind == PipelineOpKind::Probe && op.hash_table == b.hash_table ? 1 : 0;
          if (users != 1) continue;
          for (size_t j = 0; j < b.probe_keys.size(); ++j) {
            if (!same_column(*b.probe_keys[j], *a.probe_keys[0])) continue;
            const plan::ExprPtr& key = hb->build_keys.at(j);
            if (key->kind != plan::ExprKind::Column || !(key->type == ha->build_keys.at(0)->type)) continue;
            const AttributeBinding* bound = build_b->find_attribute(key->source, key->column);
            if (bound == nullptr || bound->origin != AttributeBinding::Origin::SourceColumn) continue;  // probed before any op
            PipelineOp semi;
            semi.kind = PipelineOpKind::Probe;
            semi.id = next_op++;
            semi.hash_table = a.hash_table;
            semi.probe_keys = {key};
            semi.join_type = plan::JoinType::Semi;
            build_b->ops.insert(build_b->ops.begin(), semi);  // before the build's own filters: they may read more columns
            build_b->depends_on.push_back(build_a->id);
            reorder(program, build_b->id);
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

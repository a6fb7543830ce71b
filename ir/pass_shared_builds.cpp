// Pass shared_builds: a join table the query builds twice from the same rows is built once.
//
// A subquery that joins the tables its outer query joins plans its own builds of them: TPC-H Q2's
// correlated MIN(ps_supplycost) builds region (EUROPE), nation and supplier again beside the outer
// query's, Q11's HAVING subquery nation (GERMANY) and supplier, Q20's two 'forest%' part builds. Each
// is a pipeline (a wave of launches) more, for a table another pipeline already built.
//   expects: a freshly built Program (before reduce_builds adds probes to builds).
//   guarantees: when join tables A (built first) and B are each built by exactly one pipeline whose
//     source scans the same base table and whose ops are filters only, equal up to the scan's alias
//     (walk.h same_expr), and A and B have the same layout, uniqueness, keys (equal up to the alias)
//     and neither is keys-only unless both are, and B's payload is among A's (by column), then every
//     probe of B probes A — its payload bindings renumbered to A's payload, its pipeline depending
//     on A's builder —, B's pipeline, table and buffers are removed and the pipelines renumbered.
//     Chained tables, tables counted at run time and the distributed compile's special tables
//     (rank-local, merged keys, shuffled) are left alone.
#include <algorithm>
#include <set>
#include <string>

#include "ir/passes.h"
#include "ir/walk.h"

namespace hqc::ir {

namespace {

const Pipeline* sole_builder(const Program& program, const std::string& table) {
  const Pipeline* w = nullptr;
  for (const Pipeline& p : program.pipelines) {
    if (p.sink.kind != SinkKind::HashBuild || p.sink.state != table) continue;
    if (w != nullptr) return nullptr;
    w = &p;
  }
  return w;
}

bool plain(const HashTable& t) {
  return t.layout != HashLayout::Chained && t.count_buffer.empty() && !t.rank_local && !t.merged_keys && !t.shuffled;
}

// Whether builder `pb` of `b` builds what `pa` builds of `a`: the same rows (table, filters) and keys.
bool same_build(const HashTable& a, const Pipeline& pa, const HashTable& b, const Pipeline& pb) {
  if (pa.source.table.empty() || pa.source.table != pb.source.table || pa.ops.size() != pb.ops.size()) return false;
  if (a.layout != b.layout || a.unique_keys != b.unique_keys || a.keys_only != b.keys_only || a.perfect_slots != b.perfect_slots ||
      a.build_keys.size() != b.build_keys.size() || !pa.depends_on.empty() || !pb.depends_on.empty())
    return false;
  const std::string& x = pa.source.alias;
  const std::string& y = pb.source.alias;
  for (size_t i = 0; i < pa.ops.size(); ++i) {
    const PipelineOp& u = pa.ops[i];
    const PipelineOp& v = pb.ops[i];
    if (u.kind != PipelineOpKind::Filter || v.kind != PipelineOpKind::Filter || !u.predicate || !v.predicate ||
        !same_expr(*u.predicate, x, *v.predicate, y))
      return false;
  }
  for (size_t i = 0; i < a.build_keys.size(); ++i)
    if (!a.build_keys[i] || !b.build_keys[i] || !same_expr(*a.build_keys[i], x, *b.build_keys[i], y)) return false;
  for (const plan::Attribute& p : b.payload)
    if (std::none_of(a.payload.begin(), a.payload.end(), [&](const plan::Attribute& q) { return q.name == p.name && q.source == x && p.source == y; }))
      return false;
  return true;
}

// The buffers table `t` names.
std::set<std::string> buffers_of(const HashTable& t) {
  std::set<std::string> out{t.overflow_buffer, t.head_buffer, t.next_buffer, t.bitmap_buffer, t.count_buffer};
  out.insert(t.key_buffers.begin(), t.key_buffers.end());
  out.insert(t.payload_buffers.begin(), t.payload_buffers.end());
  out.erase("");
  return out;
}

// Every probe of `b` probes `a` instead: the op, the payload bindings it makes, its dependency.
void redirect_probes(Program& program, const HashTable& a, const HashTable& b, int a_builder, int b_builder) {
  for (Pipeline& p : program.pipelines) {
    bool probes = false;
    for (PipelineOp& op : p.ops) {
      if (op.kind != PipelineOpKind::Probe || op.hash_table != b.name) continue;
      op.hash_table = a.name;
      probes = true;
      for (AttributeBinding& binding : p.attributes) {
        if (binding.origin != AttributeBinding::Origin::ProbePayload || binding.op_id != op.id) continue;
        const std::string& column = b.payload.at(binding.payload_index).name;
        for (size_t j = 0; j < a.payload.size(); ++j)
          if (a.payload[j].name == column) binding.payload_index = j;
      }
    }
    if (probes && std::find(p.depends_on.begin(), p.depends_on.end(), b_builder) != p.depends_on.end()) p.depends_on.push_back(a_builder);
  }
}

}  // namespace

void shared_builds(Program& program) {
  bool changed = true;
  while (changed) {  // one table at a time: each removal renumbers the pipelines
    changed = false;
    for (size_t b = 0; b < program.hash_tables.size() && !changed; ++b) {
      for (size_t a = 0; a < b && !changed; ++a) {
        const HashTable& ta = program.hash_tables[a];
        const HashTable& tb = program.hash_tables[b];
        if (!plain(ta) || !plain(tb)) continue;
        const Pipeline* pa = sole_builder(program, ta.name);
        const Pipeline* pb = sole_builder(program, tb.name);
        if (pa == nullptr || pb == nullptr || pa->id > pb->id || !same_build(ta, *pa, tb, *pb)) continue;
        const int keep_id = pa->id, drop_id = pb->id;
        const std::set<std::string> dropped_buffers = buffers_of(tb);
        const HashTable kept = ta, dropped = tb;  // copies: the vector changes below
        redirect_probes(program, kept, dropped, keep_id, drop_id);
        program.hash_tables.erase(program.hash_tables.begin() + static_cast<std::ptrdiff_t>(b));
        remove_stage(program, drop_id, keep_id, dropped_buffers);
        changed = true;
      }
    }
  }
}

}  // namespace hqc::ir

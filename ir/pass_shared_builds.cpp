// Pass shared_builds: a join table the query builds twice from the same rows is built once.
//
// A subquery that joins the tables its outer query joins plans its own builds of them: TPC-H Q2's
// correlated MIN(ps_supplycost) builds region (EUROPE), nation and supplier again beside the outer
// query's, Q11's HAVING subquery nation (GERMANY) and supplier, Q20's two 'forest%' part builds. Each
// is a pipeline (a wave of launches) more, for a table another pipeline already built.
//   expects: a freshly built Program (before reduce_builds adds probes to builds).
//   guarantees: when join tables A (built first) and B are each built by exactly one pipeline whose
//     source scans the same base table and whose ops are filters and maps (of the same names), equal
//     up to the scan's alias (walk.h same_expr), and A and B have the same layout, uniqueness, keys (equal up to the alias)
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

bool plain(const HashTable& t) {
  return t.layout != HashLayout::Chained && t.count_buffer.empty() && !t.rank_local && !t.merged_keys && !t.shuffled;
}

// Whether ops u (of a scan aliased x) and v (aliased y) are the same filter, or maps of the same
// names computing the same values (a subquery planned twice names its maps alike: TPC-H Q20's
// `sq244_1 := p_partkey` of both 'forest%' builds).
bool same_filter_or_map(const PipelineOp& u, const std::string& x, const PipelineOp& v, const std::string& y) {
  if (u.kind != v.kind) return false;
  if (u.kind == PipelineOpKind::Filter) return u.predicate && v.predicate && same_expr(*u.predicate, x, *v.predicate, y);
  if (u.kind != PipelineOpKind::Map || u.exprs.size() != v.exprs.size()) return false;
  for (size_t i = 0; i < u.exprs.size(); ++i) {
    const plan::NamedExpr& a = u.exprs[i];
    const plan::NamedExpr& b = v.exprs[i];
    if (a.name != b.name || a.validity_for != b.validity_for || !a.expr || !b.expr || !same_expr(*a.expr, x, *b.expr, y)) return false;
  }
  return true;
}

// Whether builder `pb` of `b` builds what `pa` builds of `a`: the same rows (table, filters) and keys.
bool same_build(const HashTable& a, const Pipeline& pa, const HashTable& b, const Pipeline& pb) {
  if (pa.source.table.empty() || pa.source.table != pb.source.table || pa.ops.size() != pb.ops.size()) return false;
  if (a.layout != b.layout || a.unique_keys != b.unique_keys || a.keys_only != b.keys_only || a.perfect_slots != b.perfect_slots ||
      a.key_bits != b.key_bits || a.build_keys.size() != b.build_keys.size() || !pa.depends_on.empty() || !pb.depends_on.empty())
    return false;
  const std::string& x = pa.source.alias;
  const std::string& y = pb.source.alias;
  for (size_t i = 0; i < pa.ops.size(); ++i)
    if (!same_filter_or_map(pa.ops[i], x, pb.ops[i], y)) return false;
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

// Every probe of `b` probes `a` instead, and the payload bindings it makes read `a`'s payload (the
// probing pipelines' dependency on b's builder becomes one on a's when it goes: remove_stage).
void redirect_probes(Program& program, const HashTable& a, const HashTable& b) {
  for (Pipeline& p : program.pipelines) {
    for (PipelineOp& op : p.ops) {
      if (op.kind != PipelineOpKind::Probe || op.hash_table != b.name) continue;
      op.hash_table = a.name;
      for (AttributeBinding& binding : p.attributes) {
        if (binding.origin != AttributeBinding::Origin::ProbePayload || binding.op_id != op.id) continue;
        const std::string& column = b.payload.at(binding.payload_index).name;
        for (size_t j = 0; j < a.payload.size(); ++j)
          if (a.payload[j].name == column) binding.payload_index = j;
      }
    }
  }
}

}  // namespace

void shared_builds(Program& program) {
  auto same = [](const HashTable& a, const Pipeline& pa, const HashTable& b, const Pipeline& pb) {
    return plain(a) && plain(b) && same_build(a, pa, b, pb);
  };
  auto redirect = [&](const HashTable& keep, const HashTable& drop) { redirect_probes(program, keep, drop); };
  share_equal_stages(program, program.hash_tables, SinkKind::HashBuild, same, redirect, buffers_of);
}

}  // namespace hqc::ir

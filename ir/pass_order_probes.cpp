// Pass order_probes: within a pipeline, cheap probes before expensive ones.
//   expects: a built program (ir/build_pipelines.h); reduce_builds has run (it reads the probes, not
//     their order).
//   guarantees: in each run of consecutive probes of a pipeline that keep or drop a tuple without
//     repeating it — inner joins on unique keys, semi and anti joins — the probes of a perfect-hash
//     or unique table without a residual ("cheap": one lookup) come before those that walk a chain
//     or test a residual per match ("expensive": TPC-H Q21's EXISTS / NOT EXISTS on lineitem by
//     l_orderkey with l_suppkey <>), so the expensive ones see only the tuples the cheap ones keep
//     (Q21: the 'F' orders and the Saudi suppliers, ~2 % of its lines, instead of ~60 %). A probe
//     stays after every probe of the run whose payload its keys or residual read (Q21's nation after
//     supplier); within each class the order is the builder's. Outer joins and probes that may match
//     several times (match loops) end a run and never move. The answer is the same: each moved probe
//     only keeps or drops the tuple and binds its own payload.
#include <algorithm>
#include <set>

#include "ir/passes.h"

namespace hqc::ir {

namespace {

// A probe that keeps or drops its tuple (at most one output per input): may move within its run.
bool movable(const Program& program, const PipelineOp& op) {
  if (op.kind != PipelineOpKind::Probe) return false;
  if (op.join_type == plan::JoinType::Semi || op.join_type == plan::JoinType::Anti) return true;
  if (op.join_type != plan::JoinType::Inner) return false;
  const HashTable* ht = program.find_hash_table(op.hash_table);
  return ht != nullptr && (ht->unique_keys || ht->keys_only);
}

bool cheap(const Program& program, const PipelineOp& op) {
  const HashTable* ht = program.find_hash_table(op.hash_table);
  return ht != nullptr && !op.residual && ht->layout != HashLayout::Chained && (ht->unique_keys || ht->keys_only);
}

// The ops of `p` among `run` whose bound attributes `op` reads (its keys and residual), other than itself.
std::set<int> reads_from(const Pipeline& p, const PipelineOp& op, const std::vector<PipelineOp>& run) {
  std::set<int> binders;
  auto note = [&](const plan::Expr& e) {
    plan::visit(e, [&](const plan::Expr& x) {
      if (x.kind != plan::ExprKind::Column) return;
      const AttributeBinding* b = p.find_attribute(x.source, x.column);
      if (b == nullptr || b->op_id < 0 || b->op_id == op.id) return;
      if (std::any_of(run.begin(), run.end(), [&](const PipelineOp& r) { return r.id == b->op_id; })) binders.insert(b->op_id);
    });
  };
  for (const plan::ExprPtr& k : op.probe_keys) note(*k);
  if (op.residual) note(*op.residual);
  return binders;
}

// `run` in the new order: repeatedly the first cheap probe whose binders are placed, else the first
// probe whose binders are placed.
std::vector<PipelineOp> reordered(const Program& program, const Pipeline& p, std::vector<PipelineOp> run) {
  std::vector<std::set<int>> needs;
  for (const PipelineOp& op : run) needs.push_back(reads_from(p, op, run));
  std::vector<PipelineOp> out;
  std::set<int> placed;
  std::vector<bool> taken(run.size(), false);
  while (out.size() < run.size()) {
    size_t pick = run.size();
    for (int pass = 0; pass < 2 && pick == run.size(); ++pass) {
      for (size_t i = 0; i < run.size(); ++i) {
        if (taken[i] || (pass == 0 && !cheap(program, run[i]))) continue;
        if (std::all_of(needs[i].begin(), needs[i].end(), [&](int id) { return placed.count(id) != 0; })) {
          pick = i;
          break;
        }
      }
    }
    if (pick == run.size()) return run;  // a cycle cannot arise from bindings; keep the order if it did
    taken[pick] = true;
    placed.insert(run[pick].id);
    out.push_back(run[pick]);
  }
  return out;
}

}  // namespace

void order_probes(Program& program) {
  for (Pipeline& p : program.pipelines) {
    for (size_t begin = 0; begin < p.ops.size();) {
      size_t end = begin;
      while (end < p.ops.size() && movable(program, p.ops[end])) ++end;
      if (end - begin >= 2) {
        std::vector<PipelineOp> run(p.ops.begin() + static_cast<std::ptrdiff_t>(begin), p.ops.begin() + static_cast<std::ptrdiff_t>(end));
        run = reordered(program, p, std::move(run));
        std::move(run.begin(), run.end(), p.ops.begin() + static_cast<std::ptrdiff_t>(begin));
      }
      begin = end == begin ? begin + 1 : end;
    }
  }
}

}  // namespace hqc::ir

// Expression roots of a pipeline (ir/walk.h).
#include "ir/walk.h"

namespace hqc::ir {

std::vector<const plan::Expr*> op_exprs(const Pipeline& p) {
  std::vector<const plan::Expr*> out;
  auto add = [&](const plan::ExprPtr& e) {
    if (e) out.push_back(e.get());
  };
  for (const PipelineOp& op : p.ops) {
    add(op.predicate);
    for (const auto& k : op.probe_keys) add(k);
    add(op.residual);
    for (const auto& m : op.exprs) add(m.expr);
  }
  return out;
}

bool has_overflow_check(const plan::Expr& e) {
  if (e.overflow_check) return true;
  for (const plan::ExprPtr& a : e.args)
    if (has_overflow_check(*a)) return true;
  return false;
}

bool matches_several_times(const Program& program, const Pipeline& p) {
  for (const PipelineOp& op : p.ops) {
    if (op.kind != PipelineOpKind::Probe || op.join_type == plan::JoinType::Semi || op.join_type == plan::JoinType::Anti) continue;
    const HashTable* ht = program.find_hash_table(op.hash_table);
    if (ht != nullptr && !ht->unique_keys) return true;
  }
  return false;
}

std::vector<const plan::Expr*> pipeline_exprs(const Program& program, const Pipeline& p) {
  std::vector<const plan::Expr*> out = op_exprs(p);
  auto add = [&](const plan::ExprPtr& e) {
    if (e) out.push_back(e.get());
  };
  switch (p.sink.kind) {
    case SinkKind::HashBuild:
      if (const HashTable* ht = program.find_hash_table(p.sink.state)) {
        for (const auto& k : ht->build_keys) add(k);
      }
      break;
    case SinkKind::Aggregate:
      if (const AggregationTable* a = program.find_aggregation(p.sink.state)) {
        for (const auto& k : a->keys) add(k.expr);
        for (const auto& acc : a->accumulators) {
          add(acc.arg);
          add(acc.filter);
        }
      }
      break;
    case SinkKind::Materialize:
      if (const OutputTable* o = program.find_output(p.sink.state)) {
        for (const auto& c : o->columns) add(c.expr);
      }
      break;
  }
  return out;
}

void for_each_string_operand(const plan::Expr& e, const std::function<void(const plan::Expr& column)>& f) {
  plan::visit(e, [&](const plan::Expr& x) {
    switch (x.kind) {
      case plan::ExprKind::Like:
      case plan::ExprKind::Substring:
      case plan::ExprKind::StringFn:
      case plan::ExprKind::Compare:
      case plan::ExprKind::Between:
      case plan::ExprKind::InList:
        for (const plan::ExprPtr& a : x.args)
          if (a->kind == plan::ExprKind::Column) f(*a);
        break;
      default: break;
    }
  });
}

std::vector<plan::Expr*> pipeline_exprs(Program& program, const Pipeline& p) {
  std::vector<plan::Expr*> out;
  for (const plan::Expr* e : pipeline_exprs(static_cast<const Program&>(program), p)) out.push_back(const_cast<plan::Expr*>(e));
  return out;
}

}  // namespace hqc::ir

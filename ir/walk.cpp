// Expression roots of a pipeline, and small restructurings passes share (ir/walk.h).
#include "ir/walk.h"

#include <algorithm>

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

const Pipeline* sole_writer(const Program& program, SinkKind kind, const std::string& state) {
  const Pipeline* writer = nullptr;
  for (const Pipeline& p : program.pipelines) {
    if (p.sink.kind != kind || p.sink.state != state) continue;
    if (writer != nullptr) return nullptr;
    writer = &p;
  }
  return writer;
}

Pipeline* sole_writer(Program& program, SinkKind kind, const std::string& state) {
  return const_cast<Pipeline*>(sole_writer(static_cast<const Program&>(program), kind, state));
}

int next_op_id(const Program& program) {
  int id = 0;
  for (const Pipeline& p : program.pipelines)
    for (const PipelineOp& op : p.ops) id = std::max(id, op.id + 1);
  return id;
}

void renumber_pipelines(Program& program, const std::map<int, int>& gone) {
  std::vector<Pipeline>& ps = program.pipelines;
  std::map<int, int> renamed;
  for (size_t i = 0; i < ps.size(); ++i) renamed[ps[i].id] = static_cast<int>(i);
  for (const auto& [old_id, stand_in] : gone) renamed[old_id] = renamed.at(stand_in);
  for (Pipeline& p : ps) {
    const std::string old_prefix = "p" + std::to_string(p.id) + " ";
    p.id = renamed.at(p.id);
    if (p.name.rfind(old_prefix, 0) == 0) p.name = "p" + std::to_string(p.id) + " " + p.name.substr(old_prefix.size());
    for (int& d : p.depends_on) d = renamed.at(d);
    std::sort(p.depends_on.begin(), p.depends_on.end());
    p.depends_on.erase(std::unique(p.depends_on.begin(), p.depends_on.end()), p.depends_on.end());
  }
}

void remove_stage(Program& program, int gone, int instead, const std::set<std::string>& buffers) {
  std::vector<Pipeline>& ps = program.pipelines;
  ps.erase(std::remove_if(ps.begin(), ps.end(), [&](const Pipeline& p) { return p.id == gone; }), ps.end());
  program.buffers.erase(std::remove_if(program.buffers.begin(), program.buffers.end(),
                                       [&](const Buffer& b) { return buffers.count(b.name) != 0; }),
                        program.buffers.end());
  renumber_pipelines(program, {{gone, instead}});
}

bool same_expr(const plan::Expr& a, const std::string& alias_a, const plan::Expr& b, const std::string& alias_b) {
  if (a.kind != b.kind || a.type.to_string() != b.type.to_string() || a.column != b.column || a.dict_table != b.dict_table ||
      a.dict_column != b.dict_column || a.int_value != b.int_value || a.float_value != b.float_value ||
      a.string_value != b.string_value || a.match != b.match || a.param != b.param || a.string_fn != b.string_fn ||
      a.arith != b.arith || a.overflow_check != b.overflow_check || a.compare != b.compare || a.args.size() != b.args.size())
    return false;
  if (a.kind == plan::ExprKind::Column && !(a.source == b.source || (a.source == alias_a && b.source == alias_b))) return false;
  for (size_t i = 0; i < a.args.size(); ++i)
    if (!a.args[i] || !b.args[i] || !same_expr(*a.args[i], alias_a, *b.args[i], alias_b)) return false;
  return true;
}

}  // namespace hqc::ir

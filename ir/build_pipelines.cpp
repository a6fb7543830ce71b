// Pipeline breaking (ir/build_pipelines.h). Lowering::produce() is THE function that decides where
// pipelines end:
//   - a join's build side becomes its own pipeline ending in a HashBuild sink; the probe side
//     continues the current pipeline with a Probe op;
//   - the aggregate at the top ends the current pipeline with an Aggregate sink; any other plan
//     ends with a Materialize sink;
//   - a node marked "pipeline_break" ends the current pipeline with a Materialize sink and a new
//     pipeline scans that output.
// It also computes, top-down, which attributes each pipeline must carry (`needed`), so scans read
// only referenced columns and hash tables carry only the payload the probe side uses. Semi and anti
// joins build a keys-only table (no payload; with a residual predicate, the build columns it
// compares) and probe it as an existence test. Inner and left outer joins on non-unique build keys
// probe every match (the rest of the pipeline runs once per match, codegen's match loop).
#include "ir/build_pipelines.h"

#include <algorithm>

#include "ir/lowering.h"
#include "storage/error.h"

namespace hqc::ir {

using plan::LogicalOp;
using plan::OpKind;

void collect_refs(const plan::Expr& e, AttrSet& out) {
  plan::visit(e, [&](const plan::Expr& x) {
    if (x.kind == plan::ExprKind::Column) out.insert({x.source, x.column});
  });
}

std::string sanitize_identifier(const std::string& text) {
  std::string out;
  for (char c : text) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    out += ok ? c : '_';
  }
  if (out.empty() || (out[0] >= '0' && out[0] <= '9')) out = "_" + out;
  return out;
}

namespace {

[[noreturn]] void unsupported(const LogicalOp& op, const std::string& what) {
  throw Error(ErrorKind::Unsupported, op.json_path + ": " + what);
}

AttrSet restrict_to(const AttrSet& set, const std::vector<plan::Attribute>& schema) {
  AttrSet out;
  for (const plan::Attribute& a : schema) {
    if (set.count({a.source, a.name})) out.insert({a.source, a.name});
  }
  return out;
}

}  // namespace

void Lowering::bind(Pipeline& p, const plan::Attribute& a, AttributeBinding::Origin origin, int op_id, size_t payload_index) {
  AttributeBinding b;
  b.attr = a;
  b.origin = origin;
  b.op_id = op_id;
  b.payload_index = payload_index;
  std::string base;
  if (a.source.empty()) base = "m_" + a.name;
  else if (physical_table(a.source) == a.source) base = a.name;
  else base = a.source + "_" + a.name;
  base = sanitize_identifier(base);
  std::string var = base;
  for (int n = 2; std::any_of(p.attributes.begin(), p.attributes.end(), [&](const AttributeBinding& x) { return x.variable == var; }); ++n) {
    var = base + "_" + std::to_string(n);
  }
  b.variable = var;
  // A later binding of the same (source, name) (a project re-binding a name) shadows the earlier.
  p.attributes.erase(std::remove_if(p.attributes.begin(), p.attributes.end(),
                                    [&](const AttributeBinding& x) { return x.attr.source == a.source && x.attr.name == a.name; }),
                     p.attributes.end());
  p.attributes.push_back(std::move(b));
}

int Lowering::finish(Pipeline& p) {
  p.id = static_cast<int>(program_.pipelines.size());
  std::string what = p.source.table.empty() ? p.source.output : p.source.table;
  p.name = "p" + std::to_string(p.id) + " " + sink_kind_name(p.sink.kind) + " " + p.sink.state + " from " + what;
  std::sort(p.depends_on.begin(), p.depends_on.end());
  p.depends_on.erase(std::unique(p.depends_on.begin(), p.depends_on.end()), p.depends_on.end());
  program_.pipelines.push_back(p);
  return p.id;
}

void Lowering::produce(const LogicalOp& op, Pipeline& current, const AttrSet& needed) {
  switch (op.kind) {
    case OpKind::Scan: {
      alias_table_[op.alias] = op.table;
      current.source.table = op.table;
      current.source.alias = op.alias;
      current.source.rows_param = rows_param(op.table);
      for (const plan::Attribute& a : op.schema) {
        if (!needed.count({a.source, a.name})) continue;
        current.source.columns.push_back(a.name);
        bind(current, a, AttributeBinding::Origin::SourceColumn, -1, 0);
      }
      break;
    }
    case OpKind::Filter: {
      AttrSet child_needed = needed;
      collect_refs(*op.predicate, child_needed);
      produce(op.child(0), current, child_needed);
      PipelineOp f;
      f.kind = PipelineOpKind::Filter;
      f.id = next_op_id_++;
      f.predicate = plan::clone(*op.predicate);
      current.ops.push_back(std::move(f));
      break;
    }
    case OpKind::Map:
    case OpKind::Project: {
      AttrSet child_needed;
      if (op.kind == OpKind::Map) {
        for (const AttrKey& k : needed) {
          bool computed_here = k.first.empty() && std::any_of(op.exprs.begin(), op.exprs.end(),
                                                               [&](const plan::NamedExpr& e) { return e.name == k.second; });
          if (!computed_here) child_needed.insert(k);
        }
      }
      for (const plan::NamedExpr& e : op.exprs) collect_refs(*e.expr, child_needed);
      produce(op.child(0), current, child_needed);
      PipelineOp m;
      m.kind = PipelineOpKind::Map;
      m.id = next_op_id_++;
      for (const plan::NamedExpr& e : op.exprs) m.exprs.push_back({e.name, plan::clone(*e.expr)});
      current.ops.push_back(m);
      size_t first = op.kind == OpKind::Map ? op.child(0).schema.size() : 0;
      for (size_t i = 0; i < op.exprs.size(); ++i) {
        bind(current, op.schema[first + i], AttributeBinding::Origin::Computed, m.id, 0);
      }
      break;
    }
    case OpKind::Join: {
      // A semi/anti join only asks whether a build tuple with an equal key exists: its output is the
      // probe side's columns, so the build side contributes its keys and no payload — except the
      // build columns its residual predicate compares (Q21's l2.l_suppkey <> l1.l_suppkey).
      const bool existence_only = op.join_type == plan::JoinType::Semi || op.join_type == plan::JoinType::Anti;
      const LogicalOp& probe = op.child(0);
      const LogicalOp& build_side = op.child(1);
      AttrSet residual_refs;
      if (op.residual) collect_refs(*op.residual, residual_refs);
      // The build side: its own pipeline, ending in the hash build.
      AttrSet build_needed = existence_only ? restrict_to(residual_refs, build_side.schema) : restrict_to(needed, build_side.schema);
      for (const auto& k : op.build_keys) collect_refs(*k, build_needed);
      Pipeline build;
      produce(build_side, build, build_needed);
      std::vector<plan::Attribute> payload;
      for (const plan::Attribute& a : build_side.schema) {
        AttrKey k{a.source, a.name};
        if (existence_only ? residual_refs.count(k) != 0 : needed.count(k) != 0) payload.push_back(a);
      }
      const HashTable& ht = make_hash_table(op, build, payload);
      std::string ht_name = ht.name;
      build.sink = {SinkKind::HashBuild, ht_name};
      int build_id = finish(build);
      // The probe side continues the current pipeline.
      AttrSet probe_needed = restrict_to(needed, probe.schema);
      for (const auto& k : op.probe_keys) collect_refs(*k, probe_needed);
      for (const AttrKey& k : restrict_to(residual_refs, probe.schema)) probe_needed.insert(k);
      produce(probe, current, probe_needed);
      PipelineOp p;
      p.kind = PipelineOpKind::Probe;
      p.id = next_op_id_++;
      p.hash_table = ht_name;
      p.join_type = op.join_type;
      for (const auto& k : op.probe_keys) p.probe_keys.push_back(plan::clone(*k));
      if (op.residual) p.residual = plan::clone(*op.residual);
      current.ops.push_back(p);
      current.depends_on.push_back(build_id);
      // Payload of a semi/anti join feeds only its residual, inside the probe: nothing to bind.
      if (!existence_only)
        for (size_t i = 0; i < payload.size(); ++i) bind(current, payload[i], AttributeBinding::Origin::ProbePayload, p.id, i);
      break;
    }
    case OpKind::Aggregate:
      unsupported(op, "an aggregate below another operator (HAVING, nested aggregation) is not supported yet");
    case OpKind::OrderBy:
    case OpKind::Limit:
      throw Error(ErrorKind::Internal, op.json_path + ": " + plan::op_kind_name(op.kind) + " below the top reached the pipeline builder");
  }

  if (op.pipeline_break) {
    // Materialize what the consumers need, then continue from a scan of that output.
    std::vector<plan::Attribute> columns;
    for (const plan::Attribute& a : op.schema) {
      if (needed.count({a.source, a.name})) columns.push_back(a);
    }
    if (columns.empty()) unsupported(op, "pipeline_break on a node whose output nothing above uses");
    const OutputTable& out = make_output(columns, current, op.json_path);
    for (const OutputColumn& c : out.columns) {
      if (!c.valid_buffer.empty())
        unsupported(op, "column " + c.name + " may be NULL (left outer join) and cannot cross a pipeline break yet");
    }
    std::string out_name = out.name;
    current.sink = {SinkKind::Materialize, out_name};
    int id = finish(current);
    Pipeline next;
    next.source.output = out_name;
    Param rows;
    rows.name = out_name + "_rows";
    rows.source = Param::Source::OutputRows;
    rows.table = out_name;
    rows.comment = "rows written to " + out_name;
    next.source.rows_param = add_param(rows);
    for (const plan::Attribute& a : columns) {
      next.source.columns.push_back(a.source.empty() ? a.name : a.source + "." + a.name);
      bind(next, a, AttributeBinding::Origin::SourceColumn, -1, 0);
    }
    next.depends_on.push_back(id);
    current = std::move(next);
  }
}

void Lowering::lower(const plan::LogicalPlan& plan) {
  if (!plan.root) throw Error(ErrorKind::Internal, "build_program: the logical plan has no root");
  const LogicalOp* body = plan.root.get();
  if (body->kind == OpKind::Limit) {
    program_.result.limit = body->limit;
    body = &body->child(0);
  }
  if (body->kind == OpKind::OrderBy) {
    program_.result.order_by = body->sort_keys;
    body = &body->child(0);
  }
  // A project of plain columns directly above the aggregate only reorders and renames result
  // columns (SSB Q2.x select the sum first): the host does that, no pipeline needed.
  const LogicalOp* result_project = nullptr;
  if (body->kind == OpKind::Project && body->child(0).kind == OpKind::Aggregate &&
      std::all_of(body->exprs.begin(), body->exprs.end(), [](const plan::NamedExpr& e) { return e.expr->kind == plan::ExprKind::Column; })) {
    result_project = body;
    body = &body->child(0);
  }
  Pipeline p;
  if (body->kind == OpKind::Aggregate) {
    AttrSet needed;
    for (const auto& g : body->group_by) collect_refs(*g.expr, needed);
    for (const auto& a : body->aggregates) {
      if (a.arg) collect_refs(*a.arg, needed);
    }
    produce(body->child(0), p, needed);
    const AggregationTable& agg = make_aggregation(*body, p);
    p.sink = {SinkKind::Aggregate, agg.name};
    finish(p);
    if (result_project) {
      std::vector<ResultColumn> reordered;
      for (const plan::NamedExpr& e : result_project->exprs) {
        auto it = std::find_if(program_.result.columns.begin(), program_.result.columns.end(),
                               [&](const ResultColumn& c) { return c.name == e.expr->column; });
        if (it == program_.result.columns.end()) {
          throw Error(ErrorKind::Internal, result_project->json_path + ": projected column " + e.expr->column + " is not an aggregate output");
        }
        reordered.push_back(*it);
        reordered.back().name = e.name;
      }
      program_.result.columns = std::move(reordered);
    }
    return;
  }
  AttrSet needed;
  for (const plan::Attribute& a : body->schema) needed.insert({a.source, a.name});
  produce(*body, p, needed);
  const OutputTable& out = make_output(body->schema, p, body->json_path);
  p.sink = {SinkKind::Materialize, out.name};
  finish(p);
  ResultDesc& r = program_.result;
  r.kind = ResultDesc::Kind::Output;
  r.state = out.name;
  for (size_t i = 0; i < out.columns.size(); ++i) {
    const OutputColumn& c = out.columns[i];
    ResultColumn rc;
    rc.name = body->schema[i].name;
    rc.type = c.type;
    rc.source = ResultColumn::Source::Output;
    rc.index = i;
    rc.dict_table = c.dict_table;
    rc.dict_column = c.dict_column;
    rc.heap_table = c.heap_table;
    rc.heap_column = c.heap_column;
    r.columns.push_back(rc);
  }
}

Program build_program(std::shared_ptr<const plan::LogicalPlan> plan, const Catalog& catalog, const BuildOptions& options) {
  Program program;
  program.label = sanitize_identifier(plan->name.empty() ? "query" : plan->name);
  program.model = options.model;
  program.logical = plan;
  Lowering lowering(program, catalog, options);
  lowering.lower(*plan);
  return program;
}

}  // namespace hqc::ir

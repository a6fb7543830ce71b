// Pipeline breaking (ir/build_pipelines.h). Lowering::produce() is THE function that decides where
// pipelines end:
//   - a join's build side becomes its own pipeline ending in a HashBuild sink; the probe side
//     continues the current pipeline with a Probe op;
//   - the aggregate at the top ends the current pipeline with an Aggregate sink; any other plan
//     ends with a Materialize sink;
//   - a node marked "pipeline_break" ends the current pipeline with a Materialize sink and a new
//     pipeline scans that output; under the operator_at_a_time model every filter, inner / semi /
//     anti join and computing map does (operator_break(): each relational operator's result is
//     materialized, and each pipeline then holds one operator);
//   - an aggregate below another operator ends its pipeline with its Aggregate sink and the
//     consumer's pipeline scans the aggregation table (produce_aggregate_source);
//   - a join without keys against a single-row side ends that side's pipeline with a one-row
//     Materialize whose values later kernels take as params (produce_single_row_join).
// It also computes, top-down, which attributes each pipeline must carry (`needed`), so scans read
// only referenced columns and hash tables carry only the payload the probe side uses. Semi and anti
// joins build a keys-only table (no payload; with a residual predicate, the build columns it
// compares) and probe it as an existence test. Inner and left outer joins on non-unique build keys
// probe every match (the rest of the pipeline runs once per match, codegen's match loop).
// A project of an attribute under its own name binds nothing new. Stages run on the device; only
// ORDER BY and LIMIT are left to the host (ResultDesc), where the result is already: a host stage
// would cost a transfer of the aggregation table in between.
#include "ir/build_pipelines.h"

#include <algorithm>

#include "ir/lowering.h"
#include "ir/walk.h"
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

bool nullable_accumulator(const AggregationTable& agg, const std::string& name) {
  for (const Accumulator& a : agg.accumulators) {
    if (a.name == name) return a.nullable();
  }
  return false;
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
  std::string what = !p.source.table.empty() ? p.source.table : !p.source.output.empty() ? p.source.output : p.source.aggregation;
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
      f.predicate = typed(*op.predicate, current);
      // A stage over an aggregation table carries the heap strings it reads from there as row
      // references without their bytes (HAVING over a free-text group key); one a probe brought, or
      // one read from a materialized output, is read at its base table's row.
      if (!current.source.aggregation.empty()) {
        for_each_string_operand(*f.predicate, [&](const plan::Expr& c) {
          const AttributeBinding* b = current.find_attribute(c.source, c.column);
          const bool from_source = !b || b->origin == AttributeBinding::Origin::SourceColumn;
          if (c.type.is_string() && c.dict_table.empty() && !c.type.packed && from_source)
            unsupported(op, "free-text column " + c.to_string() + " in " + f.predicate->to_string() +
                                ": its bytes are read only where its table is scanned or a pipeline materialized it, not after an "
                                "aggregation");
        });
      }
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
      // An expression that only passes an attribute on under its own (source, name) — a project
      // keeping a group key — computes nothing: the existing binding serves, and only where the
      // parent needs it is it read.
      const size_t first = op.kind == OpKind::Map ? op.child(0).schema.size() : 0;
      for (size_t i = 0; i < op.exprs.size(); ++i) {
        const plan::Expr& e = *op.exprs[i].expr;
        const plan::Attribute& a = op.schema[first + i];
        const bool passes_on = e.kind == plan::ExprKind::Column && e.source == a.source && e.column == a.name;
        if (!passes_on || needed.count({a.source, a.name})) collect_refs(e, child_needed);
      }
      produce(op.child(0), current, child_needed);
      PipelineOp m;
      m.kind = PipelineOpKind::Map;
      std::vector<plan::Attribute> computed;
      for (size_t i = 0; i < op.exprs.size(); ++i) {
        const plan::Expr& e = *op.exprs[i].expr;
        plan::Attribute a = op.schema[first + i];
        if (e.kind == plan::ExprKind::Column && e.source == a.source && e.column == a.name) continue;
        m.exprs.push_back({op.exprs[i].name, typed(e, current)});
        if (is_decimal128(m.exprs.back().expr->type)) a.type = m.exprs.back().expr->type;  // computed from a 128-bit sum
        computed.push_back(a);
      }
      if (m.exprs.empty()) break;
      m.id = next_op_id_++;
      current.ops.push_back(m);
      for (const plan::Attribute& a : computed) bind(current, a, AttributeBinding::Origin::Computed, m.id, 0);
      break;
    }
    case OpKind::Join: {
      if (op.probe_keys.empty()) {
        produce_single_row_join(op, current, needed);
        break;
      }
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
      if (const LogicalOp* groups = rank_local_build(op)) rank_local_aggregates_.insert(groups);
      produce(build_side, build, build_needed);
      // Distributed: a build over a partitioned table inserts the rows of every rank — materialized
      // here, merged across ranks, and built from that output (BuildOptions::partitioned_tables) —
      // unless both sides are co-partitioned on the join key: then each rank's rows match its own;
      // likewise groups keyed by the partition key, kept on their rank (rank_local_groups.cpp).
      const AggregationTable* groups = build.source.aggregation.empty() ? nullptr : program_.find_aggregation(build.source.aggregation);
      const bool co_partitioned = co_partitioned_join(op, build) || (groups != nullptr && groups->partition_keyed);
      const std::string build_table = build.source.table, build_alias = build.source.alias;
      // A semi / anti join asking only whether a key exists, on a key placed by slot = key - min:
      // each rank builds its share's keys and the tables merge slot by slot (HashTable::merged_keys).
      std::string key_table, key_column;
      const bool merge_keys = scans_share(build) && !co_partitioned && existence_only &&
                              !op.residual && op.build_keys.size() == 1 &&
                              perfect_hash_key(*typed(*op.build_keys[0], build), build, false, key_table, key_column);
      std::vector<plan::Attribute> build_rows;  // materialized: gathered to every rank, or shuffled by key
      std::string build_output;
      if (scans_share(build) && !co_partitioned && !merge_keys) {
        for (const plan::Attribute& a : build_side.schema)
          if (build_needed.count({a.source, a.name}) != 0) build_rows.push_back(a);
        build = materialize_and_scan(build_side, build, build_rows);
        build_output = build.source.output;
      }
      std::vector<plan::Attribute> payload;
      for (const plan::Attribute& a : build_side.schema) {
        AttrKey k{a.source, a.name};
        if (existence_only ? residual_refs.count(k) != 0 : needed.count(k) != 0) payload.push_back(a);
      }
      merging_keys_ = merge_keys;
      const HashTable& ht = make_hash_table(op, build, payload);
      merging_keys_ = false;
      std::string ht_name = ht.name;
      for (HashTable& t : program_.hash_tables) {
        if (t.name != ht_name) continue;
        t.rank_local = co_partitioned;
        t.merged_keys = merge_keys;
        if (merge_keys && (t.layout != HashLayout::PerfectHash || !t.keys_only))
          throw Error(ErrorKind::Internal, "build_program: " + t.name + " was to be merged slot by slot but is not a keys-only perfect hash");
        t.build_table = build_table;  // also where the rows were materialized first (the table they came from)
        t.build_alias = build_alias;
      }
      payload = ht.payload;  // typed as stored: Decimal(38, s) for a 128-bit sum of the build side
      build.sink = {SinkKind::HashBuild, ht_name};
      int build_id = finish(build);
      // The probe side continues the current pipeline.
      AttrSet probe_needed = restrict_to(needed, probe.schema);
      for (const auto& k : op.probe_keys) collect_refs(*k, probe_needed);
      for (const AttrKey& k : restrict_to(residual_refs, probe.schema)) probe_needed.insert(k);
      produce(probe, current, probe_needed);
      // Distributed: the build's rows gathered to every rank, or both sides' rows shuffled by key
      // (shuffle_join.cpp) — then the probe continues from its rows sent to this rank.
      exchange_join(op, build_output, build_rows, ht_name, current, probe_needed);
      PipelineOp p;
      p.kind = PipelineOpKind::Probe;
      p.id = next_op_id_++;
      p.hash_table = ht_name;
      p.join_type = op.join_type;
      p.explicit_nulls = op.explicit_nulls;
      for (const auto& k : op.probe_keys) {
        p.probe_keys.push_back(typed(*k, current));
        reject_decimal128(*p.probe_keys.back(), op.json_path, "a join key");
      }
      if (op.residual) p.residual = typed(*op.residual, current);
      current.ops.push_back(p);
      current.depends_on.push_back(build_id);
      // Payload of a semi/anti join feeds only its residual, inside the probe: nothing to bind.
      if (!existence_only)
        for (size_t i = 0; i < payload.size(); ++i) bind(current, payload[i], AttributeBinding::Origin::ProbePayload, p.id, i);
      break;
    }
    case OpKind::Aggregate:
      produce_aggregate_source(op, current, needed);
      break;
    case OpKind::Union: {
      std::vector<plan::Attribute> columns;
      for (const plan::Attribute& a : op.schema)
        if (needed.count({a.source, a.name})) columns.push_back(a);
      if (columns.empty()) columns.push_back(op.schema.front());  // only its rows are counted
      auto [out_name, writers] = produce_union(op, columns);
      current = scan_output(out_name, columns, writers);
      break;
    }
    case OpKind::Window:
    case OpKind::OrderBy:
    case OpKind::Limit:
      throw Error(ErrorKind::Internal, op.json_path + ": " + plan::op_kind_name(op.kind) + " below the top reached the pipeline builder");
  }

  bool model_break = operator_break(op, current, needed);
  std::vector<plan::Attribute> columns;  // what the consumers need
  for (const plan::Attribute& a : op.schema) {
    if (needed.count({a.source, a.name})) columns.push_back(a);
  }
  if (columns.empty() && model_break) {
    // Only its rows are counted: one attribute the pipeline has bound carries them (none: no break).
    for (const plan::Attribute& a : op.schema)
      if (columns.empty() && current.find_attribute(a.source, a.name) != nullptr) columns.push_back(a);
    model_break = !columns.empty();
  }
  if (op.pipeline_break || model_break) {
    // Materialize what the consumers need, then continue from a scan of that output.
    if (columns.empty()) unsupported(op, "pipeline_break on a node whose output nothing above uses");
    current = materialize_and_scan(op, current, columns);
  }
}

// Ends `current` with a Materialize of `columns` (a new output) and returns a pipeline scanning it.
Pipeline Lowering::materialize_and_scan(const LogicalOp& op, Pipeline& current, const std::vector<plan::Attribute>& columns) {
  const OutputTable& out = make_output(columns, current, op.json_path);
  for (const OutputColumn& c : out.columns) {
    if (!c.valid_buffer.empty())
      unsupported(op, "column " + c.name + " may be NULL (left outer join) and cannot cross a pipeline break yet");
  }
  const std::string out_name = out.name;
  current.sink = {SinkKind::Materialize, out_name};
  const int id = finish(current);
  return scan_output(out_name, columns, {id});
}

// Operator-at-a-time (the classic GPU engine HorseQC compares with): the result of every filter,
// inner / semi / anti join and map that computes something is materialized — its own pipeline, whose
// multi-pass kernels are the operator's primitive, prefix sum and aligned write — except
//   - the operator whose output is the query's result (its pipeline's sink writes it anyway),
//   - a pipeline that carries a left outer join's NULL-able payload the consumers read (NULLs do not
//     cross a materialization yet: the join and its consumers stay in one kernel),
//   - a join without keys against a single-row side (its values become parameters).
bool Lowering::operator_break(const LogicalOp& op, const Pipeline& current, const AttrSet& needed) const {
  if (options_.model != ExecutionModel::OperatorAtATime || &op == top_ || op.pipeline_break) return false;
  switch (op.kind) {
    case OpKind::Filter: break;
    case OpKind::Join:
      if (op.probe_keys.empty() || op.join_type == plan::JoinType::LeftOuter) return false;
      break;
    case OpKind::Map:
    case OpKind::Project:
      if (current.ops.empty() || current.ops.back().kind != PipelineOpKind::Map) return false;  // computes nothing
      break;
    default: return false;
  }
  for (const AttrKey& k : needed)
    if (current.null_probe(k.first, k.second) >= 0) return false;
  return true;
}

// The base-table scan that will be the source of the pipeline `op`'s rows flow through: down the
// probe side of joins and through filters and maps; nullptr where a stage boundary intervenes (a
// shuffled join's probe rows continue from their scan after the exchange: shuffle_join.cpp).
static const LogicalOp* source_scan(const LogicalOp& op, const std::set<const LogicalOp*>& shuffled) {
  switch (op.kind) {
    case OpKind::Scan: return op.pipeline_break ? nullptr : &op;
    case OpKind::Filter:
    case OpKind::Map:
    case OpKind::Project: return op.pipeline_break ? nullptr : source_scan(op.child(0), shuffled);
    case OpKind::Join:
      return op.pipeline_break || op.probe_keys.empty() || shuffled.count(&op) != 0 ? nullptr : source_scan(op.child(0), shuffled);
    default: return nullptr;
  }
}

// Whether join `op` (its build side produced into `build`) matches rows of co-partitioned tables
// on their partition key only: build key = the build table's key column, probe key = the probe
// table's, both tables in BuildOptions::partition_keys of one partition group and both read straight
// from their scans.
bool Lowering::co_partitioned_join(const LogicalOp& op, const Pipeline& build) const {
  if (op.build_keys.size() != 1 || op.probe_keys.size() != 1) return false;
  const LogicalOp* probe_scan = source_scan(op.child(0), shuffled_joins_);
  if (probe_scan == nullptr) return false;
  if (options_.partitioned_tables.count(build.source.table) == 0 || options_.partitioned_tables.count(probe_scan->table) == 0) return false;
  const auto build_key = options_.partition_keys.find(build.source.table);
  const auto probe_key = options_.partition_keys.find(probe_scan->table);
  if (build_key == options_.partition_keys.end() || probe_key == options_.partition_keys.end()) return false;
  if (partition_group(build.source.table) != partition_group(probe_scan->table)) return false;  // other key ranges
  const auto is_column = [](const plan::Expr& e, const std::string& source, const std::string& column) {
    return e.kind == plan::ExprKind::Column && e.source == source && e.column == column;
  };
  // The build key may be the key column under another name (a decorrelated subquery's projection:
  // a Map of the build pipeline that copies it).
  const plan::Expr* key = op.build_keys[0].get();
  for (int hops = 0; key->kind == plan::ExprKind::Column && hops < 8; ++hops) {
    const AttributeBinding* b = build.find_attribute(key->source, key->column);
    if (b == nullptr || b->origin != AttributeBinding::Origin::Computed) break;
    const plan::Expr* copied = nullptr;
    for (const PipelineOp& m : build.ops)
      if (m.id == b->op_id && m.kind == PipelineOpKind::Map)
        for (const plan::NamedExpr& e : m.exprs)
          if (e.name == b->attr.name) copied = e.expr.get();
    if (copied == nullptr) break;
    key = copied;
  }
  return is_column(*key, build.source.alias, build_key->second) && is_column(*op.probe_keys[0], probe_scan->alias, probe_key->second);
}

// A new pipeline over output `out_name` (written by the pipelines `writers`), binding `columns`.
Pipeline Lowering::scan_output(const std::string& out_name, const std::vector<plan::Attribute>& columns, const std::vector<int>& writers) {
  const OutputTable& out = *program_.find_output(out_name);
  Pipeline next;
  next.source.output = out_name;
  Param rows;
  rows.name = out_name + "_rows";
  rows.source = Param::Source::OutputRows;
  rows.table = out_name;
  rows.comment = "rows written to " + out_name;
  next.source.rows_param = add_param(rows);
  for (size_t i = 0; i < columns.size(); ++i) {
    plan::Attribute a = columns[i];
    a.type = out.columns.at(i).type;  // Decimal(38, s) where a 128-bit sum flows through the output
    next.source.columns.push_back(a.source.empty() ? a.name : a.source + "." + a.name);
    bind(next, a, AttributeBinding::Origin::SourceColumn, -1, 0);
  }
  next.depends_on = writers;
  return next;
}

// UNION ALL: every operand is its own pipeline (with the pipelines below it), ending in a Map that
// binds the Union's attributes and a Materialize sink into one output they share — each appends
// through the output's one write-position counter. What reads the union scans that output.
// An operand over a single-tuple aggregate carries its SUM/MIN/MAX/AVG's NULL (over no rows) as a
// validity column of its own, from the rows count the SQL binder adds (sql_binder.cpp, rows_count),
// and its value reads 0 there (zero_where_null). A column that is a 128-bit decimal SUM in one operand
// is 128-bit in all of them (the others widened), so every operand writes it the same way.
std::pair<std::string, std::vector<int>> Lowering::produce_union(const LogicalOp& op, const std::vector<plan::Attribute>& columns) {
  std::vector<Pipeline> arms(op.children.size());
  std::vector<std::vector<plan::ExprPtr>> values(op.children.size());  // per operand, per column
  std::vector<bool> wide(columns.size(), false);
  for (size_t k = 0; k < op.children.size(); ++k) {
    const LogicalOp& child = op.child(k);
    std::vector<const plan::Attribute*> from;
    AttrSet child_needed;
    for (const plan::Attribute& c : columns) {
      const size_t i = static_cast<size_t>(std::find_if(op.schema.begin(), op.schema.end(), [&](const plan::Attribute& a) {
                                             return a.source == c.source && a.name == c.name;
                                           }) - op.schema.begin());
      from.push_back(&child.schema.at(i));
      child_needed.insert({from.back()->source, from.back()->name});
    }
    Pipeline& arm = arms[k];
    produce(child, arm, child_needed);
    for (size_t j = 0; j < columns.size(); ++j) {
      const plan::Attribute& in = *from[j];
      values[k].push_back(typed(*plan::make_column(in), arm));
      wide[j] = wide[j] || is_decimal128(values[k].back()->type);
      if (arm.null_probe(in.source, in.name) >= 0)
        unsupported(child, "column " + columns[j].name + " of a UNION operand may be NULL (left outer join): not supported yet");
    }
  }
  for (size_t k = 0; k < op.children.size(); ++k) {
    Pipeline& arm = arms[k];
    PipelineOp m;
    m.kind = PipelineOpKind::Map;
    m.id = next_op_id_++;
    for (size_t j = 0; j < columns.size(); ++j) {
      plan::ExprPtr e = values[k][j];
      if (wide[j] && !is_decimal128(e->type)) {
        if (columns[j].type.id != TypeId::Decimal && columns[j].type.id != TypeId::Int64)
          unsupported(op.child(k), "column " + columns[j].name + " of a UNION: a 128-bit SUM next to " + e->type.to_string() +
                                       " has no device form yet");
        e = plan::make_cast(e, decimal128(columns[j].type.id == TypeId::Decimal ? columns[j].type.scale : 0));
      }
      m.exprs.push_back({columns[j].name, e});
    }
    arm.ops.push_back(m);
    for (size_t j = 0; j < columns.size(); ++j) {
      plan::Attribute c = columns[j];
      if (wide[j]) c.type = m.exprs[j].expr->type;  // the output holds the 128-bit value
      bind(arm, c, AttributeBinding::Origin::Computed, m.id, 0);
    }
  }
  std::vector<const Pipeline*> writers;
  for (const Pipeline& arm : arms) writers.push_back(&arm);
  const std::string out_name = make_output(columns, writers, op.json_path).name;
  std::vector<int> ids;
  for (Pipeline& arm : arms) {
    arm.sink = {SinkKind::Materialize, out_name};
    ids.push_back(finish(arm));
  }
  return {out_name, ids};
}

namespace {

// How many rows a plan node yields when that does not depend on the data: a single-tuple aggregate
// yields exactly one; Map/Project keep the count; a Filter above one makes it at most one.
enum class RowBound : uint8_t { Any, AtMostOne, ExactlyOne };

RowBound row_bound(const LogicalOp& op) {
  switch (op.kind) {
    case OpKind::Aggregate: return op.group_by.empty() ? RowBound::ExactlyOne : RowBound::Any;
    case OpKind::Map:
    case OpKind::Project: return row_bound(op.child(0));
    case OpKind::Filter: return row_bound(op.child(0)) == RowBound::Any ? RowBound::Any : RowBound::AtMostOne;
    default: return RowBound::Any;
  }
}

}  // namespace

// The aggregate's own pipeline ends in its Aggregate sink; `current` then scans the aggregation
// table: one work-item per slot, empty slots dropped (codegen reads the occupancy), group keys and
// accumulators bound as source attributes. AVG is rebuilt from its halves by a Map, as the host
// does for a final result. This keeps every stage one compound kernel on the device: HAVING is a
// Filter, expressions over aggregates a Map, and the stage may probe, build a hash table (an
// aggregate as a join's build side) or aggregate again (an aggregate over an aggregate).
void Lowering::produce_aggregate_source(const LogicalOp& op, Pipeline& current, const AttrSet& needed) {
  AttrSet below_needed;
  for (const auto& g : op.group_by) collect_refs(*g.expr, below_needed);
  for (const auto& a : op.aggregates) {
    for (const plan::ExprPtr& e : {a.arg, a.filter, a.count_arg})
      if (e) collect_refs(*e, below_needed);
  }
  Pipeline below;
  produce(op.child(0), below, below_needed);
  std::vector<ResultColumn> columns;
  const auto [agg_name, below_id] = aggregate(op, below, columns);

  const AggregationTable& agg = *program_.find_aggregation(agg_name);
  if (agg.merge_on_host) {
    // Its groups are per row of a heap string's table, merged by text only when the final result is
    // decoded on the host: a stage over the unmerged groups (HAVING, expressions over aggregates, a
    // join, another aggregate) would see fragments of one group and answer wrong.
    std::string key;
    for (const GroupKey& k : agg.keys)
      if (k.merge_on_host) key = k.heap_table + "." + k.heap_column;
    unsupported(op, "GROUP BY " + key + " (a free-text column, grouped by its text on the host) followed by HAVING, "
                    "an expression over aggregates, a join or another aggregate is not supported yet; add the table's "
                    "primary key to the GROUP BY");
  }
  current.source.aggregation = agg_name;
  current.source.alias = "";
  if (agg.slots_param.empty()) {
    Param one;
    one.name = "one_slot";
    one.source = Param::Source::Constant;
    one.value = 1;
    one.comment = "the single slot of a scalar aggregation";
    current.source.rows_param = add_param(one);
  } else {
    current.source.rows_param = agg.slots_param;
  }
  PipelineOp averages;
  averages.kind = PipelineOpKind::Map;
  std::vector<plan::Attribute> averaged;
  for (size_t i = 0; i < op.schema.size(); ++i) {
    const plan::Attribute& a = op.schema[i];
    if (!needed.count({a.source, a.name})) continue;
    const ResultColumn& rc = columns.at(i);
    // A 128-bit SUM is read as such (both words): Decimal(38, s), ir/decimal128.cpp.
    auto value_type = [&](const Accumulator& acc) { return acc.wide ? decimal128(acc.type.scale) : acc.type; };
    if (rc.source != ResultColumn::Source::Average) {
      plan::Attribute bound = a;
      if (rc.source == ResultColumn::Source::Accumulator) bound.type = value_type(agg.accumulators.at(rc.index));
      current.source.columns.push_back(a.name);
      bind(current, bound, AttributeBinding::Origin::SourceColumn, -1, 0);
      continue;
    }
    // As DuckDB finalizes AVG (and the host does, runtime/execution/result.cpp): the unscaled sum divided by
    // count x 10^scale, one rounding — not the sum's double divided by the count, which rounds twice
    // and makes an average of equal decimals differ from their value in the last bit.
    auto half = [&](size_t index, DataType type) {
      const Accumulator& acc = agg.accumulators.at(index);
      plan::Attribute h{"", acc.name, type, "", ""};
      current.source.columns.push_back(acc.name);
      bind(current, h, AttributeBinding::Origin::SourceColumn, -1, 0);
      return plan::make_cast(plan::make_column("", acc.name, h.type), DataType::float64());
    };
    const Accumulator& sum_acc = agg.accumulators.at(rc.index);
    const int scale = sum_acc.type.id == TypeId::Decimal ? sum_acc.type.scale : 0;
    DataType unscaled = sum_acc.type.id != TypeId::Decimal ? value_type(sum_acc) : sum_acc.wide ? decimal128(0) : DataType::int64();
    plan::ExprPtr sum = half(rc.index, unscaled);
    plan::ExprPtr count = half(rc.count_index, value_type(agg.accumulators.at(rc.count_index)));
    if (scale > 0)
      count = plan::make_arith(plan::ArithOp::Mul, count, plan::make_float_literal(static_cast<double>(power_of_ten(scale))), DataType::float64());
    averages.exprs.push_back({a.name, plan::make_arith(plan::ArithOp::Div, sum, count, DataType::float64())});
    averaged.push_back(a);
  }
  if (!averages.exprs.empty()) {
    averages.id = next_op_id_++;
    current.ops.push_back(averages);
    for (const plan::Attribute& a : averaged) bind(current, a, AttributeBinding::Origin::Computed, averages.id, 0);
  }
  current.depends_on.push_back(below_id);
}

// A join without keys is a cross product; horseqc runs it only against a side that yields at most
// one row, which is how the SQL frontend plans an uncorrelated scalar subquery. That side runs
// first, once: its pipelines end by materialising the single row into a one-row output, and the
// executor reads the values back into run-time params (Param::Source::OutputValue) that every later
// kernel takes as arguments — no hash table, no per-tuple probe. In `current` a Map binds the
// side's attributes to those params; when the side may be empty (a Filter above its aggregate),
// a Filter on its row count comes first, so the join yields no rows, as SQL does.
void Lowering::produce_single_row_join(const LogicalOp& op, Pipeline& current, const AttrSet& needed) {
  const LogicalOp& probe = op.child(0);
  const LogicalOp& side = op.child(1);
  const RowBound bound = row_bound(side);
  if (op.join_type != plan::JoinType::Inner || bound == RowBound::Any) {
    unsupported(op, "a join without equi-join keys (a cross product) is only supported as an inner join with a side that "
                    "yields at most one row (an uncorrelated scalar subquery: a single-tuple aggregate)");
  }
  std::vector<plan::Attribute> columns;
  for (const plan::Attribute& a : side.schema) {
    if (needed.count({a.source, a.name})) columns.push_back(a);
  }
  const bool may_be_empty = bound == RowBound::AtMostOne;
  if (columns.empty() && !may_be_empty) {  // exactly one row and nothing read: the join is the identity
    produce(probe, current, restrict_to(needed, probe.schema));
    return;
  }
  Pipeline stage;
  AttrSet side_needed;
  for (const plan::Attribute& a : columns) side_needed.insert({a.source, a.name});
  produce(side, stage, side_needed);
  const std::string out_name = make_output(columns, stage, side.json_path).name;
  stage.sink = {SinkKind::Materialize, out_name};
  const int stage_id = finish(stage);

  produce(probe, current, restrict_to(needed, probe.schema));
  current.depends_on.push_back(stage_id);
  if (may_be_empty) {
    Param rows;
    rows.name = out_name + "_rows";
    rows.source = Param::Source::OutputRows;
    rows.table = out_name;
    rows.comment = "rows written to " + out_name + " (0 or 1)";
    PipelineOp f;
    f.kind = PipelineOpKind::Filter;
    f.id = next_op_id_++;
    f.predicate = plan::make_compare(plan::CompareOp::Gt, plan::make_param(add_param(rows), DataType::int64()),
                                     plan::make_int_literal(0, DataType::int64()));
    current.ops.push_back(f);
  }
  if (columns.empty()) return;
  PipelineOp m;
  m.kind = PipelineOpKind::Map;
  m.id = next_op_id_++;
  const OutputTable& out = *program_.find_output(out_name);
  for (size_t i = 0; i < columns.size(); ++i) {
    const DataType type = out.columns[i].type;  // Decimal(38, s) for a 128-bit sum
    Param v;
    v.name = out_name + "_value" + out.columns[i].buffer.substr(out_name.size());  // out0_value_<column>
    v.source = Param::Source::OutputValue;
    v.type = scalar_of(type);
    v.table = out_name;
    v.column = out.columns[i].name;
    v.comment = "value of " + (columns[i].source.empty() ? columns[i].name : columns[i].source + "." + columns[i].name) +
                " (single-row stage)";
    const std::string name = add_param(v);
    if (is_decimal128(type)) {
      // Two words: this param is the low one, high_word_param(name) the high one.
      Param hi = v;
      hi.name = high_word_param(name);
      hi.word = 1;
      hi.comment = "high word of the 128-bit " + v.comment.substr(std::string("value of ").size());
      add_param(hi);
    }
    plan::ExprPtr value = plan::make_param(name, type);
    value->dict_table = columns[i].dict_table;
    value->dict_column = columns[i].dict_column;
    m.exprs.push_back({columns[i].name, value});
  }
  current.ops.push_back(m);
  for (size_t i = 0; i < columns.size(); ++i) {
    plan::Attribute a = columns[i];
    a.type = m.exprs[i].expr->type;
    bind(current, a, AttributeBinding::Origin::Computed, m.id, 0);
  }
}

// The output columns of the query's last pipeline that derive from a nullable accumulator of a
// single-tuple aggregate the pipeline scans: SQL makes them NULL when that aggregate saw no rows.
static void mark_null_without_input(const Program& program, const Pipeline& last, const OutputTable& out, ResultDesc& r) {
  const AggregationTable* agg = last.source.aggregation.empty() ? nullptr : program.find_aggregation(last.source.aggregation);
  if (agg == nullptr || agg->layout != AggLayout::Scalar) return;
  r.input_rows_state = agg->name;
  // Attributes that depend on a nullable accumulator, following the Maps in pipeline order.
  AttrSet nullable;
  for (const AttributeBinding& b : last.attributes) {
    if (b.origin == AttributeBinding::Origin::SourceColumn && nullable_accumulator(*agg, b.attr.name)) nullable.insert({b.attr.source, b.attr.name});
  }
  for (const PipelineOp& op : last.ops) {
    if (op.kind != PipelineOpKind::Map) continue;
    for (const plan::NamedExpr& e : op.exprs) {
      AttrSet refs;
      collect_refs(*e.expr, refs);
      if (std::any_of(refs.begin(), refs.end(), [&](const AttrKey& k) { return nullable.count(k) != 0; })) nullable.insert({"", e.name});
    }
  }
  for (ResultColumn& rc : r.columns) {
    if (rc.source != ResultColumn::Source::Output || rc.validity_index >= 0) continue;  // explicit validity decides
    AttrSet refs;
    collect_refs(*out.columns.at(rc.index).expr, refs);
    rc.null_without_input = std::any_of(refs.begin(), refs.end(), [&](const AttrKey& k) { return nullable.count(k) != 0; });
  }
}

void Lowering::lower(const plan::LogicalPlan& plan) {
  if (!plan.root) throw Error(ErrorKind::Internal, "build_program: the logical plan has no root");
  choose_join_exchanges(*plan.root);  // distributed: broadcast or shuffle, before any pipeline
  const LogicalOp* body = plan.root.get();
  if (body->kind == OpKind::Limit) {
    program_.result.limit = body->limit;
    program_.result.offset = body->offset;
    body = &body->child(0);
  }
  if (body->kind == OpKind::OrderBy) {
    program_.result.order_by = body->sort_keys;
    program_.result.hidden = body->hidden;
    body = &body->child(0);
  }
  if (body->kind == OpKind::Window) {
    // Window functions run after the result is assembled (runtime/execution/window_stage.h), before ORDER BY.
    program_.result.windows = body->windows;
    program_.result.hidden.insert(program_.result.hidden.end(), body->hidden.begin(), body->hidden.end());
    body = &body->child(0);
  }
  // A project of plain columns directly above the aggregate only reorders and renames result
  // columns (SSB Q2.x select the sum first): the host does that, no pipeline needed. (Validity
  // columns are folded by an output's columns: a project with them stays a pipeline.)
  const LogicalOp* result_project = nullptr;
  if (body->kind == OpKind::Project && body->child(0).kind == OpKind::Aggregate &&
      std::all_of(body->exprs.begin(), body->exprs.end(),
                  [](const plan::NamedExpr& e) { return e.expr->kind == plan::ExprKind::Column && e.validity_for.empty(); })) {
    result_project = body;
    body = &body->child(0);
  }
  Pipeline p;
  if (body->kind == OpKind::Aggregate) {
    AttrSet needed;
    for (const auto& g : body->group_by) collect_refs(*g.expr, needed);
    for (const auto& a : body->aggregates) {
      for (const plan::ExprPtr& e : {a.arg, a.filter, a.count_arg})
        if (e) collect_refs(*e, needed);
    }
    produce(body->child(0), p, needed);
    program_.result.kind = ResultDesc::Kind::Aggregation;
    program_.result.state = aggregate(*body, p, program_.result.columns).first;
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
  if (body->kind == OpKind::Union) {
    // UNION ALL at the top: the output its operands append to is the result.
    const std::string out_name = produce_union(*body, body->schema).first;
    set_output_result(*program_.find_output(out_name), body->schema);
    return;
  }
  // The select list on top (a Project) is computed by the output's columns themselves, not by a
  // Map: its names (often those of the attributes it reads, "total_revenue := total_revenue") then
  // never shadow a binding that earlier ops of the pipeline still read.
  AttrSet needed;
  const std::vector<plan::NamedExpr>* select_list = nullptr;
  // Distributed: groups complete on their rank (keyed by a partition key) stay there; their rows
  // reach the result through its output, merged as rows (rank_local_groups.cpp).
  if (const LogicalOp* groups = rank_local_materialized(*body)) rank_local_aggregates_.insert(groups);
  if (body->kind == OpKind::Project && !body->pipeline_break) {
    select_list = &body->exprs;
    for (const plan::NamedExpr& e : body->exprs) collect_refs(*e.expr, needed);
    produce(body->child(0), p, needed);
  } else {
    for (const plan::Attribute& a : body->schema) needed.insert({a.source, a.name});
    top_ = body;
    produce(*body, p, needed);
  }
  const OutputTable& out = make_output(body->schema, p, body->json_path, select_list);
  p.sink = {SinkKind::Materialize, out.name};
  finish(p);
  set_output_result(out, body->schema);
  mark_null_without_input(program_, program_.pipelines.back(), out, program_.result);
}

void Lowering::set_output_result(const OutputTable& out, const std::vector<plan::Attribute>& schema) {
  ResultDesc& r = program_.result;
  r.kind = ResultDesc::Kind::Output;
  r.state = out.name;
  for (size_t i = 0; i < out.columns.size(); ++i) {
    const OutputColumn& c = out.columns[i];
    if (!c.validity_for.empty()) continue;  // folded into its column's NULLs
    ResultColumn rc;
    rc.name = schema[i].name;
    rc.type = schema[i].type;  // as the user sees it; a 128-bit output column's words are read whole
    rc.source = ResultColumn::Source::Output;
    rc.index = i;
    rc.dict_table = c.dict_table;
    rc.dict_column = c.dict_column;
    rc.heap_table = c.heap_table;
    rc.heap_column = c.heap_column;
    for (size_t v = 0; v < out.columns.size(); ++v)
      if (out.columns[v].validity_for == c.name) rc.validity_index = static_cast<int>(v);
    r.columns.push_back(rc);
  }
}

Program build_program(std::shared_ptr<const plan::LogicalPlan> plan, const Catalog& catalog, const BuildOptions& options) {
  Program program;
  program.label = sanitize_identifier(plan->name.empty() ? "query" : plan->name);
  program.model = options.model;
  program.local_resolution = options.local_resolution;
  program.scratchpad_budget_bytes = options.scratchpad_budget_bytes;
  program.partitioned_tables = options.partitioned_tables;
  program.logical = plan;
  Lowering lowering(program, catalog, options);
  lowering.lower(*plan);
  if (options.stats != nullptr)
    for (const Pipeline& p : program.pipelines)
      if (!p.source.table.empty()) {
        program.table_rows[p.source.table] = options.stats->rows(p.source.table);
        for (const std::string& c : p.source.columns) {
          const ColumnStats s = options.stats->column(p.source.table, c);
          if (s.valid) program.column_ranges[p.source.table + "." + c] = {s.min, s.max};
        }
      }
  return program;
}

}  // namespace hqc::ir

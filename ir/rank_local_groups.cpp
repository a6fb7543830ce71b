// Distributed compiles: groups that stay on their rank because they are keyed by the partition key.
//
// TPC-H partitions `orders` by rows and `lineitem` with it (BuildOptions::partition_keys: both on
// the order key), so every order key has one *home* rank, which holds that order and all its lines.
// A value is home in a pipeline when it is the partition key of a row of the rank's own share: the
// key column of the pipeline's partitioned scan, or a column an inner join made equal to a home value.
// Keys of different groups (BuildOptions::partition_groups: TPC-H's order keys, and partsupp's part
// keys) have ranges of their own: a group's key is home only for the probes of its own group.
// An aggregation grouped by a home value sees every row of each of its groups on one rank, so its
// groups are complete there and no other rank has any of them. When those groups are the build side
// of a join probed by a home value — TPC-H Q18: the order keys whose lines sum past 300, probed by
// each line's order key — the rank keeps them and builds from them: its probe asks only for its own
// keys. Nothing is materialized, exchanged or combined (two_phase_aggregation.cpp would all-gather
// every partial group and combine them on every rank).
//
// Contract:
//   home_key(op, key): true only if every value of `key` over `op`'s rows is the partition key of a
//   row of the rank's share. Conservative: a pipeline break, an expression, an operator other than
//   scan / filter / inner join / copying map on the way, or a table without a partition key -> false.
//   rank_local_materialized(op): the Aggregate that `op`'s pipeline scans (down child 0 through
//   filters, maps, projections and joins — probes of whole tables, or a scalar subquery's one row; no
//   pipeline break) when one of its group keys is a home value; the caller materializes that pipeline
//   into the result's output, which is merged as rows. TPC-H Q11: partsupp's values per part key,
//   filtered by HAVING.
//   rank_local_build(join): the Aggregate that is `join`'s build side (through filters and
//   projections that copy the build key) when its groups are keyed by a home value, the join is
//   probed by a home value of the same group on that key (one of its keys) and its kind needs only
//   the build rows with the probe's keys (inner, semi, anti); otherwise nullptr. Lowering::aggregate
//   then makes that table rank-local (AggregationTable::partition_keyed) and the join's build stays
//   on the rank (HashTable::rank_local).
#include "ir/lowering.h"

namespace hqc::ir {

namespace {

using plan::LogicalOp;
using plan::OpKind;

bool is_column(const plan::Expr& e, const std::string& source, const std::string& column) {
  return e.kind == plan::ExprKind::Column && e.source == source && e.column == column;
}

// Through a Map or Project of `op`: the expression bound to attribute (source, column), or nullptr
// when `op` does not bind it (a Map passes its input through).
const plan::Expr* bound_by(const LogicalOp& op, const std::string& source, const std::string& column) {
  const size_t first = op.kind == OpKind::Map ? op.child(0).schema.size() : 0;  // a Map appends to its input's
  for (size_t i = 0; i < op.exprs.size(); ++i) {
    const plan::Attribute& a = op.schema.at(first + i);
    if (a.source == source && a.name == column) return op.exprs[i].expr.get();
  }
  return nullptr;
}

}  // namespace

std::string Lowering::partition_group(const std::string& table) const {
  const auto it = options_.partition_groups.find(table);
  return it == options_.partition_groups.end() ? std::string() : it->second;
}

bool Lowering::home_key(const LogicalOp& op, const plan::Expr& key, std::string* group, int depth) const {
  if (depth > 64 || key.kind != plan::ExprKind::Column || op.pipeline_break) return false;
  switch (op.kind) {
    case OpKind::Scan: {
      if (op.alias != key.source || options_.partitioned_tables.count(op.table) == 0) return false;
      const auto it = options_.partition_keys.find(op.table);
      if (it == options_.partition_keys.end() || it->second != key.column) return false;
      if (group != nullptr) *group = partition_group(op.table);
      return true;
    }
    case OpKind::Filter: return home_key(op.child(0), key, group, depth + 1);
    case OpKind::Map:
    case OpKind::Project: {
      const plan::Expr* copied = bound_by(op, key.source, key.column);
      if (copied == nullptr) return op.kind == OpKind::Map && home_key(op.child(0), key, group, depth + 1);
      return home_key(op.child(0), *copied, group, depth + 1);
    }
    case OpKind::Join: {
      if (shuffled(op)) return false;  // its rows went to the ranks their join keys hash to
      // An inner join's build key equals its probe key on every row it outputs.
      for (size_t i = 0; op.join_type == plan::JoinType::Inner && i < op.build_keys.size(); ++i)
        if (is_column(*op.build_keys[i], key.source, key.column) && home_key(op.child(0), *op.probe_keys[i], group, depth + 1))
          return true;
      return home_key(op.child(0), key, group, depth + 1);
    }
    default: return false;
  }
}

const LogicalOp* Lowering::rank_local_build(const LogicalOp& join) const {
  if (options_.partition_keys.empty() || options_.model == ExecutionModel::OperatorAtATime) return nullptr;
  if (join.join_type == plan::JoinType::LeftOuter || join.build_keys.size() != join.probe_keys.size()) return nullptr;
  // A match needs every key equal: one pair of home keys of one group confines it to the rank (TPC-H
  // Q2 joins the cheapest cost per part on the part key and the cost).
  for (size_t k = 0; k < join.build_keys.size(); ++k) {
    std::string probe_group;
    if (!home_key(join.child(0), *join.probe_keys[k], &probe_group)) continue;
    if (const LogicalOp* groups = home_groups(join.child(1), *join.build_keys[k], probe_group)) return groups;
  }
  return nullptr;
}

// Down `op` (a join's build side) to its aggregate, following `key` through the projections: the
// aggregate when `key` is one of its group keys and a home value of `group`.
const LogicalOp* Lowering::home_groups(const LogicalOp& build_side, const plan::Expr& build_key, const std::string& group) const {
  const plan::Expr* key = &build_key;
  const LogicalOp* op = &build_side;
  for (int depth = 0; depth < 64 && key->kind == plan::ExprKind::Column && !op->pipeline_break; ++depth) {
    switch (op->kind) {
      case OpKind::Filter: op = &op->child(0); continue;
      case OpKind::Map:
      case OpKind::Project: {
        const plan::Expr* copied = bound_by(*op, key->source, key->column);
        if (copied == nullptr && op->kind == OpKind::Project) return nullptr;
        if (copied != nullptr) key = copied;
        op = &op->child(0);
        continue;
      }
      case OpKind::Aggregate:
        for (size_t i = 0; i < op->group_by.size(); ++i) {
          const plan::Attribute& a = op->schema.at(i);  // group keys first, then the aggregates
          std::string key_group;
          if (a.source == key->source && a.name == key->column && home_key(op->child(0), *op->group_by[i].expr, &key_group) &&
              key_group == group)
            return op;
        }
        return nullptr;
      default: return nullptr;
    }
  }
  return nullptr;
}

const LogicalOp* Lowering::rank_local_materialized(const LogicalOp& op) const {
  if (options_.partition_keys.empty() || options_.model == ExecutionModel::OperatorAtATime) return nullptr;
  const LogicalOp* at = &op;
  for (int depth = 0; depth < 64; ++depth) {
    if (at->kind == OpKind::Aggregate) {
      for (const plan::NamedExpr& g : at->group_by)
        if (home_key(at->child(0), *g.expr)) return at;
      return nullptr;
    }
    if (at->pipeline_break) return nullptr;
    switch (at->kind) {
      case OpKind::Filter:
      case OpKind::Map:
      case OpKind::Project:
      case OpKind::Join: at = &at->child(0); continue;  // a probe, or a scalar subquery's one row
      default: return nullptr;
    }
  }
  return nullptr;
}

}  // namespace hqc::ir

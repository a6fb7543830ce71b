// Distributed compiles: groups that stay on their rank because they are keyed by the partition key.
//
// TPC-H partitions `orders` by rows and `lineitem` with it (BuildOptions::partition_keys: both on
// the order key), so every order key has one *home* rank, which holds that order and all its lines.
// A value is home in a pipeline when it is the partition key of a row of the rank's own share: the
// key column of the pipeline's partitioned scan, or a column an inner join made equal to a home value.
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
//   rank_local_build(join): the Aggregate that is `join`'s build side (through filters and
//   projections that copy the build key) when its groups are keyed by a home value, the join is
//   probed by a home value on that key and its kind needs only the build rows with the probe's keys
//   (inner, semi, anti); otherwise nullptr. Lowering::aggregate then makes that table rank-local
//   (AggregationTable::partition_keyed) and the join's build stays on the rank (HashTable::rank_local).
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

bool Lowering::home_key(const LogicalOp& op, const plan::Expr& key, int depth) const {
  if (depth > 64 || key.kind != plan::ExprKind::Column || op.pipeline_break) return false;
  switch (op.kind) {
    case OpKind::Scan: {
      if (op.alias != key.source || options_.partitioned_tables.count(op.table) == 0) return false;
      const auto it = options_.partition_keys.find(op.table);
      return it != options_.partition_keys.end() && it->second == key.column;
    }
    case OpKind::Filter: return home_key(op.child(0), key, depth + 1);
    case OpKind::Map:
    case OpKind::Project: {
      const plan::Expr* copied = bound_by(op, key.source, key.column);
      if (copied == nullptr) return op.kind == OpKind::Map && home_key(op.child(0), key, depth + 1);
      return home_key(op.child(0), *copied, depth + 1);
    }
    case OpKind::Join: {
      // An inner join's build key equals its probe key on every row it outputs.
      for (size_t i = 0; op.join_type == plan::JoinType::Inner && i < op.build_keys.size(); ++i)
        if (is_column(*op.build_keys[i], key.source, key.column) && home_key(op.child(0), *op.probe_keys[i], depth + 1))
          return true;
      return home_key(op.child(0), key, depth + 1);
    }
    default: return false;
  }
}

const LogicalOp* Lowering::rank_local_build(const LogicalOp& join) const {
  if (options_.partition_keys.empty() || options_.model == ExecutionModel::OperatorAtATime) return nullptr;
  if (join.join_type == plan::JoinType::LeftOuter || join.build_keys.size() != 1 || join.probe_keys.size() != 1) return nullptr;
  if (!home_key(join.child(0), *join.probe_keys[0])) return nullptr;
  // Down the build side to the aggregate, following the build key through the projections.
  const plan::Expr* key = join.build_keys[0].get();
  const LogicalOp* op = &join.child(1);
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
          if (a.source == key->source && a.name == key->column && home_key(op->child(0), *op->group_by[i].expr)) return op;
        }
        return nullptr;
      default: return nullptr;
    }
  }
  return nullptr;
}

}  // namespace hqc::ir

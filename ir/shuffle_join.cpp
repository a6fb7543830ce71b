// Shuffle joins (distributed compiles): a join whose build side scans a partitioned table on another
// key than the probe's partition key.
//
// Such a build cannot stay on its rank: a probe row may match build rows of any rank. Two ways bring
// them together (BuildOptions::join_exchange):
//   broadcast  the build's rows are materialized, gathered to every rank (an output merged as rows)
//              and every rank builds the whole table; the probe side stays where it is. Moves
//              B x (N - 1) rows and holds B rows on every rank.
//   shuffle    both sides' rows are materialized and each row is sent to the rank its key values
//              hash to (OutputTable::shuffle_columns; runtime/distributed/state_merge.cpp): rank r
//              then holds every build and every probe row whose key hashes to r, builds from its build
//              rows (HashTable::rank_local, shuffled) and probes with its probe rows, which continue
//              the pipeline as that rank's share (later state is merged as after any partitioned
//              scan). Moves (B + P) x (N - 1) / N rows and holds B / N build rows per rank.
// Auto takes the shuffle when it moves fewer bytes: P x probe width < B x build width x (N - 1), with
// B and P the statistics' estimates of the two sides' rows (plan::estimate_rows) and the widths the
// bytes of the columns the rest of the plan reads of each side — and when no operator above it relies
// on the probe rows staying on their rank (a join probing by the partition key, groups by it); without
// statistics, the broadcast.
//
// Contract:
//   choose_join_exchanges(root) decides every join's exchange on the logical plan, before any
//   pipeline is built, so that the rank-local reasoning (home_key, co_partitioned_join's probe scan)
//   never looks through a shuffled join: after it a probe row's partition key is no longer its rank's.
//   A join is a shuffle candidate when
//     - the build side's rows and the probe side's rows are each the rank's own (a partitioned
//       table's share, down the probe side through filters, maps and joins, or a shuffled join's rows),
//     - it is not a co-partitioned join on the partition key (one key pair, both tables' partition
//       keys of one group), which needs no exchange,
//     - every key pair is a column of Int32, Int64 or Date values on each side (hashed as 64-bit
//       integers: equal values, whatever their width, go to the same rank);
//   and is shuffled when join_exchange is Shuffle, or Auto and the estimate favours it.
//   exchange_join() is the pipeline-level half, called once the build side has been materialized
//   (the broadcast's output) and the probe side produced: it records the decision on the hash table
//   (HashTable::exchange_note) and, for a shuffle, cuts the probe (shuffle_probe_side); that may still decline (the probe's columns
//   hold NULLs of an outer join, free-text row references of a partitioned table, or the build was not
//   materialized: a co-partitioned or keys-only build), and the join is then broadcast as before —
//   correct, only the rank-local reasoning was more cautious than needed.
#include <algorithm>
#include <cstdio>
#include <optional>

#include "frontend/cardinality.h"
#include "ir/lowering.h"
#include "storage/error.h"

namespace hqc::ir {

const char* join_exchange_name(JoinExchange e) {
  switch (e) {
    case JoinExchange::Auto: return "auto";
    case JoinExchange::Broadcast: return "broadcast";
    case JoinExchange::Shuffle: return "shuffle";
  }
  return "?";
}

JoinExchange parse_join_exchange(const std::string& name) {
  for (JoinExchange e : {JoinExchange::Auto, JoinExchange::Broadcast, JoinExchange::Shuffle})
    if (name == join_exchange_name(e)) return e;
  throw Error(ErrorKind::Usage, "join exchange \"" + name + "\": expected auto, broadcast or shuffle");
}

namespace {

using plan::LogicalOp;
using plan::OpKind;

// Every attribute some expression of the plan reads (by (source, name)), and every name a sort key,
// window or hidden list names: what a side of a join carries on to the operators above it.
void referenced(const LogicalOp& op, AttrSet& refs, std::set<std::string>& names) {
  auto add = [&](const plan::ExprPtr& e) {
    if (e) collect_refs(*e, refs);
  };
  add(op.predicate);
  add(op.residual);
  for (const plan::NamedExpr& e : op.exprs) add(e.expr);
  for (const plan::ExprPtr& k : op.probe_keys) add(k);
  for (const plan::ExprPtr& k : op.build_keys) add(k);
  for (const plan::NamedExpr& g : op.group_by) add(g.expr);
  for (const plan::AggregateExpr& a : op.aggregates) {
    add(a.arg);
    add(a.filter);
    add(a.count_arg);
  }
  for (const plan::SortKey& k : op.sort_keys) names.insert(k.name);
  for (const plan::WindowExpr& w : op.windows) {
    names.insert(w.arg);
    for (const std::string& p : w.partition_by) names.insert(p);
    for (const plan::SortKey& k : w.order_by) names.insert(k.name);
  }
  for (const std::string& h : op.hidden) names.insert(h);
  for (const auto& c : op.children) referenced(*c, refs, names);
}

uint64_t value_bytes(const DataType& t) {
  return t.id == TypeId::Int64 || t.id == TypeId::Decimal || t.id == TypeId::Float64 ? 8 : 4;
}

bool hashable_key(const plan::Expr& e) {
  return e.kind == plan::ExprKind::Column && e.dict_table.empty() &&
         (e.type.id == TypeId::Int32 || e.type.id == TypeId::Int64 || e.type.id == TypeId::Date);
}

std::string rows_text(double rows) {
  char buf[32];
  if (rows >= 1e6) std::snprintf(buf, sizeof buf, "%.1f M", rows / 1e6);
  else if (rows >= 1e3) std::snprintf(buf, sizeof buf, "%.1f K", rows / 1e3);
  else std::snprintf(buf, sizeof buf, "%.0f", rows);
  return buf;
}

std::string bytes_text(double bytes) {
  char buf[32];
  if (bytes >= 1e9) std::snprintf(buf, sizeof buf, "%.2f GB", bytes / 1e9);
  else if (bytes >= 1e6) std::snprintf(buf, sizeof buf, "%.1f MB", bytes / 1e6);
  else std::snprintf(buf, sizeof buf, "%.1f KB", bytes / 1e3);
  return buf;
}

}  // namespace

// Whether the rows `op` produces are the rank's own: a partitioned table's share, through filters,
// maps and the probe sides of joins, or the rows of a shuffled join.
bool Lowering::rows_on_share(const LogicalOp& op, int depth) const {
  if (depth > 64 || op.pipeline_break) return false;
  switch (op.kind) {
    case OpKind::Scan: return options_.partitioned_tables.count(op.table) != 0;
    case OpKind::Filter:
    case OpKind::Map:
    case OpKind::Project: return rows_on_share(op.child(0), depth + 1);
    case OpKind::Join:
      if (op.probe_keys.empty()) return false;
      return shuffled(op) || rows_on_share(op.child(0), depth + 1);
    default: return false;
  }
}

void Lowering::choose_join_exchanges(const LogicalOp& root) {
  if (options_.partitioned_tables.empty()) return;
  AttrSet refs;
  std::set<std::string> names;
  referenced(root, refs, names);
  for (const plan::Attribute& a : root.schema) refs.insert({a.source, a.name});
  // Bottom-up: a join above sees whether the ones below it were shuffled.
  std::vector<const LogicalOp*> order;
  auto post = [&](auto&& self, const LogicalOp& op) -> void {
    for (const auto& c : op.children) self(self, *c);
    order.push_back(&op);
  };
  post(post, root);
  // Joins whose rows an operator above relies on being the rank's own: below (down probe sides) a
  // join probing by a home key (a co-partitioned build, groups by the partition key) or an aggregate
  // grouped by one. Auto never shuffles them: the operator above would lose its rank-local plan
  // (TPC-H Q9: a shuffled partsupp join would gather all of orders instead of joining it on its rank).
  std::set<const LogicalOp*> keep_local;
  auto mark = [&](auto&& self, const LogicalOp& op, int depth) -> void {
    if (depth > 64 || op.pipeline_break) return;
    if (op.kind == OpKind::Join && !op.probe_keys.empty()) keep_local.insert(&op);
    if (op.kind == OpKind::Filter || op.kind == OpKind::Map || op.kind == OpKind::Project || (op.kind == OpKind::Join && !op.probe_keys.empty()))
      self(self, op.child(0), depth + 1);
  };
  for (const LogicalOp* op : order) {
    bool home = false;
    if (op->kind == OpKind::Join)
      for (const plan::ExprPtr& k : op->probe_keys) home = home || home_key(op->child(0), *k);
    if (op->kind == OpKind::Aggregate)
      for (const plan::NamedExpr& g : op->group_by) home = home || home_key(op->child(0), *g.expr);
    if (home) mark(mark, op->child(0), 0);
  }
  for (const LogicalOp* join : order) {
    if (join->kind != OpKind::Join || join->probe_keys.empty() || join->build_keys.size() != join->probe_keys.size()) continue;
    const LogicalOp& probe = join->child(0);
    const LogicalOp& build = join->child(1);
    if (!rows_on_share(build) || !rows_on_share(probe)) continue;
    bool keys = true;
    for (size_t i = 0; i < join->build_keys.size(); ++i)
      keys = keys && hashable_key(*join->build_keys[i]) && hashable_key(*join->probe_keys[i]);
    if (!keys) continue;
    // A co-partitioned join on the partition key (co_partitioned_join decides it for the pipelines).
    std::string build_group, probe_group;
    if (join->build_keys.size() == 1 && home_key(build, *join->build_keys[0], &build_group) &&
        home_key(probe, *join->probe_keys[0], &probe_group) && build_group == probe_group)
      continue;
    // What moves: the columns the plan reads of each side (an estimate: a column read below the join
    // only is counted too).
    auto width = [&](const LogicalOp& side) {
      uint64_t bytes = 0;
      for (const plan::Attribute& a : side.schema)
        if (refs.count({a.source, a.name}) != 0 || names.count(a.name) != 0) bytes += value_bytes(a.type);
      return std::max<uint64_t>(bytes, 4);
    };
    const double n = std::max(2u, options_.ranks);
    std::string note;
    bool shuffle = options_.join_exchange == JoinExchange::Shuffle;
    if (options_.stats != nullptr) {
      const double b = plan::estimate_rows(build, *options_.stats), p = plan::estimate_rows(probe, *options_.stats);
      const uint64_t build_width = width(build), probe_width = width(probe);
      const double broadcast_bytes = b * static_cast<double>(build_width) * (n - 1);
      const double shuffle_bytes = (b * static_cast<double>(build_width) + p * static_cast<double>(probe_width)) * (n - 1) / n;
      if (options_.join_exchange == JoinExchange::Auto) shuffle = shuffle_bytes < broadcast_bytes && keep_local.count(join) == 0;
      note = "build ~" + rows_text(b) + " rows x " + std::to_string(build_width) + " B, probe ~" + rows_text(p) + " rows x " +
             std::to_string(probe_width) + " B; at " + std::to_string(static_cast<int>(n)) + " ranks a broadcast moves ~" +
             bytes_text(broadcast_bytes) + ", a shuffle ~" + bytes_text(shuffle_bytes) +
             (keep_local.count(join) != 0 ? "; an operator above relies on its rows staying on their rank" : "");
    }
    note = std::string(shuffle ? "shuffled" : "broadcast") + " (" + join_exchange_name(options_.join_exchange) +
           (note.empty() ? ", no statistics" : ": " + note) + ")";
    exchange_notes_[join] = note;
    if (shuffle) shuffled_joins_.insert(join);
  }
}

void Lowering::exchange_join(const LogicalOp& join, const std::string& build_output, const std::vector<plan::Attribute>& build_rows,
                             const std::string& hash_table, Pipeline& current, const AttrSet& probe_needed) {
  const auto note = exchange_notes_.find(&join);
  HashTable* ht = program_.find_hash_table(hash_table);
  if (note == exchange_notes_.end() || build_output.empty() || ht == nullptr) return;  // not weighed, or nothing gathered
  ht->exchange_note = note->second;
  if (!shuffled(join)) return;
  if (!shuffle_probe_side(join, build_output, build_rows, current, probe_needed)) {
    ht->exchange_note = "broadcast (a shuffle was chosen, but the probe's columns cannot travel: NULLs of an outer join or free text "
                        "of a partitioned table)";
    return;
  }
  ht->rank_local = true;
  ht->shuffled = true;
}

bool Lowering::shuffle_probe_side(const LogicalOp& join, const std::string& build_output, const std::vector<plan::Attribute>& build_rows,
                                  Pipeline& current, const AttrSet& probe_needed) {
  if (!program_.scans_share(current)) return false;
  OutputTable* build_out = program_.find_output(build_output);
  if (build_out == nullptr || build_out->columns.size() != build_rows.size()) return false;
  for (const OutputColumn& c : build_out->columns)
    if (!c.heap_table.empty() && options_.partitioned_tables.count(c.heap_table) != 0) return false;  // a row of the sender's share
  // The probe's columns, as they cross the break.
  std::vector<plan::Attribute> columns;
  for (const plan::Attribute& a : join.child(0).schema)
    if (probe_needed.count({a.source, a.name}) != 0) columns.push_back(a);
  for (const plan::Attribute& a : columns) {
    if (current.null_probe(a.source, a.name) >= 0) return false;  // an outer join's NULLs do not cross a break
    if (a.type.is_string() && a.dict_table.empty() && !a.type.packed) {  // free text: a row reference
      const std::string table = heap_origin(a.source, a.name, current).first;
      if (table.empty() || options_.partitioned_tables.count(table) != 0) return false;
    }
  }
  // Each key's column on both sides (the keys are plain columns: choose_join_exchanges).
  auto column_of = [](const std::vector<plan::Attribute>& cols, const plan::Expr& key) -> std::optional<size_t> {
    for (size_t i = 0; i < cols.size(); ++i)
      if (cols[i].source == key.source && cols[i].name == key.column) return i;
    return std::nullopt;
  };
  std::vector<size_t> build_keys, probe_keys;
  for (size_t i = 0; i < join.build_keys.size(); ++i) {
    const std::optional<size_t> b = column_of(build_rows, *join.build_keys[i]);
    const std::optional<size_t> p = column_of(columns, *join.probe_keys[i]);
    if (!b || !p) return false;
    build_keys.push_back(*b);
    probe_keys.push_back(*p);
  }
  build_out->shuffle_columns = build_keys;
  current = materialize_and_scan(join.child(0), current, columns);
  program_.find_output(current.source.output)->shuffle_columns = probe_keys;
  return true;
}

}  // namespace hqc::ir

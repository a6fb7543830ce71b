// Two-phase hashed aggregation (distributed compiles: BuildOptions::partitioned_tables).
//
// A hashed aggregation table filled over a partitioned table holds each rank's partial groups; the
// runtime would have to combine them by key on the host. Instead the IR splits it:
//   phase 1   the aggregating pipeline, as in one process, into a rank-local table `aggN_partial`
//             (AggregationTable::rank_local: never merged, every rank keeps its own);
//   then      a pipeline scanning that table (empty slots dropped) Materializes every group's keys
//             and partial accumulators into a new output — merged across ranks like any output
//             (every rank's rows concatenated, on the device);
//   phase 2   a pipeline scanning the merged output aggregates by the same keys into the final
//             table `aggN` (AggregationTable::combines): SUM of the partial SUMs, SUM of the partial
//             COUNTs, MIN of the MINs, MAX of the MAXes (an AVG is already a sum and a count). It
//             runs the same on every rank; filters and argument expressions applied in phase 1.
// The final table keeps the name, buffers, capacity param and result columns one process gives the
// table, so what reads it (later stages, compaction, the result) does not change. The partial table
// gets a capacity of its own, sized on each rank for that rank's rows (Param::per_rank).
//
// Contract:
//   expects: `p` is the aggregating pipeline, not yet finished, with its sink to be set here.
//   guarantees: without partitioned tables (one process), exactly one table and one pipeline, as
//   make_aggregation and finish make them — the program is unchanged. Splits only a GlobalHash table
//   whose pipeline scans a partitioned table and that phase 2 can express: not a 128-bit partial
//   (its re-summation reads a Decimal(38, s) argument, which SUM refuses), and heap-string keys only
//   as row references into a replicated table (TPC-H Q21's supplier.s_name: the same row on every
//   rank, so phase 2 groups them as phase 1 did; groups of equal texts in different rows are merged
//   on the host as in one process, merge_on_host carries over). The rest keeps the runtime's host
//   merge of hashed groups.
#include <algorithm>

#include "ir/lowering.h"
#include "storage/error.h"

namespace hqc::ir {

bool Lowering::two_phase(const AggregationTable& t, const Pipeline& p) const {
  if (!scans_share(p) || t.layout != AggLayout::GlobalHash) return false;
  for (const GroupKey& k : t.keys)  // a row of a partitioned table is a different row on each rank
    if (!k.heap_table.empty() && options_.partitioned_tables.count(k.heap_table) != 0) return false;
  for (const Accumulator& a : t.accumulators)
    if (a.wide) return false;
  return true;
}

namespace {

// Renames the buffers of `t` from "<name>_..." to "<partial>_...", in the table and the program.
void rename_buffers(Program& program, AggregationTable& t, const std::string& partial) {
  auto rename = [&](std::string& buffer) {
    if (buffer.empty() || buffer.rfind(t.name + "_", 0) != 0) return;
    const std::string renamed = partial + buffer.substr(t.name.size());
    for (Buffer& b : program.buffers)
      if (b.name == buffer) b.name = renamed;
    buffer = renamed;
  };
  std::map<std::string, std::string> keys;  // several keys share one buffer of lanes
  for (GroupKey& k : t.keys) {
    auto it = keys.find(k.key_buffer);
    if (it != keys.end()) {
      k.key_buffer = it->second;
      continue;
    }
    const std::string old = k.key_buffer;
    rename(k.key_buffer);
    keys[old] = k.key_buffer;
  }
  for (Accumulator& a : t.accumulators) {
    rename(a.buffer);
    rename(a.state_buffer);
  }
  rename(t.occupancy_buffer);
  rename(t.overflow_buffer);
  t.name = partial;
}

// A partial table (or one of complete groups of the rank's partition keys) holds the groups of the
// rank's rows only: sized by a capacity of its own named `name`,
// marked per_rank, which each rank resolves for its share of `scanned` (runtime rank_plan), while
// the final table keeps the capacity sized for the whole table.
void size_for_share(Program& program, AggregationTable& t, const std::string& scanned, const std::string& name) {
  const Param* whole = program.find_param(t.slots_param);
  if (whole == nullptr || whole->source != Param::Source::Capacity || whole->table != scanned) return;
  Param mine = *whole;
  mine.name = name;
  mine.per_rank = true;
  mine.comment += " (each rank: its share's rows)";
  for (Buffer& b : program.buffers)
    if (b.elements_param == t.slots_param && b.name.rfind(t.name + "_", 0) == 0) b.elements_param = mine.name;
  t.slots_param = mine.name;
  program.params.push_back(std::move(mine));
}

}  // namespace

// The keys phase 2 could split its rows by across ranks (AggregationTable::split_candidates): those
// with a range by the statistics (min and domain params of a column) whose values are integers —
// codes, numbers, dates; not heap-string row references or floats —, the most distinct first (the
// ranks' parts of the groups come out even when the key spreads them), ties in key order.
std::vector<size_t> Lowering::split_candidates(const AggregationTable& partial) const {
  std::vector<std::pair<uint64_t, size_t>> ranked;
  for (size_t i = 0; i < partial.keys.size(); ++i) {
    const GroupKey& k = partial.keys[i];
    const Param* domain = k.domain_param.empty() ? nullptr : program_.find_param(k.domain_param);
    if (k.min_param.empty() || domain == nullptr || !k.heap_table.empty() || scalar_of(k.type) == ScalarType::F64 ||
        is_decimal128(k.type))
      continue;
    uint64_t distinct = 0;
    if (options_.stats != nullptr && !domain->table.empty()) {
      try {
        distinct = options_.stats->column(domain->table, domain->column).distinct;
      } catch (const Error&) {  // a column the statistics lack: ranked last
      }
    }
    ranked.push_back({distinct, i});
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<size_t> out;
  for (const auto& r : ranked) out.push_back(r.second);
  return out;
}

std::pair<std::string, int> Lowering::aggregate(const plan::LogicalOp& op, Pipeline& p, std::vector<ResultColumn>& columns) {
  const size_t index = program_.aggregations.size();
  const std::string name = make_aggregation(op, p, columns).name;
  if (rank_local_aggregates_.count(&op) != 0 && options_.partitioned_tables.count(p.source.table) != 0) {
    AggregationTable& t = program_.aggregations[index];  // complete groups, kept (rank_local_groups.cpp)
    t.rank_local = true;
    t.partition_keyed = true;
    size_for_share(program_, t, p.source.table, name + "_rank_capacity");
    p.sink = {SinkKind::Aggregate, name};
    return {name, finish(p)};
  }
  if (!two_phase(program_.aggregations[index], p)) {
    p.sink = {SinkKind::Aggregate, name};
    return {name, finish(p)};
  }

  // Phase 1: the rank's partial groups.
  AggregationTable& table = program_.aggregations[index];
  const std::string whole_capacity = table.slots_param;
  rename_buffers(program_, table, name + "_partial");
  table.rank_local = true;
  size_for_share(program_, table, p.source.table, table.name + "_capacity");
  const AggregationTable partial = table;  // a copy: the vector grows below
  p.sink = {SinkKind::Aggregate, partial.name};
  const int phase1 = finish(p);

  // Its groups as rows: keys, then every accumulator (an AVG's hidden halves too), typed as stored.
  std::vector<plan::Attribute> rows;
  for (const GroupKey& k : partial.keys) rows.push_back({"", k.name, k.type, k.dict_table, k.dict_column});
  for (size_t i = 0; i < partial.accumulators.size(); ++i) {
    const Accumulator& a = partial.accumulators[i];
    plan::Attribute attr{"", a.name, a.type, "", ""};
    for (const ResultColumn& c : columns) {
      if (c.source == ResultColumn::Source::Accumulator && c.index == i) {
        attr.dict_table = c.dict_table;  // MIN/MAX of a dictionary string: a code
        attr.dict_column = c.dict_column;
      }
    }
    rows.push_back(attr);
  }
  Pipeline scan;
  scan.source.aggregation = partial.name;
  scan.source.rows_param = partial.slots_param;
  for (const plan::Attribute& a : rows) {
    scan.source.columns.push_back(a.name);
    bind(scan, a, AttributeBinding::Origin::SourceColumn, -1, 0);
  }
  scan.depends_on = {phase1};
  const std::string out = make_output(rows, scan, op.json_path).name;
  scan.sink = {SinkKind::Materialize, out};
  const int materialize = finish(scan);

  // Phase 2: the merged rows combined by key into the final table, under the original name.
  Pipeline combine = scan_output(out, rows, {materialize});
  plan::LogicalOp merged;
  merged.kind = plan::OpKind::Aggregate;
  merged.json_path = op.json_path;
  merged.explicit_nulls = op.explicit_nulls;
  for (const plan::Attribute& a : rows) {
    if (merged.group_by.size() == partial.keys.size()) break;
    merged.group_by.push_back({a.name, plan::make_column(a)});
  }
  for (size_t i = 0; i < partial.accumulators.size(); ++i) {
    const Accumulator& a = partial.accumulators[i];
    plan::AggregateExpr e;
    e.name = a.name;
    e.type = a.type;
    e.arg = plan::make_column(rows[partial.keys.size() + i]);
    const bool count = a.func == plan::AggFunc::Count || a.func == plan::AggFunc::CountStar;
    e.func = a.func == plan::AggFunc::Min || a.func == plan::AggFunc::Max ? a.func : plan::AggFunc::Sum;
    e.zero_without_input = count || a.zero_without_input;  // a SUM of COUNTs: 64-bit, 0 without rows
    merged.aggregates.push_back(std::move(e));
  }
  std::vector<ResultColumn> combined;  // accumulator for accumulator as phase 1's: `columns` stand
  AggregationTable like_partial = partial;  // what phase 2 copies from phase 1, but the whole table's capacity
  like_partial.slots_param = whole_capacity;
  combining_ = &like_partial;
  make_aggregation(merged, combine, combined, name);
  combining_ = nullptr;
  program_.aggregations.back().combines = partial.name;
  program_.aggregations.back().split_candidates = split_candidates(partial);
  combine.sink = {SinkKind::Aggregate, name};
  return {name, finish(combine)};
}

}  // namespace hqc::ir

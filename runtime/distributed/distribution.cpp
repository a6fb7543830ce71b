// A plan's pipelines and state across ranks (distribution.h).
#include "runtime/distributed/distribution.h"

#include <algorithm>
#include <cstdint>

#include "planner/sizing.h"
#include "storage/error.h"

namespace hqc::runtime {

Distribution distribute(const ExecutablePlan& plan, const std::set<std::string>& partitioned_tables) {
  auto refuse = [&](const std::string& what) {
    throw Error(ErrorKind::Unsupported, plan.label + ": " + what + " (a distributed run)");
  };
  if (!plan.model.empty() && plan.model != "resolution" && plan.model != "pipelined")
    refuse("the " + plan.model + " model runs on one device only; distributed runs use resolution or pipelined");
  const size_t n = plan.pipelines.size();
  Distribution d;
  d.partitioned.assign(n, false);
  d.rank0_only.assign(n, false);
  d.merges_after.assign(n, {});
  d.exchange_after.assign(n, 0);
  for (size_t p = 0; p < n; ++p)  // a pipeline without a sink launch exchanges nothing
    d.exchange_after[p] = plan.pipelines[p].sink_launches == 0 ? SIZE_MAX : plan.pipelines[p].sink_launches - 1;
  auto merge_of = [&](const std::string& state) -> const StateMerge* {
    for (const StateMerge& m : plan.merges)
      if (m.state == state) return &m;
    return nullptr;
  };
  auto is_local = [&](const std::string& state) {
    const StateMerge* m = state.empty() ? nullptr : merge_of(state);
    return m != nullptr && m->kind == StateMerge::Kind::Local;
  };
  for (size_t p = 0; p < n; ++p) {
    const PipelineSpec& pipeline = plan.pipelines[p];
    if (!pipeline.library_steps.empty()) refuse(pipeline.name + " calls library primitives between its kernels");
    d.partitioned[p] = partitioned_tables.count(pipeline.source_table) != 0 || pipeline.rank_split;
    // The rows a shuffle sent the rank (a shuffle join's side) are its share too.
    if (const StateMerge* m = pipeline.source_state.empty() ? nullptr : merge_of(pipeline.source_state); m != nullptr && m->kind == StateMerge::Kind::Shuffle)
      d.partitioned[p] = true;
    // A rank-local state filled from the rank's share holds its partial groups: what scans it works on
    // that share too (pipelines come in dependency order: its writers are placed already).
    if (is_local(pipeline.source_state)) {
      for (size_t q = 0; q < p; ++q)
        if (plan.pipelines[q].sink_state == pipeline.source_state && d.partitioned[q]) d.partitioned[p] = true;
    }
  }
  // Rows sent by key must be the sender's own: a replicated writer would send each row once per rank.
  for (size_t p = 0; p < n; ++p) {
    const StateMerge* m = merge_of(plan.pipelines[p].sink_state);
    if (m != nullptr && m->kind == StateMerge::Kind::Shuffle && !d.partitioned[p])
      throw Error(ErrorKind::Internal, plan.label + ": " + plan.pipelines[p].name + " shuffles " + m->state + " without scanning a share");
  }
  for (size_t p = 0; p < n; ++p) {
    if (!d.partitioned[p]) continue;
    const std::string& state = plan.pipelines[p].sink_state;
    // Already placed when an earlier writer of the same state was seen.
    bool placed = false;
    for (const auto& after : d.merges_after)
      for (const StateMerge* m : after) placed = placed || m->state == state;
    if (placed) continue;
    const StateMerge* merge = merge_of(state);
    if (merge != nullptr && merge->kind == StateMerge::Kind::Local) {
      // Never merged. Every writer scans a partition, and only a materialization of its groups reads
      // it (that output is merged as rows); anything else would see one rank's part as the whole.
      // (A rank-local join build is read by its probe only, which the compiler puts on the same rank.)
      for (size_t q = 0; q < n; ++q) {
        const PipelineSpec& other = plan.pipelines[q];
        if (other.sink_state == state && !d.partitioned[q])
          throw Error(ErrorKind::Internal, plan.label + ": " + other.name + " fills the rank-local " + state + " without scanning a partition");
        // (Groups keyed by the partition key may also be built into a rank-local join table.)
        const StateMerge* out = other.source_state == state ? merge_of(other.sink_state) : nullptr;
        if (other.source_state == state && (out == nullptr || (out->kind != StateMerge::Kind::Rows && out->kind != StateMerge::Kind::Local)))
          throw Error(ErrorKind::Internal, plan.label + ": " + other.name + " reads the rank-local " + state +
                                               " but neither materializes its groups into a merged output nor builds a rank-local table");
      }
      continue;
    }
    if (merge == nullptr)
      throw Error(ErrorKind::Internal, plan.label + ": " + plan.pipelines[p].name + " fills " + state +
                                           " from a partitioned table, but " + state + " has no merge across ranks "
                                           "(a hash table must be built from a merged output: ir BuildOptions::partitioned_tables)");
    if (!merge->unsupported.empty()) refuse(merge->what + ": " + merge->unsupported);
    for (const std::string& t : merge->heap_tables)
      if (partitioned_tables.count(t) != 0)
        refuse(merge->what + " holds strings of " + t + " as row references into each rank's own partition");
    size_t last = p;
    for (size_t q = 0; q < n; ++q) {
      if (plan.pipelines[q].sink_state != state) continue;
      last = std::max(last, q);
      if (!d.partitioned[q]) d.rank0_only[q] = true;
    }
    if (plan.pipelines[last].sink_launches == 0)
      throw Error(ErrorKind::Internal, plan.label + ": " + plan.pipelines[last].name + " has no launch filling " + state);
    d.merges_after[last].push_back(merge);
    if (merge->after_compaction) {
      if (plan.pipelines[last].launches.size() <= plan.pipelines[last].sink_launches)
        throw Error(ErrorKind::Internal, plan.label + ": " + plan.pipelines[last].name + " has no compaction launch before merging " + merge->what);
      d.exchange_after[last] = plan.pipelines[last].launches.size() - 1;
    }
    ++d.merges;
  }
  return d;
}

ExecutablePlan rank_plan(const ExecutablePlan& plan, const std::map<std::string, uint64_t>& local_rows,
                         const LocalKeyRanges& local_ranges, unsigned rank, unsigned ranks) {
  ExecutablePlan copy = plan;
  std::map<std::string, int64_t> values;  // the rank's (a derived param follows its factors)
  for (const ParamSpec& p : copy.params) values[p.name] = p.value;
  const std::map<std::string, int64_t> whole = values;  // the same on every rank (split bounds)
  for (ParamSpec& p : copy.params) {
    if (p.per_rank) {  // a rank-local table: sized for the rank's rows
      if (auto it = local_rows.find(p.per_rank->table); it != local_rows.end())
        p.value = static_cast<int64_t>(p.per_rank->terms.slots(static_cast<double>(it->second)));
    } else if (p.per_rank_range) {  // a rank-local table's key placement: the share's keys
      if (const auto it = local_ranges.find({p.per_rank_range->table, p.per_rank_range->column}); it != local_ranges.end())
        p.value = p.per_rank_range->domain ? it->second.max - it->second.min + 1 : it->second.min;
    } else if (p.per_rank_derived) {
      const std::vector<std::string>& f = p.per_rank_derived->factors;
      if (p.per_rank_derived->bitmap_words) {
        p.value = (values.at(f.at(0)) + 31) / 32;
      } else {
        p.value = 1;
        for (const std::string& name : f) p.value *= values.at(name);
      }
    } else if (p.per_rank_split && ranks > 1) {
      // Rank r of n: [min + domain * r / n, min + domain * (r + 1) / n); the ends stay open.
      const PerRankSplit& split = *p.per_rank_split;
      const unsigned edge = split.upper ? rank + 1 : rank;
      if (edge > 0 && edge < ranks) {
        __extension__ typedef __int128 wide;  // domain x edge may pass 2^63 for 64-bit keys
        const wide min = whole.at(split.min_param);
        const wide domain = std::max<int64_t>(whole.at(split.domain_param), 1);
        const auto start = static_cast<int64_t>(min + domain * edge / ranks);
        p.value = split.upper ? start - 1 : start;
      }
    } else if (!p.rows_of.empty()) {
      if (auto it = local_rows.find(p.rows_of); it != local_rows.end()) p.value = static_cast<int64_t>(it->second);
    }
    values[p.name] = p.value;
  }
  return copy;
}

LocalKeyRanges share_key_ranges(const Database& share, const std::set<std::pair<std::string, std::string>>& columns) {
  LocalKeyRanges ranges;
  for (const std::pair<std::string, std::string>& key : columns) {
    // Named, not a structured binding: the lambda below captures it (clang 14 refuses a binding).
    const std::string& table = key.first;
    const std::string& column = key.second;
    const Column& c = share.table(table).column(column);
    auto range = [&](const auto& values) {
      if (values.empty()) {
        ranges[{table, column}] = {0, 0};  // an empty share places no key: one slot
        return;
      }
      const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
      ranges[{table, column}] = {static_cast<int64_t>(*lo), static_cast<int64_t>(*hi)};
    };
    if (!c.i32.empty() || c.i64.empty()) range(c.i32);
    else range(c.i64);
  }
  return ranges;
}

std::set<std::pair<std::string, std::string>> per_rank_range_columns(const ExecutablePlan& plan) {
  std::set<std::pair<std::string, std::string>> columns;
  for (const ParamSpec& p : plan.params)
    if (p.per_rank_range) columns.insert({p.per_rank_range->table, p.per_rank_range->column});
  return columns;
}

}  // namespace hqc::runtime

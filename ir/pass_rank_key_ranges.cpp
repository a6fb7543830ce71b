// Pass rank_key_ranges: a table that stays on its rank, placed by slot = key - min, spans only the
// keys of the rank's share (distributed compiles).
//   expects: a distributed compile (Program::partitioned_tables; otherwise nothing to do), its state
//     built (rank-local hash tables: co-partitioned builds, HashTable::rank_local; rank-local
//     aggregations: a two-phase aggregation's partial groups and groups by the partition key,
//     AggregationTable::rank_local).
//   guarantees: Param::per_rank_range on the ColumnMin and ColumnDomain params that place the keys of
//     - a rank-local hash table whose slot is key - key_min (PerfectHash; Chained with perfect_slots):
//       its key_min_param and capacity_param;
//     - a rank-local DirectIndexed aggregation: each key's min_param and domain_param,
//     when the column they describe is a partitioned table's (the rank holds a share of it) and no
//     other state (a merged table, an output, their sizes) uses them. Each rank then resolves them
//     from the smallest and largest value of its share (ParamValues::per_rank_ranges, runtime
//     rank_plan), and the params computed from them (a Product of domains, BitmapWords) again.
//   Why this is sound: such a table is filled from the rank's own rows and read only by them (a
//     probe of the same rank's co-partitioned rows, or the pipeline that materializes the partial
//     groups), never merged: its keys are the share's keys. A probe key outside the range finds
//     nothing (the range check every slot = key - min probe makes); a build key outside it raises
//     the out-of-range flag instead of writing anywhere.
//   Why: at TPC-H SF 100 the order keys span 600 M values, so every table keyed by them (orders
//     built for lineitem's probes, Q21's lines by order, Q18's groups by order) took the whole
//     domain's slots on every rank whatever the number of ranks: memory and fills did not shrink
//     with more ranks.
#include <set>

#include "ir/passes.h"

namespace hqc::ir {

namespace {

// `name` and every param it is computed from (Product / Sum / BitmapWords factors). Not the source
// rows a Capacity is estimated from: a capacity is resolved once, for the whole table, and never
// again per rank, so it stays an upper bound when those rows are a rank's fewer.
void with_factors(const Program& program, const std::string& name, std::set<std::string>& out) {
  if (name.empty() || !out.insert(name).second) return;
  if (const Param* p = program.find_param(name); p != nullptr && p->source != Param::Source::Capacity)
    for (const std::string& f : p->factors) with_factors(program, f, out);
}

}  // namespace

void rank_key_ranges(Program& program) {
  if (program.partitioned_tables.empty()) return;
  std::set<std::string> local, shared;  // params placing rank-local state; params anything else sizes by
  for (const HashTable& h : program.hash_tables) {
    const bool placed = h.layout == HashLayout::PerfectHash || (h.layout == HashLayout::Chained && h.perfect_slots);
    for (const std::string& name : {h.key_min_param, h.capacity_param}) {
      if (h.rank_local && !h.shuffled && placed) local.insert(name);  // a shuffled build's keys span the domain
      else with_factors(program, name, shared);
    }
  }
  for (const AggregationTable& a : program.aggregations) {
    for (const GroupKey& k : a.keys) {
      for (const std::string& name : {k.min_param, k.domain_param}) {
        if (a.rank_local && a.layout == AggLayout::DirectIndexed) local.insert(name);
        else with_factors(program, name, shared);
      }
    }
    if (!a.rank_local) with_factors(program, a.slots_param, shared);
  }
  // (An output sized by a rank-local table's slots holds the rank's rows: a merge that gathers more
  // enlarges it, runtime merge_rows / merge_shuffle.)
  for (Param& p : program.params) {
    if (local.count(p.name) == 0 || shared.count(p.name) != 0) continue;
    if (p.source != Param::Source::ColumnMin && p.source != Param::Source::ColumnDomain) continue;
    if (program.partitioned_tables.count(p.table) == 0) continue;
    p.per_rank_range = true;
    p.comment += " (each rank: its share's keys)";
  }
}

}  // namespace hqc::ir

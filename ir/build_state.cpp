// State objects of build_program(): hash tables, aggregation tables and outputs, with the params
// that size them and the buffers they own. Layout decisions:
//   - join hash table: perfect hash (slot = key - min) when the single build key is a unique
//     integer column whose domain is dense enough per statistics (planner::use_perfect_hash), or,
//     without statistics, whenever it is a single-column integer primary key; else linear probing
//     sized by planner::hash_capacity() from rows x estimated selectivity of the build filters.
//     Semi/anti joins build keys-only tables (HashTable::keys_only) and accept non-unique build
//     keys: duplicates collapse at build time (insert-if-absent), so a linear-probing table is
//     also capped by the key's distinct count, and without statistics a perfect hash is used only
//     for a key column. Other tables (inner and left outer joins on non-unique keys, composite
//     keys, semi/anti joins whose residual needs build columns) store every build row: chained
//     (HashLayout::Chained: a slot per distinct key heads a list of entries, one entry per build
//     row, so an insert never walks past its key's duplicates), or, where a build row may insert
//     several times (a probe of the build pipeline matches several times), duplicates occupy
//     separate slots of one probe chain and the capacity counts every build row; the probe walks
//     the list or chain (HashTable::unique_keys false = several matches per probe). A chained table
//     on one integer key dense enough for a perfect hash takes slot = key - min
//     (HashTable::perfect_slots). A perfect-hash table without payload keeps one bit per slot
//     instead of the keys (HashTable::key_bits), except one merged across ranks. The key's domain
//     and distinct count are those of the scan column it is, also through a subquery's renames
//     (TPC-H Q21's l_orderkey). Keys are unique
//     when they cover the primary key of their scan (composite keys too: partsupp's
//     (ps_partkey, ps_suppkey)) or every group key of an aggregate below (a derived table).
//   - aggregation: scalar without keys; direct-indexed when every key is a column with a known
//     domain (dictionary codes, integers) and the product of domains is at most
//     planner::kMaxDirectSlots (without statistics: when no key is a key column of its table), or
//     when the one key is a sorted column of the scan whose domain is at most
//     planner::kSortedDirectSparsity x its distinct values (sorted_direct_key: TPC-H Q18's GROUP BY
//     l_orderkey, 60 M slots for 15 M groups at SF 10); else a global hash table. Several keys of a global hash table are lanes of one key buffer.
//     AggregationTable::expected_slots records the slots (direct) or groups (hashed) the statistics
//     expect: pass fuse_pipelines decides from it whether a CTA keeps a private copy in scratchpad
//     (the resolution model's C3). AggregationTable::sorted_key: a group key is a sorted column of
//     the pipeline's scanned table (ColumnStats::sorted). A global hash table's capacity is estimated from rows x filter selectivity and the
//     distinct counts of the keys no other key determines (independent_key_columns); a later
//     stage grouped by keys of an earlier hashed group table (COUNT(DISTINCT)'s second stage) from
//     the earlier stage's estimate capped by its own keys (later_stage_estimate).
//   - SUM of decimals: 128-bit accumulators (Accumulator::wide) unless statistics bound the sum
//     within int64 (sum_may_overflow). MIN/MAX of a 128-bit value (a sum read by a later stage):
//     128-bit accumulators with a state word per slot (Accumulator::state_buffer, the locked update
//     of templates/device/base.h). Heap strings: row references (ir/state.h, "Heap strings");
//     computed strings of at most 7 bytes: packed I64 values ("Packed strings"), keys like any I64.
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <tuple>

#include "ir/lowering.h"
#include "ir/resolve_parameters.h"
#include "ir/walk.h"
#include "planner/sizing.h"
#include "storage/error.h"

namespace hqc::ir {

namespace {

[[noreturn]] void unsupported(const plan::LogicalOp& op, const std::string& what) {
  throw Error(ErrorKind::Unsupported, op.json_path + ": " + what);
}

bool same_param(const Param& a, const Param& b) {
  return a.source == b.source && a.type == b.type && a.table == b.table && a.column == b.column &&
         a.literal == b.literal && a.match == b.match && a.factors == b.factors && a.value == b.value && a.word == b.word &&
         a.chunk_base == b.chunk_base &&
         a.distinct_columns == b.distinct_columns && a.load_factor == b.load_factor &&
         a.count_buffer == b.count_buffer && a.count_term == b.count_term && a.join_filters.size() == b.join_filters.size() &&
         std::equal(a.join_filters.begin(), a.join_filters.end(), b.join_filters.begin(),
                    [](const auto& x, const auto& y) { return x.first == y.first && x.second->to_string() == y.second->to_string(); }) &&
         ((!a.predicate && !b.predicate) || (a.predicate && b.predicate && a.predicate->to_string() == b.predicate->to_string()));
}

bool is_key_column(const TableDef& t, const std::string& column) {
  if (std::find(t.primary_key.begin(), t.primary_key.end(), column) != t.primary_key.end()) return true;
  for (const ForeignKey& fk : t.foreign_keys) {
    if (std::find(fk.columns.begin(), fk.columns.end(), column) != fk.columns.end()) return true;
  }
  return false;
}

// True when the tuple of `keys` (Columns) takes each value at most once in the output of `side`:
// the keys cover the primary key of the scan they come from, or every group key of an aggregate
// (through projections that rename them), and every join above keeps its rows unique (n:1 joins,
// semi/anti joins).
bool keys_are_unique(const plan::LogicalOp& side, const std::vector<const plan::Expr*>& keys, const Catalog& catalog) {
  if (keys.empty()) return false;
  for (const plan::Expr* k : keys)
    if (k->kind != plan::ExprKind::Column) return false;
  // The output attribute a key names: its index in side.schema, or -1.
  auto position = [&side](const plan::Expr& k) -> int {
    for (size_t i = 0; i < side.schema.size(); ++i)
      if (side.schema[i].source == k.source && side.schema[i].name == k.column) return static_cast<int>(i);
    return -1;
  };
  switch (side.kind) {
    case plan::OpKind::Scan: {
      for (const plan::Expr* k : keys)
        if (k->source != side.alias) return false;
      const TableDef* t = catalog.find(side.table);
      if (!t || t->primary_key.empty()) return false;
      return std::all_of(t->primary_key.begin(), t->primary_key.end(), [&](const std::string& pk) {
        return std::any_of(keys.begin(), keys.end(), [&](const plan::Expr* k) { return k->column == pk; });
      });
    }
    case plan::OpKind::Filter:
    case plan::OpKind::Map:
      return keys_are_unique(side.child(0), keys, catalog);
    case plan::OpKind::Project: {
      // A projection renames: follow each key to the column it projects.
      std::vector<const plan::Expr*> inner;
      for (const plan::Expr* k : keys) {
        int i = position(*k);
        if (i < 0 || static_cast<size_t>(i) >= side.exprs.size() || side.exprs[static_cast<size_t>(i)].expr->kind != plan::ExprKind::Column)
          return false;
        inner.push_back(side.exprs[static_cast<size_t>(i)].expr.get());
      }
      return keys_are_unique(side.child(0), inner, catalog);
    }
    case plan::OpKind::Aggregate: {
      // One output row per group: the keys must name every group key.
      std::set<int> groups;
      for (const plan::Expr* k : keys) {
        int i = position(*k);
        if (i < 0 || static_cast<size_t>(i) >= side.group_by.size()) return false;
        groups.insert(i);
      }
      return groups.size() == side.group_by.size();
    }
    case plan::OpKind::Join: {
      // A semi/anti join only drops probe tuples: the probe side's uniqueness carries through.
      if (side.join_type == plan::JoinType::Semi || side.join_type == plan::JoinType::Anti)
        return keys_are_unique(side.child(0), keys, catalog);
      // An n:1 join (inner or left outer) keeps the probe side's uniqueness; a key from the build
      // side may repeat.
      for (const plan::Expr* k : keys) {
        bool on_probe = std::any_of(side.child(0).schema.begin(), side.child(0).schema.end(),
                                    [&](const plan::Attribute& a) { return a.source == k->source && a.name == k->column; });
        if (!on_probe) return false;
      }
      std::vector<const plan::Expr*> build_keys;
      for (const auto& k : side.build_keys) build_keys.push_back(k.get());
      return keys_are_unique(side.child(1), build_keys, catalog) && keys_are_unique(side.child(0), keys, catalog);
    }
    default:
      return false;
  }
}

uint64_t fill_min(ScalarType t) {
  switch (t) {
    case ScalarType::I32: return 0x7fffffffull;
    case ScalarType::F64: return 0x7ff0000000000000ull;  // +infinity
    default: return kMaxI64;
  }
}

uint64_t fill_max(ScalarType t) {
  switch (t) {
    case ScalarType::I32: return kEmptyKeyI32;
    case ScalarType::F64: return 0xfff0000000000000ull;  // -infinity
    default: return kMinI64;
  }
}

// Heap strings travel as row references into their base table (ir/state.h, "Heap strings"); packed
// strings are values ("Packed strings").
bool is_heap_string(const DataType& type, const std::string& dict_table) {
  return type.is_string() && dict_table.empty() && !type.packed;
}

// Why a computed string has no device value (it is not packed): for Unsupported messages.
std::string unpacked_why(const DataType& type) {
  return std::string("a computed string ") + (type.length == 0 ? "of unbounded length" : "of up to " + std::to_string(type.length) + " bytes") +
         " has no device value; computed strings must be at most " + std::to_string(kMaxPackedStringBytes) +
         " bytes (SUBSTRING(... FOR n) with n <= " + std::to_string(kMaxPackedStringBytes) + ", a CASE of short string literals)";
}

std::string qualified(const std::string& source, const std::string& name) { return source.empty() ? name : source + "." + name; }

uint64_t empty_key(ScalarType t) { return t == ScalarType::I32 ? kEmptyKeyI32 : kEmptyKeyI64; }

// Conjunction of a pipeline's filter predicates (cloned), nullptr when there are none.
plan::ExprPtr filters_of(const Pipeline& p) {
  std::vector<plan::ExprPtr> preds;
  for (const PipelineOp& op : p.ops) {
    if (op.kind == PipelineOpKind::Filter) preds.push_back(plan::clone(*op.predicate));
  }
  if (preds.empty()) return nullptr;
  return preds.size() == 1 ? preds[0] : plan::make_logical(plan::ExprKind::And, preds);
}

}  // namespace

std::string Lowering::add_param(Param p) {
  if (const Param* existing = program_.find_param(p.name)) {
    if (!same_param(*existing, p)) throw Error(ErrorKind::Internal, "build_program: two different params named " + p.name);
    return p.name;
  }
  program_.params.push_back(p);
  return p.name;
}

std::string Lowering::add_buffer(Buffer b) {
  if (program_.find_buffer(b.name)) throw Error(ErrorKind::Internal, "build_program: two buffers named " + b.name);
  program_.buffers.push_back(b);
  return b.name;
}

std::string Lowering::rows_param(const std::string& table) {
  Param p;
  p.name = "rows_" + sanitize_identifier(table);
  p.source = Param::Source::RowCount;
  p.table = table;
  p.comment = "rows of " + table;
  return add_param(p);
}

std::string Lowering::physical_table(const std::string& alias) const {
  auto it = alias_table_.find(alias);
  return it == alias_table_.end() ? "" : it->second;
}

bool Lowering::perfect_hash_key(const plan::Expr& key, const Pipeline& build, bool unique, std::string& key_table,
                                std::string& key_column) const {
  // The scan column the key is, also through renames (a subquery's select item) and through the
  // group key of an aggregation the build scans (Q18's IN (SELECT l_orderkey ... GROUP BY
  // l_orderkey HAVING ...): its values are some of that column's): its statistics and domain decide.
  const auto origin =
      key.kind == plan::ExprKind::Column ? group_key_origin(key.source, key.column, build) : std::pair<std::string, std::string>{};
  key_table = origin.first.empty() ? "" : physical_table(origin.first);
  key_column = origin.second;
  if (key_table.empty() || !key.type.is_integer_like()) return false;
  if (!unique && !options_.stats) {
    // Without statistics only a key column (a foreign key references a dense primary key) promises
    // a domain small enough for slot = key - min; any other repeated integer may span anything.
    const TableDef* def = catalog_.find(key_table);
    return def != nullptr && is_key_column(*def, key_column);
  }
  if (!options_.stats) return true;
  const ColumnStats s = options_.stats->column(key_table, key_column);
  const uint64_t domain = s.valid ? static_cast<uint64_t>(s.max - s.min + 1) : 0;
  return s.valid && planner::use_perfect_hash(domain, options_.stats->rows(key_table));
}

const HashTable& Lowering::make_hash_table(const plan::LogicalOp& join, const Pipeline& build,
                                           const std::vector<plan::Attribute>& payload) {
  for (const auto& k : join.build_keys) {
    if (is_heap_string(k->type, k->dict_table) && k->kind != plan::ExprKind::Column)
      unsupported(join, "join key " + k->to_string() + ": " + unpacked_why(k->type));
    if (is_heap_string(k->type, k->dict_table))
      unsupported(join, "join key " + k->to_string() +
                            " is a heap string (not dictionary-encoded): comparing strings in a join is not supported yet");
  }
  HashTable ht;
  ht.name = "ht" + std::to_string(program_.hash_tables.size());
  ht.build_table = build.source.table;
  ht.build_alias = build.source.alias;
  for (const auto& k : join.build_keys) {
    ht.build_keys.push_back(typed(*k, build));
    reject_decimal128(*ht.build_keys.back(), join.json_path, "a join key");
  }
  ht.payload = payload;
  // A 128-bit sum of the build side (an aggregate as the build side) is a two-word payload; a
  // semi/anti residual compares payload inside the probe, where it has no 128-bit form yet.
  const bool existence = join.join_type == plan::JoinType::Semi || join.join_type == plan::JoinType::Anti;
  for (plan::Attribute& a : ht.payload) {
    const AttributeBinding* b = build.find_attribute(a.source, a.name);
    if (b == nullptr || !is_decimal128(b->attr.type)) continue;
    if (existence) reject_decimal128(*plan::make_column(a.source, a.name, b->attr.type), join.json_path, "a semi/anti join's residual");
    a.type = b->attr.type;
  }
  std::vector<const plan::Expr*> key_ptrs;
  for (const auto& k : ht.build_keys) key_ptrs.push_back(k.get());
  ht.unique_keys = keys_are_unique(join.child(1), key_ptrs, catalog_);
  ht.keys_only = (join.join_type == plan::JoinType::Semi || join.join_type == plan::JoinType::Anti) && payload.empty();
  // A keys-only table on one column inserts each key once; any other table stores every build row.
  const bool dedup = ht.keys_only && ht.build_keys.size() == 1;
  const plan::Expr& key = *ht.build_keys[0];
  // Every build row stored under a non-unique key: a list per distinct key, unless a probe of the
  // build pipeline matches several times (a row would insert several entries).
  const bool chained = options_.multimap == HashLayout::Chained && !ht.unique_keys && !dedup &&
                       !matches_several_times(program_, build);
  std::string key_table, key_column;
  // A perfect hash holds one slot per key value: for unique keys, deduplicated ones, or the heads
  // of a chained table's lists.
  const bool perfect = ht.build_keys.size() == 1 && (ht.unique_keys || dedup || chained) &&
                       perfect_hash_key(key, build, ht.unique_keys, key_table, key_column);
  if (perfect) {
    ht.layout = chained ? HashLayout::Chained : HashLayout::PerfectHash;
    ht.perfect_slots = chained;
    Param min{ht.name + "_key_min", Param::Source::ColumnMin, scalar_of(key.type), key_table, key_column};
    min.comment = "smallest " + key_table + "." + key_column;
    ht.key_min_param = add_param(min);
    Param slots{ht.name + "_slots", Param::Source::ColumnDomain, ScalarType::I64, key_table, key_column};
    slots.comment = "domain of " + key_table + "." + key_column;
    ht.capacity_param = add_param(slots);
    // Nothing read at the slot (no payload, no residual: a semi / anti join's existence test, or an
    // inner join on unique keys used as a filter, TPC-H Q21's orders with status 'F'): the slot's
    // bit says it all.
    ht.key_bits = ht.layout == HashLayout::PerfectHash && ht.payload.empty() && !join.residual && !merging_keys_;
    // Duplicates in no order (TPC-H Q22's o_custkey): most updates find their bit set, so the build
    // reads the word first. Unique or sorted keys (Q4's l_orderkey) update each word about once:
    // a read first would only add its latency.
    const bool sorted_build = options_.stats && build.source.table == key_table && options_.stats->column(key_table, key_column).sorted;
    ht.key_bits_read_first = ht.key_bits && !ht.unique_keys && !sorted_build;
    if (ht.layout == HashLayout::PerfectHash && !merging_keys_ && !ht.key_bits) add_probe_bitmap(ht, build, key_table, key_column);
  } else {
    ht.layout = chained ? HashLayout::Chained : HashLayout::LinearProbing;
    Param cap{ht.name + "_capacity", Param::Source::Capacity, ScalarType::I64, build.source.table};
    cap.predicate = filters_of(build);
    if (build.source.table.empty()) cap.factors = {build.source.rows_param};
    cap.comment = "power of two >= build rows x selectivity / load factor";
    // Insert-if-absent and chained tables store each distinct key once: no more slots than distinct
    // keys are needed.
    if ((dedup || chained) && !ht.unique_keys && !key_table.empty() && ht.build_keys.size() == 1) {
      cap.distinct_columns = {key_table + "." + key_column};
      cap.comment = "power of two >= min(build rows x selectivity, distinct keys) / load factor";
    }
    ht.capacity_param = add_param(cap);
  }
  if (chained) {
    ht.entries_param = build.source.rows_param;
    Param base{ht.name + "_entry_base", Param::Source::Constant, ScalarType::I64};
    base.comment = "entry of the launch's first row (a chunk's first row when the build's scan streams)";
    base.table = build.source.table;
    base.chunk_base = Param::ChunkBase::Row;
    ht.entry_base_param = add_param(base);
    ht.head_buffer = add_buffer({ht.name + "_heads", ScalarType::I64, 0, ht.capacity_param, 1, Buffer::Fill::Pattern,
                                 ~uint64_t{0}, "latest entry of each slot's list (-1: none)"});
    ht.next_buffer = add_buffer({ht.name + "_next", ScalarType::I64, 0, ht.entries_param, 1, Buffer::Fill::None, 0,
                                 "entry inserted before this one under the same slot (-1: the last)"});
  }
  // A chained table keeps its first key column per slot, everything else per entry.
  const std::string& entries = ht.layout == HashLayout::Chained ? ht.entries_param : ht.capacity_param;
  if (ht.key_bits) {
    Param words{ht.name + "_bit_words", Param::Source::BitmapWords, ScalarType::I64};
    words.factors = {ht.capacity_param};
    words.comment = "32-bit words of one bit per slot of " + ht.name;
    ht.key_buffers.push_back(add_buffer({ht.name + "_key_bits", ScalarType::U32, 0, add_param(words), 1, Buffer::Fill::Zero, 0,
                                         "one bit per key of " + ht.name + " (slot = key - min): set where the key was built"}));
  }
  for (size_t i = 0; i < ht.build_keys.size() && !ht.key_bits; ++i) {
    ScalarType t = scalar_of(ht.build_keys[i]->type);
    const bool per_entry = i > 0 && ht.layout == HashLayout::Chained;  // written by every insert: no fill
    Buffer b{ht.name + "_keys" + (ht.build_keys.size() > 1 ? std::to_string(i) : ""), t, 0, per_entry ? entries : ht.capacity_param, 1,
             per_entry ? Buffer::Fill::None : Buffer::Fill::Pattern, per_entry ? 0 : empty_key(t), "keys of " + ht.name};
    ht.key_buffers.push_back(add_buffer(b));
  }
  for (const plan::Attribute& a : ht.payload) {
    std::string base = a.source.empty() || physical_table(a.source) == a.source ? a.name : a.source + "_" + a.name;
    const bool wide = is_decimal128(a.type);
    Buffer b{ht.name + "_" + sanitize_identifier(base), scalar_of(a.type), 0, entries, wide ? 2u : 1u, Buffer::Fill::None, 0,
             "payload " + (a.source.empty() ? a.name : a.source + "." + a.name) + (wide ? " (128-bit: low, high word per slot)" : "")};
    ht.payload_buffers.push_back(add_buffer(b));
  }
  ht.overflow_buffer = add_buffer({ht.name + "_overflow", ScalarType::U32, 1, "", 1, Buffer::Fill::Zero, 0,
                                   "nonzero: a key found no slot (rebuild larger)"});
  program_.hash_tables.push_back(std::move(ht));
  return program_.hash_tables.back();
}

// A perfect-hash table of at least BuildOptions::probe_bitmap_min_slots slots whose build the
// statistics expect to keep at most 1 / planner::kProbeBitmapSparsity of its table's rows (its
// filters' and joined filters' selectivities) gets a bitmap of the slots built: probes test a bit in
// L2 before reading a key from DRAM. A build keeping most keys would pay the bit's atomic per row
// and save its probes little: at SF 100 on an H200 a bitmap for every filtered build took TPC-H Q4
// 4.9 -> 18.9 ms (63 % of lineitem built, sorted keys contending for bitmap words) and Q3 12.5 ->
// 18.2, where Q17 (1/40 of part) went 21.4 -> 9.3 ms (bench/results/2026-11-28-h200-sf100). A filter
// without an estimate (LIKE, a column compared with a column) counts as keeping every row.
void Lowering::add_probe_bitmap(HashTable& ht, const Pipeline& build, const std::string& key_table, const std::string& key_column) {
  if (!options_.stats || build.source.table != key_table) return;
  const ColumnStats s = options_.stats->column(key_table, key_column);
  if (!s.valid || static_cast<uint64_t>(s.max - s.min) + 1 < options_.probe_bitmap_min_slots) return;
  // The share of the table the build keeps: the per-row part of a capacity over the build's rows.
  Param kept{ht.name + "_kept", Param::Source::Capacity, ScalarType::I64, key_table};
  kept.predicate = filters_of(build);
  kept.join_filters = join_filters(build);
  if (capacity_terms(kept, *options_.stats).per_row * static_cast<double>(planner::kProbeBitmapSparsity) > 1.0) return;
  Param words{ht.name + "_bitmap_words", Param::Source::BitmapWords, ScalarType::I64};
  words.factors = {ht.capacity_param};
  words.comment = "32-bit words of one bit per slot of " + ht.name;
  ht.bitmap_buffer = add_buffer({ht.name + "_bitmap", ScalarType::U32, 0, add_param(words), 1, Buffer::Fill::Zero, 0,
                                 "one bit per slot of " + ht.name + ": a key was built there (probes test it first)"});
}

// Largest |value| of `e` in its physical (scaled integer) representation, from column statistics;
// +infinity where no bound is known (no statistics, division, a value of an earlier stage). An
// attribute a Map of `p` computed (a derived table's column: TPC-H Q8's all_nations.volume) is
// bounded by the expression it stands for; `depth` stops a chain of renames that never ends.
long double Lowering::magnitude_bound(const plan::Expr& e, const Pipeline& p, int depth) const {
  constexpr long double unknown = std::numeric_limits<long double>::infinity();
  if (depth > 32) return unknown;
  switch (e.kind) {
    case plan::ExprKind::Column: {
      const AttributeBinding* b = p.find_attribute(e.source, e.column);
      if (b != nullptr && b->origin == AttributeBinding::Origin::Computed) {
        for (const PipelineOp& op : p.ops) {
          if (op.id != b->op_id || op.kind != PipelineOpKind::Map) continue;
          for (const plan::NamedExpr& x : op.exprs)
            if (x.name == e.column) return magnitude_bound(*x.expr, p, depth + 1);
        }
        return unknown;
      }
      // A column of a materialized output (operator_at_a_time; explicit breaks): the bound of the
      // expression its writer stored.
      if (b != nullptr && b->origin == AttributeBinding::Origin::SourceColumn && !p.source.output.empty()) {
        const OutputTable* out = program_.find_output(p.source.output);
        const Pipeline* writer = output_writer(p.source.output);
        if (out == nullptr || writer == nullptr) return unknown;
        for (const OutputColumn& c : out->columns)
          if (c.name == e.column && c.expr && (e.source.empty() || c.expr->source == e.source || c.expr->kind != plan::ExprKind::Column))
            return magnitude_bound(*c.expr, *writer, depth + 1);
        return unknown;
      }
      std::string table = physical_table(e.source);
      if (table.empty()) return unknown;
      if (options_.stats) {
        ColumnStats s = options_.stats->column(table, e.column);
        if (s.valid) return std::max(std::fabs(static_cast<long double>(s.min)), std::fabs(static_cast<long double>(s.max)));
      }
      // Without statistics, a base table column's declared type bounds it.
      switch (e.type.id) {
        case TypeId::Decimal: return e.type.precision <= 18 ? std::pow(10.0L, e.type.precision) : unknown;
        case TypeId::Int32:
        case TypeId::Date: return 2147483648.0L;
        case TypeId::Bool: return 1;
        default: return unknown;
      }
    }
    case plan::ExprKind::Literal: return std::fabs(static_cast<long double>(e.int_value));
    case plan::ExprKind::Arith: {
      long double a = magnitude_bound(*e.args.at(0), p, depth + 1), b = magnitude_bound(*e.args.at(1), p, depth + 1);
      if (e.arith == plan::ArithOp::Mul) return a * b;
      if (e.arith == plan::ArithOp::Div) return unknown;
      return a + b;
    }
    case plan::ExprKind::Cast: {
      const DataType& from = e.args.at(0)->type;
      if (from.id == TypeId::Float64 || e.type.id == TypeId::Float64) return unknown;
      int shift = (e.type.id == TypeId::Decimal ? e.type.scale : 0) - (from.id == TypeId::Decimal ? from.scale : 0);
      return magnitude_bound(*e.args.at(0), p, depth + 1) * std::pow(10.0L, shift);
    }
    case plan::ExprKind::Round: {  // at most half a unit of the last kept digit further from zero
      const DataType& from = e.args.at(0)->type;
      if (from.id == TypeId::Float64) return unknown;
      const int shift = (from.id == TypeId::Decimal ? from.scale : 0) - (e.type.id == TypeId::Decimal ? e.type.scale : 0);
      return magnitude_bound(*e.args.at(0), p, depth + 1) / std::pow(10.0L, shift) + std::pow(10.0L, e.int_value < 0 ? -e.int_value : 0);
    }
    case plan::ExprKind::Case: {
      long double m = 0;
      size_t pairs = (e.args.size() - 1) / 2;
      for (size_t i = 0; i < pairs; ++i) m = std::max(m, magnitude_bound(*e.args[2 * i + 1], p, depth + 1));
      return std::max(m, magnitude_bound(*e.args.back(), p, depth + 1));
    }
    default: return unknown;
  }
}

void Lowering::mark_overflow_checks(plan::Expr& e, const Pipeline& p) const {
  for (const plan::ExprPtr& a : e.args) mark_overflow_checks(*a, p);
  const bool wide64 = (e.type.id == TypeId::Int64 || e.type.id == TypeId::Decimal) && !is_decimal128(e.type);
  if (!wide64) return;
  bool candidate = false;
  if (e.kind == plan::ExprKind::Arith) {
    candidate = e.arith != plan::ArithOp::Div;
  } else if (e.kind == plan::ExprKind::Cast) {
    const DataType& from = e.args.at(0)->type;
    const int from_scale = from.id == TypeId::Decimal ? from.scale : 0;
    candidate = from.id != TypeId::Float64 && !is_decimal128(from) && e.type.id == TypeId::Decimal && e.type.scale > from_scale;
  }
  if (!candidate) return;
  const long double bound = magnitude_bound(e, p);
  e.overflow_check = !(bound <= static_cast<long double>(std::numeric_limits<int64_t>::max()));
}

// A SUM over pipeline `p` stays within int64 when (tuples reaching the sink) x max |argument| does:
// tuples are at most the rows of the source scan while every probe finds at most one match.
// A pipeline over a materialized output has at most the rows its writer's source had (the same test
// again along the chain of outputs, as operator_at_a_time makes them).
bool Lowering::sum_may_overflow(const plan::Expr& arg, const Pipeline& p) const {
  if (!options_.stats) return true;
  const Pipeline* scan = &p;
  for (int depth = 0; scan != nullptr && scan->source.table.empty() && depth < 64; ++depth)
    scan = scan->source.output.empty() ? nullptr : output_writer(scan->source.output);
  if (scan == nullptr || scan->source.table.empty()) return true;
  for (const Pipeline* q = &p;; q = output_writer(q->source.output)) {
    for (const PipelineOp& op : q->ops) {
      if (op.kind != PipelineOpKind::Probe) continue;
      const HashTable* ht = program_.find_hash_table(op.hash_table);
      if (ht == nullptr || (!ht->unique_keys && !ht->keys_only)) return true;
    }
    if (q == scan) break;
  }
  long double bound = static_cast<long double>(options_.stats->rows(scan->source.table)) * magnitude_bound(arg, p);
  return !(bound <= static_cast<long double>(std::numeric_limits<int64_t>::max()));
}

const Pipeline* Lowering::output_writer(const std::string& out) const {
  return sole_writer(program_, SinkKind::Materialize, out);
}

// Groups a Capacity param expects (what resolve_parameters sizes the table for, before the load
// factor), from the statistics; 0 when there are none.
uint64_t Lowering::estimated_groups(const Param& capacity) const {
  if (!options_.stats || capacity.table.empty()) return 0;
  return static_cast<uint64_t>(capacity_estimate(capacity, *options_.stats, 0));
}

// A group key that is an earlier stage's COUNT — read from that table, or through a join built
// from it, copied by maps — takes few values however many rows carry it: N counted rows make at
// most k distinct counts with 0 + 1 + ... + (k - 1) <= N, and counts gather around the mean
// lambda = N / groups. The table expects min(that bound, 2 lambda + 16) groups (an estimate, for
// the CTA's private table only: the capacity keeps its own sizing, and a private table that fills
// up sends the rest to the global one). TPC-H Q13's groups by orders per customer: ~45 values,
// sized like the 1.5 M customers per 10 of SF until now, one global atomic per customer.
uint64_t Lowering::count_key_groups(const AggregationTable& t, const Pipeline& p) const {
  if (!options_.stats || t.keys.size() != 1 || !t.keys[0].expr || t.keys[0].expr->kind != plan::ExprKind::Column) return 0;
  const Pipeline* in = &p;
  std::string source = t.keys[0].expr->source, column = t.keys[0].expr->column;
  for (int depth = 0; depth < 16; ++depth) {
    const AttributeBinding* b = in->find_attribute(source, column);
    if (b == nullptr) return 0;
    if (b->origin == AttributeBinding::Origin::Computed) {  // a map copying a column
      const plan::Expr* copied = nullptr;
      for (const PipelineOp& op : in->ops) {
        if (op.id != b->op_id || op.kind != PipelineOpKind::Map) continue;
        for (const plan::NamedExpr& e : op.exprs)
          if (e.name == b->attr.name && e.expr && e.expr->kind == plan::ExprKind::Column) copied = e.expr.get();
      }
      if (copied == nullptr) return 0;
      source = copied->source;
      column = copied->column;
      continue;
    }
    if (b->origin == AttributeBinding::Origin::ProbePayload) {  // through a join built from a stage
      const PipelineOp* probe = nullptr;
      for (const PipelineOp& op : in->ops)
        if (op.id == b->op_id && op.kind == PipelineOpKind::Probe) probe = &op;
      const HashTable* ht = probe == nullptr ? nullptr : program_.find_hash_table(probe->hash_table);
      if (ht == nullptr || b->payload_index >= ht->payload.size()) return 0;
      const Pipeline* build = sole_writer(program_, SinkKind::HashBuild, ht->name);
      if (build == nullptr) return 0;
      in = build;
      source = ht->payload[b->payload_index].source;
      column = ht->payload[b->payload_index].name;
      continue;
    }
    // A source column: an accumulator when the pipeline scans an aggregation table.
    const AggregationTable* stage = in->source.aggregation.empty() ? nullptr : program_.find_aggregation(in->source.aggregation);
    if (stage == nullptr) return 0;
    const Accumulator* count = nullptr;
    for (const Accumulator& a : stage->accumulators)
      if (a.name == b->attr.name && (a.func == plan::AggFunc::Count || a.func == plan::AggFunc::CountStar)) count = &a;
    if (count == nullptr) return 0;
    if (!stage->combines.empty()) stage = program_.find_aggregation(stage->combines);
    const Pipeline* writer = sole_writer(program_, SinkKind::Aggregate, stage->name);
    if (writer == nullptr || writer->source.table.empty()) return 0;
    const double rows = static_cast<double>(options_.stats->rows(writer->source.table));
    const double groups = static_cast<double>(stage->expected_slots);  // 0: unknown, or a single tuple
    const double bound = std::floor((1.0 + std::sqrt(1.0 + 8.0 * rows)) / 2.0) + 1.0;  // and the count 0
    const double lambda = groups > 0 ? rows / groups : rows;
    return static_cast<uint64_t>(std::max(1.0, std::min(bound, 2.0 * lambda + 16.0)));
  }
  return 0;
}

bool Lowering::sorted_group_key(const Pipeline& p, const AggregationTable& t) const {
  if (!options_.stats || p.source.table.empty()) return false;
  for (const GroupKey& k : t.keys) {
    if (!k.expr || k.expr->kind != plan::ExprKind::Column) continue;
    const AttributeBinding* b = p.find_attribute(k.expr->source, k.expr->column);
    if (b == nullptr || b->origin != AttributeBinding::Origin::SourceColumn || b->attr.source != p.source.alias) continue;
    if (options_.stats->column(p.source.table, b->attr.name).sorted) return true;
  }
  return false;
}

bool Lowering::sorted_direct_key(const Pipeline& p, const AggregationTable& t) const {
  if (!options_.stats || t.keys.size() != 1 || t.keys[0].domain_param.empty() || !sorted_group_key(p, t)) return false;
  const Param* dom = program_.find_param(t.keys[0].domain_param);
  const ColumnStats s = options_.stats->column(dom->table, dom->column);
  if (!s.valid || s.distinct == 0) return false;
  const uint64_t domain = static_cast<uint64_t>(s.max - s.min) + 1;
  return domain <= planner::kMaxPerfectHashSlots && domain <= planner::kSortedDirectSparsity * s.distinct;
}

// (table, filters) of every filtered build side that pipeline `p`'s rows pass through a unique inner
// join, also through the joins of those build pipelines (a build side that probed a filtered table
// holds only the rows that passed it): Param::join_filters of a capacity.
std::vector<std::pair<std::string, plan::ExprPtr>> Lowering::join_filters(const Pipeline& p) const {
  std::vector<std::pair<std::string, plan::ExprPtr>> out;
  for (const PipelineOp& op : p.ops) {
    if (op.kind != PipelineOpKind::Probe || op.join_type != plan::JoinType::Inner) continue;
    const HashTable* ht = program_.find_hash_table(op.hash_table);
    if (ht == nullptr || !ht->unique_keys || ht->keys_only) continue;
    for (const Pipeline& build : program_.pipelines) {
      if (build.sink.kind != SinkKind::HashBuild || build.sink.state != ht->name || build.source.table.empty()) continue;
      if (plan::ExprPtr filters = filters_of(build)) out.emplace_back(build.source.table, filters);
      for (auto& inner : join_filters(build)) out.push_back(std::move(inner));
    }
  }
  return out;
}

// Group keys other keys determine add no groups. A key that is its table's (single-column)
// primary key fixes that scan's row; a unique probe whose keys are fixed fixes its build scan's row
// (through every pipeline built so far: the build side of a join may itself have probed). Keys are
// dropped, in order, while the remaining ones still determine them; the estimate is the product of
// the distinct counts of what is left ("table.column" each), or none (empty) when a key left is
// not a column of a base table.
// A grouped aggregation over an earlier stage's hashed group table (COUNT(DISTINCT x)'s second
// stage, Q16) whose keys are all keys of that table: its groups are at most the earlier stage's
// groups, so its capacity takes the earlier stage's estimate (its rows x selectivity, not its
// capacity, which is already rounded up and divided by the load factor) capped by the groups of
// its own keys' independent base columns. Otherwise `cap` stays as it is (the earlier table's slots).
void Lowering::later_stage_estimate(const AggregationTable& t, const Pipeline& p, Param& cap) const {
  if (p.source.aggregation.empty()) return;
  const AggregationTable* first = program_.find_aggregation(p.source.aggregation);
  if (first == nullptr || first->layout != AggLayout::GlobalHash) return;
  // Aggregated in two phases: the groups are phase 1's (same keys, same capacity param).
  if (!first->combines.empty()) first = program_.find_aggregation(first->combines);
  const Param* first_cap = program_.find_param(first->slots_param);
  const Pipeline* first_pipeline = nullptr;
  for (const Pipeline& q : program_.pipelines) {
    if (q.sink.kind == SinkKind::Aggregate && q.sink.state == first->name) first_pipeline = &q;
  }
  if (first_cap == nullptr || first_cap->source != Param::Source::Capacity || first_pipeline == nullptr) return;
  AggregationTable own = *first;  // the earlier table restricted to the keys this stage groups by
  own.keys.clear();
  for (const GroupKey& k : t.keys) {
    const GroupKey* match = nullptr;
    if (k.expr->kind == plan::ExprKind::Column && k.expr->source.empty()) {
      for (const GroupKey& f : first->keys) {
        if (f.name == k.expr->column) match = &f;
      }
    }
    if (match == nullptr) return;  // a key computed from the earlier stage's values: no estimate here
    own.keys.push_back(*match);
  }
  cap.table = first_cap->table;
  cap.factors = first_cap->factors;
  cap.predicate = first_cap->predicate;
  cap.join_filters = first_cap->join_filters;
  std::vector<std::string> terms = independent_key_columns(own, *first_pipeline);
  // Without base columns for its keys, the earlier stage's key groups still bound it (a subset of them).
  cap.distinct_columns = terms.empty() ? first_cap->distinct_columns : terms;
  cap.comment = "power of two >= min(" + first->name + "'s rows x selectivity, groups of the independent keys) / load factor";
}

// A group key that pipeline `p` probes (inner or semi, one key column) into a hash table built from an
// earlier stage — an aggregation or an output, rows no statistics describe — takes only keys that
// table holds: at most as many values as rows were built into it. That build counts its rows
// (HashTable::count_buffer) and `cap` takes the bound at run time (Param::count_buffer), in place of
// the key's distinct count. TPC-H Q18's groups by order, whose key is IN (the orders of more than 300
// items): distinct(o_orderkey) made 2^29 slots at SF 100 for ~6 k groups.
void Lowering::counted_bound(const AggregationTable& t, const Pipeline& p, Param& cap) {
  if (cap.distinct_columns.empty()) return;
  for (size_t i = 0; i < p.ops.size(); ++i) {
    const PipelineOp& op = p.ops[i];
    if (op.kind != PipelineOpKind::Probe || op.probe_keys.size() != 1) continue;
    if (op.join_type != plan::JoinType::Inner && op.join_type != plan::JoinType::Semi) continue;
    const auto [ref, field] = key_origin(*op.probe_keys[0], p, i);
    if (ref.first.empty() || !field.empty()) continue;
    const std::string term = physical_table(ref.first) + "." + ref.second;
    if (std::find(cap.distinct_columns.begin(), cap.distinct_columns.end(), term) == cap.distinct_columns.end()) continue;
    // Structured bindings cannot be captured before C++20's P1091 (clang 14 refuses): copy the ref.
    const auto probed = ref;
    const bool grouped = std::any_of(t.keys.begin(), t.keys.end(), [&](const GroupKey& k) {
      const auto origin = key_origin(*k.expr, p, p.ops.size());
      return origin.first == probed && origin.second.empty();
    });
    if (!grouped) continue;
    HashTable* ht = nullptr;
    for (HashTable& h : program_.hash_tables)
      if (h.name == op.hash_table) ht = &h;
    const bool from_stage = std::any_of(program_.pipelines.begin(), program_.pipelines.end(), [&](const Pipeline& b) {
      return b.sink.kind == SinkKind::HashBuild && b.sink.state == op.hash_table && b.source.table.empty();
    });
    if (ht == nullptr || !from_stage) continue;
    if (ht->count_buffer.empty())
      ht->count_buffer = add_buffer({ht->name + "_built", ScalarType::I64, 1, "", 1, Buffer::Fill::Zero, 0,
                                     "rows built into " + ht->name + " (a capacity's bound at run time)"});
    cap.count_buffer = ht->count_buffer;
    cap.count_term = term;
    cap.comment += "; at run time at most the rows built into " + ht->name + " for " + term;
    return;
  }
}

std::vector<std::string> Lowering::independent_key_columns(const AggregationTable& t, const Pipeline& p) const {
  using ColumnRef = std::pair<std::string, std::string>;  // (alias, column)
  std::vector<ColumnRef> refs;
  std::vector<std::string> fields;  // "" = the column itself; "year" / "month": EXTRACT of that date column
  for (const GroupKey& k : t.keys) {
    auto [ref, field] = key_origin(*k.expr, p, p.ops.size());
    refs.push_back(ref);
    fields.push_back(field);
  }
  std::vector<const Pipeline*> pipelines;
  for (const Pipeline& q : program_.pipelines) pipelines.push_back(&q);
  pipelines.push_back(&p);
  auto is_primary_key = [&](const ColumnRef& c) {
    const TableDef* def = catalog_.find(physical_table(c.first));
    return def != nullptr && def->primary_key.size() == 1 && def->primary_key[0] == c.second;
  };
  // Does the key set `in` (flags over t.keys) determine key `k`?
  auto determines = [&](const std::vector<bool>& in, size_t k) {
    std::set<ColumnRef> columns;
    std::set<std::string> rows;  // aliases whose row is fixed
    for (size_t i = 0; i < refs.size(); ++i) {
      if (!in[i] || refs[i].first.empty() || !fields[i].empty()) continue;
      columns.insert(refs[i]);
      if (is_primary_key(refs[i])) rows.insert(refs[i].first);
    }
    for (bool grew = true; grew;) {
      grew = false;
      for (const Pipeline* q : pipelines) {
        for (const PipelineOp& op : q->ops) {
          if (op.kind != PipelineOpKind::Probe) continue;
          const HashTable* ht = program_.find_hash_table(op.hash_table);
          if (ht == nullptr || !ht->unique_keys || ht->keys_only || rows.count(ht->build_alias)) continue;
          bool fixed = !op.probe_keys.empty();
          for (const auto& key : op.probe_keys)
            fixed = fixed && key->kind == plan::ExprKind::Column &&
                    (rows.count(key->source) || columns.count({key->source, key->column}));
          if (fixed) grew = rows.insert(ht->build_alias).second || grew;
        }
      }
    }
    return !refs[k].first.empty() && (rows.count(refs[k].first) || (fields[k].empty() && columns.count(refs[k])));
  };
  std::vector<bool> kept(refs.size(), true);
  for (size_t k = 0; k < refs.size(); ++k) {
    kept[k] = false;
    if (!determines(kept, k)) kept[k] = true;
  }
  std::vector<std::string> out;
  for (size_t k = 0; k < refs.size(); ++k) {
    if (!kept[k]) continue;
    std::string table = refs[k].first.empty() ? "" : physical_table(refs[k].first);
    if (table.empty()) return {};
    out.push_back(fields[k].empty() ? table + "." + refs[k].second : fields[k] + "(" + table + "." + refs[k].second + ")");
  }
  return out;
}

// The scan column a group key reads — through the renames of the pipeline's Maps — and "", or
// "year" / "month" when the key is that EXTRACT of a date column, "modC" when it is the column
// modulo the literal C; ({}, "") when it is computed otherwise.
std::pair<std::pair<std::string, std::string>, std::string> Lowering::key_origin(const plan::Expr& e, const Pipeline& p,
                                                                                size_t ops) const {
  if (e.kind == plan::ExprKind::Column) {
    if (!e.source.empty() && !physical_table(e.source).empty()) return {scan_origin(e.source, e.column, p), ""};
    // A derived table's column: the last Map before `ops` that computed it (its expression may name
    // an attribute of the same name, computed earlier).
    for (size_t i = std::min(ops, p.ops.size()); i-- > 0;) {
      if (p.ops[i].kind != PipelineOpKind::Map) continue;
      for (const plan::NamedExpr& m : p.ops[i].exprs)
        if (m.name == e.column) return key_origin(*m.expr, p, i);
    }
    return {};
  }
  // x % c, as the binder writes it: x - (x / c) * c with a literal c: at most |c| values (2|c| - 1
  // with negative x), "modC" of x.
  if (e.kind == plan::ExprKind::Arith && e.arith == plan::ArithOp::Sub && e.args.size() == 2) {
    const plan::Expr& x = *e.args[0];
    const plan::Expr& mul = *e.args[1];
    if (mul.kind == plan::ExprKind::Arith && mul.arith == plan::ArithOp::Mul && mul.args.size() == 2 &&
        mul.args[1]->kind == plan::ExprKind::Literal && mul.args[0]->kind == plan::ExprKind::Arith &&
        mul.args[0]->arith == plan::ArithOp::Div && mul.args[0]->args.size() == 2 &&
        mul.args[0]->args[1]->kind == plan::ExprKind::Literal && mul.args[0]->args[1]->int_value == mul.args[1]->int_value &&
        mul.args[1]->int_value != 0 && mul.args[0]->args[0]->to_string() == x.to_string()) {
      auto [ref, field] = key_origin(x, p, ops);
      const int64_t c = mul.args[1]->int_value;
      if (!ref.first.empty() && field.empty()) return {ref, "mod" + std::to_string(c < 0 ? -c : c)};
    }
  }
  if (e.kind == plan::ExprKind::Extract && (e.string_value == "year" || e.string_value == "month") && e.args.size() == 1) {
    auto [ref, field] = key_origin(*e.args[0], p, ops);
    if (!ref.first.empty() && field.empty() && e.args[0]->type.id == TypeId::Date) return {ref, e.string_value};
  }
  return {};
}

// A heap-string group key is stored as a row reference (ir/state.h, "Heap strings"). Grouping by row
// references groups by rows, which equals grouping by texts when the group also fixes the row (the
// table's single-column primary key is a group key of the same scan); otherwise the host merges
// the groups whose texts are equal (AggregationTable::merge_on_host).
void Lowering::heap_group_key(const plan::LogicalOp& agg, const plan::Expr& e, const Pipeline& p, GroupKey& k) const {
  std::string alias, column, table;
  if (e.kind == plan::ExprKind::Column) std::tie(alias, column) = scan_origin(e.source, e.column, p);
  if (!alias.empty()) {
    table = physical_table(alias);
  } else if (e.kind == plan::ExprKind::Column) {
    // Row references an earlier stage wrote (a UNION's output): any row may repeat, groups merge on the host.
    std::tie(table, column) = heap_origin(e.source, e.column, p);
  }
  if (table.empty())
    unsupported(agg, "group key " + e.to_string() + ": " + unpacked_why(e.type));
  const TableDef* def = catalog_.find(table);
  bool row_fixed = false;
  if (def != nullptr && def->primary_key.size() == 1) {
    for (const plan::NamedExpr& g : agg.group_by) {
      if (g.expr->kind == plan::ExprKind::Column &&
          scan_origin(g.expr->source, g.expr->column, p) == std::pair{alias, def->primary_key[0]})
        row_fixed = true;
    }
  }
  // Without the primary key equal texts may sit in different rows: the host merges those groups.
  k.merge_on_host = !row_fixed;
  k.heap_table = table;
  k.heap_column = column;
}

// The attribute a chain of copying Maps leads back to (a select item that renames a column, a
// UNION's column): itself when no Map of `p` binds it by copying another attribute.
std::pair<std::string, std::string> Lowering::copy_origin(std::string source, std::string name, const Pipeline& p) const {
  for (int depth = 0; depth < 64; ++depth) {
    if (!source.empty() && !physical_table(source).empty()) break;
    const AttributeBinding* b = p.find_attribute(source, name);
    if (b == nullptr || b->origin != AttributeBinding::Origin::Computed) break;
    const plan::Expr* copied = nullptr;
    for (const PipelineOp& op : p.ops) {
      if (op.id != b->op_id || op.kind != PipelineOpKind::Map) continue;
      for (const plan::NamedExpr& e : op.exprs)
        if (e.name == name && e.expr->kind == plan::ExprKind::Column && !(e.expr->source == source && e.expr->column == name)) copied = e.expr.get();
    }
    if (copied == nullptr) break;
    source = copied->source;
    name = copied->column;
  }
  return {source, name};
}

// The scan column (alias, column) an attribute is: itself when its source is a scan, else (a
// computed attribute) the column Maps of the pipeline copied; empty when it is computed.
std::pair<std::string, std::string> Lowering::scan_origin(const std::string& source, const std::string& name,
                                                          const Pipeline& p) const {
  auto origin = copy_origin(source, name, p);
  if (physical_table(origin.first).empty()) return {};
  return origin;
}

std::pair<std::string, std::string> Lowering::group_key_origin(const std::string& source, const std::string& name,
                                                               const Pipeline& p) const {
  const auto [s, n] = copy_origin(source, name, p);
  if (!physical_table(s).empty()) return {s, n};
  const AggregationTable* agg = p.source.aggregation.empty() ? nullptr : program_.find_aggregation(p.source.aggregation);
  if (agg == nullptr || !s.empty()) return {};
  for (const GroupKey& k : agg->keys) {
    if (k.name != n || k.expr->kind != plan::ExprKind::Column || physical_table(k.expr->source).empty()) continue;
    return {k.expr->source, k.expr->column};
  }
  return {};
}

// The base-table column (table, column) a heap-string attribute's row references point into.
std::pair<std::string, std::string> Lowering::heap_origin(const std::string& source, const std::string& name,
                                                          const Pipeline& p) const {
  const auto [s, n] = copy_origin(source, name, p);
  if (!physical_table(s).empty()) return {physical_table(s), n};
  // A column of the output the pipeline scans keeps the row references it was written with.
  if (const OutputTable* out = p.source.output.empty() ? nullptr : program_.find_output(p.source.output)) {
    for (const OutputColumn& c : out->columns)
      if (c.expr->source == s && c.name == n && !c.heap_table.empty()) return {c.heap_table, c.heap_column};
  }
  // A heap-string group key of the aggregation table the pipeline scans keeps its row references.
  if (const AggregationTable* agg = p.source.aggregation.empty() ? nullptr : program_.find_aggregation(p.source.aggregation)) {
    for (const GroupKey& k : agg->keys)
      if (s.empty() && k.name == n && !k.heap_table.empty()) return {k.heap_table, k.heap_column};
  }
  return {};
}

void Lowering::add_group_keys(const plan::LogicalOp& agg, const Pipeline& p, AggregationTable& t, KeyDomains& d) {
  for (const plan::NamedExpr& g : agg.group_by) {
    GroupKey k;
    if (combining_ != nullptr) {
      // Phase 2: the row references of a heap-string key are phase 1's (a row of its table).
      const GroupKey& partial = combining_->keys.at(t.keys.size());
      k.heap_table = partial.heap_table;
      k.heap_column = partial.heap_column;
      k.merge_on_host = partial.merge_on_host;
    } else if (is_heap_string(g.expr->type, g.expr->dict_table)) {
      heap_group_key(agg, *g.expr, p, k);
    }
    k.name = g.name;
    k.expr = typed(*g.expr, p);
    reject_decimal128(*k.expr, agg.json_path, "a group key");
    // Keys are compared as 64-bit integers; a double would be truncated to one (0.08 and 0.04 in
    // one group 0). Grouping needs its bits, with -0.0 and the NaNs made one value each: not yet.
    if (g.expr->type.id == TypeId::Float64)
      unsupported(agg, g.name + " (" + g.expr->to_string() + ") is double precision, which is not supported as a group key "
                  "(GROUP BY, DISTINCT, UNION) yet");
    k.type = g.expr->type;
    k.dict_table = g.expr->dict_table;
    k.dict_column = g.expr->dict_column;
    const plan::Expr& e = *g.expr;
    std::string table = e.kind == plan::ExprKind::Column ? physical_table(e.source) : "";
    bool has_domain = !table.empty() && (e.type.is_integer_like() || !e.dict_table.empty());
    if (has_domain) {
      if (!e.dict_table.empty()) table = e.dict_table;
      std::string column = e.dict_table.empty() ? e.column : e.dict_column;
      const TableDef* def = catalog_.find(table);
      if (def && is_key_column(*def, column)) d.any_key_column = true;
      std::string base = t.name + "_" + sanitize_identifier(k.name);
      Param min{base + "_min", Param::Source::ColumnMin, scalar_of(k.type), table, column};
      min.comment = "smallest " + table + "." + column;
      k.min_param = add_param(min);
      Param dom{base + "_domain", Param::Source::ColumnDomain, ScalarType::I64, table, column};
      dom.comment = "domain of " + table + "." + column;
      k.domain_param = add_param(dom);
      d.domain_params.push_back(k.domain_param);
    } else {
      d.all_domains = false;
    }
    t.merge_on_host = t.merge_on_host || k.merge_on_host;
    t.keys.push_back(std::move(k));
  }
  d.slots_estimate = 0;
  if (options_.stats && d.all_domains && !t.keys.empty()) {
    d.slots_estimate = 1;
    for (const GroupKey& k : t.keys) {
      const Param* dom = program_.find_param(k.domain_param);
      ColumnStats s = options_.stats->column(dom->table, dom->column);
      uint64_t n = s.valid ? static_cast<uint64_t>(s.max - s.min + 1) : planner::kMaxDirectSlots + 1;
      d.slots_estimate = (d.slots_estimate > planner::kMaxDirectSlots || n > planner::kMaxDirectSlots)
                             ? planner::kMaxDirectSlots + 1
                             : d.slots_estimate * n;
    }
  }
}

void Lowering::choose_aggregation_layout(const Pipeline& p, const KeyDomains& d, AggregationTable& t) {
  if (combining_ != nullptr) {
    // Phase 2 groups what phase 1 grouped: its layout, and the capacity param one process would size
    // the table with (the groups of the whole table; each rank's partial table has its own, sized
    // for the rank's share).
    t.layout = AggLayout::GlobalHash;
    t.slots_param = combining_->slots_param;
  } else if (t.keys.empty()) {
    t.layout = AggLayout::Scalar;
  } else if (d.all_domains &&
             (options_.stats ? d.slots_estimate <= planner::kMaxDirectSlots || sorted_direct_key(p, t) : !d.any_key_column)) {
    t.layout = AggLayout::DirectIndexed;
    Param slots{t.name + "_slots", Param::Source::Product, ScalarType::I64};
    slots.factors = d.domain_params;
    slots.comment = "product of the key domains";
    t.slots_param = add_param(slots);
  } else {
    t.layout = AggLayout::GlobalHash;
    Param cap{t.name + "_capacity", Param::Source::Capacity, ScalarType::I64, p.source.table};
    if (p.source.table.empty()) cap.factors = {p.source.rows_param};
    else cap.predicate = filters_of(p);
    cap.distinct_columns = independent_key_columns(t, p);
    if (!p.source.table.empty()) cap.join_filters = join_filters(p);
    cap.comment = "power of two >= min(rows x selectivity, groups of the independent keys) / load factor";
    later_stage_estimate(t, p, cap);
    counted_bound(t, p, cap);
    t.slots_param = add_param(cap);
  }
}

std::string Lowering::add_slot_buffer(const AggregationTable& t, const std::string& name, ScalarType type, Buffer::Fill fill,
                                      uint64_t pattern, const std::string& comment) {
  return add_buffer({name, type, t.slots_param.empty() ? 1u : 0u, t.slots_param, 1, fill, pattern, comment});
}

void Lowering::add_key_and_flag_buffers(AggregationTable& t) {
  if (t.layout == AggLayout::GlobalHash) {
    // Keys are stored widened to 64 bits, so one device routine serves every key type.
    if (t.keys.size() == 1) {
      GroupKey& k = t.keys[0];
      k.key_buffer = add_slot_buffer(t, t.name + "_key_" + sanitize_identifier(k.name), ScalarType::I64,
                                     Buffer::Fill::Pattern, kEmptyKeyI64, "group key " + k.name);
    } else {
      // Several keys: lanes of one buffer, so one device routine serves any number of keys.
      t.key_lanes = static_cast<uint32_t>(t.keys.size());
      std::string names;
      for (const GroupKey& k : t.keys) names += (names.empty() ? "" : ", ") + k.name;
      std::string buffer = add_buffer({t.name + "_keys", ScalarType::I64, 0, t.slots_param, t.key_lanes, Buffer::Fill::Pattern,
                                       kEmptyKeyI64, "group keys (" + names + "), one lane each per slot"});
      for (uint32_t i = 0; i < t.key_lanes; ++i) {
        t.keys[i].key_buffer = buffer;
        t.keys[i].key_lane = i;
      }
    }
    t.overflow_buffer = add_buffer({t.name + "_overflow", ScalarType::U32, 1, "", 1, Buffer::Fill::Zero, 0,
                                    "nonzero: a group found no slot (rebuild larger)"});
  } else if (t.layout == AggLayout::DirectIndexed) {
    // The slot is computed from the keys' [min, max]; a key outside them raises the flag instead of
    // being dropped, and the runtime refuses the result (statistics and data disagree).
    t.overflow_buffer = add_buffer({t.name + "_overflow", ScalarType::U32, 1, "", 1, Buffer::Fill::Zero, 0,
                                    "nonzero: a group key outside the key domains (no result is given)"});
  }
  t.occupancy_buffer = add_slot_buffer(t, t.name + "_tuples", ScalarType::I64, Buffer::Fill::Zero, 0, "tuples per group (0 = no group)");
}

size_t Lowering::add_accumulator(AggregationTable& t, const plan::LogicalOp& agg, const Pipeline& p, const std::string& name,
                                 plan::AggFunc f, const plan::ExprPtr& arg, DataType type, const plan::ExprPtr& filter,
                                 bool zero_without_input) {
  Accumulator a;
  a.name = name;
  a.func = f;
  a.zero_without_input = zero_without_input;
  a.arg = arg ? typed(*arg, p) : nullptr;
  a.filter = filter ? typed(*filter, p) : nullptr;
  // MIN/MAX of a 128-bit value keep it whole (ir/decimal128.cpp); SUM/AVG of one is not supported.
  const bool wide_extreme = (f == plan::AggFunc::Min || f == plan::AggFunc::Max) && a.arg && is_decimal128(a.arg->type);
  if (a.arg && f != plan::AggFunc::Count && !wide_extreme)
    reject_decimal128(*a.arg, agg.json_path, std::string("the argument of ") + plan::agg_func_name(f));
  a.type = type;
  // Accumulators are 64-bit (the width every device has atomics for): 32-bit values of MIN/MAX
  // (int32, dates, dictionary codes) are widened; floating point stays F64. Decimal sums that
  // may leave 64 bits take two words.
  a.element = type.id == TypeId::Float64 ? ScalarType::F64 : ScalarType::I64;
  // Integer sums too: a 64-bit SUM of integers that may leave 64 bits is 128-bit, never wrapped.
  // A SUM of COUNTs adds up to at most the rows counted: 64 bits.
  // Phase 2 of a two-phase aggregation adds up 64-bit partials: phase 1's bound (the whole table's
  // rows) covers their sum too.
  a.wide = wide_extreme || (f == plan::AggFunc::Sum && !zero_without_input && combining_ == nullptr &&
                            (type.id == TypeId::Decimal || type.id == TypeId::Int64) && sum_may_overflow(*a.arg, p));
  if (f == plan::AggFunc::Sum && options_.stats != nullptr && a.element == ScalarType::I64 && !wide_extreme) {
    const long double bound = magnitude_bound(*a.arg, p);
    if (bound >= 0 && bound < static_cast<long double>(std::numeric_limits<int64_t>::max()))
      a.input_bound = static_cast<uint64_t>(bound);
  }
  uint64_t pattern = wide_extreme                ? 0
                     : f == plan::AggFunc::Min ? fill_min(a.element)
                     : f == plan::AggFunc::Max ? fill_max(a.element)
                                               : 0;
  Buffer b{t.name + "_" + sanitize_identifier(name), a.element, t.slots_param.empty() ? 1u : 0u, t.slots_param, 1,
           pattern ? Buffer::Fill::Pattern : Buffer::Fill::Zero, pattern, std::string(plan::agg_func_name(f)) + " " + name};
  if (a.wide) {
    b.fixed_elements *= 2;
    b.multiplier = 2;
    b.comment += " (128-bit: low, high word per slot)";
  }
  a.buffer = add_buffer(b);
  if (wide_extreme) {
    a.state_buffer = add_slot_buffer(t, t.name + "_" + sanitize_identifier(name) + "_state", ScalarType::U32,
                                     Buffer::Fill::Zero, 0,
                                     std::string(plan::agg_func_name(f)) + " " + name +
                                         ": 0 no value yet, 1 being updated, 2 holds a value (128-bit locked update)");
  }
  t.accumulators.push_back(a);
  return t.accumulators.size() - 1;
}

void Lowering::add_aggregates(const plan::LogicalOp& agg, const Pipeline& p, AggregationTable& t,
                              std::vector<ResultColumn>& columns) {
  columns.clear();
  for (size_t i = 0; i < t.keys.size(); ++i) {
    const GroupKey& k = t.keys[i];
    columns.push_back({k.name, k.type, ResultColumn::Source::GroupKey, i, 0, k.dict_table, k.dict_column, k.heap_table,
                       k.heap_column});
  }
  for (const plan::AggregateExpr& a : agg.aggregates) {
    if ((a.func == plan::AggFunc::Min || a.func == plan::AggFunc::Max) && a.arg && is_heap_string(a.arg->type, a.arg->dict_table))
      unsupported(agg, std::string(plan::agg_func_name(a.func)) + "(" + a.arg->to_string() +
                           ") of a heap string (not dictionary-encoded) is not supported yet");
    if (a.func == plan::AggFunc::Avg) {
      DataType sum_type = a.arg->type.id == TypeId::Decimal ? DataType::decimal(18, a.arg->type.scale)
                          : a.arg->type.id == TypeId::Float64 ? DataType::float64() : DataType::int64();
      size_t s = add_accumulator(t, agg, p, a.name + "__sum", plan::AggFunc::Sum, a.arg, sum_type, a.filter);
      // (Over partial SUMs the count is the sum of their partial COUNTs: 0, not NULL, without rows.)
      size_t c = a.count_arg ? add_accumulator(t, agg, p, a.name + "__count", plan::AggFunc::Sum, a.count_arg,
                                               DataType::int64(), a.filter, true)
                             : add_accumulator(t, agg, p, a.name + "__count", plan::AggFunc::Count, a.arg,
                                               DataType::int64(), a.filter);
      columns.push_back({a.name, a.type, ResultColumn::Source::Average, s, c, "", "", "", ""});
    } else {
      size_t idx = add_accumulator(t, agg, p, a.name, a.func, a.arg, a.type, a.filter, a.zero_without_input);
      // Only MIN/MAX of a dictionary string yield a code to decode; a COUNT of one is a number.
      const bool code = a.arg && (a.func == plan::AggFunc::Min || a.func == plan::AggFunc::Max);
      std::string dt = code ? a.arg->dict_table : "", dc = code ? a.arg->dict_column : "";
      columns.push_back({a.name, a.type, ResultColumn::Source::Accumulator, idx, 0, dt, dc, "", ""});
    }
  }
}

const AggregationTable& Lowering::make_aggregation(const plan::LogicalOp& agg, const Pipeline& p,
                                                   std::vector<ResultColumn>& columns, const std::string& name) {
  AggregationTable t;
  t.name = name.empty() ? "agg" + std::to_string(program_.aggregations.size()) : name;
  t.explicit_nulls = agg.explicit_nulls;
  KeyDomains domains;
  add_group_keys(agg, p, t, domains);
  choose_aggregation_layout(p, domains, t);
  add_key_and_flag_buffers(t);
  add_aggregates(agg, p, t, columns);
  // What the fusion pass decides the CTA's private copy from (resolution model).
  if (t.layout == AggLayout::DirectIndexed) t.expected_slots = domains.slots_estimate;
  if (t.layout == AggLayout::GlobalHash)
    t.expected_slots = combining_ ? combining_->expected_slots : estimated_groups(*program_.find_param(t.slots_param));
  if (t.layout == AggLayout::GlobalHash && !combining_) {
    const uint64_t counts = count_key_groups(t, p);
    if (counts > 0) t.expected_slots = t.expected_slots == 0 ? counts : std::min(t.expected_slots, counts);
  }
  if (t.layout != AggLayout::Scalar) t.sorted_key = sorted_group_key(p, t);
  program_.aggregations.push_back(std::move(t));
  return program_.aggregations.back();
}

const OutputTable& Lowering::make_output(const std::vector<plan::Attribute>& columns, const Pipeline& p,
                                         const std::string& json_path, const std::vector<plan::NamedExpr>* exprs) {
  return make_output(columns, std::vector<const Pipeline*>{&p}, json_path, exprs);
}

const OutputTable& Lowering::make_output(const std::vector<plan::Attribute>& columns, const std::vector<const Pipeline*>& writers,
                                         const std::string& json_path, const std::vector<plan::NamedExpr>* exprs) {
  const Pipeline& p = *writers.front();
  OutputTable out;
  out.name = "out" + std::to_string(program_.outputs.size());
  // A probe with several matches per tuple can write more rows than the source has: the capacity
  // becomes an estimate, checked on the device and grown by the host. So is the sum of several
  // writers' bounds (one of them may scan a table that grows on a re-run).
  const bool multi_match = writers.size() > 1 || matches_several_times(program_, p);
  if (writers.size() > 1) {
    Param cap{out.name + "_capacity", Param::Source::Sum, ScalarType::I64};
    for (const Pipeline* w : writers) cap.factors.push_back(w->source.rows_param);
    cap.comment = "rows of the writers' sources (an estimate: several writers)";
    out.capacity_param = add_param(cap);
  } else if (!p.source.aggregation.empty() && !multi_match) {
    // At most one row per slot of the scanned aggregation table. Its own slots param, not a
    // product of it: when the table grows after an overflow, the output grows with it.
    out.capacity_param = p.source.rows_param;
  } else {
    Param cap{out.name + "_capacity", Param::Source::Product, ScalarType::I64};
    cap.factors = {p.source.rows_param};  // n:1 joins never produce more rows than the source scan
    cap.comment = "rows of the pipeline's source (upper bound)";
    out.capacity_param = add_param(cap);
  }
  for (size_t i = 0; i < columns.size(); ++i) {
    const plan::Attribute& a = columns[i];
    OutputColumn c;
    if (is_heap_string(a.type, a.dict_table)) {
      // A select-list column written by the output reads the attribute its expression names.
      const plan::Expr* e = exprs != nullptr ? exprs->at(i).expr.get() : nullptr;
      std::tie(c.heap_table, c.heap_column) = e != nullptr && e->kind == plan::ExprKind::Column
                                                  ? heap_origin(e->source, e->column, p)
                                                  : exprs != nullptr ? std::pair<std::string, std::string>{}
                                                                     : heap_origin(a.source, a.name, p);
      if (c.heap_table.empty())
        throw Error(ErrorKind::Unsupported, json_path + ": column " + qualified(a.source, a.name) + " is not a column of a base table: " +
                                                unpacked_why(a.type));
      for (const Pipeline* w : writers) {
        if (writers.size() > 1 && heap_origin(a.source, a.name, *w) != std::pair{c.heap_table, c.heap_column})
          throw Error(ErrorKind::Unsupported, json_path + ": column " + a.name + " holds free text of " + c.heap_table + "." + c.heap_column +
                                                  " and of another column: a UNION of different free-text columns is not supported yet");
      }
    }
    c.name = a.name;
    if (exprs != nullptr) {
      c.expr = typed(*exprs->at(i).expr, p);
      c.validity_for = exprs->at(i).validity_for;
    } else {
      c.expr = typed(*plan::make_column(a.source, a.name, a.type), p);
      c.expr->dict_table = a.dict_table;
      c.expr->dict_column = a.dict_column;
    }
    // A 128-bit value (ir/decimal128.cpp) takes two words per row: low, high.
    const bool wide = is_decimal128(c.expr->type);
    c.type = wide ? c.expr->type : a.type;
    c.dict_table = a.dict_table;
    c.dict_column = a.dict_column;
    std::string base = a.source.empty() || physical_table(a.source) == a.source ? a.name : a.source + "_" + a.name;
    c.buffer = add_buffer({out.name + "_" + sanitize_identifier(base), scalar_of(c.type), 0, out.capacity_param, wide ? 2u : 1u,
                           Buffer::Fill::None, 0, "column " + a.name + (wide ? " (128-bit: low, high word per row)" : "")});
    // A select-list column that copies an attribute is NULL where that attribute is.
    const bool copies = c.expr->kind == plan::ExprKind::Column;
    if (copies && p.null_probe(c.expr->source, c.expr->column) >= 0) {
      c.valid_buffer = add_buffer({out.name + "_" + sanitize_identifier(base) + "_valid", ScalarType::I32, 0, out.capacity_param, 1,
                                   Buffer::Fill::None, 0, "1 = " + a.name + " has a value, 0 = NULL (left outer join without a match)"});
    }
    out.columns.push_back(c);
  }
  out.counter_buffer = add_buffer({out.name + "_count", ScalarType::U64, 1, "", 1, Buffer::Fill::Zero, 0, "rows written"});
  if (multi_match) {
    out.overflow_buffer = add_buffer({out.name + "_overflow", ScalarType::U32, 1, "", 1, Buffer::Fill::Zero, 0,
                                      "nonzero: a row found no room (rerun larger)"});
  }
  program_.outputs.push_back(std::move(out));
  return program_.outputs.back();
}

}  // namespace hqc::ir

// State objects of the pipeline IR: run-time parameters, device buffers, and the hash tables,
// aggregation tables and outputs that pipelines share. See ir/program.h for the overview.
//
// Contract:
//   - every data-dependent number (row counts, key minima, key domains, capacities, dictionary
//     codes of literals) is a Param; buffers are sized by Params, never by constants derived from
//     the data, so generated source is identical for every scale factor.
//   - every state object lists the names of its buffers; each name is declared in Program::buffers.
//   - a Param's value comes from resolve_parameters() (ir/resolve_parameters.h) or, for Capacity,
//     from the sizing in planner/sizing.h applied to the statistics.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "frontend/expr.h"
#include "frontend/logical_plan.h"

namespace hqc::ir {

// ---------------------------------------------------------------- heap strings
//
// A heap string (a String column that is not dictionary-encoded: offsets + bytes) has no fixed-width
// value to store in a hash table, a group key or an output. On the device its value is a *row
// reference*: the row index (I32, like every string's scalar_of) of the base table the attribute was
// scanned from. Scans produce it from the row position (plus the Row chunk base: a streamed chunk's
// rows are the table's from its first row on), hash-table payloads and outputs carry it like
// any other value, and the host decodes the text when it assembles the result (ResultColumn::
// heap_table). Comparing two row references says nothing about the texts, so heap strings may not be
// join keys or MIN/MAX arguments; a heap-string group key groups by rows, and unless the table's
// primary key is among the keys the host merges the groups whose texts are equal.
//
// Packed strings. A *computed* string whose length a constant bounds by kMaxPackedStringBytes
// (storage/types.h: 7 bytes) — SUBSTRING(s FROM a FOR n <= 7), a CASE of short string literals — has
// DataType::packed and a value of its own: its bytes big-endian in an I64, zero-padded (pack_string).
// Integer order is byte order for strings without NUL bytes, so comparisons, IN lists, MIN/MAX, join
// keys and group keys work on the integer, as for any I64, and the host unpacks the text when it
// assembles the result. A packed string computed from one dictionary column (its SUBSTRING, upper,
// ...) is a per-code table (Fill::CodeTable) the host fills from the dictionary. Longer or unbounded computed strings have no device value
// (Unsupported wherever one is needed).

// ---------------------------------------------------------------- parameters and buffers

enum class ScalarType : uint8_t { I32, I64, U32, U64, F64 };
const char* scalar_type_name(ScalarType t);  // "i32", "i64", "u32", "u64", "f64"
uint32_t scalar_bytes(ScalarType t);
// Physical element type of values of `t` (Int32/Date/dictionary codes → I32, Int64/Decimal → I64,
// Float64 → F64, Bool → I32).
ScalarType scalar_of(const DataType& t);

struct Param {
  enum class Source : uint8_t {
    RowCount,      // rows of `table`
    ColumnMin,     // ColumnStats::min of table.column (codes for dictionary columns)
    ColumnMax,     // ColumnStats::max
    ColumnDomain,  // max - min + 1 (slots of a perfect-hash or direct-indexed table over the column)
    DictCode,      // code of `literal` in table.column's dictionary, per `match`
    Capacity,      // hash-table slots: planner sizing of rows(table) x selectivity(`predicate`)
    Product,       // product of the params named in `factors` (direct-indexed group slots)
    Sum,           // sum of the params named in `factors` (an output several pipelines append to)
    OutputRows,    // rows an earlier pipeline wrote to output `table` (an OutputTable name):
                   // resolve_parameters() gives the output's capacity (an upper bound); the
                   // executor replaces it with the counter it reads back after that pipeline
    BitmapWords,   // 32-bit words of a bitmap with one bit per unit of factors[0]: ceil(value / 32)
    OutputValue,   // element `word` of column `column` of output `table` (a one-row output: the
                   // value of an uncorrelated scalar subquery, ir/build_pipelines.cpp).
                   // resolve_parameters() gives 0; the executor reads the value back after the
                   // pipeline writing it ran (F64 values travel as their bit pattern in the int64
                   // parameter map). A 128-bit column (Decimal(38, s)) is two params: the low word
                   // (word 0) and high_word_param() of its name (word 1)
    Constant,      // `value`
  };
  std::string name;  // a C identifier, unique in the program: "rows_lineorder", "ht0_capacity"
  Source source = Source::Constant;
  ScalarType type = ScalarType::I64;  // how the kernel receives it
  std::string table;
  std::string column;
  std::string literal;                       // DictCode
  plan::DictMatch match = plan::DictMatch::Equal;
  plan::ExprPtr predicate;                   // Capacity: filter over `table` rows (nullptr = all)
  // Capacity: "table.column" entries (or "year(table.column)" / "month(table.column)" of a date
  // column: planner::distinct_of_term); when present the row estimate is also capped by the product
  // of their distinct counts (group-by hash tables: groups <= product of key cardinalities).
  std::vector<std::string> distinct_columns;
  // Capacity: (table, predicate) of each filtered build side the rows pass through a unique inner
  // join before the table: the estimate is multiplied by the predicate's selectivity over that
  // table (an estimate, not a bound: a table that proves too small grows and the query re-runs).
  std::vector<std::pair<std::string, plan::ExprPtr>> join_filters;
  double load_factor = 0.5;                  // Capacity: occupied fraction the table is sized for
  // Capacity: the table is filled from one rank's share of `table` (a distributed run's rank-local
  // partial groups): each rank sizes it for its own rows (ParamValues::per_rank, runtime rank_plan).
  bool per_rank = false;
  // ColumnMin / ColumnDomain placing the keys of a table that stays on its rank (slot = key - min;
  // ir/pass_rank_key_ranges.cpp): each rank resolves it from its share's values of table.column
  // (ParamValues::per_rank_ranges, runtime rank_plan), so the table spans only the rank's keys.
  bool per_rank_range = false;
  // Capacity: a bound counted at run time. `count_term` (one of distinct_columns) is a group key the
  // pipeline probes into a hash table built from an earlier stage, so it takes at most as many values
  // as rows were built into that table; the build counts them into `count_buffer` (one I64,
  // HashTable::count_buffer). Once that build ran, the executor lowers the value to the slots of
  // count x the other distinct_columns' product (runtime CountedCapacity) and only then allocates the
  // buffers the capacity sizes. resolve_parameters() gives the static value, an upper bound.
  // Without a count_term, count_buffer is an output's row counter (OutputTable::counter_buffer) and
  // bounds the table's entries themselves: it is filled from that output's rows
  // (ir/pass_output_bounds.cpp); the executor lowers the value once the output's last writer ran.
  std::string count_buffer;
  std::string count_term;
  std::vector<std::string> factors;          // Product, Sum
  int64_t value = 0;                         // Constant
  uint32_t word = 0;                         // OutputValue: 1 = the high word of a 128-bit value
  std::string comment;                       // shown by EXPLAIN
  // A Constant 0 that a launch over one chunk of a streamed table takes from the chunk instead
  // (runtime LaunchSpec::chunk_bases): Row = the chunk's first row among `table`'s rows (a chained
  // build's entries, the row references of the table's heap strings); HeapByte = the position in the
  // heap of `table`.`column` of the first byte the chunk's staging holds (the chunk's string offsets
  // are the table's, so a kernel subtracts it).
  enum class ChunkBase : uint8_t { None, Row, HeapByte };
  ChunkBase chunk_base = ChunkBase::None;
  // A Constant bounding one rank's range of a split key (ir/pass_split_combine.cpp): `value` is the
  // key type's smallest (lower bound) or largest value (split_upper), so one rank keeps every key;
  // under mpirun each rank replaces it (runtime rank_plan) by the bound of its slice of
  // [min, min + domain) — the values of split_min_param and split_domain_param, the key's range by
  // the statistics — the first rank's lower and the last rank's upper bound staying open. Empty: not one.
  std::string split_min_param;
  std::string split_domain_param;
  bool split_upper = false;
};

struct Buffer {
  std::string name;  // a C identifier, unique in the program: "ht0_keys", "agg0_sum_revenue"
  ScalarType element = ScalarType::I64;
  // elements = fixed_elements + multiplier * value(elements_param) (param empty: fixed only)
  uint64_t fixed_elements = 0;
  std::string elements_param;
  uint64_t multiplier = 1;
  // CodeTable: element c = `per_code` (an expression whose only column is dictionary column
  // set_table.set_column) for the string of code c: a flag or integer (I32 or I64) or a packed
  // string (I64, "Packed strings" above). resolve_parameters computes the contents on the host
  // (ParamValues::contents); ir/pass_dictionary_tables.cpp creates these buffers.
  enum class Fill : uint8_t { Zero, Pattern, None, CodeTable };
  Fill fill = Fill::Zero;
  uint64_t pattern = 0;  // Fill::Pattern: the element's bit pattern (e.g. empty-slot markers)
  std::string comment;
  std::string set_table;    // Fill::CodeTable
  std::string set_column;
  plan::ExprPtr per_code;
};

// ---------------------------------------------------------------- 128-bit decimals
//
// Tables store decimals in 64 bits (precision <= 18). A decimal SUM that statistics cannot bound
// within int64 is 128-bit (Accumulator::wide); where a later stage reads it, the IR types it
// Decimal(38, s) — precision above 18 means 128 bits, two's complement in two words (low, high) —
// and so is everything computed from it (ir/decimal128.cpp). Never a table column's type.
inline DataType decimal128(uint8_t scale) { return DataType::decimal(38, scale); }
inline bool is_decimal128(const DataType& t) { return t.id == TypeId::Decimal && t.precision > 18; }

// The param holding the high word of the 128-bit OutputValue param `name` (whose own value is the
// low word); an ExprKind::Param of type Decimal(38, s) reads both.
inline std::string high_word_param(const std::string& name) { return name + "_hi"; }

// Bit patterns used as fill values. The code generator uses the same constants for comparisons.
inline constexpr uint64_t kEmptyKeyI32 = 0x80000000ull;            // INT32_MIN: never a key
inline constexpr uint64_t kEmptyKeyI64 = 0x8000000000000000ull;    // INT64_MIN
inline constexpr uint64_t kMaxI64 = 0x7fffffffffffffffull;         // MIN accumulators start here
inline constexpr uint64_t kMinI64 = 0x8000000000000000ull;         // MAX accumulators start here

// ---------------------------------------------------------------- hash tables (joins)

enum class HashLayout : uint8_t {
  PerfectHash,     // slot = key - key_min; capacity = key domain; key must be in [min, max]
  LinearProbing,   // slot = hash(key) & (capacity - 1), then +1 until free; capacity a power of 2
  // Non-unique keys: one slot per distinct key (linear probing on the first key column from the
  // hash of all key columns), each slot the head of a list of entries. An entry is a build row
  // (entry_base + the row), so payload and the other key columns are indexed by entry and a build
  // writes them where it read its row; `next` links the entries of one slot (-1 ends the list).
  Chained,
};
const char* hash_layout_name(HashLayout l);

struct HashTable {
  std::string name;  // "ht0"
  HashLayout layout = HashLayout::PerfectHash;
  std::string build_table;             // physical table of the build-side scan
  std::string build_alias;
  std::vector<plan::ExprPtr> build_keys;  // over the build pipeline's attributes
  std::vector<plan::Attribute> payload;   // build attributes the probe side needs, in order
  // Build keys cover a primary key: at most one match per probe. When false the table is a
  // multi-map (Chained: a list of entries per distinct key; LinearProbing where a build row may
  // insert several times: duplicates occupy separate slots of one chain) and probes visit every
  // match.
  bool unique_keys = true;
  // Semi/anti joins without a residual probe for existence only: the table holds keys and no
  // payload; on one key column the build inserts a key only when it is absent, so a non-unique
  // build key occupies one slot (composite keys store every build row).
  bool keys_only = false;
  std::string capacity_param;   // slots
  std::string key_min_param;    // PerfectHash and perfect_slots only
  std::vector<std::string> key_buffers;      // one per key column, filled with the empty marker
  std::vector<std::string> payload_buffers;  // parallel to `payload`
  std::string overflow_buffer;  // one u32; nonzero after the build = rebuild with more capacity
  // Chained only: entries (the build pipeline's rows: payload buffers and key columns past the
  // first hold one element per entry), the first entry of a launch (0; a chunk's first row when the
  // build's scan streams in chunks), the list heads (I64 per slot, -1 = none) and links (I64 per entry).
  std::string entries_param;
  std::string entry_base_param;
  // Chained on one dense integer key: slot = key - key_min (capacity = the key's domain, as
  // PerfectHash) instead of a search from the hash.
  bool perfect_slots = false;
  std::string head_buffer;
  std::string next_buffer;
  // PerfectHash only, non-empty: one bit per slot (U32 words, BitmapWords of the capacity), set by the
  // build for each key it inserts; a probe tests the bit before it reads the key. For large tables
  // whose build keeps a subset of its table's rows: the bitmap stays in L2, the keys do not — most
  // probes that find nothing read no key (TPC-H Q17's 20 M part keys at SF 100, 0.1 % of them built).
  // Only where the statistics expect the build to keep few rows (Lowering::add_probe_bitmap).
  std::string bitmap_buffer;
  // PerfectHash without payload (a semi / anti join's keys, or unique keys an inner join only
  // filters by): key_buffers[0] holds one bit per slot (U32 words, BitmapWords of
  // the capacity, zero = not built), not the keys — slot = key - key_min says the key. 32x smaller
  // than a key per slot (TPC-H Q4's order keys at SF 10: 7.5 MB instead of 240), so the build writes
  // and the probes read L2 (templates/device/hash_table.h, "Key bits"). Not for a table merged
  // across ranks (merged_keys: an elementwise maximum of key slots). No probe bitmap.
  bool key_bits = false;
  // key_bits: the build reads a word before it sets bits there (duplicate keys in no order), else it
  // sets them without a read (unique or sorted keys: each word updated about once).
  bool key_bits_read_first = false;
  // Non-empty: one I64 the build adds its rows to (those reaching the sink, duplicates of a keys-only
  // table included, so at least its distinct keys) — a capacity bounded at run time reads it
  // (Param::count_buffer). Only builds from an earlier stage (an aggregation or an output) count.
  std::string count_buffer;
  // Distributed runs: built from a rank's partition and probed only by rows of the same rank (a join
  // of co-partitioned tables on their partition key, BuildOptions::partition_keys, or of groups
  // keyed by that key, AggregationTable::partition_keyed): never merged.
  bool rank_local = false;
  // Distributed runs, with rank_local: built from the build rows a shuffle sent the rank (those whose
  // keys hash to it, ir/shuffle_join.cpp) and probed by the probe rows sent there. Its keys are
  // scattered over the whole domain, not the rank's share's range (no per-rank key placement).
  bool shuffled = false;
  // How the join's rows meet across ranks and why (EXPLAIN): the estimates a broadcast and a shuffle
  // were weighed by; empty where neither was a choice.
  std::string exchange_note;
  // Distributed runs: a keys-only perfect-hash table (a semi / anti join asking whether a key
  // exists) built on every rank from its share of a partitioned table joined on another key than
  // the partition key (TPC-H Q22's NOT EXISTS orders by o_custkey), made whole by the elementwise
  // maximum of its key slots — a slot holds its key or the empty marker, the smallest value — instead
  // of every rank building it from all ranks' rows gathered. No probe bitmap.
  bool merged_keys = false;
};

// ---------------------------------------------------------------- aggregation tables

enum class AggLayout : uint8_t {
  Scalar,         // no group keys: one slot
  DirectIndexed,  // slot = mixed-radix index over the key domains (product of domains slots)
  GlobalHash,     // open addressing over packed keys in global memory
};
const char* agg_layout_name(AggLayout l);

struct GroupKey {
  std::string name;      // output name
  plan::ExprPtr expr;    // over the aggregating pipeline's attributes
  DataType type;
  std::string dict_table;   // decode codes through this dictionary (empty: not a string)
  std::string dict_column;
  std::string min_param;     // DirectIndexed: smallest key value
  std::string domain_param;  // DirectIndexed: max - min + 1
  // GlobalHash: the buffer holding this key, widened to I64, at element slot * key_lanes + key_lane
  // (AggregationTable::key_lanes). One key: its own buffer, empty slots kEmptyKeyI64. Several keys:
  // one buffer of key_lanes lanes per slot, lane 0 also the slot's state (templates/device/group_by.h).
  std::string key_buffer;
  uint32_t key_lane = 0;
  // Heap string (not dictionary-encoded): the key is a row reference into this base table's
  // column (see "Heap strings" above); the host decodes the text. Groups are per row: exact as they
  // are when a key determines the row (the table's primary key is a key too), else merge_on_host.
  std::string heap_table;
  std::string heap_column;
  bool merge_on_host = false;  // no key fixes the row: the host merges groups of equal texts
  // DirectIndexed: slot = sum_i (key_i - min_i) * stride_i, stride of the last key = 1.
};

// One accumulator. AVG is lowered into a Sum and a Count accumulator plus an Average result column.
struct Accumulator {
  std::string name;         // "revenue", or "avg_price__sum" for a hidden half of an AVG
  plan::AggFunc func = plan::AggFunc::Sum;  // Sum, Count, CountStar, Min, Max (never Avg)
  bool zero_without_input = false;          // a SUM of COUNTs: 0 without input rows (plan::AggregateExpr)
  // NULL where a single-tuple aggregate saw no rows (SUM, MIN, MAX); COUNTs are 0 there.
  bool nullable() const { return func != plan::AggFunc::Count && func != plan::AggFunc::CountStar && !zero_without_input; }
  plan::ExprPtr arg;        // nullptr for CountStar
  plan::ExprPtr filter;     // only rows where it holds are aggregated (plan::AggregateExpr::filter), or nullptr
  DataType type;            // result type
  ScalarType element = ScalarType::I64;  // I64, or F64 for floating point (32-bit values widen)
  // Exact 128-bit SUM (two I64 words per slot: low, high) where 64 bits may overflow: a Decimal
  // SUM whose bound rows x max |argument| (from statistics; always without them) exceeds INT64_MAX.
  // Also MIN/MAX of a 128-bit value (ir/decimal128.cpp): two words per slot, zero-filled, guarded
  // by state_buffer.
  bool wide = false;
  // SUM: the largest |argument| the statistics prove (its columns' bounds through the arithmetic),
  // 0 where unknown. Codegen sums a warp's inputs in 32 bits where 32 of them fit.
  uint64_t input_bound = 0;
  std::string buffer;       // one element per slot (two when wide)
  // 128-bit MIN/MAX only: one U32 per slot, zero-filled — 0 no value yet, 1 being updated, 2 holds
  // a value (the locked update of templates/device/base.h; no 128-bit atomic exists).
  std::string state_buffer;
};

// The host reads an aggregation table through a dense copy of its occupied slots, made on the
// device right after the aggregating pipeline (pass compact_result, templates/compact/compact.h):
// every word of an occupied slot (occupancy, key lanes, accumulators; two words of a 128-bit sum)
// moves to row r of the dense buffers, rows in slot order, so the transfer back and the host's work
// scale with the groups, not the slots. A direct-indexed table also keeps each row's slot index
// (its keys are decoded from it).
// Chunks a compacted table is cut into at most: HQC_COMPACT_CHUNKS of templates/compact/compact.h.
inline constexpr uint64_t kCompactChunks = 16384;
// The compaction module's kernels (codegen::compaction_module), and the columns one gather launch
// copies (HQC_COMPACT_COLUMNS).
inline constexpr const char* kCompactCountKernel = "hqc_compact_count";
inline constexpr const char* kCompactGatherKernel = "hqc_compact_gather";
inline constexpr const char* kCompactGatherSlotsKernel = "hqc_compact_gather_slots";
// The compaction module's kernel behind ORDER BY ... LIMIT k of a compacted table on the device
// (runtime/execution/device_top_k.h): each dense row's first sort key as an ordered unsigned word.
inline constexpr const char* kOrderWordsKernel = "hqc_order_words";
inline constexpr size_t kCompactColumns = 8;
// The compaction kernels' launch: a grid of kCompactGrid CTAs of a multiple of kCompactBlock
// work-items, enough to keep an H100 busy (1024 x 256 work-items, ~one wave of its 132 SMs) and few
// enough that each CTA of the gather sums the chunk counts before its range once.
inline constexpr uint64_t kCompactGrid = 1024;
inline constexpr uint32_t kCompactBlock = 256;
struct CompactedColumn {
  std::string from;      // the table's buffer
  std::string to;        // the dense buffer (same element type and words per slot)
  uint32_t words = 1;    // elements per slot: key lanes, 2 for a 128-bit sum
};
struct Compaction {
  std::string counts_buffer;  // U64 per chunk (HQC_COMPACT_CHUNKS): occupied slots of the chunk
  std::string rows_buffer;    // one U64: the dense rows (= groups)
  std::string slot_buffer;    // DirectIndexed: I64 slot index per dense row; empty otherwise
  std::vector<CompactedColumn> columns;
  const std::string* dense(const std::string& from) const {
    for (const CompactedColumn& c : columns)
      if (c.from == from) return &c.to;
    return nullptr;
  }
};

struct AggregationTable {
  std::string name;  // "agg0"
  AggLayout layout = AggLayout::Scalar;
  std::vector<GroupKey> keys;
  std::vector<Accumulator> accumulators;
  std::string slots_param;       // Scalar: empty (1 slot)
  std::string occupancy_buffer;  // u64 count of tuples per slot: > 0 = the group exists
  std::string overflow_buffer;   // GlobalHash only
  uint32_t key_lanes = 1;        // GlobalHash: elements of the key buffer per slot (= keys.size())
  // Slots a direct-indexed table is expected to need (the product of its key domains), groups a
  // global hash table is expected to hold, from the statistics; 0 = unknown. The fusion pass decides
  // the privatisation below from it.
  uint64_t expected_slots = 0;
  // Scratchpad privatization (C3 under the resolution model; decided by pass fuse_pipelines): a
  // direct-indexed table is replicated per CTA in scratchpad when slots * bytes_per_slot <= the
  // target's budget (Program::scratchpad_budget_bytes); a global hash table gets a small hashed
  // table per CTA of local_slots_param slots (a Constant param: max_scratchpad_slots) that it
  // merges into the global one at the end.
  bool scratchpad = false;
  std::string local_slots_param;  // GlobalHash with scratchpad only
  // A group key is a column of the aggregating pipeline's scanned base table that the statistics
  // show sorted (ColumnStats::sorted; false without statistics): the rows arrive in runs of one
  // group, which a C2 on CUDA combines per warp before its atomics (codegen/sink_emitter.cpp).
  bool sorted_key = false;
  // A heap-string key without its table's primary key among the keys: the device groups by row
  // references (one group per row at most), the host merges groups whose decoded keys are equal.
  bool merge_on_host = false;
  // Scalar: the logical plan states where its SUM/MIN/MAX/AVG are NULL (plan::LogicalOp::explicit_nulls),
  // so a later pipeline reading it over no rows needs no check (runtime/execution/lower_program.cpp).
  bool explicit_nulls = false;
  uint32_t scratchpad_bytes_per_slot = 0;  // resolution model: a slot of the CTA's copy
  uint64_t max_scratchpad_slots = 0;       // the bound the decision was made against
  // Set by pass compact_result for the table the host reads as the query's result.
  std::optional<Compaction> compaction;
  // Two-phase hashed aggregation (distributed compiles, ir/two_phase_aggregation.cpp). rank_local:
  // phase 1, one rank's partial groups over its share of a partitioned table — never merged across
  // ranks; only the pipeline that materializes its groups (keys and partial accumulators) scans it.
  // combines: phase 2, the rank-local table whose groups, merged across ranks as rows of that output,
  // this table combines by key (SUM of sums and counts, MIN of mins, MAX of maxes); empty otherwise.
  bool rank_local = false;
  std::string combines;
  // Also rank_local: grouped by the partition key (ir/rank_local_groups.cpp), so each rank's groups
  // are complete and no other rank has them; only a rank-local join build (probed by the rank's own
  // keys) reads it.
  bool partition_keyed = false;
  // Phase 2 split across ranks (ir/pass_split_combine.cpp). split_candidates (phase 2, set with
  // `combines`): the keys, by index into `keys`, whose values phase 2 could split its rows by —
  // integer-backed, with a range by the statistics — the most distinct first. split_key: the key this
  // table's phase-2 pipeline splits by (it keeps the rows whose key lies in the rank's range). Each
  // rank then holds a disjoint part of the groups (split_groups; also a table aggregated from such a
  // table by that key): the result's compacted rows are gathered after the compaction, and any
  // other split table is read on its rank only.
  std::vector<size_t> split_candidates;
  std::string split_key;
  bool split_groups = false;
  // A split table the result reads under ORDER BY ... LIMIT (no window functions, no groups merged on
  // the host): LIMIT + OFFSET, the rows of each rank that can be among the first of the result are
  // all that crosses to rank 0 (runtime StateMerge::top_k). -1: every row.
  int64_t top_k = -1;
};

// ---------------------------------------------------------------- materialized outputs

struct OutputColumn {
  std::string name;
  plan::ExprPtr expr;
  DataType type;
  std::string dict_table;
  std::string dict_column;
  std::string buffer;
  std::string heap_table;   // heap string: row references into heap_table.heap_column
  std::string heap_column;
  // A left outer join's payload is NULL where the probe found no match: one i32 per row, 1 = a
  // value, 0 = NULL (empty: never NULL). Only in the query's result output, not across a
  // pipeline break.
  std::string valid_buffer;
  // This (i32) column is the validity of column `validity_for` of the same output (1 = a value, 0 =
  // NULL; plan::NamedExpr::validity_for): the result reads it as that column's NULLs.
  std::string validity_for;
};

struct OutputTable {
  std::string name;  // "out0"
  std::vector<OutputColumn> columns;
  std::string capacity_param;   // rows the buffers can hold (rows of the source: an upper bound
                                // unless a probe has several matches per tuple)
  std::string counter_buffer;   // one u64: rows written (the A2/A3 write-position counter)
  // One u32 when capacity_param is an estimate (a probe of the pipeline may match several times):
  // nonzero = a row found no room; the host doubles the capacity and re-runs. Empty otherwise.
  std::string overflow_buffer;
  // Distributed: the columns (indices into `columns`, one per join key, in the join's key order) by
  // whose values each row is sent to one rank — hash(values) mod ranks — instead of to every rank: a
  // shuffle join's two sides (ir/shuffle_join.cpp). Empty: the rows are gathered to every rank.
  std::vector<size_t> shuffle_columns;
};

}  // namespace hqc::ir

// Internal to ir/: the state shared by the two halves of build_program() — pipeline breaking
// (build_pipelines.cpp) and state-object construction (build_state.cpp). Not a public header.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ir/build_pipelines.h"

namespace hqc::ir {

using AttrKey = std::pair<std::string, std::string>;  // (source alias, name)
using AttrSet = std::set<AttrKey>;

// Attributes referenced by `e` (Column nodes).
void collect_refs(const plan::Expr& e, AttrSet& out);
// A C identifier made of [A-Za-z0-9_] from `text`.
std::string sanitize_identifier(const std::string& text);

class Lowering {
 public:
  Lowering(Program& program, const Catalog& catalog, const BuildOptions& options)
      : program_(program), catalog_(catalog), options_(options) {}

  void lower(const plan::LogicalPlan& plan);

  // ---- build_pipelines.cpp: breaking and attribute binding
  void produce(const plan::LogicalOp& op, Pipeline& current, const AttrSet& needed);
  int finish(Pipeline& p);
  void bind(Pipeline& p, const plan::Attribute& a, AttributeBinding::Origin origin, int op_id, size_t payload_index);
  // Multi-stage queries: an aggregate below another operator ends its own pipeline, and `current`
  // starts over its table; a join without keys against a single-row side (an uncorrelated scalar
  // subquery) runs that side first and passes its values as run-time params.
  void produce_aggregate_source(const plan::LogicalOp& agg, Pipeline& current, const AttrSet& needed);
  void produce_single_row_join(const plan::LogicalOp& join, Pipeline& current, const AttrSet& needed);
  // UNION ALL: each operand's pipeline appends `columns` (attributes of `op`) to one shared output;
  // returns its name and the writing pipelines.
  std::pair<std::string, std::vector<int>> produce_union(const plan::LogicalOp& op, const std::vector<plan::Attribute>& columns);
  // A new pipeline scanning output `out_name` (written by `writers`) that binds `columns`.
  Pipeline scan_output(const std::string& out_name, const std::vector<plan::Attribute>& columns, const std::vector<int>& writers);
  // Distributed: the join matches co-partitioned tables on their partition key (a rank-local build).
  bool co_partitioned_join(const plan::LogicalOp& op, const Pipeline& build) const;
  // ---- rank_local_groups.cpp: groups keyed by the partition key stay on their rank
  // Every value of `key` over `op`'s rows is the partition key of a row of the rank's own share; then
  // `group`, when given, receives the partition group of that key's table (BuildOptions::partition_groups).
  bool home_key(const plan::LogicalOp& op, const plan::Expr& key, std::string* group = nullptr, int depth = 0) const;
  // BuildOptions::partition_groups of `table` ("" when not listed).
  std::string partition_group(const std::string& table) const;
  // The Aggregate on `join`'s build side whose groups, keyed by the partition key, the rank keeps
  // and builds from (probed by its own keys only); nullptr: none.
  const plan::LogicalOp* rank_local_build(const plan::LogicalOp& join) const;
  // rank_local_build's descent: the Aggregate under `build_side` grouped by `build_key` (through
  // filters and copying projections) when that key is a home value of partition group `group`.
  const plan::LogicalOp* home_groups(const plan::LogicalOp& build_side, const plan::Expr& build_key, const std::string& group) const;
  // The Aggregate at the source of the pipeline that ends in `op`'s materialization into the result
  // (through filters, maps, projections and join probes) when its groups are keyed by a home value:
  // the rank keeps them, and their rows reach the result merged as the output's rows; nullptr: none.
  const plan::LogicalOp* rank_local_materialized(const plan::LogicalOp& op) const;
  // Ends `current` with a Materialize of `columns` into a new output; the pipeline scanning it.
  Pipeline materialize_and_scan(const plan::LogicalOp& op, Pipeline& current, const std::vector<plan::Attribute>& columns);
  // The query's result is output `out`, its columns named and typed as `schema`.
  void set_output_result(const OutputTable& out, const std::vector<plan::Attribute>& schema);

  // ---- shuffle_join.cpp: a join over a partitioned build side on another key, broadcast or shuffled
  // Decides each join's exchange on the logical plan, before any pipeline is built (shuffled_joins_,
  // exchange_notes_).
  void choose_join_exchanges(const plan::LogicalOp& root);
  bool shuffled(const plan::LogicalOp& join) const { return shuffled_joins_.count(&join) != 0; }
  // The rows `op` produces are the rank's own: a partitioned table's share (down probe sides) or a
  // shuffled join's.
  bool rows_on_share(const plan::LogicalOp& op, int depth = 0) const;
  // The pipeline's source rows are the rank's own (Program::scans_share).
  bool scans_share(const Pipeline& p) const { return program_.scans_share(p); }
  // Once `join`'s build rows (`build_rows`) are materialized into `build_output` (empty: they were
  // not) and its probe side is produced into `current`: records on `hash_table` how the join's rows
  // meet (HashTable::exchange_note) and, when the join is shuffled and its columns can travel, marks
  // the table rank-local and shuffled and cuts `current` (shuffle_probe_side); else a broadcast.
  void exchange_join(const plan::LogicalOp& join, const std::string& build_output, const std::vector<plan::Attribute>& build_rows,
                     const std::string& hash_table, Pipeline& current, const AttrSet& probe_needed);
  // Marks both outputs' shuffle keys, ends `current` in the probe rows' materialization and
  // continues it from their scan; false (nothing changed) where the columns cannot travel.
  bool shuffle_probe_side(const plan::LogicalOp& join, const std::string& build_output, const std::vector<plan::Attribute>& build_rows,
                          Pipeline& current, const AttrSet& probe_needed);

  // ---- build_state.cpp: params, buffers, state objects
  std::string add_param(Param p);
  std::string add_buffer(Buffer b);
  std::string rows_param(const std::string& table);
  // Physical table of a scan alias ("" for computed attributes and unknown aliases).
  std::string physical_table(const std::string& alias) const;
  const HashTable& make_hash_table(const plan::LogicalOp& join, const Pipeline& build,
                                   const std::vector<plan::Attribute>& payload);
  // Whether `key` (typed over `build`) places its values by slot = key - min: a column of a table
  // (through renames and group keys: key_table / key_column receive it) whose domain is small
  // enough — repeated keys without statistics only when it is a key column.
  bool perfect_hash_key(const plan::Expr& key, const Pipeline& build, bool unique, std::string& key_table,
                        std::string& key_column) const;
  // `columns` receives how each output attribute of `agg` (group keys ++ aggregates, in order)
  // reads the table: the result columns when it is the query's result, and the source bindings of
  // a pipeline that scans it.
  // `name` empty: the next "aggN".
  const AggregationTable& make_aggregation(const plan::LogicalOp& agg, const Pipeline& p, std::vector<ResultColumn>& columns,
                                           const std::string& name = "");
  // ---- two_phase_aggregation.cpp
  // Ends `p` in the Aggregate sink of `agg` (make_aggregation): one table, or — a hashed aggregation
  // over a partitioned table in a distributed compile — a rank-local partial table, a pipeline
  // materializing its groups and one combining them into the final table. Returns the final table's
  // name (the one the rest of the program reads) and the id of the pipeline that fills it.
  std::pair<std::string, int> aggregate(const plan::LogicalOp& agg, Pipeline& p, std::vector<ResultColumn>& columns);
  // Whether `t`, just made over `p`, is aggregated in two phases (what phase 2 can express).
  bool two_phase(const AggregationTable& t, const Pipeline& p) const;
  // The keys of a two-phase table's partial whose values phase 2 could split across ranks
  // (AggregationTable::split_candidates, two_phase_aggregation.cpp).
  std::vector<size_t> split_candidates(const AggregationTable& partial) const;
  // make_aggregation's steps, in order: the group keys (and what their domains allow), the layout
  // and its slot count, the key and flag buffers, the accumulators and result columns of the
  // aggregates (make_aggregation then records the slots the statistics expect).
  struct KeyDomains {
    bool all_domains = true;           // every key is a column with a known [min, max]
    bool any_key_column = false;       // some key is a key column of its table
    std::vector<std::string> domain_params;
    uint64_t slots_estimate = 0;       // product of the domains by statistics; 0 = unknown
  };
  void add_group_keys(const plan::LogicalOp& agg, const Pipeline& p, AggregationTable& t, KeyDomains& d);
  void choose_aggregation_layout(const Pipeline& p, const KeyDomains& d, AggregationTable& t);
  std::string add_slot_buffer(const AggregationTable& t, const std::string& name, ScalarType type, Buffer::Fill fill,
                              uint64_t pattern, const std::string& comment);
  void add_key_and_flag_buffers(AggregationTable& t);
  size_t add_accumulator(AggregationTable& t, const plan::LogicalOp& agg, const Pipeline& p, const std::string& name,
                         plan::AggFunc f, const plan::ExprPtr& arg, DataType type, const plan::ExprPtr& filter,
                         bool zero_without_input = false);
  void add_aggregates(const plan::LogicalOp& agg, const Pipeline& p, AggregationTable& t, std::vector<ResultColumn>& columns);
  void heap_group_key(const plan::LogicalOp& agg, const plan::Expr& e, const Pipeline& p, GroupKey& k) const;
  std::pair<std::string, std::string> copy_origin(std::string source, std::string name, const Pipeline& p) const;
  std::pair<std::string, std::string> scan_origin(const std::string& source, const std::string& name, const Pipeline& p) const;
  std::pair<std::string, std::string> heap_origin(const std::string& source, const std::string& name, const Pipeline& p) const;
  // Largest |value| of `e` over pipeline `p`; a computed attribute stands for the expression of the
  // Map that binds it.
  long double magnitude_bound(const plan::Expr& e, const Pipeline& p, int depth = 0) const;
  std::vector<std::string> independent_key_columns(const AggregationTable& t, const Pipeline& p) const;
  // The capacity estimate of a later grouped stage over an earlier hashed group table (build_state.cpp).
  void later_stage_estimate(const AggregationTable& t, const Pipeline& p, Param& cap) const;
  // The bound a hash table built from an earlier stage puts on a group key at run time (build_state.cpp).
  void counted_bound(const AggregationTable& t, const Pipeline& p, Param& cap);
  // HashTable::bitmap_buffer of a large perfect-hash table built from a subset of its rows (build_state.cpp).
  void add_probe_bitmap(HashTable& ht, const Pipeline& build, const std::string& key_table, const std::string& key_column);
  uint64_t estimated_groups(const Param& capacity) const;
  // Groups expected of a hashed table whose one key is an earlier stage's COUNT (TPC-H Q13's
  // c_count: orders per customer), or 0 when the key is not one (build_state.cpp).
  uint64_t count_key_groups(const AggregationTable& t, const Pipeline& p) const;
  // scan_origin, and for an attribute of the aggregation table p scans, the scan column its group
  // key is (a direct column of the aggregating pipeline's scan): the column whose values it takes.
  std::pair<std::string, std::string> group_key_origin(const std::string& source, const std::string& name, const Pipeline& p) const;
  // AggregationTable::sorted_key: a group key is a column of p's scanned base table that the
  // statistics show sorted.
  bool sorted_group_key(const Pipeline& p, const AggregationTable& t) const;
  // A single group key that is a sorted column of p's scan, whose domain is at most
  // planner::kSortedDirectSparsity x its distinct values and planner::kMaxPerfectHashSlots: the
  // table is direct-indexed over that domain, however large (choose_aggregation_layout).
  bool sorted_direct_key(const Pipeline& p, const AggregationTable& t) const;
  std::vector<std::pair<std::string, plan::ExprPtr>> join_filters(const Pipeline& p) const;
  std::pair<std::pair<std::string, std::string>, std::string> key_origin(const plan::Expr& e, const Pipeline& p, size_t ops) const;
  bool sum_may_overflow(const plan::Expr& arg, const Pipeline& p) const;
  // The one pipeline that wrote output `out` (nullptr: none, or several — a UNION ALL).
  const Pipeline* output_writer(const std::string& out) const;
  // Sets Expr::overflow_check on every 64-bit + - * and raised decimal scale in `e` whose bound
  // over `p` (magnitude_bound) does not prove it stays within int64.
  void mark_overflow_checks(plan::Expr& e, const Pipeline& p) const;
  // ---- decimal128.cpp: 128-bit decimal sums read by later stages
  // A copy of `e` typed over `p`'s bindings: Decimal(38, s) wherever a 128-bit value flows.
  plan::ExprPtr typed(const plan::Expr& e, const Pipeline& p) const;
  // Throws Error(Unsupported) when `e` is a 128-bit value used as `role` ("a join key", ...).
  void reject_decimal128(const plan::Expr& e, const std::string& where, const std::string& role) const;

  // `exprs` (parallel to `columns`, optional): what each column stores; default: the attribute.
  const OutputTable& make_output(const std::vector<plan::Attribute>& columns, const Pipeline& p, const std::string& json_path,
                                 const std::vector<plan::NamedExpr>* exprs = nullptr);
  // An output several pipelines append to (a UNION ALL's operands, which all bind `columns`): its
  // capacity is the sum of theirs, an estimate checked on the device (the host grows it and re-runs).
  const OutputTable& make_output(const std::vector<plan::Attribute>& columns, const std::vector<const Pipeline*>& writers,
                                 const std::string& json_path, const std::vector<plan::NamedExpr>* exprs = nullptr);

  // The operator-at-a-time model materializes each operator's output (a pipeline break after it);
  // see build_pipelines.cpp, operator_break().
  bool operator_break(const plan::LogicalOp& op, const Pipeline& current, const AttrSet& needed) const;

  Program& program_;
  const Catalog& catalog_;
  const BuildOptions& options_;
  std::map<std::string, std::string> alias_table_;
  int next_op_id_ = 0;
  const plan::LogicalOp* top_ = nullptr;  // the operator whose output is the result (never broken after)
  // While make_aggregation builds a phase-2 table: the rank-local table whose partials it combines
  // (its keys' heap strings, its capacity and its accumulators' widths carry over).
  const AggregationTable* combining_ = nullptr;
  // Aggregates rank_local_build chose, aggregated into a rank-local table (Lowering::aggregate).
  std::set<const plan::LogicalOp*> rank_local_aggregates_;
  // make_hash_table builds a table merged across ranks (HashTable::merged_keys): no probe bitmap.
  bool merging_keys_ = false;
  // choose_join_exchanges: the joins whose two sides are shuffled by key, and for every join it
  // weighed, how its rows meet and why (HashTable::exchange_note).
  std::set<const plan::LogicalOp*> shuffled_joins_;
  std::map<const plan::LogicalOp*, std::string> exchange_notes_;
};

}  // namespace hqc::ir

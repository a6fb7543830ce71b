// The bound logical plan: an operator tree whose expressions are typed and whose column references
// are resolved against the catalog. Produced by the JSON plan binder (frontend/json_plan.h) and,
// later, by the SQL binder (frontend/sql/); consumed by the pipeline IR builder (ir/build_pipelines.h).
//
// Contract:
//   - every node's `schema` lists the attributes it outputs, in order; a parent's expressions only
//     reference attributes of its children's schemas (the binder guarantees it).
//   - Join: children[0] is the probe side, children[1] the build side; probe_keys[i] = build_keys[i].
//     The output schema is probe schema ++ build schema (semi/anti: probe schema only). A left
//     outer join's build columns are NULL where a probe row has no match (see explicit_nulls).
//   - Aggregate: output schema is group keys (in order) ++ aggregates (in order); AVG stays an AVG
//     here (the IR splits it into SUM and COUNT). It may sit below any operator (HAVING, maps over
//     aggregates, joins, other aggregates).
//   - Join without keys (probe_keys and build_keys empty): a cross product; the IR accepts it only
//     as an inner join whose build side yields at most one row (an uncorrelated scalar subquery).
//   - Union (UNION ALL): two or more children whose schemas have the Union's types position by
//     position (the binder casts); the output is every child's rows, its attributes the Union's own
//     (their `source` names the Union, so they never collide with a child's). UNION, INTERSECT and
//     EXCEPT are an Aggregate (and a Filter) over a Union (frontend/sql/sql_set_operations.cpp).
//   - Window: only directly below OrderBy/Limit (or at the root): SQL window functions over the
//     query's result rows (frontend/sql/sql_windows.h). Its schema is its child's, where each
//     window's placeholder attribute gets the window's type; the runtime computes the windows on
//     the device from the assembled result's columns and drops the `hidden` ones after ORDER BY.
//   - OrderBy/Limit sit above everything else (the binder rejects them elsewhere), so the host can
//     apply them to the assembled result.
//   - `json_path` is where the node came from ("$.plan.input"), for later error messages.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "frontend/expr.h"

namespace hqc::plan {

enum class OpKind : uint8_t { Scan, Filter, Map, Project, Join, Aggregate, Union, Window, OrderBy, Limit };
enum class JoinType : uint8_t { Inner, Semi, Anti, LeftOuter };
enum class AggFunc : uint8_t { Sum, Count, CountStar, Min, Max, Avg };

struct Attribute {
  std::string source;  // scan alias, or "" for a computed attribute
  std::string name;    // column name or computed name (the output name users see)
  DataType type;
  std::string dict_table;   // set when the values are codes of a dictionary column
  std::string dict_column;
};

// A column expression reading attribute `a`, with its dictionary (string codes stay decodable).
ExprPtr make_column(const Attribute& a);

struct NamedExpr {
  std::string name;
  ExprPtr expr;
  // Only in the query's last Project: this (Int32) expression is 1 where output `validity_for` of
  // the same Project has a value and 0 where it is SQL NULL. It is computed on the device like any
  // column; the result folds it into that column's NULLs and does not show it.
  std::string validity_for;
};

struct AggregateExpr {
  std::string name;
  AggFunc func = AggFunc::Sum;
  ExprPtr arg;  // nullptr for CountStar
  DataType type;  // result type: SUM of integers/decimals keeps the scale in Int64/Decimal(18,s);
                  // COUNT is Int64; AVG is Float64; MIN/MAX keep the argument type
  // A SUM that adds up COUNTs (a DISTINCT aggregation's partial counts, frontend/sql/sql_distinct.cpp):
  // 0, not NULL, when it sees no rows, like the COUNT it stands for.
  bool zero_without_input = false;
  // Only rows where this predicate holds reach the aggregate (nullptr: every row). The SQL binder
  // uses it to skip NULL arguments: `sum(o.x)` over a left outer join adds the rows where o matched.
  ExprPtr filter;
  // AVG only: the rows' counts are the values of this expression (an AVG over a DISTINCT rewrite's
  // partial SUMs, frontend/sql/sql_distinct.cpp: the sum of `arg` over the sum of `count_arg`);
  // nullptr: each row counts once.
  ExprPtr count_arg;
};

struct SortKey {
  std::string name;  // an output attribute of the input
  bool descending = false;
};

enum class WindowFunc : uint8_t { RowNumber, Rank, DenseRank, Sum, Count, CountStar, Min, Max, Avg, Lag, Lead };
// Which rows of its partition a window aggregate sees (in the partition's ORDER BY order): up to
// the current row and its peers (equal ORDER BY keys; SQL's default RANGE frame), up to the
// current row (ROWS), all of them (also what a window without ORDER BY sees), or the rows from
// `frame_start` to `frame_end` rows away from the current one (Rows: ROWS BETWEEN 6 PRECEDING AND
// CURRENT ROW is -6 .. 0; either end may be unbounded, the partition's first / last row).
enum class WindowFrame : uint8_t { RangeToCurrentRow, RowsToCurrentRow, WholePartition, Rows };

// One window function. Every attribute it names is an output attribute of the Window's input.
struct WindowExpr {
  std::string name;  // the attribute it fills: a placeholder of the input (a constant column)
  WindowFunc func = WindowFunc::RowNumber;
  DataType type;     // result type: BIGINT ranks and counts, SUM keeps the scale (Int64/Decimal(18,s)),
                     // MIN/MAX/LAG/LEAD keep the argument's, AVG is Float64
  std::string arg;   // the aggregated (Sum, Count, Min, Max, Avg) or shifted (Lag, Lead) attribute, else ""
  int64_t offset = 1;  // Lag/Lead: how many rows back / ahead in the partition (NULL past its ends)
  std::vector<std::string> partition_by;
  std::vector<SortKey> order_by;  // NULLs last in both directions
  WindowFrame frame = WindowFrame::RangeToCurrentRow;
  int64_t frame_start = 0, frame_end = 0;  // Rows
  bool start_unbounded = false, end_unbounded = false;
};

struct LogicalOp {
  OpKind kind = OpKind::Scan;
  std::string json_path;
  std::vector<std::unique_ptr<LogicalOp>> children;
  std::vector<Attribute> schema;
  // Explicit fusion marker from the plan ("pipeline_break": true): the node's output is
  // materialized and a new pipeline starts above it, even where fusion would continue.
  bool pipeline_break = false;

  // Scan
  std::string table;
  std::string alias;
  // Filter
  ExprPtr predicate;
  // Map (appends to the input schema) / Project (replaces it)
  std::vector<NamedExpr> exprs;
  // Join
  JoinType join_type = JoinType::Inner;
  std::vector<ExprPtr> probe_keys;
  std::vector<ExprPtr> build_keys;
  // LeftOuter: the binder tests NULLs itself, through the build side's match indicator
  // (frontend/sql/sql_nulls.h); a probe row without a match reads every build column as 0.
  // Without it, build columns are NULL there and may only be output or counted.
  // Aggregate without GROUP BY: the binder tests its NULLs itself too — a count of the rows (or of
  // each filtered aggregate's rows) says where SUM/MIN/MAX/AVG saw no value — so a later pipeline
  // may read its value over no rows (zeroed by the binder) without the executor's check.
  bool explicit_nulls = false;
  // Semi/anti join: a predicate over probe and build attributes a match must also satisfy (Q21's
  // l2.l_suppkey <> l1.l_suppkey), or nullptr.
  ExprPtr residual;
  // Aggregate
  std::vector<NamedExpr> group_by;
  std::vector<AggregateExpr> aggregates;
  // Window: the functions, and the input attributes computed only for them (dropped after ORDER BY);
  // OrderBy: `hidden`, the input attributes computed only to sort by (dropped after it)
  std::vector<WindowExpr> windows;
  std::vector<std::string> hidden;
  // OrderBy
  std::vector<SortKey> sort_keys;
  // Limit: `offset` rows (in ORDER BY order) skipped, then at most `limit` kept (-1: all)
  int64_t limit = -1;
  int64_t offset = 0;

  // Rows this operator is estimated to produce, where a planner estimated them (the SQL join
  // orderer, frontend/join_order.h: each join and each relation it joins); -1 where none did.
  // EXPLAIN prints it as "~N rows"; nothing downstream depends on it.
  double estimated_rows = -1;

  const LogicalOp& child(size_t i) const { return *children.at(i); }
};

struct LogicalPlan {
  std::string name;  // "q1.1" (from the plan's "name", else the file stem)
  std::unique_ptr<LogicalOp> root;
};

const char* op_kind_name(OpKind k);          // "scan", "filter", ...
const char* join_type_name(JoinType t);      // "inner", "semi", "anti", "left_outer"
const char* agg_func_name(AggFunc f);        // "sum", "count", "count_star", "min", "max", "avg"
const char* window_func_name(WindowFunc f);
// Every attribute `w` names: what it fills, its argument, its PARTITION BY and ORDER BY keys.
std::vector<std::string> window_attributes(const WindowExpr& w);
// "rnk := rank() over (partition by a order by b desc, range to current row): int64" (EXPLAIN).
std::string explain_window(const WindowExpr& w);  // "row_number", "rank", "dense_rank", "sum", ..., "count_star"

// Stable indented text form (EXPLAIN LOGICAL), one node per line, children indented by two spaces;
// with `estimates`, operators that carry a row estimate end in "~N rows".
std::string explain_logical(const LogicalPlan& plan, bool estimates = true);

}  // namespace hqc::plan

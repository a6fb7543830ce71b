// The horseqc SQL AST: a small, binder-friendly form of the one SELECT statement a query is.
// Produced by frontend/sql/sql_parser.h from libpg_query's JSON parse tree; consumed by the binder
// (frontend/sql/sql_binder.h).
//
// Contract:
//   - every node keeps `location`, the byte offset of its first token in the query text (or -1
//     when the parser does not know it), so every later error can point at line:column;
//   - the AST is untyped and unresolved: names are spelled as written (lower-cased by the parser
//     for unquoted identifiers), literals keep their text (decimals are not rounded);
//   - operands live in `args` in a fixed order per kind, documented on SqlExprKind.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hqc::sql {

struct SelectStmt;

enum class SqlExprKind : uint8_t {
  Column,       // qualifiers: ["alias", "column"] or ["column"]
  IntLiteral,   // int_value
  DecimalLiteral,  // text: "0.05" as written
  StringLiteral,   // text
  DateLiteral,     // text: "1998-12-01" (date '...' or '...'::date)
  IntervalLiteral, // int_value units of `interval_unit` (interval '90' day)
  NullLiteral,
  Binary,       // text: operator ("+", "=", "<>", "||", ..., "is distinct from", "is not distinct
                // from"); args: left, right
  Negate,       // args: operand
  And,          // args: two or more
  Or,           // args: two or more
  Not,          // args: operand
  Between,      // args: value, low, high; negated for NOT BETWEEN
  InList,       // args: value, items...; negated for NOT IN
  Like,         // args: value, pattern; negated for NOT LIKE; text "ilike" for ILIKE, else "like"
  IsNull,       // args: operand; negated for IS NOT NULL
  Case,         // args: when1, then1, ..., else (NullLiteral when absent); a simple CASE x WHEN v
                // is rewritten into searched form (x = v) by the parser
  Function,     // text: lower-case name; args; distinct (COUNT(DISTINCT x)); star (COUNT(*));
                // filter (an aggregate's FILTER (WHERE ...)); COALESCE and NULLIF are functions too
  Extract,      // text: field ("year"); args: operand
  Substring,    // args: string, start, length (length may be absent)
  Cast,         // text: target type name ("date", "numeric", "integer"); args: operand
  Exists,       // subquery; negated for NOT EXISTS
  InSubquery,   // args: value; subquery; negated for NOT IN (subquery)
  ScalarSubquery,  // subquery
  Attribute,    // text: a plan attribute reference ("__matched_o"); never parsed, made by rewrites
                // (frontend/sql/sql_nulls.h) to name hidden attributes
};

enum class IntervalUnit : uint8_t { Day, Month, Year };

struct SqlExpr;
using SqlExprPtr = std::shared_ptr<SqlExpr>;
struct WindowOver;

struct SqlExpr {
  SqlExprKind kind = SqlExprKind::NullLiteral;
  int location = -1;
  std::vector<std::string> qualifiers;  // Column
  std::string text;
  int64_t int_value = 0;
  IntervalUnit interval_unit = IntervalUnit::Day;
  bool negated = false;
  bool distinct = false;
  bool star = false;
  std::vector<SqlExprPtr> args;
  std::shared_ptr<SelectStmt> subquery;
  std::shared_ptr<SqlExpr> filter;  // Function: an aggregate's FILTER (WHERE filter), or nullptr
  std::shared_ptr<WindowOver> over;  // Function: a window function's OVER (...), or nullptr

  // SQL text of the expression, normalized (lower-case keywords, single spaces, no redundant
  // parentheses): the output name of an unaliased select item, "sum(lo_revenue)".
  std::string to_sql() const;
};

enum class TableRefKind : uint8_t { Table, Join, Subquery };
enum class SqlJoinType : uint8_t { Inner, Left, Right, Full, Cross };

struct TableRef {
  TableRefKind kind = TableRefKind::Table;
  int location = -1;
  std::string name;   // Table: the table (or CTE) name
  std::string alias;  // "" when none was written
  std::vector<std::string> column_names;  // `alias (c1, c2, ...)`: names of the item's columns in order
  // Join
  SqlJoinType join_type = SqlJoinType::Inner;
  std::shared_ptr<TableRef> left, right;
  SqlExprPtr on;  // nullptr for CROSS JOIN / comma
  // Subquery
  std::shared_ptr<SelectStmt> subquery;
};

struct SelectItem {
  SqlExprPtr expr;    // nullptr for `*`
  std::string alias;  // "" when none was written
  int location = -1;
  // The output column's name: the alias, else a column's own name, else the expression's text.
  std::string output_name() const;
};

struct OrderItem {
  SqlExprPtr expr;
  bool descending = false;
  int location = -1;
};

// The frames horseqc evaluates: from the partition's first row to the current row and its peers
// (RANGE, the default with ORDER BY), to the current row (ROWS), or the whole partition.
enum class WindowFrame : uint8_t { RangeToCurrentRow, RowsToCurrentRow, WholePartition, Rows };

struct WindowOver {
  std::vector<SqlExprPtr> partition_by;
  std::vector<OrderItem> order_by;
  WindowFrame frame = WindowFrame::RangeToCurrentRow;
  // Rows: ROWS BETWEEN <start> AND <end>, each a row offset from the current row (k PRECEDING is
  // -k, CURRENT ROW 0, m FOLLOWING m) or unbounded (the partition's first / last row).
  int64_t frame_start = 0, frame_end = 0;
  bool start_unbounded = false, end_unbounded = false;
  int location = -1;
  // "partition by a order by b desc" (what SqlExpr::to_sql prints inside OVER (...)).
  std::string to_sql() const;
};

struct CommonTable {
  std::string name;
  std::vector<std::string> column_names;
  std::shared_ptr<SelectStmt> query;
  int location = -1;
};

// A set operation's operands are whole SELECTs (`left`, `right`); its own WITH, ORDER BY and LIMIT
// apply to the combined result, and its items/from/where/... are empty.
enum class SetOperation : uint8_t { None, Union, Intersect, Except };

struct SelectStmt {
  int location = -1;
  SetOperation set_op = SetOperation::None;
  bool set_all = false;  // UNION ALL / INTERSECT ALL / EXCEPT ALL
  std::shared_ptr<SelectStmt> left, right;
  bool distinct = false;
  std::vector<CommonTable> with;
  std::vector<SelectItem> items;
  std::vector<std::shared_ptr<TableRef>> from;
  SqlExprPtr where;
  std::vector<SqlExprPtr> group_by;
  SqlExprPtr having;
  std::vector<OrderItem> order_by;
  std::optional<int64_t> limit;
  int64_t offset = 0;      // OFFSET: rows skipped (after ORDER BY) before LIMIT counts
  int limit_location = -1;  // LIMIT's count, else OFFSET's
  bool limits() const { return limit.has_value() || offset > 0; }
};

const char* kind_name(SqlExprKind k);
// The first window function call (a Function with OVER) in `e`, or nullptr.
const SqlExpr* find_window_call(const SqlExpr& e);
// Whether `e` or any operand is a scalar subquery.
bool contains_scalar_subquery(const SqlExpr& e);  // "column", "between", "scalar subquery", ... for messages

}  // namespace hqc::sql

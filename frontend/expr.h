// Bound, typed scalar expressions: what the binder produces from JSON (and later SQL) expressions,
// and what the pipeline IR and the code generator consume unchanged.
//
// Contract:
//   - every Expr carries its result DataType; the binder has checked operand types, so consumers
//     never re-check (the IR verifier does, to catch bugs in passes).
//   - a Column names an attribute by (source, column): `source` is the alias of the scan that
//     produced it ("lineorder", or "n1" for a self-join) or "" for an attribute computed by a
//     map/project/aggregate; `column` is the column name or the computed attribute's name.
//   - string literals compared with a Dictionary column never appear as strings: the binder turns
//     them into DictCode nodes (a run-time parameter: the code of the literal in that column's
//     dictionary), so kernel source does not depend on the data. The IR fills DictCode::param with
//     the parameter's name.
//   - operands live in `args`, in a fixed order per kind (documented on ExprKind).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "storage/types.h"

namespace hqc::plan {

enum class ExprKind : uint8_t {
  Column,    // attribute reference (source, column)
  Literal,   // int_value for integer-backed types (decimals scaled, dates day numbers), float_value
             // for Float64, string_value for strings compared with heap columns
  DictCode,  // run-time parameter: code of string_value in dict_table.dict_column (see DictMatch)
  Arith,     // args: left, right
  Compare,   // args: left, right
  And,       // args: two or more conjuncts
  Or,        // args: two or more disjuncts
  Not,       // args: operand
  Between,   // args: value, low, high (inclusive both ends)
  InList,    // args: value, item1, item2, ...
  Case,      // args: when1, then1, when2, then2, ..., else (strings: packed values and literals,
             // the result packed)
  Cast,      // args: operand; converts to `type` (integer widening, decimal rescale, to Float64)
  Like,      // args: value (a string); string_value: the pattern ('%' any run, '_' one byte, no
             // escape character; frontend/like_pattern.h); Bool. NOT LIKE is Not(Like); ILIKE is
             // LIKE of lower(value) with the pattern lowered. Over a dictionary column only General
             // patterns remain (the binder turns the others into code comparisons); the IR reads
             // them from a per-code table (CodeTable).
  Substring, // args: value (a string), start, length (Int32 literals, start 1-based as in SQL);
             // result: varchar(length), packed (DataType::packed, ir/state.h "Packed strings")
             // when length <= kMaxPackedStringBytes. Over a dictionary column (packed only) the IR
             // reads it from a per-code table (CodeTable).
  Extract,   // args: operand (a Date); string_value: field "year", "quarter", "month", "day", "dow"
             // (0 = Sunday) or "doy" (1 = January 1st); Int32
  DateTrunc, // args: operand (a Date); string_value: "year", "quarter", "month", "week" (ISO: the
             // Monday) or "day"; Date: the first day of the operand's year, quarter, ...
  AddMonths, // args: operand (a Date); int_value: months to add (negative: subtract); Date, its day of
             // month clamped to the length of the target month (1995-01-31 + 1 month = 1995-02-28, as
             // in PostgreSQL and DuckDB). SQL's `d + interval '3' month` / `'1' year` of a non-constant d.
  Param,     // run-time parameter `param` of `type`: a value an earlier stage of the same query
             // computed (the value of an uncorrelated scalar subquery). Never written by users:
             // the IR creates it (ir/build_pipelines.cpp) and the executor supplies the value.
  StringFn,  // string function `string_fn` (StringFn below documents each one's args and type);
             // byte-wise, as LIKE and SUBSTRING (frontend/string_functions.h)
  CodeTable, // args: a dictionary column; `param`: a per-code table buffer whose element c is the
             // value, for the column's string of code c, of an expression whose only column is that
             // one (ir/pass_dictionary_tables.cpp). Never written by users: the IR creates it.
  Round,     // args: value (a number); int_value: SQL's digits n (negative: tens, hundreds, ...);
             // halves away from zero, as DuckDB: Float64 → round(v * 10^n) / 10^n (v where that is
             // not finite; n < 0: round(v / 10^-n) * 10^-n, 0 where not finite); a decimal of
             // scale s > n → decimal(p, max(n, 0)); an integer (n < 0) → Int64. The binder returns
             // the value itself where nothing rounds (n >= the scale).
};

// ExprKind::StringFn. Strings are bytes; upper/lower map ASCII letters only; trim removes spaces.
//   Upper, Lower, Trim, LTrim, RTrim  args: s                      result: a string of at most s's length
//   Length                            args: s                      result: Int64 (bytes)
//   Position                          args: s, needle              result: Int64, 1-based first
//                                                                  occurrence, 0 when absent (strpos)
//   Replace                           args: s, from, to (literals) result: every `from` in s replaced
//   Concat                            args: a, b                   result: a followed by b
// A string result of at most kMaxPackedStringBytes bytes (bounded by its arguments' lengths) is packed.
enum class StringFn : uint8_t { Upper, Lower, Trim, LTrim, RTrim, Length, Position, Replace, Concat };

enum class ArithOp : uint8_t { Add, Sub, Mul, Div };
enum class CompareOp : uint8_t { Eq, Ne, Lt, Le, Gt, Ge };

// How a DictCode literal is resolved against an order-preserving dictionary:
//   Equal       the code of the string, or -1 when absent (so `code == p` matches no row)
//   LowerBound  first code whose string >= literal  (col >= 'x'  is  code >= LowerBound)
//   UpperBound  first code whose string >  literal  (col <= 'x'  is  code <  UpperBound)
//   PrefixEnd   first code after those whose string starts with literal (col LIKE 'x%' is
//               LowerBound <= code < PrefixEnd: an order-preserving dictionary keeps them contiguous)
enum class DictMatch : uint8_t { Equal, LowerBound, UpperBound, PrefixEnd };

struct Expr;
using ExprPtr = std::shared_ptr<Expr>;

struct Expr {
  ExprKind kind = ExprKind::Literal;
  DataType type;

  // Column
  std::string source;
  std::string column;
  // For a Column that reads a Dictionary string column: the physical table/column whose dictionary
  // decodes it (also set on computed attributes that just rename such a column). Empty otherwise.
  std::string dict_table;
  std::string dict_column;

  // Literal / DictCode
  int64_t int_value = 0;
  double float_value = 0.0;
  std::string string_value;
  DictMatch match = DictMatch::Equal;
  std::string param;  // DictCode: name of the run-time parameter; CodeTable: its per-code buffer
                      // (both assigned by the IR); Param: the parameter's name
  StringFn string_fn = StringFn::Upper;

  ArithOp arith = ArithOp::Add;
  // Arith (+ - *) or Cast raising a scale, computed in 64 bits: the device checks it for overflow
  // (the IR sets this where the operands' bounds do not prove it fits; codegen/expr_emitter.h).
  bool overflow_check = false;
  CompareOp compare = CompareOp::Eq;
  std::vector<ExprPtr> args;

  // Text form used by EXPLAIN and error messages, stable across runs:
  // "(lineorder.lo_quantity < 25)", "dict_eq(customer.c_region, 'ASIA')", "sum(...)".
  std::string to_string() const;
};

// Constructors that set `type` consistently. They do not check operand types (the binder does).
ExprPtr make_column(std::string source, std::string column, DataType type);
ExprPtr make_int_literal(int64_t value, DataType type);
ExprPtr make_float_literal(double value);
ExprPtr make_string_literal(std::string value, DataType type);
ExprPtr make_dict_code(std::string table, std::string column, std::string literal, DictMatch match);
ExprPtr make_arith(ArithOp op, ExprPtr left, ExprPtr right, DataType type);
ExprPtr make_compare(CompareOp op, ExprPtr left, ExprPtr right);
ExprPtr make_logical(ExprKind and_or, std::vector<ExprPtr> args);
ExprPtr make_not(ExprPtr operand);
ExprPtr make_cast(ExprPtr operand, DataType type);
ExprPtr make_like(ExprPtr value, std::string pattern);
ExprPtr make_substring(ExprPtr value, int32_t start, int32_t length);
ExprPtr make_extract(std::string field, ExprPtr date);
ExprPtr make_round(ExprPtr value, int64_t digits, DataType type);
ExprPtr make_date_trunc(std::string field, ExprPtr date);
ExprPtr make_add_months(ExprPtr date, int64_t months);
// The fields ExprKind::Extract and ExprKind::DateTrunc take (the binder's and codegen's one list).
bool is_extract_field(const std::string& field);
bool is_date_trunc_field(const std::string& field);
ExprPtr make_param(std::string name, DataType type);
// `type` is the result type (frontend/bind_expr.cpp string_fn_type computes it from the arguments).
ExprPtr make_string_fn(StringFn fn, std::vector<ExprPtr> args, DataType type);
ExprPtr make_code_table(ExprPtr dictionary_column, std::string buffer, DataType type);

// Deep copy (the IR rewrites DictCode::param on its own copy, never on the logical plan's).
ExprPtr clone(const Expr& e);
// Calls f on e and every sub-expression, pre-order.
template <typename F>
void visit(const Expr& e, F&& f) {
  f(e);
  for (const ExprPtr& a : e.args) visit(*a, f);
}
template <typename F>
void visit_mutable(Expr& e, F&& f) {
  f(e);
  for (const ExprPtr& a : e.args) visit_mutable(*a, f);
}

const char* arith_symbol(ArithOp op);      // "+", "-", "*", "/"
const char* compare_symbol(CompareOp op);  // "=", "<>", "<", "<=", ">", ">="
const char* dict_match_name(DictMatch m);  // "eq", "lower_bound", "upper_bound", "prefix_end"
const char* string_fn_name(StringFn f);    // "upper", "lower", "trim", "ltrim", "rtrim", "length", "strpos", "replace", "concat"

}  // namespace hqc::plan

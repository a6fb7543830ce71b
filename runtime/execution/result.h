// A query result on the host: named, typed columns of equal length, and the host-side finishing
// steps that follow the kernels (dictionary decoding, AVG finalisation, ORDER BY, LIMIT, output).
//
// Contract:
//   - Values are stored in their physical form: Int32/Int64/Date/Decimal (scaled) in `ints`,
//     Float64 in `floats`, String in `strings` (decoded). Exactly the vector matching the type
//     has rows() entries; validate() checks it.
//   - SQL NULL: `valid` is empty when every value is present, else it has one entry per row
//     (0 = NULL; the value vector still holds a placeholder there so all vectors stay aligned).
//     Formats print NULL in `table`, an empty field in `csv`, null in `json`; sort() puts NULLs
//     last in both directions (DuckDB's default NULLS LAST).
//   - sort() is stable and compares strings byte-wise, decimals by scaled value (all decimals of a
//     column share its scale), so ties keep kernel output order and the rest is deterministic.
//   - Formatting is exact for integers and decimals (decimals print all `scale` digits: "12.50"),
//     dates print as YYYY-MM-DD, floats print the shortest text that reads back to the same double.
//   - JSON: {"columns":[{"name":..,"type":..}],"rows":[[..],..]}; decimals and dates are JSON
//     strings so no reader turns them into binary floating point.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "storage/types.h"

namespace hqc::runtime {

struct ResultColumn {
  std::string name;
  DataType type;
  std::vector<int64_t> ints;
  // 128-bit integers (exact decimal sums that may exceed 64 bits): when non-empty, one entry per
  // row, and the value is highs[r] * 2^64 + (uint64_t)ints[r] (ints then hold the low words).
  std::vector<int64_t> highs;
  std::vector<double> floats;
  std::vector<std::string> strings;
  std::vector<uint8_t> valid;  // empty: no NULLs; else one entry per row, 0 = NULL

  uint64_t rows() const;
  bool is_null(uint64_t row) const { return !valid.empty() && valid[row] == 0; }
  // Marks `row` NULL (materialising `valid` on the first NULL) and resets its value to a
  // placeholder, so no stale number or sentinel can leak through a format or a sort.
  void set_null(uint64_t row);
  // Whether every 128-bit value fits in int64 (each high word only extends its low word's sign);
  // true for a column without high words.
  bool fits_int64() const;
  // Text of one value as the formats print it (without CSV/JSON quoting); "NULL" for a NULL.
  std::string text(uint64_t row) const;
};

enum class ResultFormat { Table, Csv, Json };

// "table", "csv", "json"; throws Error(Usage) otherwise.
ResultFormat parse_result_format(const std::string& text);

struct SortKey {
  size_t column = 0;
  bool descending = false;
};

class Result {
 public:
  std::vector<ResultColumn> columns;

  uint64_t rows() const { return columns.empty() ? 0 : columns.front().rows(); }
  // Index of the column named `name`; throws Error(Internal) listing the columns when absent.
  size_t index_of(const std::string& name) const;
  // Throws Error(Internal) when a column's storage does not match its type or lengths differ.
  void validate() const;

  void sort(const std::vector<SortKey>& keys);
  // Every row index in sort(keys) order (ties in row order), without reordering anything.
  std::vector<uint64_t> sorted_order(const std::vector<SortKey>& keys) const;
  // The first `k` rows of sort(keys) (ties in row order, exactly as the stable sort puts them), as
  // row indices in that order, in O(n log k) without reordering anything: ORDER BY ... LIMIT k
  // over a large result compares keys only and touches the other columns of k rows.
  std::vector<uint64_t> top_k(const std::vector<SortKey>& keys, uint64_t k) const;
  void limit(uint64_t count);
  // Drops the first `count` rows (OFFSET).
  void skip(uint64_t count);
  // Keeps these rows, in this order, of every column (columns without rows stay empty).
  void select_rows(const std::vector<uint64_t>& rows);
  // Keeps and reorders columns (the query's SELECT list over the computed columns).
  void project(const std::vector<size_t>& order);

  std::string format(ResultFormat format) const;
};

// Dictionary codes (an integer column, 64-bit: MIN/MAX accumulators hold widened codes) → strings.
// NULL rows stay NULL (their code is not looked at). Throws Error(Internal) naming the column when
// a code is outside the dictionary: a wrong code is a bug, never printed as some other string.
ResultColumn decode_dictionary(const ResultColumn& codes, const std::vector<std::string>& dictionary,
                               DataType string_type);

// AVG = SUM / COUNT as Float64, computed as DuckDB does (a Decimal sum: sum / (count x 10^scale) in
// long double, one rounding to double). A NULL sum (no input rows) gives
// a NULL average. Otherwise a group with count 0 cannot occur (a group exists because a row
// reached it); a 0 count there throws Error(Internal).
ResultColumn finalize_average(const std::string& name, const ResultColumn& sum, const ResultColumn& count);

}  // namespace hqc::runtime

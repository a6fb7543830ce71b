// Turning generated values into storage columns laid out the way the catalog declares them.
//
// Contract: the generator produces integers, free strings, or indexes into a small vocabulary; these
// helpers store them in the vector that the column's (type, encoding) calls for (column.h), build
// order-preserving dictionaries from the values that actually occur (so a generated table equals the
// same table loaded from its .tbl file), compute statistics, and refuse, with an Internal error naming
// the column, a catalog type the generator cannot fill (that is a horseqc bug, not a user error).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "storage/catalog.h"
#include "storage/column.h"
#include "storage/table.h"

namespace hqc::ssb {

// The catalog's definition of `table.column`; Internal error when the catalog lacks it.
const ColumnDef& column_def(const TableDef& table, const char* column);

// An integer-backed column (Int32, Int64, Decimal, Date) of `rows` zeros, to be filled with put().
// Rows may be written concurrently from different threads as long as each row has one writer.
// `max_value` is the largest value the generator will put(); the constructor refuses (Unsupported,
// naming the column) a 32-bit column that cannot hold it, so put() never truncates.
class IntColumn {
 public:
  // Deferred: the values are allocated by allocate() (see allocate_in_parallel), not here.
  enum class Allocation { Now, Deferred };
  IntColumn(const ColumnDef& def, uint64_t rows, int64_t max_value, Allocation when = Allocation::Now);
  // Allocates the `rows` zeros; required before put() when construction deferred it.
  void allocate();
  void put(uint64_t row, int64_t value) {
    if (i32_) i32_[row] = static_cast<int32_t>(value);
    else i64_[row] = value;
  }
  // Computes statistics and hands the column over.
  Column finish();

 private:
  Column column_;
  uint64_t rows_;
  int32_t* i32_ = nullptr;
  int64_t* i64_ = nullptr;
};

// Allocates many deferred columns at once: zero-filling gigabytes is the one part of generating a
// large fact table that would otherwise run on a single thread.
void allocate_in_parallel(unsigned threads, const std::vector<IntColumn*>& columns);

// A string column from one string per row, dictionary- or heap-encoded as `def` says.
Column string_column(const ColumnDef& def, const std::vector<std::string>& values);

// A string column whose row r is vocabulary[index[r]]. Avoids materializing one std::string per row
// for the fact table's low-cardinality columns.
Column vocabulary_column(const ColumnDef& def, const std::vector<std::string_view>& vocabulary,
                         const std::vector<uint8_t>& index);

// Runs the column builders (each producing one finished column: dictionary sort, statistics) on up
// to `threads` threads and returns the columns in the builders' order. The builders must not share
// mutable state; statistics and dictionaries are the serial tail of generation, so this is what lets
// it scale with cores.
std::vector<Column> build_columns(unsigned threads, const std::vector<std::function<Column()>>& builders);

// Assembles a table with the columns in catalog order; every column of `def` must be in `columns`
// (moved from), each with `rows` rows.
Table assemble_table(const TableDef& def, uint64_t rows, std::vector<Column>&& columns);

}  // namespace hqc::ssb

// Turning generated values into storage columns laid out the way the catalog declares them; shared by
// the benchmark data generators (ssb/, tpch/).
//
// Contract: a generator produces integers, texts written straight into a heap, free strings, or
// indexes into a small vocabulary; these helpers store them in the vector the column's (type, encoding)
// calls for (storage/column.h), build order-preserving dictionaries from the values that occur (so a
// generated table equals the same table loaded from its .tbl file), compute statistics, and refuse,
// with an Internal error naming the column, a catalog layout a generator cannot fill (a horseqc bug,
// not a user error). The result never depends on the thread count.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "storage/catalog.h"
#include "storage/column.h"
#include "storage/generation/gen_workers.h"
#include "storage/table.h"

namespace hqc::gen {

// The catalog's definition of `table.column`; Internal error when the catalog lacks it.
const ColumnDef& column_def(const TableDef& table, const char* column);

// An integer-backed column (Int32, Date, Int64, Decimal) of `rows` zeros, to be filled with put().
// Rows may be written concurrently from different threads as long as each row has one writer.
// `max_value` is the largest value the generator will put(); the constructor refuses (Unsupported,
// naming the column) a 32-bit column that cannot hold it, so put() never truncates.
class IntColumn {
 public:
  // Deferred: the values are allocated by allocate() (see allocate_in_parallel), not here. Skipped:
  // never allocated, put() does nothing and finish() hands over a column without values (a column
  // GenOptions::columns leaves out; assemble_table drops it).
  enum class Allocation { Now, Deferred, Skipped };
  IntColumn(const ColumnDef& def, uint64_t rows, int64_t max_value, Allocation when = Allocation::Now);
  // Allocates the `rows` zeros; required before put() when construction deferred it.
  void allocate();
  void put(uint64_t row, int64_t value) {
    if (i32_) i32_[row] = static_cast<int32_t>(value);
    else if (i64_) i64_[row] = value;
  }
  // Computes statistics and hands the column over.
  Column finish();

 private:
  Column column_;
  uint64_t rows_;
  int32_t* i32_ = nullptr;
  int64_t* i64_ = nullptr;
  bool skipped_ = false;
};

// Allocates many deferred columns at once: zero-filling gigabytes is the one part of generating a
// large fact table that would otherwise run on a single thread.
void allocate_in_parallel(unsigned threads, const std::vector<IntColumn*>& columns);

// A text column of `rows` rows: length_of(r) says how many bytes row r has, write(r, dst) writes exactly
// that many. Both must be pure functions of r (they are called on any thread, length_of before write).
// Heap- or dictionary-encoded as `def` says.
Column text_column(unsigned threads, const ColumnDef& def, uint64_t rows,
                   const std::function<size_t(uint64_t)>& length_of,
                   const std::function<void(uint64_t, char*)>& write);

// A string column whose row r is vocabulary[index[r]]; avoids one std::string per row for a fact
// table's low-cardinality columns. Equal vocabulary entries share one dictionary code.
Column vocabulary_column(unsigned threads, const ColumnDef& def, const std::vector<std::string_view>& vocabulary,
                         const std::vector<uint8_t>& index);

// A string column from one string per row (small tables), dictionary- or heap-encoded as `def` says.
Column string_column(const ColumnDef& def, const std::vector<std::string>& values);

// Runs the column builders (each producing one finished column: dictionary sort, statistics) on up
// to `threads` threads and returns the columns in the builders' order. The builders must not share
// mutable state; statistics and dictionaries are the serial tail of generation, so this is what lets
// it scale with cores.
std::vector<Column> build_columns(unsigned threads, const std::vector<std::function<Column()>>& builders);

// Assembles a table with the columns in catalog order; every column of `def` the generator keeps
// (GenWorkers::keeps) must be in `columns` (moved from), each with `rows` rows; the others are
// dropped (they may be absent). Validates the table.
Table assemble_table(const GenWorkers& workers, const TableDef& def, uint64_t rows, std::vector<Column>&& columns);

}  // namespace hqc::gen

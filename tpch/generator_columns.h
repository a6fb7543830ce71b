// Turning generated values into storage columns laid out the way Catalog::tpch() declares them.
//
// Contract: the generator produces integers, texts written straight into a heap, or indexes into a
// small vocabulary; these helpers store them in the vector the column's (type, encoding) calls for
// (storage/column.h), build order-preserving dictionaries from the values that occur (so a generated
// table equals the same table loaded from its .tbl file), compute statistics, and refuse, with an
// Internal error naming the column, a catalog layout the generator cannot fill (a horseqc bug).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "storage/catalog.h"
#include "storage/column.h"
#include "storage/table.h"
#include "tpch/generator_tables.h"

namespace hqc::tpch {

// The catalog's definition of `table.column`; Internal error when the catalog lacks it.
const ColumnDef& column_def(const TableDef& table, const char* column);

// An integer-backed column (Int32, Date, Int64, Decimal) of `rows` zeros; rows may be written from
// several threads as long as each row has one writer. The constructor refuses (Unsupported, naming the
// column) a 32-bit column that cannot hold `max_value`, so put() never truncates.
class IntColumn {
 public:
  IntColumn(const ColumnDef& def, uint64_t rows, int64_t max_value);
  void put(uint64_t row, int64_t value) {
    if (i32_) i32_[row] = static_cast<int32_t>(value);
    else i64_[row] = value;
  }
  Column finish();  // statistics computed, column handed over

 private:
  Column column_;
  int32_t* i32_ = nullptr;
  int64_t* i64_ = nullptr;
};

// A text column of `rows` rows: length_of(r) says how many bytes row r has, write(r, dst) writes exactly
// that many. Both must be pure functions of r (they are called on any thread, length_of before write).
// Heap-encoded per the catalog, or dictionary-encoded when the catalog says so.
Column text_column(GenContext& ctx, const ColumnDef& def, uint64_t rows,
                   const std::function<size_t(uint64_t)>& length_of,
                   const std::function<void(uint64_t, char*)>& write);

// A string column whose row r is vocabulary[index[r]].
Column vocabulary_column(GenContext& ctx, const ColumnDef& def, const std::vector<std::string_view>& vocabulary,
                         const std::vector<uint8_t>& index);

// A string column from one string per row (small tables).
Column string_column(const ColumnDef& def, const std::vector<std::string>& values);

// Runs the builders (each producing one finished column) on the worker threads, in order of the result.
std::vector<Column> build_columns(GenContext& ctx, const std::vector<std::function<Column()>>& builders);

// Assembles a table with the columns in catalog order; every column of `def` must be present, with
// `rows` rows each; validates the table.
Table assemble_table(const TableDef& def, uint64_t rows, std::vector<Column>&& columns);

}  // namespace hqc::tpch

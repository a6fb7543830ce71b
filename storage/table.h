// A table is a named set of equally long columns; a Database maps table names to tables.
//
// A table may be a range partition of a larger one (distributed runs, storage/partition.h): then
// `rows` counts the rows held here, `partition` says where they sit in the whole table, and every
// column's `stats` (and dictionary) still describe the whole table, so that every rank plans and
// compiles the same program.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "storage/column.h"

namespace hqc {

struct Table {
  std::string name;
  uint64_t rows = 0;
  std::vector<Column> columns;

  // A range partition of a larger table (distributed runs): `rows` are rows [first_row, first_row + rows)
  // of a table of total_rows rows, and every column's `stats` describe the whole table (so every rank
  // plans the same program). nullopt: the whole table.
  struct Partition {
    uint64_t first_row = 0;
    uint64_t total_rows = 0;
    bool operator==(const Partition&) const = default;
  };
  std::optional<Partition> partition;

  // nullptr when absent.
  const Column* find(const std::string& column_name) const;
  Column* find(const std::string& column_name);
  // Throws std::out_of_range naming the table and the column.
  const Column& column(const std::string& column_name) const;
  // Throws std::logic_error for a broken column, a column of another length than `rows`, a duplicate
  // column name, or a partition that does not fit its whole table (first_row + rows > total_rows).
  void validate() const;
};

// Rows [first_row, first_row + rows) of `table` as a partition of the whole table: values (codes,
// offsets rebased to 0 and the heap bytes between them) copied, dictionaries and stats kept. A slice of
// a partition is a partition of the same whole table. Throws hqc::Error(Input) naming the table when
// the range passes its end.
Table slice_rows(const Table& table, uint64_t first_row, uint64_t rows);

// `table` with only its columns named in `names` (their order kept; rows and partition unchanged).
Table keep_columns(Table table, const std::set<std::string>& names);

struct Database {
  std::map<std::string, Table> tables;

  const Table* find(const std::string& table_name) const;
  const Table& table(const std::string& table_name) const;
};

}  // namespace hqc

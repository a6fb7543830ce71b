// A table is a named set of equally long columns; a Database maps table names to tables.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "storage/column.h"

namespace hqc {

struct Table {
  std::string name;
  uint64_t rows = 0;
  std::vector<Column> columns;

  // nullptr when absent.
  const Column* find(const std::string& column_name) const;
  Column* find(const std::string& column_name);
  // Throws std::out_of_range naming the table and the column.
  const Column& column(const std::string& column_name) const;
  void validate() const;
};

struct Database {
  std::map<std::string, Table> tables;

  const Table* find(const std::string& table_name) const;
  const Table& table(const std::string& table_name) const;
};

}  // namespace hqc

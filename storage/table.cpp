// Table and Database lookups. Lookups by name are linear: tables have tens of columns at most.
#include "storage/table.h"

#include <stdexcept>

namespace hqc {

const Column* Table::find(const std::string& column_name) const {
  for (const Column& c : columns)
    if (c.name == column_name) return &c;
  return nullptr;
}

Column* Table::find(const std::string& column_name) {
  for (Column& c : columns)
    if (c.name == column_name) return &c;
  return nullptr;
}

const Column& Table::column(const std::string& column_name) const {
  if (const Column* c = find(column_name)) return *c;
  throw std::out_of_range("table " + name + " has no column " + column_name);
}

void Table::validate() const {
  for (const Column& c : columns) {
    c.validate();
    if (c.size() != rows)
      throw std::logic_error("table " + name + ": column " + c.name + " has " + std::to_string(c.size()) +
                             " rows, the table " + std::to_string(rows));
  }
  for (size_t i = 0; i < columns.size(); ++i)
    for (size_t j = i + 1; j < columns.size(); ++j)
      if (columns[i].name == columns[j].name)
        throw std::logic_error("table " + name + ": duplicate column " + columns[i].name);
}

const Table* Database::find(const std::string& table_name) const {
  auto it = tables.find(table_name);
  return it == tables.end() ? nullptr : &it->second;
}

const Table& Database::table(const std::string& table_name) const {
  if (const Table* t = find(table_name)) return *t;
  throw std::out_of_range("the database has no table " + table_name);
}

}  // namespace hqc

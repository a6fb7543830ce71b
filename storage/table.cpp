// Table and Database lookups, validation and row slices. Lookups by name are linear: tables have tens
// of columns at most.
#include "storage/table.h"

#include <cstddef>
#include <stdexcept>
#include <type_traits>

#include "storage/error.h"

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
  if (partition && (partition->first_row > partition->total_rows || rows > partition->total_rows - partition->first_row))
    throw std::logic_error("table " + name + ": partition of rows [" + std::to_string(partition->first_row) + ", " +
                           std::to_string(partition->first_row + rows) + ") passes the end of the whole table (" +
                           std::to_string(partition->total_rows) + " rows)");
}

Table slice_rows(const Table& table, uint64_t first_row, uint64_t rows) {
  if (first_row > table.rows || rows > table.rows - first_row)
    throw Error(ErrorKind::Input, "table " + table.name + ": rows [" + std::to_string(first_row) + ", " +
                                      std::to_string(first_row + rows) + ") asked, it has " + std::to_string(table.rows));
  Table out;
  out.name = table.name;
  out.rows = rows;
  out.partition = table.partition ? Table::Partition{table.partition->first_row + first_row, table.partition->total_rows}
                                  : Table::Partition{first_row, table.rows};
  out.columns.reserve(table.columns.size());
  for (const Column& c : table.columns) {
    Column s;
    s.name = c.name;
    s.type = c.type;
    s.encoding = c.encoding;
    s.dictionary = c.dictionary;
    s.stats = c.stats;
    // Exactly one physical form is populated (Column's invariants); the others stay empty.
    const auto from = static_cast<std::ptrdiff_t>(first_row), to = static_cast<std::ptrdiff_t>(first_row + rows);
    auto range = [&](const auto& v) { return std::decay_t<decltype(v)>(v.begin() + from, v.begin() + to); };
    if (!c.i32.empty()) s.i32 = range(c.i32);
    if (!c.i64.empty()) s.i64 = range(c.i64);
    if (!c.f64.empty()) s.f64 = range(c.f64);
    if (!c.offsets.empty()) {  // heap strings: rows + 1 offsets, rebased to start at 0
      const uint64_t base = c.offsets[first_row], end = c.offsets[first_row + rows];
      s.offsets.reserve(rows + 1);
      for (uint64_t r = first_row; r <= first_row + rows; ++r) s.offsets.push_back(c.offsets[r] - base);
      s.heap.assign(c.heap.begin() + static_cast<std::ptrdiff_t>(base), c.heap.begin() + static_cast<std::ptrdiff_t>(end));
    }
    out.columns.push_back(std::move(s));
  }
  return out;
}

const Table* Database::find(const std::string& table_name) const {
  auto it = tables.find(table_name);
  return it == tables.end() ? nullptr : &it->second;
}

const Table& Database::table(const std::string& table_name) const {
  if (const Table* t = find(table_name)) return *t;
  throw std::out_of_range("the database has no table " + table_name);
}

Table keep_columns(Table table, const std::set<std::string>& names) {
  std::vector<Column> kept;
  for (Column& c : table.columns)
    if (names.count(c.name)) kept.push_back(std::move(c));
  table.columns = std::move(kept);
  return table;
}

}  // namespace hqc

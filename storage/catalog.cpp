// Catalog and TableDef lookups. The built-in schemas are in catalog_ssb.cpp and catalog_tpch.cpp,
// the JSON form in catalog_json.cpp.
#include "storage/catalog.h"

namespace hqc {

const ColumnDef* TableDef::find(const std::string& column) const {
  for (const ColumnDef& c : columns)
    if (c.name == column) return &c;
  return nullptr;
}

int TableDef::index_of(const std::string& column) const {
  for (size_t i = 0; i < columns.size(); ++i)
    if (columns[i].name == column) return static_cast<int>(i);
  return -1;
}

const TableDef* Catalog::find(const std::string& table) const {
  for (const TableDef& t : tables)
    if (t.name == table) return &t;
  return nullptr;
}

const TableDef* Catalog::owner_of(const std::string& column) const {
  const TableDef* owner = nullptr;
  for (const TableDef& t : tables) {
    if (!t.find(column)) continue;
    if (owner) return nullptr;  // ambiguous: the caller must qualify the column
    owner = &t;
  }
  return owner;
}

}  // namespace hqc

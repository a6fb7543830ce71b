// The catalog: table and column definitions (types, keys, storage encodings), independent of data.
//
// Built-in: the Star Schema Benchmark (revision 3) and TPC-H. Users can describe their own schema in
// JSON (docs/schema-format.md). The loaders, the generators and the binder all read these definitions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "storage/types.h"

namespace hqc {

struct ColumnDef {
  std::string name;
  DataType type;
  // For strings: Dictionary for low-cardinality columns (order-preserving codes), Heap otherwise.
  Encoding encoding = Encoding::Plain;
  // How the .tbl text spells the value when it differs from the type's default. Empty (the default
  // spelling) or "yyyymmdd" on a Date column (8-digit dates converted to day numbers). The built-in
  // SSB keeps its yyyymmdd date keys as Int32 values, so it needs no text format.
  std::string text_format;
};

struct ForeignKey {
  std::vector<std::string> columns;
  std::string ref_table;
  std::vector<std::string> ref_columns;
};

struct TableDef {
  std::string name;
  std::vector<ColumnDef> columns;
  std::vector<std::string> primary_key;
  std::vector<ForeignKey> foreign_keys;
  // Rows at scale factor 1 and whether the count scales with SF (for estimates without data).
  // SSB part grows as 200,000 * (1 + floor(log2 SF)), not linearly; it stores 200,000 here.
  uint64_t rows_at_sf1 = 0;
  bool scales_with_sf = true;

  const ColumnDef* find(const std::string& column) const;
  int index_of(const std::string& column) const;  // -1 when absent
};

struct Catalog {
  std::string name;  // "ssb", "tpch", or the user's schema name
  std::vector<TableDef> tables;

  const TableDef* find(const std::string& table) const;
  // The table owning a column name (SSB and TPC-H column names are globally unique by prefix);
  // nullptr when no table or more than one table has it.
  const TableDef* owner_of(const std::string& column) const;

  static Catalog ssb();
  static Catalog tpch();
  // Parses a schema description; throws hqc::Error naming the JSON path on malformed input.
  static Catalog from_json(const std::string& json_text, const std::string& source_name);
  std::string to_json() const;
};

}  // namespace hqc

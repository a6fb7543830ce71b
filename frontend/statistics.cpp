// The statistics interface's defaults and catalog estimates (frontend/statistics.h).
#include "frontend/statistics.h"

#include <cmath>

#include "storage/error.h"

namespace hqc::plan {

std::vector<int64_t> Statistics::dictionary_values(const std::string& table, const std::string& column, const Expr& per_code) const {
  throw Error(ErrorKind::Unsupported, "statistics: " + per_code.to_string() + " over " + table + "." + column +
                                          " needs the column's dictionary, which these statistics do not have");
}

const TableDef& CatalogStatistics::find(const std::string& table) const {
  const TableDef* t = catalog_.find(table);
  if (!t) throw Error(ErrorKind::Input, "statistics: the catalog has no table \"" + table + "\"");
  return *t;
}

uint64_t CatalogStatistics::rows(const std::string& table) const {
  const TableDef& t = find(table);
  if (!t.scales_with_sf) return t.rows_at_sf1;
  return static_cast<uint64_t>(std::llround(static_cast<double>(t.rows_at_sf1) * sf_));
}

ColumnStats CatalogStatistics::column(const std::string& table, const std::string& column) const {
  const TableDef& t = find(table);
  if (t.index_of(column) < 0) throw Error(ErrorKind::Input, "statistics: table \"" + table + "\" has no column \"" + column + "\"");
  ColumnStats s;
  if (t.primary_key.size() == 1 && t.primary_key[0] == column) {
    s.distinct = rows(table);
    return s;
  }
  for (const ForeignKey& fk : t.foreign_keys) {
    if (fk.columns.size() == 1 && fk.columns[0] == column && catalog_.find(fk.ref_table)) {
      s.distinct = std::min(rows(table), rows(fk.ref_table));
      return s;
    }
  }
  return s;  // distinct 0: unknown
}

int64_t CatalogStatistics::dictionary_code(const std::string& table, const std::string& column, const std::string&,
                                           DictMatch) const {
  throw Error(ErrorKind::Unsupported, "statistics: the code of a string in " + table + "." + column +
                                          " needs the column's dictionary, which catalog estimates do not have");
}

}  // namespace hqc::plan

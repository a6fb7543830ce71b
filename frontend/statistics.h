// Statistics about the tables a query reads: row counts, per-column min/max/distinct and dictionary
// lookups. The SQL frontend orders joins from them (frontend/join_order.h), the planner sizes
// tables from them (planner/sizing.h), the IR resolves run-time parameters with them
// (ir/resolve_parameters.h).
//
// Contract:
//   - Statistics answers for one database; rows() / column() throw Error(Input) naming the table
//     or column the database lacks; dictionary_code() / dictionary_values() need dictionaries.
//   - CatalogStatistics estimates without data, from the catalog alone: rows_at_sf1 x SF for
//     tables that scale (the others as declared), a column's distinct count from the key
//     declarations (a single-column primary key: the table's rows; a single-column foreign key:
//     the referenced table's rows; any other column: 0 = unknown), no min/max (valid = false) and
//     no dictionaries (dictionary_code / dictionary_values throw Error(Unsupported)).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "frontend/expr.h"
#include "storage/catalog.h"
#include "storage/column.h"

namespace hqc::plan {

class Statistics {
 public:
  virtual ~Statistics() = default;
  virtual uint64_t rows(const std::string& table) const = 0;
  virtual ColumnStats column(const std::string& table, const std::string& column) const = 0;
  // Code of `literal` in the order-preserving dictionary of table.column, per `match`
  // (see plan::DictMatch); Equal yields -1 when the literal is absent.
  virtual int64_t dictionary_code(const std::string& table, const std::string& column,
                                  const std::string& literal, DictMatch match) const = 0;
  // One value per code of table.column's dictionary: `per_code` (whose only column is that one;
  // frontend/string_functions.h per_string_evaluable) evaluated for the code's string — a flag, an
  // integer or a packed string (evaluate_per_string). Statistics without dictionaries throw
  // Error(Unsupported).
  virtual std::vector<int64_t> dictionary_values(const std::string& table, const std::string& column, const Expr& per_code) const;
  // False when the dictionary lookups above always throw (estimates skip them without the cost
  // of an exception per string comparison).
  virtual bool has_dictionaries() const { return true; }
};

class CatalogStatistics final : public Statistics {
 public:
  explicit CatalogStatistics(const Catalog& catalog, double scale_factor = 1.0) : catalog_(catalog), sf_(scale_factor) {}
  uint64_t rows(const std::string& table) const override;
  ColumnStats column(const std::string& table, const std::string& column) const override;
  int64_t dictionary_code(const std::string& table, const std::string& column,
                          const std::string& literal, DictMatch match) const override;
  bool has_dictionaries() const override { return false; }

 private:
  const TableDef& find(const std::string& table) const;
  const Catalog& catalog_;
  double sf_;
};

}  // namespace hqc::plan

// Statistics the sizing and the parameter resolution read: row counts, column min/max/distinct and
// dictionary lookups (the interface: frontend/statistics.h, with catalog estimates for when no data
// is loaded).
//
// Contract: DatabaseStatistics answers from the loaded tables' ColumnStats (computed at load) and
// dictionaries; it throws Error(Input) naming the table or column when the database lacks it. For a
// table that is a range partition of a larger one (Table::partition, distributed runs) it answers for
// the whole table: rows() is the whole table's row count, and the column stats and dictionaries a
// partition carries are already the whole table's, so every rank plans the same program.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "frontend/expr.h"
#include "frontend/statistics.h"
#include "storage/column.h"
#include "storage/table.h"

namespace hqc::planner {

// The interface lives in the frontend, which orders joins from it; the planner's name for it.
using Statistics = plan::Statistics;

// Distinct values of a group-key term, for sizing aggregation tables (ir::Param::distinct_columns):
//   "table.column"        the column's distinct count;
//   "year(table.column)"  of a Date column: the calendar years its [min, max] spans;
//   "month(table.column)" of a Date column: at most 12, and no more than the months [min, max] spans;
//   "modC(table.column)"  the column modulo the literal C: at most C values (2C - 1 when the column
//                         may be negative), and no more than the column's distinct count.
// At least 1. Throws Error(Internal) for another form.
uint64_t distinct_of_term(const std::string& term, const Statistics& stats);

class DatabaseStatistics final : public Statistics {
 public:
  explicit DatabaseStatistics(const Database& db) : db_(db) {}
  // The whole table's rows: Table::partition->total_rows for a partition, else Table::rows.
  uint64_t rows(const std::string& table) const override;
  ColumnStats column(const std::string& table, const std::string& column) const override;
  int64_t dictionary_code(const std::string& table, const std::string& column,
                          const std::string& literal, plan::DictMatch match) const override;
  std::vector<int64_t> dictionary_values(const std::string& table, const std::string& column, const plan::Expr& per_code) const override;

 private:
  const Column& find_column(const std::string& table, const std::string& column) const;
  const Database& db_;
};

}  // namespace hqc::planner

// Finding tables and columns of a Database for the executor, with errors that name what the plan
// asked for and what the database has. (Plans are bound against the catalog, so a miss here means
// the data loaded does not match the schema the plan was bound to.)
#pragma once

#include <string>

#include "storage/table.h"

namespace hqc::runtime {

const Table& lookup_table(const Database& database, const std::string& table, const std::string& context);
// Rows of a table: Table::rows, else the length of its first column.
uint64_t row_count(const Table& table);
const Column& lookup_column(const Database& database, const std::string& table, const std::string& column,
                            const std::string& context);

}  // namespace hqc::runtime

// Table/column lookup with complete error messages; see database_lookup.h.
#include "runtime/device/database_lookup.h"

#include "storage/error.h"

namespace hqc::runtime {

const Table& lookup_table(const Database& database, const std::string& table, const std::string& context) {
  auto it = database.tables.find(table);
  if (it == database.tables.end()) {
    std::string known;
    for (const auto& [name, t] : database.tables) {
      (void)t;
      known += (known.empty() ? "" : ", ") + name;
    }
    throw Error(ErrorKind::Input, context + ": table \"" + table + "\" is not loaded (loaded: " +
                                      (known.empty() ? "none" : known) + ")");
  }
  return it->second;
}

const Column& lookup_column(const Database& database, const std::string& table, const std::string& column,
                            const std::string& context) {
  const Table& t = lookup_table(database, table, context);
  for (const Column& c : t.columns) {
    if (c.name == column) return c;
  }
  throw Error(ErrorKind::Input, context + ": table \"" + table + "\" has no column \"" + column + "\"");
}

uint64_t row_count(const Table& t) {
  if (t.rows > 0 || t.columns.empty()) return t.rows;
  const Column& c = t.columns.front();
  if (!c.i32.empty()) return c.i32.size();
  if (!c.i64.empty()) return c.i64.size();
  if (!c.f64.empty()) return c.f64.size();
  return c.offsets.empty() ? 0 : c.offsets.size() - 1;
}

}  // namespace hqc::runtime

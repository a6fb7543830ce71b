// SQL text → logical plan (frontend/sql/sql_frontend.h).
#include "frontend/sql/sql_frontend.h"

#include <fstream>
#include <sstream>

#include "frontend/sql/sql_binder.h"
#include "frontend/sql/sql_parser.h"
#include "storage/error.h"

namespace hqc {

namespace {

std::string stem_of(const std::string& source_name) {
  std::string stem = source_name;
  if (auto slash = stem.find_last_of('/'); slash != std::string::npos) stem = stem.substr(slash + 1);
  if (stem.size() > 4 && stem.ends_with(".sql")) stem.resize(stem.size() - 4);
  return stem;
}

}  // namespace

plan::LogicalPlan parse_sql(const std::string& sql, const std::string& source_name, const Catalog& catalog,
                            const plan::Statistics* stats) {
  sql::SqlSource source{sql, source_name};
  std::shared_ptr<sql::SelectStmt> stmt = sql::parse_select(source);
  if (stats != nullptr) return sql::bind_select(*stmt, source, catalog, *stats, stem_of(source_name), sql::NullableOutput::Result);
  const plan::CatalogStatistics estimates(catalog);
  return sql::bind_select(*stmt, source, catalog, estimates, stem_of(source_name), sql::NullableOutput::Result);
}

plan::LogicalPlan load_sql(const std::string& path, const Catalog& catalog, const plan::Statistics* stats) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::Input, path + ": cannot read the query file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_sql(text.str(), path, catalog, stats);
}

}  // namespace hqc

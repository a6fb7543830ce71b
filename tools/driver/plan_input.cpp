#include "tools/driver/plan_input.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "frontend/json_plan.h"
#include "frontend/sql/sql_frontend.h"
#include "storage/error.h"

namespace hqc::driver {

namespace {

void collect_tables(const nlohmann::json& j, std::set<std::string>& out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it.key() == "table" && it.value().is_string()) out.insert(it.value().get<std::string>());
      collect_tables(it.value(), out);
    }
  } else if (j.is_array()) {
    for (const auto& e : j) collect_tables(e, out);
  }
}

bool knows_all(const Catalog& c, const std::set<std::string>& tables) {
  for (const auto& t : tables)
    if (!c.find(t)) return false;
  return true;
}

}  // namespace

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::Input, path + ": cannot read the file");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool is_json_plan_path(const std::string& path) {
  return path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0;
}

Catalog choose_catalog(const std::string& schema, const std::string& query_text, bool is_sql) {
  if (schema == "ssb") return Catalog::ssb();
  if (schema == "tpch") return Catalog::tpch();
  if (schema != "auto") {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(schema, ec))
      throw Error(ErrorKind::Usage, "--schema: expected auto, ssb, tpch or a catalog file (.json); \"" + schema +
                                        "\" is none of these (no such file)");
    return Catalog::from_json(read_text_file(schema), schema);
  }
  std::set<std::string> tables;
  if (is_sql) {
    // Every identifier is a candidate table name; a catalog fits when it has the FROM tables, which
    // only the right catalog does (SSB and TPC-H share no table names but "part", "supplier" and
    // "customer", and TPC-H's other tables never appear in SSB).
    static const std::regex word("[A-Za-z_][A-Za-z0-9_]*");
    const Catalog tpch = Catalog::tpch();
    for (auto it = std::sregex_iterator(query_text.begin(), query_text.end(), word); it != std::sregex_iterator(); ++it) {
      std::string w = it->str();
      for (auto& ch : w) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      // `date '1995-03-15'` is a typed literal (TPC-H), not SSB's date table.
      size_t next = static_cast<size_t>(it->position() + it->length());
      while (next < query_text.size() && std::isspace(static_cast<unsigned char>(query_text[next]))) ++next;
      const bool literal_type = next < query_text.size() && query_text[next] == '\'';
      if (w == "lineorder" || (w == "date" && !literal_type)) return Catalog::ssb();
      if (tpch.find(w) && w != "part" && w != "supplier" && w != "customer") return tpch;
    }
    return Catalog::ssb();
  }
  const auto j = nlohmann::json::parse(query_text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_discarded()) collect_tables(j, tables);
  for (Catalog c : {Catalog::ssb(), Catalog::tpch()})
    if (knows_all(c, tables)) return c;
  return Catalog::ssb();  // binding then names the unknown table with its JSON path
}

std::shared_ptr<const plan::LogicalPlan> load_query(const std::string& path, const Catalog& catalog, const plan::Statistics* stats) {
  if (is_json_plan_path(path)) return std::make_shared<const plan::LogicalPlan>(plan::load_json_plan(path, catalog));
  return std::make_shared<const plan::LogicalPlan>(load_sql(path, catalog, stats));
}

}  // namespace hqc::driver

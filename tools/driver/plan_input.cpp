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

// `sql` with comments (-- to the end of the line, /* ... */) and the contents of string literals replaced
// by spaces; quotes and line breaks stay, so positions do not move.
std::string without_comments_and_strings(const std::string& sql) {
  std::string out = sql;
  size_t i = 0;
  auto blank = [&](size_t from, size_t to) {
    for (size_t k = from; k < to && k < out.size(); ++k)
      if (out[k] != '\n') out[k] = ' ';
  };
  while (i < sql.size()) {
    if (sql.compare(i, 2, "--") == 0) {
      const size_t end = sql.find('\n', i);
      blank(i, end == std::string::npos ? sql.size() : end);
      i = end == std::string::npos ? sql.size() : end;
    } else if (sql.compare(i, 2, "/*") == 0) {
      const size_t end = sql.find("*/", i + 2);
      const size_t stop = end == std::string::npos ? sql.size() : end + 2;
      blank(i, stop);
      i = stop;
    } else if (sql[i] == '\'') {  // a string literal ("quoted identifiers" stay: they name tables)
      const char quote = sql[i];
      size_t end = i + 1;
      while (end < sql.size() && !(sql[end] == quote && (end + 1 >= sql.size() || sql[end + 1] != quote))) end += sql[end] == quote ? 2 : 1;
      blank(i + 1, end);
      i = end + 1;
    } else {
      ++i;
    }
  }
  return out;
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
    // Every identifier outside comments and string literals is a candidate table name; a catalog
    // fits when it has the FROM tables, which only the right catalog does (SSB and TPC-H share no
    // table names but "part", "supplier" and "customer", and TPC-H's other tables never appear in SSB).
    static const std::regex word("[A-Za-z_][A-Za-z0-9_]*");
    const Catalog tpch = Catalog::tpch();
    const std::string code = without_comments_and_strings(query_text);
    for (auto it = std::sregex_iterator(code.begin(), code.end(), word); it != std::sregex_iterator(); ++it) {
      std::string w = it->str();
      for (auto& ch : w) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      // `date '1995-03-15'` is a typed literal (TPC-H), not SSB's date table (the literal's text
      // is blanked but its quotes stay).
      size_t next = static_cast<size_t>(it->position() + it->length());
      while (next < code.size() && std::isspace(static_cast<unsigned char>(code[next]))) ++next;
      const bool literal_type = next < code.size() && code[next] == '\'';
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

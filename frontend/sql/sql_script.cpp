// A script of several queries → one text per query (contract in sql_frontend.h, split_sql_script).
//
// Statements are split by libpg_query's scanner (comments and strings holding ';' stay whole; a
// statement that does not parse is still one statement, refused later at its own position). Each
// query's text is the whole script with every statement but the query and the views in force
// replaced by spaces (newlines kept), so that parse_sql's positions are the file's.
#include <pg_query.h>

#include <algorithm>
#include <cctype>
#include <regex>

#include "frontend/sql/sql_frontend.h"
#include "storage/error.h"

namespace hqc {
namespace {

struct Statement {
  size_t begin, end;  // byte range in the script, without the terminating ';'
};

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Where the statement's code starts: past leading blanks and comments (s.end when there is none).
size_t code_start(const std::string& script, const Statement& s) {
  size_t i = s.begin;
  for (;;) {
    while (i < s.end && std::isspace(static_cast<unsigned char>(script[i]))) ++i;
    if (script.compare(i, 2, "--") == 0) {
      i = script.find('\n', i);
      if (i == std::string::npos || i >= s.end) return s.end;
    } else if (script.compare(i, 2, "/*") == 0) {
      i = script.find("*/", i);
      if (i == std::string::npos || i >= s.end) return s.end;
      i += 2;
    } else {
      return std::min(i, s.end);
    }
  }
}

std::string blanked(const std::string& script, const std::vector<const Statement*>& keep) {
  std::string out(script.size(), ' ');
  for (size_t i = 0; i < script.size(); ++i)
    if (script[i] == '\n') out[i] = '\n';
  for (const Statement* s : keep) {
    std::copy(script.begin() + static_cast<long>(s->begin), script.begin() + static_cast<long>(s->end), out.begin() + static_cast<long>(s->begin));
    if (s->end < script.size() && script[s->end] == ';') out[s->end] = ';';
  }
  return out;
}

}  // namespace

std::vector<ScriptQuery> split_sql_script(const std::string& script) {
  PgQuerySplitResult split = pg_query_split_with_scanner(script.c_str());
  std::vector<Statement> statements;
  if (split.error == nullptr) {
    for (int i = 0; i < split.n_stmts; ++i) {
      const size_t begin = static_cast<size_t>(split.stmts[i]->stmt_location);
      statements.push_back({begin, std::min(script.size(), begin + static_cast<size_t>(split.stmts[i]->stmt_len))});
    }
  }
  pg_query_free_split_result(split);
  if (statements.empty()) statements.push_back({0, script.size()});  // one (possibly malformed) query

  static const std::regex create_view(R"(^create\s+(or\s+replace\s+)?view\s+("?)([a-z_][a-z0-9_$]*)\2)");
  static const std::regex drop_view(R"(^drop\s+view\s+(if\s+exists\s+)?("?)([a-z_][a-z0-9_$]*)\2)");
  std::vector<std::pair<std::string, const Statement*>> views;  // in force, in script order
  std::vector<ScriptQuery> out;
  for (const Statement& s : statements) {
    const size_t first = code_start(script, s);
    if (first >= s.end) continue;  // only comments
    const std::string head = lower(script.substr(first, std::min<size_t>(200, s.end - first)));
    std::smatch m;
    if (std::regex_search(head, m, create_view)) {
      const std::string name = m[3];
      std::erase_if(views, [&](const auto& v) { return v.first == name; });
      views.emplace_back(name, &s);
      continue;
    }
    if (std::regex_search(head, m, drop_view)) {
      const std::string name = m[3];
      std::erase_if(views, [&](const auto& v) { return v.first == name; });
      continue;
    }
    std::vector<const Statement*> keep;
    for (const auto& v : views) keep.push_back(v.second);
    keep.push_back(&s);
    const int line = 1 + static_cast<int>(std::count(script.begin(), script.begin() + static_cast<long>(first), '\n'));
    out.push_back({line, blanked(script, keep)});
  }
  return out;
}

}  // namespace hqc

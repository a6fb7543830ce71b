#include "tpch/benchmark_queries.h"

#include <cctype>

#include "storage/error.h"
#include "templates/embedded.h"

namespace hqc::tpch {

namespace detail {
const std::vector<templates::detail::EmbeddedFile>& embedded_files();
}

const std::vector<std::string>& query_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (int i = 1; i <= 22; ++i) out.push_back("q" + std::to_string(i));
    return out;
  }();
  return names;
}

std::string canonical_query_name(const std::string& name) {
  std::string n = name;
  if (!n.empty() && (n[0] == 'q' || n[0] == 'Q')) n = n.substr(1);
  for (const auto& q : query_names())
    if (q.substr(1) == n) return q;
  throw Error(ErrorKind::Usage, "unknown TPC-H query \"" + name + "\"; the queries are q1 ... q22 (or 1 ... 22)");
}

std::string query_path(const std::string& name) { return "tpch/queries/" + canonical_query_name(name).substr(1) + ".sql"; }

std::string query_sql(const std::string& name) {
  const std::string file = "queries/" + canonical_query_name(name).substr(1) + ".sql";
  if (auto text = templates::detail::embedded_text(detail::embedded_files(), file)) return *text;
  throw Error(ErrorKind::Internal, "TPC-H file " + file + " is not embedded in this binary");
}

}  // namespace hqc::tpch

#include "ssb/benchmark_queries.h"

#include "storage/error.h"
#include "templates/embedded.h"

namespace hqc::ssb {

namespace detail {
const std::vector<templates::detail::EmbeddedFile>& embedded_files();
}

namespace {

std::string embedded(const std::string& path) {
  if (auto text = templates::detail::embedded_text(detail::embedded_files(), path)) return *text;
  throw Error(ErrorKind::Internal, "SSB file " + path + " is not embedded in this binary");
}

}  // namespace

const std::vector<std::string>& query_names() {
  static const std::vector<std::string> names = {"q1.1", "q1.2", "q1.3", "q2.1", "q2.2", "q2.3", "q3.1",
                                                 "q3.2", "q3.3", "q3.4", "q4.1", "q4.2", "q4.3"};
  return names;
}

std::string canonical_query_name(const std::string& name) {
  for (const auto& n : query_names())
    if (n == name || n.substr(1) == name || n == "q" + name) return n;
  std::string list;
  for (const auto& n : query_names()) list += (list.empty() ? "" : " ") + n;
  throw Error(ErrorKind::Usage, "unknown SSB query \"" + name + "\"; the queries are: " + list);
}

std::string query_sql(const std::string& name) { return embedded("queries/" + canonical_query_name(name) + ".sql"); }
std::string query_plan_json(const std::string& name) {
  return embedded("plans/" + canonical_query_name(name) + ".json");
}

}  // namespace hqc::ssb

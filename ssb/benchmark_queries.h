// The 13 SSB queries (revision 3) as shipped inside the binaries: SQL text from ssb/queries/*.sql
// and JSON plans from ssb/plans/*.json, embedded at build time.
#pragma once

#include <string>
#include <vector>

namespace hqc::ssb {

// "q1.1" … "q4.3", in benchmark order.
const std::vector<std::string>& query_names();
// Throws hqc::Error(Usage) listing the names when `name` is not one of them ("1.1" is accepted too).
std::string canonical_query_name(const std::string& name);
std::string query_sql(const std::string& name);
std::string query_plan_json(const std::string& name);

}  // namespace hqc::ssb

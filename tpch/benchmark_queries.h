// The 22 TPC-H queries as shipped inside the binaries: tpch/queries/N.sql (the specification's text
// with qgen's validation substitution parameters), embedded at build time.
#pragma once

#include <string>
#include <vector>

namespace hqc::tpch {

// "q1" … "q22", in benchmark order.
const std::vector<std::string>& query_names();
// "q7" for "7", "q7", "Q7"; throws hqc::Error(Usage) listing the names for anything else.
std::string canonical_query_name(const std::string& name);
std::string query_sql(const std::string& name);
// Where the text lives in the source tree ("tpch/queries/7.sql"), for error positions.
std::string query_path(const std::string& name);

}  // namespace hqc::tpch

// hqc_table_stats: the horseqc side of the load oracle (tests/oracle/ssb_load_check.py).
//
//   hqc_table_stats ssb|tpch DIR
//
// Loads DIR with load_database (no columnar cache, so the .tbl text itself is parsed) and prints, as
// JSON on stdout, {table: {"rows": n, "columns": {name: stats}}} where stats is, for integer-backed
// columns (ints, decimals as scaled integers, dates as day numbers) {"sum", "min", "max", "distinct"},
// and for strings {"min", "max", "distinct"} (byte order). Every statistic is computed here exactly
// from the values, not taken from ColumnStats (whose distinct count may be an estimate).
// Exit codes: 0 ok, 2 usage, 3 the data cannot be loaded (message on stderr).
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "storage/catalog.h"
#include "storage/error.h"
#include "storage/tbl_loader.h"

namespace {

using hqc::Column;
using nlohmann::json;

json integer_stats(const Column& c, uint64_t rows) {
  std::vector<int64_t> v(rows);
  __extension__ __int128 sum = 0;  // SSB and TPC-H money sums pass int64 at large scale factors
  for (uint64_t r = 0; r < rows; ++r) {
    v[r] = c.int_at(r);
    sum += v[r];
  }
  std::sort(v.begin(), v.end());
  const auto distinct = static_cast<uint64_t>(std::unique(v.begin(), v.end()) - v.begin());
  // JSON numbers would lose the 128-bit sum: write it as a decimal string.
  std::string digits;
  const bool negative = sum < 0;
  __extension__ unsigned __int128 mag = negative ? -static_cast<unsigned __int128>(sum) : sum;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(mag % 10)));
    mag /= 10;
  } while (mag != 0);
  if (negative) digits.insert(digits.begin(), '-');
  json j{{"sum", digits}, {"distinct", distinct}};
  if (rows > 0) {
    j["min"] = v.front();
    j["max"] = v[distinct - 1];
  }
  return j;
}

json string_stats(const Column& c, uint64_t rows) {
  std::vector<std::string_view> v(rows);
  for (uint64_t r = 0; r < rows; ++r) v[r] = c.string_at(r);
  std::sort(v.begin(), v.end());
  const auto distinct = static_cast<uint64_t>(std::unique(v.begin(), v.end()) - v.begin());
  json j{{"distinct", distinct}};
  if (rows > 0) {
    j["min"] = std::string(v.front());
    j["max"] = std::string(v[distinct - 1]);
  }
  return j;
}

int stats_main(int argc, char** argv) {
  if (argc != 3 || (std::string(argv[1]) != "ssb" && std::string(argv[1]) != "tpch")) {
    std::fprintf(stderr, "usage: hqc_table_stats ssb|tpch DIR\n");
    return 2;
  }
  const hqc::Catalog catalog = std::string(argv[1]) == "ssb" ? hqc::Catalog::ssb() : hqc::Catalog::tpch();
  hqc::LoadOptions options;
  options.use_cache = false;
  options.progress = false;
  const hqc::Database db = hqc::load_database(catalog, argv[2], options);
  json out = json::object();
  for (const auto& [name, table] : db.tables) {
    json columns = json::object();
    for (const Column& c : table.columns) {
      if (c.type.is_string()) columns[c.name] = string_stats(c, table.rows);
      else if (c.type.is_integer_like()) columns[c.name] = integer_stats(c, table.rows);
    }
    out[name] = {{"rows", table.rows}, {"columns", columns}};
  }
  std::cout << out.dump(1) << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return stats_main(argc, argv);
  } catch (const hqc::Error& e) {
    std::fprintf(stderr, "hqc_table_stats: error: %s\n", e.what());
    return e.exit_code();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hqc_table_stats: internal error: %s\n", e.what());
    return 70;
  }
}

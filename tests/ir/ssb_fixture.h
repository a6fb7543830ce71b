// A small, deterministic in-memory SSB database for IR and sizing tests: only the columns the 13
// SSB plans reference, with realistic domains (7 years of dates, 5 regions x 5 nations x 10 cities,
// 5 manufacturers x 5 categories x 40 brands) and row counts chosen so the tests can predict sizes.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "storage/date.h"
#include "storage/table.h"

namespace hqc::test {

inline Column int_column(const std::string& name, std::vector<int32_t> values) {
  Column c;
  c.name = name;
  c.type = DataType::int32();
  c.i32.assign(values.begin(), values.end());
  c.compute_stats();
  return c;
}

inline Column i64_column(const std::string& name, std::vector<int64_t> values) {
  Column c;
  c.name = name;
  c.type = DataType::int64();
  c.i64.assign(values.begin(), values.end());
  c.compute_stats();
  return c;
}

inline Table make_table(const std::string& name, std::vector<Column> columns) {
  Table t;
  t.name = name;
  t.rows = columns.empty() ? 0 : columns[0].size();
  t.columns = std::move(columns);
  return t;
}

inline const std::vector<std::string>& ssb_nations() {
  static const std::vector<std::string> n = {
      "ALGERIA", "ARGENTINA", "BRAZIL", "CANADA", "EGYPT", "ETHIOPIA", "FRANCE", "GERMANY", "INDIA", "INDONESIA",
      "IRAN", "IRAQ", "JAPAN", "JORDAN", "KENYA", "MOROCCO", "MOZAMBIQUE", "PERU", "CHINA", "ROMANIA",
      "SAUDI ARABIA", "VIETNAM", "RUSSIA", "UNITED KINGDOM", "UNITED STATES"};
  return n;
}

inline std::string ssb_region_of(size_t nation) {
  static const int region[] = {0, 1, 1, 1, 4, 0, 3, 3, 2, 2, 4, 4, 2, 4, 0, 0, 0, 1, 2, 3, 4, 2, 3, 3, 1};
  static const char* names[] = {"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"};
  return names[region[nation]];
}

inline std::string ssb_city(size_t nation, size_t k) {
  std::string n = ssb_nations()[nation];
  n.resize(9, ' ');
  return n + std::to_string(k);
}

// Customers (or suppliers) with keys 1..rows, cycling through all 250 cities.
inline Table ssb_geo_table(const std::string& name, const std::string& p, const std::string& key, int rows) {
  std::vector<int32_t> keys;
  std::vector<std::string> city, nation, region;
  for (int i = 0; i < rows; ++i) {
    size_t n = static_cast<size_t>(i) % 25, k = (static_cast<size_t>(i) / 25) % 10;
    keys.push_back(i + 1);
    city.push_back(ssb_city(n, k));
    nation.push_back(ssb_nations()[n]);
    region.push_back(ssb_region_of(n));
  }
  return make_table(name, {int_column(key, keys), make_dictionary_column(p + "_city", DataType::fixed_char(10), city),
                           make_dictionary_column(p + "_nation", DataType::fixed_char(15), nation),
                           make_dictionary_column(p + "_region", DataType::fixed_char(12), region)});
}

inline Database ssb_database(int lineorder_rows = 6000) {
  Database db;
  // date: every day of 1992..1998.
  std::vector<int32_t> datekey, year, yearmonthnum, week;
  std::vector<std::string> yearmonth;
  static const char* months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  for (int32_t d = days_from_civil(1992, 1, 1); d <= days_from_civil(1998, 12, 31); ++d) {
    CivilDate c = civil_from_days(d);
    datekey.push_back(c.year * 10000 + static_cast<int32_t>(c.month * 100 + c.day));
    year.push_back(c.year);
    yearmonthnum.push_back(c.year * 100 + static_cast<int32_t>(c.month));
    week.push_back((d - days_from_civil(c.year, 1, 1)) / 7 + 1);
    yearmonth.push_back(std::string(months[c.month - 1]) + std::to_string(c.year));
  }
  db.tables["date"] = make_table("date", {int_column("d_datekey", datekey), int_column("d_year", year),
                                          int_column("d_yearmonthnum", yearmonthnum), int_column("d_weeknuminyear", week),
                                          make_dictionary_column("d_yearmonth", DataType::fixed_char(7), yearmonth)});
  db.tables["customer"] = ssb_geo_table("customer", "c", "c_custkey", 300);
  db.tables["supplier"] = ssb_geo_table("supplier", "s", "s_suppkey", 20);
  // part: keys 1..400; brand = category x 40.
  std::vector<int32_t> partkey;
  std::vector<std::string> mfgr, category, brand;
  for (int i = 0; i < 400; ++i) {
    int m = i % 5 + 1, c = (i / 5) % 5 + 1, b = (i / 25) % 40 + 1;
    partkey.push_back(i + 1);
    mfgr.push_back("MFGR#" + std::to_string(m));
    category.push_back("MFGR#" + std::to_string(m) + std::to_string(c));
    brand.push_back("MFGR#" + std::to_string(m) + std::to_string(c) + std::to_string(b));
  }
  db.tables["part"] = make_table("part", {int_column("p_partkey", partkey), make_dictionary_column("p_mfgr", DataType::fixed_char(6), mfgr),
                                          make_dictionary_column("p_category", DataType::fixed_char(7), category),
                                          make_dictionary_column("p_brand1", DataType::fixed_char(9), brand)});
  // lineorder: a deterministic pseudo-random stream over the dimension keys.
  std::vector<int32_t> orderdate, custkey, partk, suppkey, quantity, discount;
  std::vector<int64_t> price, revenue, supplycost;
  uint64_t x = 42;
  auto next = [&](uint64_t n) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<int32_t>((x >> 33) % n);
  };
  for (int i = 0; i < lineorder_rows; ++i) {
    orderdate.push_back(datekey[static_cast<size_t>(next(datekey.size()))]);
    custkey.push_back(next(300) + 1);
    partk.push_back(next(400) + 1);
    suppkey.push_back(next(20) + 1);
    quantity.push_back(next(50) + 1);
    discount.push_back(next(11));
    price.push_back(next(100000) + 90000);
    revenue.push_back(next(100000) + 80000);
    supplycost.push_back(next(1000) + 100);
  }
  db.tables["lineorder"] = make_table("lineorder", {int_column("lo_orderdate", orderdate), int_column("lo_custkey", custkey),
                                                    int_column("lo_partkey", partk), int_column("lo_suppkey", suppkey),
                                                    int_column("lo_quantity", quantity), int_column("lo_discount", discount),
                                                    i64_column("lo_extendedprice", price), i64_column("lo_revenue", revenue),
                                                    i64_column("lo_supplycost", supplycost)});
  return db;
}

inline std::string source_dir() {
  const char* env = std::getenv("HORSEQC_SOURCE_DIR");
  return env ? env : ".";
}

}  // namespace hqc::test

// SSB generator: cardinalities, schema layout, value domains, derived money columns, referential
// integrity and determinism (same seed → same data; the thread count changes nothing).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ssb/generator.h"
#include "ssb/generator_random.h"
#include "ssb/generator_tables.h"
#include "ssb/generator_vocabulary.h"
#include "storage/catalog.h"
#include "storage/date.h"
#include "storage/error.h"
#include "tests/ssb/ssb_fixture.h"

using namespace hqc;
using namespace hqc::ssb;
using hqc::ssb::testing::cached_ssb;
using hqc::ssb::testing::num;
using hqc::ssb::testing::str;

TEST_CASE("cardinalities follow the SSB formulas") {
  const Cardinalities one = cardinalities(1);
  CHECK(one.customers == 30000);
  CHECK(one.suppliers == 2000);
  CHECK(one.parts == 200000);
  CHECK(one.dates == 2557);
  CHECK(one.orders == 1500000);
  CHECK(cardinalities(2).parts == 400000);
  CHECK(cardinalities(3).parts == 400000);   // 1 + floor(log2 3) = 2
  CHECK(cardinalities(10).parts == 800000);  // 1 + floor(log2 10) = 4
  CHECK(cardinalities(10).customers == 300000);
  const Cardinalities small = cardinalities(0.01);
  CHECK(small.customers == 300);
  CHECK(small.suppliers == 20);
  CHECK(small.parts == 2000);
  CHECK(small.orders == 15000);
  CHECK(cardinalities(1e-9).suppliers == 1);  // never an empty dimension
}

TEST_CASE("generated row counts at SF 0.01 and 0.1") {
  for (double sf : {0.01, 0.1}) {
    CAPTURE(sf);
    const Database& db = cached_ssb(sf);
    const Cardinalities c = cardinalities(sf);
    CHECK(db.table("customer").rows == c.customers);
    CHECK(db.table("supplier").rows == c.suppliers);
    CHECK(db.table("part").rows == c.parts);
    CHECK(db.table("date").rows == 2557);
    const Table& lo = db.table("lineorder");
    // 1..7 lines per order, mean 4: within 2% of 4 * orders (a 10-sigma band at SF 0.01).
    CHECK(std::fabs(double(lo.rows) / (4.0 * double(c.orders)) - 1.0) < 0.02);
    // Every order has lines 1..n in sequence.
    std::set<int64_t> orders;
    for (uint64_t r = 0; r < lo.rows; ++r) {
      const int64_t line = num(lo, "lo_linenumber", r);
      orders.insert(num(lo, "lo_orderkey", r));
      if (line == 1) continue;
      REQUIRE(r > 0);
      REQUIRE(num(lo, "lo_orderkey", r - 1) == num(lo, "lo_orderkey", r));
      REQUIRE(num(lo, "lo_linenumber", r - 1) == line - 1);
    }
    CHECK(orders.size() == c.orders);
  }
}

TEST_CASE("tables are laid out as Catalog::ssb() declares") {
  const Database& db = cached_ssb(0.01);
  const Catalog cat = Catalog::ssb();
  CHECK(db.tables.size() == cat.tables.size());
  for (const TableDef& def : cat.tables) {
    CAPTURE(def.name);
    const Table& t = db.table(def.name);
    REQUIRE(t.columns.size() == def.columns.size());
    for (size_t i = 0; i < def.columns.size(); ++i) {
      CHECK(t.columns[i].name == def.columns[i].name);
      CHECK(t.columns[i].type == def.columns[i].type);
      if (def.columns[i].type.is_string()) CHECK(t.columns[i].encoding == def.columns[i].encoding);
      CHECK(t.columns[i].size() == t.rows);
    }
    CHECK_NOTHROW(t.validate());
  }
}

TEST_CASE("lineorder value domains") {
  const Table& lo = cached_ssb(0.1).table("lineorder");
  CHECK(lo.column("lo_quantity").stats.min == 1);
  CHECK(lo.column("lo_quantity").stats.max == 50);
  CHECK(lo.column("lo_discount").stats.min == 0);
  CHECK(lo.column("lo_discount").stats.max == 10);
  CHECK(lo.column("lo_tax").stats.min == 0);
  CHECK(lo.column("lo_tax").stats.max == 8);
  CHECK(lo.column("lo_linenumber").stats.min == 1);
  CHECK(lo.column("lo_linenumber").stats.max == 7);
  CHECK(lo.column("lo_orderdate").stats.min == 19920101);
  CHECK(lo.column("lo_orderdate").stats.max == 19981231);
  CHECK(lo.column("lo_orderpriority").dictionary ==
        std::vector<std::string>{"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"});
  CHECK(lo.column("lo_shipmode").dictionary ==
        std::vector<std::string>{"AIR", "FOB", "MAIL", "RAIL", "REG AIR", "SHIP", "TRUCK"});
  CHECK(lo.column("lo_shippriority").dictionary == std::vector<std::string>{"0"});
}

TEST_CASE("lineorder money columns follow the dbgen formulas") {
  const Table& lo = cached_ssb(0.01).table("lineorder");
  int64_t order_total = 0;
  for (uint64_t r = 0; r < lo.rows; ++r) {
    const int64_t price = retail_price_cents(num(lo, "lo_partkey", r));
    const int64_t qty = num(lo, "lo_quantity", r), disc = num(lo, "lo_discount", r), tax = num(lo, "lo_tax", r);
    const int64_t ext = num(lo, "lo_extendedprice", r);
    REQUIRE(ext == qty * price);
    REQUIRE(num(lo, "lo_revenue", r) == ext * (100 - disc) / 100);
    REQUIRE(num(lo, "lo_supplycost", r) == 6 * price / 10);
    if (num(lo, "lo_linenumber", r) == 1) order_total = 0;
    order_total += (ext * (100 - disc) / 100) * (100 + tax) / 100;
    const bool last_line = r + 1 == lo.rows || num(lo, "lo_linenumber", r + 1) == 1;
    if (last_line) {
      // Every line of the order carries the order's total.
      for (uint64_t k = r + 1 - static_cast<uint64_t>(num(lo, "lo_linenumber", r)); k <= r; ++k)
        REQUIRE(num(lo, "lo_ordtotalprice", k) == order_total);
    }
  }
  CHECK(retail_price_cents(1) == 90100);  // TPC-H: part 1 retails at 901.00
  CHECK(retail_price_cents(1000) == 90100);
}

TEST_CASE("commit dates are 30..90 days after the order date, capped at the last date") {
  const Table& lo = cached_ssb(0.1).table("lineorder");
  auto day_of = [](int64_t key) {
    return days_from_civil(int32_t(key / 10000), uint32_t(key / 100 % 100), uint32_t(key % 100));
  };
  uint64_t capped = 0;
  for (uint64_t r = 0; r < lo.rows; ++r) {
    const int64_t commit = num(lo, "lo_commitdate", r);
    const int32_t gap = day_of(commit) - day_of(num(lo, "lo_orderdate", r));
    if (commit == 19981231 && gap < 90) {
      ++capped;
      REQUIRE(gap >= 0);
      continue;
    }
    REQUIRE(gap >= 30);
    REQUIRE(gap <= 90);
  }
  // Only orders of the last 90 days can be capped: at most 90/2557 of the rows.
  CHECK(capped > 0);
  CHECK(double(capped) < 0.04 * double(lo.rows));
}

TEST_CASE("dimension value domains") {
  const Database& db = cached_ssb(0.1);
  std::map<std::string, std::string> region_of;
  std::map<std::string, int> phone_prefix_of;
  for (size_t i = 0; i < vocab::kNations.size(); ++i) {
    region_of[std::string(vocab::kNations[i].name)] = std::string(vocab::kRegions[vocab::kNations[i].region]);
    phone_prefix_of[std::string(vocab::kNations[i].name)] = int(10 + i);
  }
  CHECK(region_of.size() == 25);
  std::map<std::string, int> nations_per_region;
  for (const auto& [n, r] : region_of) ++nations_per_region[r];
  for (const auto& [r, count] : nations_per_region) CHECK(count == 5);

  for (const char* prefix : {"c_", "s_"}) {
    const Table& t = db.table(prefix[0] == 'c' ? "customer" : "supplier");
    const std::string p = prefix;
    for (uint64_t r = 0; r < t.rows; ++r) {
      const std::string nation = str(t, (p + "nation").c_str(), r), city = str(t, (p + "city").c_str(), r);
      REQUIRE(region_of.count(nation));
      REQUIRE(str(t, (p + "region").c_str(), r) == region_of[nation]);
      REQUIRE(city.size() == 10);
      REQUIRE(city.substr(0, 9) == vocab::city_name(nation, 0).substr(0, 9));
      REQUIRE(std::isdigit(static_cast<unsigned char>(city[9])));
      const std::string phone = str(t, (p + "phone").c_str(), r);
      REQUIRE(phone.size() == 15);
      REQUIRE(std::stoi(phone.substr(0, 2)) == phone_prefix_of[nation]);
      REQUIRE(num(t, (p + (prefix[0] == 'c' ? "custkey" : "suppkey")).c_str(), r) == int64_t(r + 1));
    }
    CHECK(t.column(p + "nation").dictionary.size() == 25);
  }
  CHECK(vocab::city_name("UNITED KINGDOM", 1) == "UNITED KI1");
  CHECK(vocab::city_name("PERU", 3) == "PERU     3");
  const Table& c = db.table("customer");
  CHECK(c.column("c_city").dictionary.size() == 250);
  CHECK(c.column("c_mktsegment").dictionary ==
        std::vector<std::string>{"AUTOMOBILE", "BUILDING", "FURNITURE", "HOUSEHOLD", "MACHINERY"});
  CHECK(str(c, "c_name", 41) == "Customer#000000042");

  const Table& part = db.table("part");
  std::set<std::string> brands;
  for (uint64_t r = 0; r < part.rows; ++r) {
    const std::string mfgr = str(part, "p_mfgr", r), cat = str(part, "p_category", r), brand = str(part, "p_brand1", r);
    REQUIRE(mfgr.size() == 6);
    REQUIRE(mfgr.substr(0, 5) == "MFGR#");
    REQUIRE(mfgr[5] >= '1');
    REQUIRE(mfgr[5] <= '5');
    REQUIRE(cat.size() == 7);
    REQUIRE(cat.substr(0, 6) == mfgr);
    REQUIRE(cat[6] >= '1');
    REQUIRE(cat[6] <= '5');
    REQUIRE(brand.size() == 9);
    REQUIRE(brand.substr(0, 7) == cat);
    const int b = std::stoi(brand.substr(7));
    REQUIRE(b >= 1);
    REQUIRE(b <= 40);
    brands.insert(brand);
    const std::string name = str(part, "p_name", r), color = str(part, "p_color", r);
    REQUIRE(name.size() <= 22);
    REQUIRE(name.find(' ') != std::string::npos);
    REQUIRE(name.find(color) != 0);  // the color word is not repeated as the name's first word
  }
  CHECK(brands.size() == 1000);
  CHECK(*brands.begin() == "MFGR#1101");
  CHECK(*brands.rbegin() == "MFGR#5540");
  CHECK(part.column("p_category").dictionary.size() == 25);
  CHECK(part.column("p_type").dictionary.size() == 150);
  CHECK(part.column("p_container").dictionary.size() == 40);
  CHECK(part.column("p_color").dictionary.size() == 92);
  CHECK(part.column("p_size").stats.min == 1);
  CHECK(part.column("p_size").stats.max == 50);
}

TEST_CASE("date dimension is the calendar 1992-01-01..1998-12-31") {
  const Table& d = cached_ssb(0.01).table("date");
  REQUIRE(d.rows == 2557);
  CHECK(num(d, "d_datekey", 0) == 19920101);
  CHECK(num(d, "d_datekey", d.rows - 1) == 19981231);
  CHECK(str(d, "d_date", 0) == "January 1, 1992");
  CHECK(str(d, "d_dayofweek", 0) == "Wednesday");  // 1992-01-01 was a Wednesday
  CHECK(num(d, "d_daynuminweek", 0) == 4);          // Sunday = 1
  CHECK(str(d, "d_yearmonth", 0) == "Jan1992");
  CHECK(num(d, "d_holidayfl", 0) == 1);             // New Year's Day
  CHECK(str(d, "d_sellingseason", 0) == "Winter");
  std::map<std::pair<int64_t, int64_t>, int> week_days;
  int holidays_1995 = 0;
  for (uint64_t r = 0; r < d.rows; ++r) {
    const int32_t day = days_from_civil(1992, 1, 1) + int32_t(r);
    const CivilDate c = civil_from_days(day);
    REQUIRE(num(d, "d_datekey", r) == c.year * 10000 + int64_t(c.month) * 100 + c.day);
    REQUIRE(num(d, "d_year", r) == c.year);
    REQUIRE(num(d, "d_yearmonthnum", r) == c.year * 100 + int64_t(c.month));
    REQUIRE(num(d, "d_monthnuminyear", r) == c.month);
    REQUIRE(num(d, "d_daynuminmonth", r) == c.day);
    REQUIRE(str(d, "d_month", r) == vocab::kMonthNames[c.month - 1]);
    REQUIRE(str(d, "d_yearmonth", r) == std::string(vocab::kMonthNames[c.month - 1]).substr(0, 3) + std::to_string(c.year));
    const int64_t dow = num(d, "d_daynuminweek", r);
    REQUIRE(dow == int64_t(day_of_week(day)) + 1);
    REQUIRE(str(d, "d_dayofweek", r) == vocab::kWeekdayNames[size_t(dow - 1)]);
    REQUIRE(num(d, "d_weekdayfl", r) == (dow >= 2 && dow <= 6 ? 1 : 0));
    REQUIRE(num(d, "d_lastdayinweekfl", r) == (dow == 7 ? 1 : 0));
    REQUIRE(num(d, "d_lastdayinmonthfl", r) == (civil_from_days(day + 1).day == 1 ? 1 : 0));
    const int64_t doy = day - days_from_civil(c.year, 1, 1) + 1;
    REQUIRE(num(d, "d_daynuminyear", r) == doy);
    REQUIRE(num(d, "d_weeknuminyear", r) == doy / 7 + 1);
    ++week_days[{c.year, num(d, "d_weeknuminyear", r)}];
    if (c.year == 1995) holidays_1995 += int(num(d, "d_holidayfl", r));
    const std::string season = str(d, "d_sellingseason", r);
    if (c.month == 12 || c.month == 11) REQUIRE(season == "Christmas");
    if (c.month >= 5 && c.month <= 8) REQUIRE(season == "Summer");
  }
  CHECK(holidays_1995 == 10);
  CHECK(week_days[{1994, 6}] == 7);  // SSB Q1.3 selects this week
  CHECK(week_days[{1994, 1}] == 6);  // ssb-dbgen's week 1 has six days
  CHECK(d.column("d_sellingseason").dictionary ==
        std::vector<std::string>{"Christmas", "Fall", "Spring", "Summer", "Winter"});
}

TEST_CASE("no orphan foreign keys") {
  const Database& db = cached_ssb(0.1);
  const Table& lo = db.table("lineorder");
  const Cardinalities c = cardinalities(0.1);
  std::set<int64_t> datekeys;
  const Table& d = db.table("date");
  for (uint64_t r = 0; r < d.rows; ++r) datekeys.insert(num(d, "d_datekey", r));
  std::set<int64_t> ordering_customers;
  for (uint64_t r = 0; r < lo.rows; ++r) {
    const int64_t cust = num(lo, "lo_custkey", r);
    REQUIRE(cust >= 1);
    REQUIRE(cust <= int64_t(c.customers));
    REQUIRE(cust % 3 != 0);  // TPC-H: customers with keys divisible by 3 never order
    ordering_customers.insert(cust);
    REQUIRE(num(lo, "lo_partkey", r) >= 1);
    REQUIRE(num(lo, "lo_partkey", r) <= int64_t(c.parts));
    REQUIRE(num(lo, "lo_suppkey", r) >= 1);
    REQUIRE(num(lo, "lo_suppkey", r) <= int64_t(c.suppliers));
    REQUIRE(datekeys.count(num(lo, "lo_orderdate", r)));
    REQUIRE(datekeys.count(num(lo, "lo_commitdate", r)));
  }
  CHECK(ordering_customers.size() == c.customers - c.customers / 3);
  // Dimension keys are exactly 1..N, so the range checks above are membership checks.
  CHECK(db.table("part").column("p_partkey").stats.min == 1);
  CHECK(db.table("part").column("p_partkey").stats.max == int64_t(c.parts));
  CHECK(db.table("part").column("p_partkey").stats.distinct == c.parts);
  CHECK(db.table("supplier").column("s_suppkey").stats.distinct == c.suppliers);
  CHECK(db.table("customer").column("c_custkey").stats.distinct == c.customers);
}

namespace {

void check_identical(const Database& a, const Database& b) {
  REQUIRE(a.tables.size() == b.tables.size());
  for (const auto& named : a.tables) {  // not a structured binding: CAPTURE's lambda cannot take one in clang 14
    const std::string& name = named.first;
    const Table& ta = named.second;
    CAPTURE(name);
    const Table& tb = b.table(name);
    REQUIRE(ta.rows == tb.rows);
    REQUIRE(ta.columns.size() == tb.columns.size());
    for (size_t i = 0; i < ta.columns.size(); ++i) {
      const Column &x = ta.columns[i], &y = tb.columns[i];
      CAPTURE(x.name);
      CHECK(x.i32 == y.i32);
      CHECK(x.i64 == y.i64);
      CHECK(x.dictionary == y.dictionary);
      CHECK(x.offsets == y.offsets);
      CHECK(x.heap == y.heap);
    }
  }
}

bool any_difference(const Table& a, const Table& b) {
  for (size_t i = 0; i < a.columns.size(); ++i)
    if (a.columns[i].i32 != b.columns[i].i32 || a.columns[i].i64 != b.columns[i].i64 ||
        a.columns[i].heap != b.columns[i].heap)
      return true;
  return false;
}

}  // namespace

TEST_CASE("deterministic: same seed gives the same data with 1 or 4 threads") {
  GenOptions o;
  o.sf = 0.01;
  o.threads = 1;
  const Database one = generate(o);
  o.threads = 4;
  const Database four = generate(o);
  check_identical(one, four);
  check_identical(one, generate(o));
  check_identical(one, cached_ssb(0.01));  // 2 threads, as cached by the other cases

  o.seed = 7;
  const Database other = generate(o);
  CHECK(any_difference(one.table("lineorder"), other.table("lineorder")));
  CHECK(any_difference(one.table("customer"), other.table("customer")));
  CHECK(any_difference(one.table("part"), other.table("part")));
}

TEST_CASE("GenOptions::columns keeps only the named columns, with the values of a full generation") {
  GenOptions o;
  o.sf = 0.01;
  o.threads = 3;
  o.columns = {"lineorder.lo_orderdate", "lineorder.lo_revenue", "lineorder.lo_shipmode", "date.d_year",
               "part.p_brand1"};
  const Database some = generate(o);
  const Database& all = cached_ssb(0.01);
  REQUIRE(some.tables.size() == all.tables.size());  // every table, with its row count
  std::set<std::string> kept;
  for (const auto& named : some.tables) {  // not a structured binding, as above
    const std::string& name = named.first;
    const Table& t = named.second;
    CAPTURE(name);
    CHECK(t.rows == all.table(name).rows);
    for (const Column& c : t.columns) {
      kept.insert(name + "." + c.name);
      const Column& full = all.table(name).column(c.name);
      CAPTURE(c.name);
      CHECK(c.i32 == full.i32);
      CHECK(c.i64 == full.i64);
      CHECK(c.dictionary == full.dictionary);
      CHECK(c.heap == full.heap);
      CHECK(c.stats.min == full.stats.min);
      CHECK(c.stats.max == full.stats.max);
      CHECK(c.stats.distinct == full.stats.distinct);
    }
  }
  CHECK(kept == o.columns);
}

TEST_CASE("progress reaches the total and only grows") {
  GenOptions o;
  o.sf = 0.01;
  o.threads = 3;
  uint64_t last = 0, total = 0, calls = 0;
  bool monotonic = true;
  o.progress = [&](uint64_t done, uint64_t all) {
    monotonic = monotonic && done >= last;
    last = done;
    total = all;
    ++calls;
  };
  generate(o);
  CHECK(monotonic);
  CHECK(calls > 3);
  const Cardinalities c = cardinalities(0.01);
  CHECK(total == c.customers + c.suppliers + c.parts + c.dates + 4 * c.orders);
  CHECK(last == total);
}

TEST_CASE("invalid scale factors are usage errors") {
  for (double sf : {0.0, -1.0, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(), 1e9}) {
    CAPTURE(sf);
    GenOptions o;
    o.sf = sf;
    try {
      generate(o);
      FAIL("expected an error");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::Usage);
    }
  }
}

TEST_CASE("Permutation is a bijection of [0, n)") {
  for (uint64_t n : {1ULL, 2ULL, 3ULL, 20ULL, 250ULL, 1000ULL, 4097ULL, 30000ULL}) {
    CAPTURE(n);
    const Permutation p(42, StreamTag::CustomerSlots, n);
    std::vector<char> seen(n, 0);
    for (uint64_t i = 0; i < n; ++i) {
      const uint64_t v = p(i);
      REQUIRE(v < n);
      REQUIRE(!seen[v]);
      seen[v] = 1;
    }
  }
  // Not the identity, and seed-dependent.
  const Permutation a(1, StreamTag::PartSlots, 1000), b(2, StreamTag::PartSlots, 1000);
  int fixed = 0, same = 0;
  for (uint64_t i = 0; i < 1000; ++i) {
    fixed += a(i) == i;
    same += a(i) == b(i);
  }
  CHECK(fixed < 20);
  CHECK(same < 20);
}

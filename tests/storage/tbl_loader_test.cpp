// Loading the SSB and TPC-H fixtures, and every error case with its exact message.
#include <doctest/doctest.h>

#include <algorithm>

#include "storage/date.h"
#include "storage/error.h"
#include "storage/tbl_loader.h"
#include "test_support.h"

using namespace hqc;
using hqc::test::data_dir;

namespace {

LoadOptions no_cache() {
  LoadOptions o;
  o.use_cache = false;  // never write cache files into the source tree
  o.progress = false;
  return o;
}

std::string load_error(const TableDef& def, const std::filesystem::path& file, LoadOptions options = no_cache()) {
  try {
    load_tbl(def, file, options);
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Input);
    CHECK(e.exit_code() == 3);
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("the SSB fixtures load with every column typed") {
  const Catalog ssb = Catalog::ssb();
  const Database db = load_database(ssb, data_dir() / "ssb", no_cache());
  CHECK(db.tables.size() == 5);
  const Table& lo = db.table("lineorder");
  CHECK(lo.rows == 5);
  CHECK(lo.columns.size() == 17);
  CHECK(lo.column("lo_orderdate").i32 == Values<int32_t>{19920101, 19920101, 19971231, 19920102, 19980101});
  CHECK(lo.column("lo_revenue").i64[0] == 2032150);
  CHECK(lo.column("lo_orderpriority").string_at(4) == "4-NOT SPECIFIED");
  CHECK(lo.column("lo_shipmode").dictionary == std::vector<std::string>{"AIR", "MAIL", "REG AIR", "TRUCK"});
  CHECK(lo.column("lo_shipmode").string_at(2) == "REG AIR");
  CHECK(lo.column("lo_quantity").stats.min == 8);
  CHECK(lo.column("lo_quantity").stats.max == 49);
  CHECK(lo.column("lo_quantity").stats.distinct == 5);

  const Table& date = db.table("date");
  CHECK(date.rows == 5);
  CHECK(date.column("d_date").string_at(0) == "January 1, 1992");  // the comma is data, '|' separates
  CHECK(date.column("d_date").string_at(3) == "December 31, 1997");
  CHECK(date.column("d_dayofweek").string_at(0) == "Wednesday");
  CHECK(date.column("d_yearmonth").string_at(3) == "Dec1997");
  CHECK(date.column("d_year").i32[4] == 1998);
  CHECK(date.column("d_weekdayfl").i32[0] == 1);
  CHECK(db.table("supplier").column("s_city").string_at(0) == "PERU     0");  // inner spaces kept
  CHECK(db.table("customer").column("c_region").dictionary ==
        std::vector<std::string>{"AFRICA", "AMERICA", "MIDDLE EAST"});
  CHECK(db.table("part").column("p_brand1").string_at(1) == "MFGR#4318");
}

TEST_CASE("the TPC-H fixtures load: decimals, dates, and a file without trailing '|'") {
  const Catalog tpch = Catalog::tpch();
  const Database db = load_database(tpch, data_dir() / "tpch", no_cache());
  CHECK(db.tables.size() == 8);
  const Table& l = db.table("lineitem");
  CHECK(l.rows == 5);
  CHECK(l.column("l_extendedprice").i64[0] == 2438667);
  CHECK(l.column("l_discount").i64 == Values<int64_t>{4, 9, 0, 6, 10});
  CHECK(l.column("l_quantity").i64[1] == 3600);
  CHECK(format_iso_date(l.column("l_shipdate").i32[0]) == "1996-03-13");
  CHECK(l.column("l_comment").string_at(0) == "egular courts above the");
  CHECK(l.column("l_comment").string_at(1) == "ly final dependencies: slyly bold ");  // trailing space is data
  CHECK(l.column("l_returnflag").dictionary == std::vector<std::string>{"A", "N", "R"});
  CHECK(db.table("customer").column("c_acctbal").i64[2] == -68640);
  CHECK(db.table("partsupp").column("ps_supplycost").i64[3] == -50);
  CHECK(db.table("region").column("r_name").string_at(4) == "MIDDLE EAST");
  CHECK(db.table("region").column("r_comment").string_at(0).ends_with("according to "));
  CHECK(format_iso_date(db.table("orders").column("o_orderdate").i32[2]) == "1993-10-14");
  CHECK(db.table("orders").column("o_orderdate").stats.min == days_from_civil(1993, 10, 14));
}

TEST_CASE("malformed values are reported with file, line, column and text") {
  const Catalog ssb = Catalog::ssb(), tpch = Catalog::tpch();
  const std::filesystem::path bad = data_dir() / "bad";
  CHECK(load_error(*ssb.find("lineorder"), bad / "lineorder_bad_integer.tbl") ==
        "lineorder_bad_integer.tbl:3: column 9 (lo_quantity): expected integer, found \"1x\"");
  CHECK(load_error(*ssb.find("lineorder"), bad / "lineorder_int32_out_of_range.tbl") ==
        "lineorder_int32_out_of_range.tbl:1: column 1 (lo_orderkey): expected integer in [-2147483648, 2147483647], "
        "found \"3000000000\"");
  CHECK(load_error(*tpch.find("lineitem"), bad / "lineitem_bad_decimal.tbl") ==
        "lineitem_bad_decimal.tbl:4: column 6 (l_extendedprice): expected decimal(15,2) (digits, optional '.', at "
        "most 2 fractional digits), found \"540.585\"");
  CHECK(load_error(*tpch.find("orders"), bad / "orders_bad_date.tbl") ==
        "orders_bad_date.tbl:2: column 5 (o_orderdate): expected date YYYY-MM-DD, found \"1995-02-30\"");
  CHECK(load_error(*tpch.find("customer"), bad / "customer_non_utf8.tbl") ==
        "customer_non_utf8.tbl:2: column 2 (c_name): expected UTF-8 text, found \"Customer#00000\\xFF002\"");
}

TEST_CASE("wrong column counts, empty and missing files") {
  const Catalog ssb = Catalog::ssb(), tpch = Catalog::tpch();
  const std::filesystem::path bad = data_dir() / "bad";
  CHECK(load_error(*ssb.find("lineorder"), bad / "lineorder_too_few_columns.tbl") ==
        "lineorder_too_few_columns.tbl:2: expected 17 columns separated by '|', found 16");
  CHECK(load_error(*ssb.find("lineorder"), bad / "lineorder_too_many_columns.tbl") ==
        "lineorder_too_many_columns.tbl:4: expected 17 columns separated by '|', found 18");
  const std::filesystem::path empty = bad / "nation_empty.tbl";
  CHECK(load_error(*tpch.find("nation"), empty) == empty.string() + ": empty file (no rows); expected nation data");
  LoadOptions allow = no_cache();
  allow.allow_empty = true;
  const Table t = load_tbl(*tpch.find("nation"), empty, allow);
  CHECK(t.rows == 0);
  CHECK(t.columns.size() == 4);
  CHECK_NOTHROW(t.validate());

  const std::filesystem::path missing = data_dir() / "no_such_dir_here" / "lineorder.tbl";
  CHECK(load_error(*ssb.find("lineorder"), missing) ==
        missing.string() + ": no such file; expected table lineorder as '|'-separated text");
  // load_database names the missing table's file: tests/data/bad has no SSB tables.
  try {
    load_database(ssb, bad, no_cache());
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == (bad / "lineorder.tbl").string() +
                                       ": no such file (nor lineorder.hqc); expected table lineorder of schema ssb");
  }
  CHECK_THROWS_WITH_AS(load_database(ssb, data_dir() / "nope", no_cache()), doctest::Contains("not a directory"), Error);
  LoadOptions unknown = no_cache();
  unknown.tables = {"lineitem"};
  CHECK_THROWS_WITH_AS(load_database(ssb, data_dir() / "ssb", unknown), "table lineitem is not part of schema ssb", Error);
  LoadOptions some = no_cache();
  some.tables = {"date", "part"};
  CHECK(load_database(ssb, data_dir() / "ssb", some).tables.size() == 2);
}

TEST_CASE("line endings, blank lines and values at chunk edges") {
  test::ScratchDir dir;
  const TableDef region = *Catalog::tpch().find("region");
  test::write_file(dir / "crlf.tbl", "0|AFRICA|x|\r\n1|ASIA|y\r\n");
  const Table t = load_tbl(region, dir / "crlf.tbl", no_cache());
  CHECK(t.rows == 2);
  CHECK(t.column("r_comment").string_at(1) == "y");
  test::write_file(dir / "blank.tbl", "0|AFRICA|x|\n\n1|ASIA|y|\n");
  CHECK(load_error(region, dir / "blank.tbl") == "blank.tbl:2: expected 3 columns separated by '|', found an empty line");
  test::write_file(dir / "long.tbl", "0|AFRICA|" + std::string(153, 'c') + "|\n");
  CHECK(load_error(region, dir / "long.tbl") ==
        "long.tbl:1: column 3 (r_comment): expected at most 152 characters (varchar(152)), found \"" +
            std::string(40, 'c') + "...\"");
}

TEST_CASE("parallel parsing gives the same table as one thread, and reports the first error") {
  test::ScratchDir dir;
  const TableDef lo = *Catalog::ssb().find("lineorder");
  std::string text;
  const char* modes[] = {"AIR", "MAIL", "RAIL", "SHIP", "TRUCK", "REG AIR", "FOB"};
  const int rows = 60000;  // about 5 MB: many chunks of 64 KiB
  for (int i = 0; i < rows; ++i) {
    text += std::to_string(i / 4 + 1) + "|" + std::to_string(i % 4 + 1) + "|" + std::to_string(i % 3000) + "|" +
            std::to_string(i % 20000) + "|" + std::to_string(i % 200) + "|1995" + (i % 2 ? "0315" : "1102") +
            "|3-MEDIUM|0|" + std::to_string(i % 50 + 1) + "|" + std::to_string(100000 + i) + "|777777|" +
            std::to_string(i % 11) + "|" + std::to_string(90000 + i) + "|5000|" + std::to_string(i % 9) +
            "|19951201|" + modes[(i * 7919) % 7] + "|\n";
  }
  test::write_file(dir / "lineorder.tbl", text);
  LoadOptions one = no_cache(), many = no_cache();
  one.threads = 1;
  many.threads = 8;
  const Table a = load_tbl(lo, dir / "lineorder.tbl", one);
  const Table b = load_tbl(lo, dir / "lineorder.tbl", many);
  REQUIRE(a.rows == static_cast<uint64_t>(rows));
  REQUIRE(b.rows == a.rows);
  for (size_t c = 0; c < a.columns.size(); ++c) {
    CAPTURE(a.columns[c].name);
    CHECK(a.columns[c].i32 == b.columns[c].i32);
    CHECK(a.columns[c].i64 == b.columns[c].i64);
    CHECK(a.columns[c].dictionary == b.columns[c].dictionary);
    CHECK(a.columns[c].stats.distinct == b.columns[c].stats.distinct);
  }
  CHECK(b.column("lo_shipmode").dictionary.size() == 7);
  CHECK(b.column("lo_shipmode").string_at(12345) == modes[(12345 * 7919) % 7]);

  // Two bad lines far apart: whichever worker finishes first, the earlier line is reported.
  std::string broken = text;
  const size_t late = broken.find("|3-MEDIUM|", broken.size() * 9 / 10);
  broken.replace(late, 10, "|3-MEDIUM|0|x");  // too many fields late in the file
  const size_t early = broken.find("|3-MEDIUM|0|", broken.size() / 3);
  const size_t line = static_cast<size_t>(std::count(broken.begin(), broken.begin() + static_cast<long>(early), '\n')) + 1;
  broken.replace(early + 12, 0, "q");  // lo_quantity becomes "q<digits>"
  test::write_file(dir / "lineorder.tbl", broken);
  const std::string msg = load_error(lo, dir / "lineorder.tbl", many);
  CHECK(msg.starts_with("lineorder.tbl:" + std::to_string(line) + ": column 9 (lo_quantity): expected integer, found \"q"));
}

TEST_CASE("a user schema from JSON loads yyyymmdd dates, float64 and empty last strings") {
  test::ScratchDir dir;
  const Catalog shop = Catalog::from_json(R"J({"name": "shop", "tables": [{"name": "sales", "columns": [
      {"name": "day", "type": "date", "text_format": "yyyymmdd"},
      {"name": "ratio", "type": "float64"},
      {"name": "big", "type": "int64"},
      {"name": "note", "type": "varchar"}]}]})J",
                                          "shop.json");
  // Unterminated lines (the first line has exactly three separators): "a|b|c|" ends with an empty note.
  test::write_file(dir / "sales.tbl", "19980802|0.25|-9000000000|\n20000229|1e3|7|hello\n");
  const Database db = load_database(shop, dir.path(), no_cache());
  const Table& t = db.table("sales");
  REQUIRE(t.rows == 2);
  CHECK(format_iso_date(t.column("day").i32[0]) == "1998-08-02");
  CHECK(format_iso_date(t.column("day").i32[1]) == "2000-02-29");
  CHECK(t.column("ratio").f64 == Values<double>{0.25, 1000.0});
  CHECK(t.column("big").i64[0] == -9000000000LL);
  CHECK(t.column("note").string_at(0).empty());
  CHECK(t.column("note").string_at(1) == "hello");
  test::write_file(dir / "sales.tbl", "19980802|0.25|1|x\n19981302|0.5|2|y\n");
  CHECK_THROWS_WITH_AS(load_database(shop, dir.path(), no_cache()),
                       "sales.tbl:2: column 1 (day): expected date YYYYMMDD, found \"19981302\"", Error);
}

TEST_CASE("a failed load leaves no cache behind, and a fixed file loads") {
  test::ScratchDir dir;
  const TableDef lo = *Catalog::ssb().find("lineorder");
  const std::filesystem::path file = dir / "lineorder.tbl";
  std::filesystem::copy_file(data_dir() / "bad" / "lineorder_bad_integer.tbl", file);
  LoadOptions cached;
  cached.progress = false;
  CHECK(load_error(lo, file, cached) == "lineorder.tbl:3: column 9 (lo_quantity): expected integer, found \"1x\"");
  CHECK_FALSE(std::filesystem::exists(dir / "lineorder.tbl.hqc"));
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) CHECK(entry.path() == file);
  test::write_file(file, test::read_file(data_dir() / "ssb" / "lineorder.tbl"));
  LoadReport rep;
  CHECK(load_tbl(lo, file, cached, &rep).rows == 5);
  CHECK(rep.cache_file == dir / "lineorder.tbl.hqc");
  CHECK(cache_candidates(file, cached).front() == dir / "lineorder.tbl.hqc");
  cached.cache_dir = dir / "c";
  CHECK(cache_candidates(file, cached).size() == 1);
  CHECK(cache_candidates(file, cached).front().parent_path() == dir / "c");
}

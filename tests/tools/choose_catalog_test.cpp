// driver::choose_catalog with --schema auto: the catalog from the tables a query names, never from
// its comments or string literals.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>

#include "tools/driver/plan_input.h"

using namespace hqc;

namespace {

bool is_tpch(const Catalog& c) { return c.find("lineitem") != nullptr; }

}  // namespace

TEST_CASE("auto schema: every TPC-H and SSB query file binds to its own catalog") {
  const char* root = std::getenv("HORSEQC_SOURCE_DIR");
  REQUIRE(root != nullptr);
  int tpch = 0, ssb = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(root) / "tpch" / "queries")) {
    if (e.path().extension() != ".sql") continue;
    CAPTURE(e.path().string());
    CHECK(is_tpch(driver::choose_catalog("auto", driver::read_text_file(e.path().string()), true)));
    ++tpch;
  }
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(root) / "ssb" / "queries")) {
    if (e.path().extension() != ".sql") continue;
    CAPTURE(e.path().string());
    CHECK_FALSE(is_tpch(driver::choose_catalog("auto", driver::read_text_file(e.path().string()), true)));
    ++ssb;
  }
  CHECK(tpch >= 22);
  CHECK(ssb == 13);
}

TEST_CASE("auto schema: words in comments and string literals are not table names") {
  CHECK(is_tpch(driver::choose_catalog("auto", "-- DATE = 1995-03-15\nselect count(*) from orders", true)));
  CHECK(is_tpch(driver::choose_catalog("auto", "/* lineorder date */ select count(*) from orders", true)));
  CHECK(is_tpch(driver::choose_catalog("auto", "select count(*) from orders where o_orderpriority = 'lineorder date'", true)));
  CHECK(is_tpch(driver::choose_catalog("auto", "select count(*) from orders where o_comment = 'it''s date'", true)));
  CHECK(is_tpch(driver::choose_catalog("auto", "select count(*) from orders where o_orderdate < date '1995-03-15'", true)));
  CHECK_FALSE(is_tpch(driver::choose_catalog("auto", "-- orders\nselect count(*) from lineorder, date", true)));
  CHECK_FALSE(is_tpch(driver::choose_catalog("auto", "select count(*) from \"lineorder\"", true)));
}

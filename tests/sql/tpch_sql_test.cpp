// TPC-H coverage of the SQL frontend: all 22 queries (tpch/queries/*.sql, validation parameters)
// parse; each either binds to a logical plan or fails with Error(Unsupported) naming the construct
// at its position — never a crash, never an Input error (the queries are valid SQL).
#include <doctest/doctest.h>

#include <set>

#include "frontend/sql/sql_frontend.h"
#include "storage/catalog.h"
#include "tests/sql/sql_test_util.h"

using namespace hqc;

TEST_CASE("TPC-H: every query binds or names the unsupported construct") {
  Catalog catalog = Catalog::tpch();
  std::set<int> bound;
  for (int q = 1; q <= 22; ++q) {
    CAPTURE(q);
    std::string path = test::repo_dir() + "/tpch/queries/" + std::to_string(q) + ".sql";
    std::string sql = test::read_text(path);
    REQUIRE(!sql.empty());
    test::Failure f = test::sql_error(sql, catalog);
    if (!f.thrown) {
      bound.insert(q);
      MESSAGE("Q" << q << ": binds");
      continue;
    }
    MESSAGE("Q" << q << ": " << f.message);
    CHECK(f.kind == ErrorKind::Unsupported);
    CHECK(f.message.starts_with("q.sql:"));
    CHECK(f.message.find("not supported") != std::string::npos);
  }
}

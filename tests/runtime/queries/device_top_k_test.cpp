// ORDER BY ... LIMIT k of a compacted table with its candidates chosen on the device
// (runtime/execution/device_top_k.h): the same rows, in the same order, as the host alone gives,
// for every key the device path takes (64- and 32-bit integers, dictionary codes in a hashed
// table's key lanes, 128-bit sums, negative values, descending, ties at the k-th row,
// OFFSET), and the device path really ran (hqc_order_words launched).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "frontend/sql/sql_frontend.h"
#include "ir/state.h"
#include "planner/statistics.h"
#include "runtime/execution/executor.h"
#include "storage/catalog.h"
#include "tests/runtime/forwarding_backend.h"
#include "tools/driver/query_driver.h"
#include "tests/runtime/queries/tpch_sf001.h"

using namespace hqc;
using namespace hqc::runtime;

namespace {

const Database& tpch_data() { return test::tpch_sf001(); }

// Counts the launches of the ORDER BY words kernel.
class CountingBackend final : public test::ForwardingBackend {
 public:
  explicit CountingBackend(std::unique_ptr<Backend> inner) : ForwardingBackend(std::move(inner)) {}
  int order_words = 0;
  void launch(const Kernel& k, const std::vector<KernelArg>& a, const LaunchConfig& c) override {
    if (k.name == ir::kOrderWordsKernel) ++order_words;
    ForwardingBackend::launch(k, a, c);
  }
};

struct Run {
  std::string csv;
  int order_words = 0;
  FinalizeParts parts;
};

Run run(const std::string& sql, bool statistics, uint64_t device_top_k_rows) {
  static CountingBackend backend(open_backend(DeviceChoice::OpenCL));
  static Executor executor(backend, nullptr);
  const Database& db = tpch_data();
  const Catalog catalog = Catalog::tpch();
  const planner::DatabaseStatistics stats(db);
  driver::CompileOptions options;
  options.dialect = backend.dialect();
  options.stats = statistics ? &stats : nullptr;
  auto plan = std::make_shared<const plan::LogicalPlan>(parse_sql(sql, "top-k test", catalog));
  const ExecutablePlan lowered = driver::lower_query(driver::compile_query(plan, catalog, options), db);
  ExecutorOptions exec;
  exec.device_top_k_rows = device_top_k_rows;
  backend.order_words = 0;
  Run r;
  const Execution e = executor.run(lowered, db, exec);
  r.csv = e.result.format(ResultFormat::Csv);
  r.parts = e.stats.finalize_parts;
  r.order_words = backend.order_words;
  return r;
}

void check_same(const std::string& sql, bool statistics = true) {
  CAPTURE(sql);
  CAPTURE(statistics);
  const Run host = run(sql, statistics, UINT64_MAX);
  const Run device = run(sql, statistics, 1);
  CHECK(host.order_words == 0);
  CHECK(device.order_words == 1);
  CHECK(device.csv == host.csv);
  CHECK(std::count(host.csv.begin(), host.csv.end(), '\n') > 3);
}

}  // namespace

TEST_CASE("ORDER BY ... LIMIT k of many groups: candidates on the device, the host's rows and order") {
  // 64-bit sums (statistics bound them), descending, then a tie-breaking key.
  check_same("SELECT l_orderkey, sum(l_extendedprice * (1 - l_discount)) AS revenue FROM lineitem GROUP BY l_orderkey "
             "ORDER BY revenue DESC, l_orderkey LIMIT 10");
  // The same sums 128-bit (no statistics), ascending.
  check_same("SELECT l_orderkey, sum(l_extendedprice * (1 - l_discount)) AS revenue FROM lineitem GROUP BY l_orderkey "
             "ORDER BY revenue, l_orderkey LIMIT 10",
             false);
  // Small integer sums: many groups tie at the k-th word; the later key decides among them.
  check_same("SELECT l_orderkey, sum(l_quantity) AS q FROM lineitem GROUP BY l_orderkey ORDER BY q, l_orderkey DESC LIMIT 7");
  check_same("SELECT l_orderkey, count(*) AS n FROM lineitem GROUP BY l_orderkey ORDER BY n DESC, l_orderkey LIMIT 5 OFFSET 4");
  // Negative and positive sums.
  check_same("SELECT l_orderkey, sum(l_extendedprice * (l_discount - 0.05)) AS d FROM lineitem GROUP BY l_orderkey "
             "ORDER BY d, l_orderkey LIMIT 9");
  check_same("SELECT l_orderkey, sum(l_extendedprice * (l_discount - 0.05)) AS d FROM lineitem GROUP BY l_orderkey "
             "ORDER BY d DESC, l_orderkey LIMIT 9");
  // Dictionary codes and a date in a hashed table's key lanes (the keys' domains multiply past a
  // direct-indexed table's).
  check_same("SELECT o_orderpriority, o_custkey, o_orderdate, count(*) AS n FROM orders GROUP BY o_orderpriority, o_custkey, o_orderdate "
             "ORDER BY o_orderpriority DESC, o_custkey, o_orderdate LIMIT 6");
  // Without statistics the keys are not bit-packed into one word (a packed key is decoded from it on
  // the host, not read from a lane): a date lane.
  check_same("SELECT o_totalprice, o_orderdate, o_custkey, count(*) AS n FROM orders GROUP BY o_totalprice, o_orderdate, o_custkey "
             "ORDER BY o_orderdate DESC, o_totalprice, o_custkey LIMIT 8",
             false);
  // (Doubles: no TPC-H column is one; the words' order for them is checked on the kernel itself,
  // tests/templates/primitives_test.cpp.)
}

TEST_CASE("ORDER BY ... LIMIT k on the device only where the words follow the key: an AVG stays on the host") {
  const std::string sql = "SELECT l_orderkey, avg(l_quantity) AS a FROM lineitem GROUP BY l_orderkey ORDER BY a DESC, l_orderkey LIMIT 5";
  const Run host = run(sql, true, UINT64_MAX);
  const Run device = run(sql, true, 1);
  CHECK(device.order_words == 0);
  CHECK(device.csv == host.csv);
}

// ExecutionStats::finalize_parts: the rows the result was made from and the rows read whole, counted
// here from the data (times are not checked: benchmarks measure them).
TEST_CASE("finalize_parts counts the result's rows and the rows the host read whole") {
  const Database& db = tpch_data();
  std::set<int64_t> orders;
  const Column& l_orderkey = db.table("lineitem").column("l_orderkey");
  for (size_t i = 0; i < l_orderkey.size(); ++i) orders.insert(l_orderkey.int_at(i));
  const std::string grouped = "SELECT l_orderkey, sum(l_quantity) AS q FROM lineitem GROUP BY l_orderkey ORDER BY q DESC, l_orderkey";
  for (uint64_t device_rows : {uint64_t{1}, UINT64_MAX}) {
    CAPTURE(device_rows);
    const Run top = run(grouped + " LIMIT 7", true, device_rows);
    CHECK(top.parts.rows == orders.size());  // every group (the device top-k narrows what is read, not this)
    CHECK(top.parts.rows_read == 7);
    const Run all = run(grouped, true, device_rows);
    CHECK(all.parts.rows == orders.size());
    CHECK(all.parts.rows_read == orders.size());
  }
  // An output's rows: its counter.
  const Column& o_orderkey = db.table("orders").column("o_orderkey");
  uint64_t small = 0;
  for (size_t i = 0; i < o_orderkey.size(); ++i) small += o_orderkey.int_at(i) < 200 ? 1 : 0;
  const Run out = run("SELECT o_orderkey, o_totalprice FROM orders WHERE o_orderkey < 200 ORDER BY o_totalprice LIMIT 5", true, UINT64_MAX);
  CHECK(out.parts.rows == small);
  CHECK(out.parts.rows_read == 5);
  CHECK(small > 5);
}

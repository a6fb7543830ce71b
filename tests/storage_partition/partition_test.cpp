// Distributed loading (storage/partition.h) and columnar range reads (storage/columnar_cache.h) on
// generated SSB and TPC-H data at SF 0.01, as .tbl files with their cache and as standalone columnar
// files: every rank's share, concatenated in rank order, is the whole table; shares are contiguous;
// stats and DatabaseStatistics::rows are the whole table's; lineitem follows orders' key ranges;
// replicated tables equal the full load.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "../storage/test_support.h"
#include "planner/statistics.h"
#include "ssb/generator.h"
#include "storage/columnar_cache.h"
#include "storage/error.h"
#include "storage/partition.h"
#include "storage/tbl_loader.h"
#include "storage/tbl_writer.h"
#include "tpch/generator.h"

using namespace hqc;

namespace {

LoadOptions quiet() {
  LoadOptions o;
  o.progress = false;
  o.threads = 2;
  return o;
}

enum class Format { TblWithCache, Columnar };

// Writes `db` into `dir` as .tbl files (the first load writes their caches) or standalone .hqc files.
void write_database(const Database& db, const Catalog& catalog, const std::filesystem::path& dir, Format format) {
  for (const TableDef& def : catalog.tables) {
    if (format == Format::Columnar) write_columnar(db.table(def.name), def, dir / (def.name + ".hqc"));
    else write_tbl(db.table(def.name), def, (dir / (def.name + ".tbl")).string(), 2);
  }
}

void check_same_stats(const ColumnStats& a, const ColumnStats& b) {
  CHECK(a.valid == b.valid);
  CHECK(a.min == b.min);
  CHECK(a.max == b.max);
  CHECK(a.distinct == b.distinct);
}

// `part` is rows [first, first + part.rows) of `whole`, column by column; its stats and dictionaries
// are the whole table's.
void check_rows_of(const Table& part, const Table& whole, uint64_t first) {
  INFO("table " << whole.name << " rows from " << first);
  part.validate();
  REQUIRE(part.columns.size() == whole.columns.size());
  REQUIRE(first + part.rows <= whole.rows);
  for (size_t c = 0; c < whole.columns.size(); ++c) {
    const Column &p = part.columns[c], &w = whole.columns[c];
    INFO("column " << w.name);
    REQUIRE(p.name == w.name);
    REQUIRE(p.type == w.type);
    REQUIRE(p.encoding == w.encoding);
    REQUIRE(p.size() == part.rows);
    CHECK(p.dictionary == w.dictionary);
    check_same_stats(p.stats, w.stats);
    bool same = true;
    for (uint64_t r = 0; r < part.rows && same; ++r) {
      if (!w.i32.empty()) same = p.i32[r] == w.i32[first + r];
      else if (!w.i64.empty()) same = p.i64[r] == w.i64[first + r];
      else if (!w.f64.empty()) same = std::memcmp(&p.f64[r], &w.f64[first + r], sizeof(double)) == 0;
      else same = p.string_at(r) == w.string_at(first + r);
    }
    CHECK(same);
    if (!w.offsets.empty()) {
      CHECK(p.offsets.front() == 0);
      CHECK(p.heap.size() == w.offsets[first + part.rows] - w.offsets[first]);
    }
  }
}

void check_same_table(const Table& a, const Table& b) {
  CHECK(a.rows == b.rows);
  CHECK(!a.partition.has_value());
  check_rows_of(a, b, 0);
}

// Loads every rank's share and checks the shares against the whole database `full`; returns them.
std::vector<Database> check_partitions(const Catalog& catalog, const std::filesystem::path& dir, const Database& full,
                                       const PartitionRequest& shape) {
  const std::vector<std::string> partitioned = partitioned_tables(catalog);
  std::vector<Database> ranks;
  for (int r = 0; r < shape.ranks; ++r) {
    PartitionRequest request = shape;
    request.rank = r;
    std::vector<LoadReport> reports;
    ranks.push_back(load_partition(catalog, dir, quiet(), request, &reports));
    CHECK(reports.size() == catalog.tables.size());
    for (const LoadReport& rep : reports) {
      INFO("rank " << r << " table " << rep.table << " note " << rep.cache_note);
      CHECK(rep.from_columnar);
    }
  }
  for (const TableDef& def : catalog.tables) {
    INFO("table " << def.name << ", " << shape.ranks << " ranks");
    const Table& whole = full.table(def.name);
    const bool is_partitioned = std::find(partitioned.begin(), partitioned.end(), def.name) != partitioned.end();
    uint64_t next = 0;
    for (int r = 0; r < shape.ranks; ++r) {
      const Table& part = ranks[static_cast<size_t>(r)].table(def.name);
      if (!is_partitioned) {
        check_same_table(part, whole);
        continue;
      }
      REQUIRE(part.partition.has_value());
      CHECK(part.partition->total_rows == whole.rows);
      CHECK(part.partition->first_row == next);  // contiguous, in rank order
      check_rows_of(part, whole, part.partition->first_row);
      CHECK(planner::DatabaseStatistics(ranks[static_cast<size_t>(r)]).rows(def.name) == whole.rows);
      if (def.name == "lineorder" || def.name == "orders") {  // split by rows: exactly the formula's share
        PartitionRequest request = shape;
        request.rank = r;
        CHECK(row_share(whole.rows, request) == RowRange{part.partition->first_row, part.rows});
      }
      if (def.name == "partsupp" && part.rows > 0) {  // split at ps_partkey's boundaries: no part on two ranks
        const Column& key = whole.column("ps_partkey");
        const uint64_t first = part.partition->first_row, end = first + part.rows;
        CHECK((first == 0 || key.int_at(first - 1) != key.int_at(first)));
        CHECK((end == whole.rows || key.int_at(end - 1) != key.int_at(end)));
        PartitionRequest request = shape;
        request.rank = r;
        const RowRange by_rows = row_share(whole.rows, request);  // within a key's run of the formula's
        CHECK(first <= by_rows.first);
        CHECK(by_rows.first - first < 8);
      }
      next = part.partition->first_row + part.rows;
    }
    if (is_partitioned) CHECK(next == whole.rows);  // the shares cover the table
  }
  return ranks;
}

// Every rank's lineitem keys lie in [its first o_orderkey, the next rank's first o_orderkey).
void check_co_partitioned(const std::vector<Database>& ranks) {
  for (size_t r = 0; r < ranks.size(); ++r) {
    INFO("rank " << r);
    const Table& orders = ranks[r].table("orders");
    const Table& lineitem = ranks[r].table("lineitem");
    const Column& okey = lineitem.column("l_orderkey");
    bool has_lo = orders.rows > 0 && orders.partition->first_row > 0, has_hi = false;
    const int64_t lo = orders.rows > 0 ? orders.column("o_orderkey").int_at(0) : 0;
    int64_t hi = 0;
    for (size_t n = r + 1; n < ranks.size() && !has_hi; ++n)
      if (ranks[n].table("orders").rows > 0) {
        has_hi = true;
        hi = ranks[n].table("orders").column("o_orderkey").int_at(0);
      }
    if (orders.rows == 0) {
      CHECK(lineitem.rows == 0);
      continue;
    }
    bool inside = true;
    for (uint64_t i = 0; i < lineitem.rows; ++i) {
      const int64_t k = okey.int_at(i);
      inside = inside && (!has_lo || k >= lo) && (!has_hi || k < hi);
    }
    CHECK(inside);
    CHECK(lineitem.rows > 0);  // every order has at least one line
    CHECK(okey.int_at(0) == lo);
  }
}

std::vector<PartitionRequest> shapes() {
  std::vector<PartitionRequest> out;
  for (int ranks = 1; ranks <= 4; ++ranks) out.push_back({0, ranks, {}});
  out.push_back({0, 3, {0, 1, 1}});  // rank 0 empty
  out.push_back({0, 3, {1, 0, 1}});  // an empty rank in the middle
  out.push_back({0, 2, {1, 3}});
  return out;
}

// One generated data set per schema and format, shared by the test cases of this file.
struct DataSet {
  test::ScratchDir dir;
  Database full;
};

DataSet& ssb_data(Format format) {
  static DataSet tbl, columnar;
  static bool made[2] = {false, false};
  DataSet& d = format == Format::Columnar ? columnar : tbl;
  if (!made[static_cast<int>(format)]) {
    ssb::GenOptions g;
    g.sf = 0.01;
    g.threads = 2;
    d.full = ssb::generate(g);
    write_database(d.full, Catalog::ssb(), d.dir.path(), format);
    made[static_cast<int>(format)] = true;
  }
  return d;
}

DataSet& tpch_data(Format format) {
  static DataSet tbl, columnar;
  static bool made[2] = {false, false};
  DataSet& d = format == Format::Columnar ? columnar : tbl;
  if (!made[static_cast<int>(format)]) {
    tpch::GenOptions g;
    g.sf = 0.01;
    g.threads = 2;
    d.full = tpch::generate(g);
    write_database(d.full, Catalog::tpch(), d.dir.path(), format);
    made[static_cast<int>(format)] = true;
  }
  return d;
}

}  // namespace

TEST_CASE("partitioned_tables names the large tables of SSB and TPC-H only") {
  CHECK(partitioned_tables(Catalog::ssb()) == std::vector<std::string>{"lineorder"});
  CHECK(partitioned_tables(Catalog::tpch()) == std::vector<std::string>{"orders", "lineitem", "partsupp"});
  const std::vector<PartitionedTable> tpch = partition_scheme(Catalog::tpch());
  REQUIRE(tpch.size() == 3);
  CHECK(tpch[2].key == "ps_partkey");  // split at its key's boundaries, a group of its own
  CHECK(tpch[2].parent.empty());
  CHECK(tpch[2].group() == "partsupp");
  CHECK(tpch[1].group() == "orders");
  CHECK(tpch[1].key == "l_orderkey");
  CHECK(tpch[1].parent == "orders");
  CHECK(tpch[1].parent_key == "o_orderkey");
  Catalog other = Catalog::ssb();
  other.name = "mine";
  CHECK(partitioned_tables(other).empty());
}

TEST_CASE("row_share follows floor(total * W_<r / W)") {
  CHECK(row_share(10, {0, 1, {}}) == RowRange{0, 10});
  CHECK(row_share(10, {0, 3, {}}) == RowRange{0, 3});
  CHECK(row_share(10, {1, 3, {}}) == RowRange{3, 3});
  CHECK(row_share(10, {2, 3, {}}) == RowRange{6, 4});
  CHECK(row_share(10, {0, 2, {1, 3}}) == RowRange{0, 2});
  CHECK(row_share(10, {1, 2, {1, 3}}) == RowRange{2, 8});
  CHECK(row_share(10, {0, 3, {0, 1, 1}}) == RowRange{0, 0});
  CHECK(row_share(10, {1, 3, {0, 1, 1}}) == RowRange{0, 5});
  CHECK(row_share(10, {2, 3, {0, 1, 1}}) == RowRange{5, 5});
  CHECK(row_share(2, {1, 4, {}}) == RowRange{0, 1});
  CHECK(row_share(2, {2, 4, {}}) == RowRange{1, 0});
  CHECK(row_share(0, {1, 2, {}}) == RowRange{0, 0});
}

TEST_CASE("bad partition requests are usage errors") {
  auto usage = [](const PartitionRequest& r, const std::string& expected) {
    INFO(expected);
    try {
      check_partition_request(r);
      FAIL("accepted");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::Usage);
      CHECK(std::string(e.what()).find(expected) != std::string::npos);
    }
  };
  usage({0, 0, {}}, "0 ranks; expected at least 1");
  usage({2, 2, {}}, "rank 2 outside [0, 2)");
  usage({-1, 2, {}}, "rank -1 outside [0, 2)");
  usage({0, 2, {1}}, "1 weights for 2 ranks");
  usage({0, 2, {1, -1}}, "weight -1.000000 of rank 1");
  usage({0, 2, {0, 0}}, "every weight is 0");
  usage({0, 2, {1, std::nan("")}}, "of rank 1; expected a finite number");
  // load_partition checks before touching files: a missing directory is not what it reports.
  try {
    load_partition(Catalog::ssb(), "/nonexistent/dir", quiet(), {3, 2, {}});
    FAIL("accepted");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Usage);
  }
}

TEST_CASE("read_columnar_rows reads a range equal to the slice of read_columnar") {
  const DataSet& d = tpch_data(Format::Columnar);
  const Catalog catalog = Catalog::tpch();
  for (const char* name : {"lineitem", "part", "nation"}) {
    const TableDef& def = *catalog.find(name);
    const std::filesystem::path file = d.dir / (std::string(name) + ".hqc");
    std::string why;
    const std::optional<Table> whole = read_columnar(def, file, std::nullopt, &why);
    REQUIRE_MESSAGE(whole, why);
    const uint64_t n = whole->rows;
    for (RowRange range : {RowRange{0, n}, RowRange{0, 0}, RowRange{n, 0}, RowRange{n / 3, n / 3}, RowRange{n - 1, 1}}) {
      INFO(name << " rows " << range.first << " + " << range.rows);
      const std::optional<Table> part = read_columnar_rows(def, file, std::nullopt, range.first, range.rows, &why);
      REQUIRE_MESSAGE(part, why);
      CHECK(part->rows == range.rows);
      REQUIRE(part->partition.has_value());
      CHECK(*part->partition == Table::Partition{range.first, n});
      check_rows_of(*part, *whole, range.first);
      const Table sliced = slice_rows(*whole, range.first, range.rows);
      CHECK(*sliced.partition == *part->partition);
      check_rows_of(sliced, *whole, range.first);
    }
    // Single values, for the binary search.
    const std::optional<ColumnarFile> f = ColumnarFile::open(def, file, std::nullopt, &why);
    REQUIRE_MESSAGE(f, why);
    CHECK(f->rows() == n);
    const Column& key = whole->columns[0];
    CHECK(f->int_at(0, 0) == key.int_at(0));
    CHECK(f->int_at(0, n - 1) == key.int_at(n - 1));
    CHECK(f->int_at(0, n / 2) == key.int_at(n / 2));
    CHECK_THROWS_AS(f->int_at(0, n), Error);
  }
  // Every kind of column in one table: int32, int64 decimals, dates, dictionary and heap strings.
  const TableDef& def = *catalog.find("lineitem");
  const Table& whole = d.full.table("lineitem");
  for (size_t c = 0; c < def.columns.size(); ++c) {
    const std::optional<ColumnarFile> f = ColumnarFile::open(def, d.dir / "lineitem.hqc", std::nullopt);
    REQUIRE(f);
    const Column& col = whole.columns[c];
    INFO("column " << col.name);
    if (col.i32.empty() && col.i64.empty()) {
      CHECK_THROWS_AS(f->int_at(c, 0), Error);
      continue;
    }
    bool same = true;
    for (uint64_t r = 0; r < whole.rows; r += 997) same = same && f->int_at(c, r) == col.int_at(r);
    CHECK(same);
  }
}

TEST_CASE("a range past the end fails cleanly") {
  const DataSet& d = ssb_data(Format::Columnar);
  const Catalog catalog = Catalog::ssb();
  const TableDef& def = *catalog.find("supplier");
  const uint64_t n = d.full.table("supplier").rows;
  std::string why;
  CHECK_FALSE(read_columnar_rows(def, d.dir / "supplier.hqc", std::nullopt, n - 5, 10, &why));
  CHECK(why == "supplier.hqc: rows [" + std::to_string(n - 5) + ", " + std::to_string(n + 5) + ") asked, the file holds " +
                   std::to_string(n) + " rows of table supplier");
  CHECK_FALSE(read_columnar_rows(def, d.dir / "supplier.hqc", std::nullopt, n + 1, 0, &why));
  CHECK_FALSE(read_columnar_rows(def, d.dir / "supplier.hqc", std::nullopt, 1, UINT64_MAX, &why));
  // A cache must carry the expected source stamp; a standalone file carries none.
  CHECK_FALSE(read_columnar_rows(def, d.dir / "supplier.hqc", SourceStamp{1, 2}, 0, 1, &why));
  CHECK(why == "supplier.hqc: has no source stamp");
  try {
    slice_rows(d.full.table("supplier"), n, 1);
    FAIL("accepted");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Input);
    CHECK(std::string(e.what()) == "table supplier: rows [" + std::to_string(n) + ", " + std::to_string(n + 1) +
                                       ") asked, it has " + std::to_string(n));
  }
}

TEST_CASE("SSB: lineorder partitions from standalone columnar files") {
  const DataSet& d = ssb_data(Format::Columnar);
  for (const PartitionRequest& shape : shapes()) check_partitions(Catalog::ssb(), d.dir.path(), d.full, shape);
}

TEST_CASE("SSB: lineorder partitions from .tbl files, the first load writing the cache") {
  const DataSet& d = ssb_data(Format::TblWithCache);
  // No cache yet: the whole table is parsed (and cached), then sliced.
  std::vector<LoadReport> reports;
  const Database first = load_partition(Catalog::ssb(), d.dir.path(), quiet(), {1, 2, {}}, &reports);
  const LoadReport* lineorder = nullptr;
  for (const LoadReport& r : reports)
    if (r.table == "lineorder") lineorder = &r;
  REQUIRE(lineorder);
  CHECK_FALSE(lineorder->from_columnar);
  CHECK(lineorder->cache_file == d.dir / "lineorder.tbl.hqc");
  const uint64_t n = d.full.table("lineorder").rows;
  CHECK(lineorder->cache_note == "no valid columnar copy to read a range from (no columnar cache of lineorder.tbl); "
                                 "loaded the whole table and kept rows [" + std::to_string(n / 2) + ", " +
                                     std::to_string(n) + ")");
  check_rows_of(first.table("lineorder"), d.full.table("lineorder"), n / 2);
  // From now on every rank reads its range of the cache (check_partitions requires from_columnar).
  for (const PartitionRequest& shape : shapes()) check_partitions(Catalog::ssb(), d.dir.path(), d.full, shape);
}

TEST_CASE("SSB: without the cache, the whole table is loaded and sliced") {
  const DataSet& d = ssb_data(Format::TblWithCache);
  LoadOptions o = quiet();
  o.use_cache = false;
  std::vector<LoadReport> reports;
  const Database db = load_partition(Catalog::ssb(), d.dir.path(), o, {2, 3, {1, 1, 2}}, &reports);
  const uint64_t n = d.full.table("lineorder").rows;
  const Table& part = db.table("lineorder");
  REQUIRE(part.partition.has_value());
  CHECK(part.partition->first_row == n / 2);
  CHECK(part.rows == n - n / 2);
  check_rows_of(part, d.full.table("lineorder"), n / 2);
  CHECK(db.table("customer").rows == d.full.table("customer").rows);
}

TEST_CASE("TPC-H: orders by rows, lineitem co-partitioned, from standalone columnar files") {
  const DataSet& d = tpch_data(Format::Columnar);
  for (const PartitionRequest& shape : shapes())
    check_co_partitioned(check_partitions(Catalog::tpch(), d.dir.path(), d.full, shape));
}

TEST_CASE("TPC-H: orders by rows, lineitem co-partitioned, from .tbl files and their cache") {
  const DataSet& d = tpch_data(Format::TblWithCache);
  LoadOptions o = quiet();
  load_database(Catalog::tpch(), d.dir.path(), o);  // writes the caches
  for (const PartitionRequest& shape : shapes())
    check_co_partitioned(check_partitions(Catalog::tpch(), d.dir.path(), d.full, shape));
}

TEST_CASE("TPC-H: only lineitem asked for still follows orders' key ranges") {
  const DataSet& d = tpch_data(Format::Columnar);
  LoadOptions o = quiet();
  o.tables = {"lineitem"};
  const Database both = load_partition(Catalog::tpch(), d.dir.path(), quiet(), {1, 3, {}});
  std::vector<LoadReport> reports;
  const Database only = load_partition(Catalog::tpch(), d.dir.path(), o, {1, 3, {}}, &reports);
  CHECK(only.tables.size() == 1);
  CHECK(reports.size() == 1);
  CHECK(*only.table("lineitem").partition == *both.table("lineitem").partition);
  CHECK(only.table("lineitem").rows == both.table("lineitem").rows);
}

TEST_CASE("TPC-H: lineitem not in order-key order is an input error naming it") {
  const DataSet& d = tpch_data(Format::Columnar);
  test::ScratchDir dir;
  const Catalog catalog = Catalog::tpch();
  for (const TableDef& def : catalog.tables) std::filesystem::copy_file(d.dir / (def.name + ".hqc"), dir / (def.name + ".hqc"));
  Table lineitem = d.full.table("lineitem");
  auto& keys = lineitem.find("l_orderkey")->i32;
  std::reverse(keys.begin(), keys.end());
  write_columnar(lineitem, *catalog.find("lineitem"), dir / "lineitem.hqc");
  // Whatever rows the binary search lands on, the keys at the table's ends are out of order.
  for (const PartitionRequest& request : {PartitionRequest{0, 2, {}}, PartitionRequest{1, 2, {}}, PartitionRequest{0, 1, {}}}) {
    INFO("rank " << request.rank << " of " << request.ranks);
    try {
      load_partition(catalog, dir.path(), quiet(), request);
      FAIL("accepted");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::Input);
      CHECK(std::string(e.what()).starts_with("lineitem: not sorted by l_orderkey"));
    }
  }
}

TEST_CASE("TPC-H: orders not in order-key order at a split is an input error naming it") {
  const DataSet& d = tpch_data(Format::Columnar);
  test::ScratchDir dir;
  const Catalog catalog = Catalog::tpch();
  for (const TableDef& def : catalog.tables) std::filesystem::copy_file(d.dir / (def.name + ".hqc"), dir / (def.name + ".hqc"));
  Table orders = d.full.table("orders");
  auto& keys = orders.find("o_orderkey")->i32;
  const uint64_t split = orders.rows / 2;
  std::swap(keys[split - 1], keys[split]);
  write_columnar(orders, *catalog.find("orders"), dir / "orders.hqc");
  try {
    load_partition(catalog, dir.path(), quiet(), {0, 2, {}});
    FAIL("accepted");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Input);
    CHECK(std::string(e.what()).starts_with("orders: not sorted by o_orderkey (strictly ascending) at row " +
                                            std::to_string(split)));
  }
}

TEST_CASE("TPC-H: a share of some columns is those columns of the share of every column") {
  // lineitem is co-partitioned by o_orderkey / l_orderkey, neither of which is asked for: the ranges
  // still follow the keys (read from the file, or from the whole table when there is no cache).
  const std::set<std::string> asked = {"lineitem.l_shipdate", "lineitem.l_comment", "orders.o_orderpriority", "nation.n_name"};
  auto only = [](const Table& t, const std::set<std::string>& names) { return keep_columns(t, names); };
  for (bool cache : {true, false}) {
    INFO((cache ? "columnar files" : ".tbl files, no cache: the whole table sliced"));
    const DataSet& d = tpch_data(cache ? Format::Columnar : Format::TblWithCache);
    LoadOptions every = quiet(), some = quiet();
    every.use_cache = some.use_cache = cache;
    some.columns = asked;
    for (const PartitionRequest& request : {PartitionRequest{1, 3, {}}, PartitionRequest{0, 3, {0, 1, 1}}}) {
      INFO("rank " << request.rank << " of " << request.ranks);
      const Database all = load_partition(Catalog::tpch(), d.dir.path(), every, request);
      const Database part = load_partition(Catalog::tpch(), d.dir.path(), some, request);
      REQUIRE(part.tables.size() == all.tables.size());
      for (const auto& entry : all.tables) {
        const std::string& name = entry.first;  // a plain name: INFO captures it
        const Table& table = entry.second;
        INFO("table " << name);
        std::set<std::string> names;
        for (const std::string& q : asked)
          if (q.rfind(name + ".", 0) == 0) names.insert(q.substr(name.size() + 1));
        const Table& got = part.table(name);
        CHECK(got.rows == table.rows);
        CHECK(got.partition == table.partition);
        REQUIRE(got.columns.size() == names.size());
        if (!names.empty()) check_rows_of(got, only(table, names), 0);
      }
    }
  }
}

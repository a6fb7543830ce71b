// The columnar cache: exact round trip, speed against parsing, invalidation, corruption, standalone
// columnar files and concurrent loaders.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <set>
#include <thread>

#include "storage/columnar_cache.h"
#include "storage/error.h"
#include "storage/tbl_loader.h"
#include "test_support.h"

using namespace hqc;

namespace {

LoadOptions quiet() {
  LoadOptions o;
  o.progress = false;
  return o;
}

void check_same(const Table& a, const Table& b) {
  REQUIRE(a.rows == b.rows);
  REQUIRE(a.columns.size() == b.columns.size());
  for (size_t c = 0; c < a.columns.size(); ++c) {
    const Column &x = a.columns[c], &y = b.columns[c];
    CAPTURE(x.name);
    CHECK(x.name == y.name);
    CHECK(x.type == y.type);
    CHECK(x.encoding == y.encoding);
    CHECK(x.i32 == y.i32);
    CHECK(x.i64 == y.i64);
    CHECK(x.f64 == y.f64);
    CHECK(x.dictionary == y.dictionary);
    CHECK(x.offsets == y.offsets);
    CHECK(x.heap == y.heap);
    CHECK(x.stats.valid == y.stats.valid);
    CHECK(x.stats.sorted == y.stats.sorted);
    CHECK(x.stats.min == y.stats.min);
    CHECK(x.stats.max == y.stats.max);
    CHECK(x.stats.distinct == y.stats.distinct);
  }
}

// A TPC-H style customer table of `rows` rows: ints, a decimal, a dictionary and three heap columns.
std::string customer_text(int rows, int salt = 0) {
  const char* segments[] = {"AUTOMOBILE", "BUILDING", "FURNITURE", "HOUSEHOLD", "MACHINERY"};
  std::string out;
  out.reserve(static_cast<size_t>(rows) * 120);
  char buf[256];
  for (int i = 1; i <= rows; ++i) {
    std::snprintf(buf, sizeof buf, "%d|Customer#%09d|addr %x %d|%d|%02d-%03d-%03d-%04d|%d.%02d|%s|comment %d about things|\n",
                  i, i, i * 2654435761u, salt, i % 25, 10 + i % 25, i % 1000, (i * 7) % 1000, (i * 13) % 10000,
                  (i * 37) % 9999 - 999, i % 100, segments[i % 5], i % 977);
    out += buf;
  }
  return out;
}

// An SSB lineorder of `rows` rows in dbgen's layout: the fact table, mostly integers.
std::string lineorder_text(int rows) {
  const char* priorities[] = {"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"};
  const char* modes[] = {"AIR", "FOB", "MAIL", "RAIL", "REG AIR", "SHIP", "TRUCK"};
  std::string out;
  out.reserve(static_cast<size_t>(rows) * 110);
  char buf[256];
  for (int i = 0; i < rows; ++i) {
    const unsigned h = static_cast<unsigned>(i) * 2654435761u;
    std::snprintf(buf, sizeof buf, "%d|%d|%u|%u|%u|199%u%02u%02u|%s|0|%u|%u|%u|%u|%u|%u|%u|199%u%02u%02u|%s|\n",
                  i / 4 + 1, i % 4 + 1, h % 30000 + 1, h % 200000 + 1, h % 2000 + 1, 2 + h % 7, 1 + h % 12,
                  1 + h % 28, priorities[h % 5], 1 + h % 50, 90000 + h % 10000000, 100000 + h % 40000000, h % 11,
                  80000 + h % 9000000, 50000 + h % 100000, h % 9, 2 + (h >> 3) % 7, 1 + (h >> 3) % 12,
                  1 + (h >> 3) % 28, modes[(h >> 5) % 7]);
    out += buf;
  }
  return out;
}

}  // namespace

TEST_CASE("a columnar file reproduces the table exactly") {
  test::ScratchDir dir;
  const Catalog tpch = Catalog::tpch();
  LoadOptions no_cache = quiet();
  no_cache.use_cache = false;
  for (const char* name : {"lineitem", "customer", "region", "orders"}) {
    const TableDef& def = *tpch.find(name);
    const Table t = load_tbl(def, test::data_dir() / "tpch" / (std::string(name) + ".tbl"), no_cache);
    const std::filesystem::path file = dir / (std::string(name) + ".hqc");
    write_columnar(t, def, file);
    std::string why;
    const std::optional<Table> back = read_columnar(def, file, std::nullopt, &why);
    REQUIRE_MESSAGE(back, why);
    check_same(t, *back);
    if (std::string(name) == "lineitem") {  // dbgen writes lineitem in order-key order
      CHECK(back->column("l_orderkey").stats.sorted);
      CHECK_FALSE(back->column("l_partkey").stats.sorted);
    }
    // A standalone file has no source stamp, so it never passes as a cache.
    CHECK_FALSE(read_columnar(def, file, SourceStamp{1, 2}, &why));
    CHECK(why == std::string(name) + ".hqc: has no source stamp");
  }
}

// How much faster the cache is than parsing is a benchmark's question (timings never go in tests:
// under the sanitizers on a loaded CI box a ratio is noise). This test checks what the cache does.
TEST_CASE("the second load reads the cache, not the text, and gives the same table") {
  test::ScratchDir dir;
  const TableDef def = *Catalog::ssb().find("lineorder");
  const std::filesystem::path tbl = dir / "lineorder.tbl";
  test::write_file(tbl, lineorder_text(20000));

  LoadOptions text_only = quiet();
  text_only.use_cache = false;
  LoadReport none;
  const Table parsed = load_tbl(def, tbl, text_only, &none);
  CHECK_FALSE(none.from_columnar);
  CHECK_FALSE(std::filesystem::exists(tbl.string() + ".hqc"));  // use_cache = false writes nothing

  LoadReport first, second;
  load_tbl(def, tbl, quiet(), &first);  // parses again and writes the cache
  CHECK_FALSE(first.from_columnar);
  CHECK(first.cache_file == std::filesystem::path(tbl.string() + ".hqc"));
  CHECK(std::filesystem::exists(first.cache_file));
  const Table cached = load_tbl(def, tbl, quiet(), &second);
  CHECK(second.from_columnar);
  CHECK(second.cache_file == first.cache_file);
  check_same(parsed, cached);
}

TEST_CASE("a changed source or schema makes the cache stale: the text is parsed again") {
  test::ScratchDir dir;
  const TableDef def = *Catalog::tpch().find("customer");
  const std::filesystem::path tbl = dir / "customer.tbl";
  test::write_file(tbl, customer_text(1000));
  LoadReport rep;
  load_tbl(def, tbl, quiet(), &rep);
  CHECK_FALSE(rep.from_columnar);
  load_tbl(def, tbl, quiet(), &rep);
  CHECK(rep.from_columnar);

  // Same size, different content and a different mtime.
  test::write_file(tbl, customer_text(1000, 7));
  std::filesystem::last_write_time(tbl, std::filesystem::last_write_time(tbl) + std::chrono::seconds(5));
  const Table t = load_tbl(def, tbl, quiet(), &rep);
  CHECK_FALSE(rep.from_columnar);
  CHECK(rep.cache_note == "customer.tbl.hqc: stale: the source file changed since the cache was written");
  CHECK(t.column("c_address").string_at(0).ends_with(" 7"));
  load_tbl(def, tbl, quiet(), &rep);
  CHECK(rep.from_columnar);

  // Only touched: the content is the same, but the cache cannot know that.
  std::filesystem::last_write_time(tbl, std::filesystem::last_write_time(tbl) + std::chrono::seconds(1));
  load_tbl(def, tbl, quiet(), &rep);
  CHECK_FALSE(rep.from_columnar);

  // Same file, another schema (c_mktsegment stored as heap): the fingerprint differs.
  TableDef other = def;
  other.columns[6].encoding = Encoding::Heap;
  const Table h = load_tbl(other, tbl, quiet(), &rep);
  CHECK_FALSE(rep.from_columnar);
  CHECK(rep.cache_note == "customer.tbl.hqc: written for another definition of table customer");
  CHECK(h.column("c_mktsegment").encoding == Encoding::Heap);
}

TEST_CASE("a truncated or damaged cache is ignored and rewritten, never used") {
  test::ScratchDir dir;
  const TableDef def = *Catalog::tpch().find("customer");
  const std::filesystem::path tbl = dir / "customer.tbl";
  test::write_file(tbl, customer_text(2000));
  LoadReport rep;
  const Table truth = load_tbl(def, tbl, quiet(), &rep);
  const std::filesystem::path cache = rep.cache_file;
  const std::string good = test::read_file(cache);

  test::write_file(cache, good.substr(0, good.size() - 100));
  Table t = load_tbl(def, tbl, quiet(), &rep);
  CHECK_FALSE(rep.from_columnar);
  CHECK(rep.cache_note.starts_with("customer.tbl.hqc: truncated or extended"));
  check_same(truth, t);
  CHECK(test::read_file(cache) == good);  // rewritten whole

  // A wrong row count in the header no longer matches the array sizes.
  std::string bad = good;
  bad[8 + 4 + 4 + 8 + 4 + 4 + 8 + 8] ^= 0x01;  // row count's low byte
  test::write_file(cache, bad);
  t = load_tbl(def, tbl, quiet(), &rep);
  CHECK_FALSE(rep.from_columnar);
  check_same(truth, t);

  // A damaged descriptor is caught by the header checksum.
  bad = good;
  bad[64 + 8] ^= 0x40;  // first column's stats.min
  test::write_file(cache, bad);
  load_tbl(def, tbl, quiet(), &rep);
  CHECK_FALSE(rep.from_columnar);
  CHECK(rep.cache_note == "customer.tbl.hqc: header checksum mismatch");

  // Damage inside an array: a dictionary code outside the dictionary. c_mktsegment (column 7) is
  // the only dictionary column; its codes follow its dictionary in the payload.
  bad = good;
  {
    const std::optional<Table> t_ok = read_columnar(def, cache, std::nullopt);
    REQUIRE(t_ok);
  }
  const size_t codes_end = good.size() - 8 - (truth.column("c_comment").heap.size() + (truth.rows + 1) * 8);
  const size_t last_code = codes_end - 4;
  bad[last_code + 3] = 0x40;  // the last row's code becomes about 2^30
  test::write_file(cache, bad);
  load_tbl(def, tbl, quiet(), &rep);
  CHECK_FALSE(rep.from_columnar);
  CHECK(rep.cache_note == "customer.tbl.hqc: column c_mktsegment is damaged (checksum mismatch)");

  // A flipped bit in plain integers breaks no invariant; only the checksum can tell.
  bad = good;
  const size_t first_payload = 64 + 64 * def.columns.size() + 8;
  bad[first_payload + 4 * 1000] ^= 0x01;  // c_custkey of row 1000
  test::write_file(cache, bad);
  t = load_tbl(def, tbl, quiet(), &rep);
  CHECK_FALSE(rep.from_columnar);
  CHECK(rep.cache_note == "customer.tbl.hqc: column c_custkey is damaged (checksum mismatch)");
  CHECK(t.column("c_custkey").i32[1000] == 1001);

  test::write_file(cache, "not a cache at all");
  load_tbl(def, tbl, quiet(), &rep);
  CHECK_FALSE(rep.from_columnar);
  CHECK(rep.cache_note == "customer.tbl.hqc: not a horseqc columnar file");
  load_tbl(def, tbl, quiet(), &rep);
  CHECK(rep.from_columnar);
}

TEST_CASE("checksums are per 512 KiB block: damage anywhere in a large column is caught, moved words too") {
  test::ScratchDir dir;
  const TableDef def = *Catalog::tpch().find("customer");
  const std::filesystem::path tbl = dir / "customer.tbl";
  // 140,000 rows: c_custkey spans two blocks, the heap offsets of c_name three.
  test::write_file(tbl, customer_text(140000));
  LoadReport rep;
  const Table truth = load_tbl(def, tbl, quiet(), &rep);
  const std::filesystem::path cache = rep.cache_file;
  const std::string good = test::read_file(cache);
  {
    const Table back = load_tbl(def, tbl, quiet(), &rep);
    REQUIRE(rep.from_columnar);
    check_same(truth, back);
    for (const Column& c : back.columns) CHECK_NOTHROW(c.validate());
  }
  const size_t custkey = 64 + 64 * def.columns.size() + 8;  // c_custkey is the first payload array
  auto expect_rejected = [&](const std::string& bad, const std::string& note) {
    test::write_file(cache, bad);
    const Table t = load_tbl(def, tbl, quiet(), &rep);
    CHECK_FALSE(rep.from_columnar);
    CHECK(rep.cache_note == note);
    check_same(truth, t);
    CHECK(test::read_file(cache) == good);  // rewritten
  };
  // Two 8-byte words of one lane swapped (same sums, other positions).
  std::string bad = good;
  std::swap_ranges(bad.begin() + custkey + 64 * 10, bad.begin() + custkey + 64 * 10 + 8, bad.begin() + custkey + 64 * 20);
  expect_rejected(bad, "customer.tbl.hqc: column c_custkey is damaged (checksum mismatch)");
  // A zeroed 4 KiB page in the second block.
  bad = good;
  std::fill(bad.begin() + custkey + (1 << 19) + 4096, bad.begin() + custkey + (1 << 19) + 8192, '\0');
  expect_rejected(bad, "customer.tbl.hqc: column c_custkey is damaged (checksum mismatch)");
  // The high bit of the last byte of the array (a tail shorter than one stripe).
  bad = good;
  bad[custkey + 140000 * 4 - 1] ^= static_cast<char>(0x80);
  expect_rejected(bad, "customer.tbl.hqc: column c_custkey is damaged (checksum mismatch)");
  // A file of the previous format version (whole-array checksums) is not read as this one.
  bad = good;
  bad[8] = 2;
  expect_rejected(bad, "customer.tbl.hqc: format version 2, expected 3");
}

TEST_CASE("cache_dir keeps caches out of the data directory") {
  test::ScratchDir data, caches;
  const TableDef def = *Catalog::tpch().find("customer");
  test::write_file(data / "customer.tbl", customer_text(100));
  LoadOptions o = quiet();
  o.cache_dir = caches / "nested";
  LoadReport rep;
  load_tbl(def, data / "customer.tbl", o, &rep);
  CHECK(rep.cache_file.parent_path() == caches / "nested");
  CHECK(rep.cache_file.filename().string().starts_with("customer.tbl."));
  CHECK_FALSE(std::filesystem::exists(data / "customer.tbl.hqc"));
  load_tbl(def, data / "customer.tbl", o, &rep);
  CHECK(rep.from_columnar);
}

TEST_CASE("load_database reads a directory of standalone columnar files") {
  test::ScratchDir dir;
  const Catalog tpch = Catalog::tpch();
  LoadOptions no_cache = quiet();
  no_cache.use_cache = false;
  const Database text = load_database(tpch, test::data_dir() / "tpch", no_cache);
  for (const auto& [name, table] : text.tables) write_columnar(table, *tpch.find(name), dir / (name + ".hqc"));
  std::vector<LoadReport> reports;
  const Database columnar = load_database(tpch, dir.path(), quiet(), &reports);
  REQUIRE(columnar.tables.size() == 8);
  for (const auto& [name, table] : text.tables) check_same(table, columnar.table(name));
  CHECK(reports.size() == 8);
  for (const LoadReport& r : reports) CHECK(r.from_columnar);

  test::write_file(dir / "nation.hqc", "garbage");
  CHECK_THROWS_WITH_AS(load_database(tpch, dir.path(), quiet()),
                       doctest::Contains("nation.hqc: not a horseqc columnar file; regenerate it"), Error);
}

// `only`: the columns of `table` named in `names`, in its order (what a column-subset load returns).
Table only(const Table& table, const std::set<std::string>& names) {
  Table out = table;
  out.columns.clear();
  for (const Column& c : table.columns)
    if (names.count(c.name)) out.columns.push_back(c);
  return out;
}

TEST_CASE("a load of some columns reads, checks and returns only those; the rest of the file is not read") {
  test::ScratchDir dir;
  const TableDef def = *Catalog::tpch().find("customer");
  const std::filesystem::path tbl = dir / "customer.tbl";
  test::write_file(tbl, customer_text(3000));
  LoadReport rep;
  const Table truth = load_tbl(def, tbl, quiet(), &rep);
  const std::filesystem::path cache = rep.cache_file;
  REQUIRE(truth.columns.size() == 8);

  // One heap, one dictionary and one integer column, asked in another order than the file's.
  const std::set<std::string> three = {"c_name", "c_mktsegment", "c_custkey"};
  std::string why;
  std::optional<Table> t = read_columnar(def, cache, stamp_of(tbl), &why, 0, &three);
  REQUIRE_MESSAGE(t, why);
  check_same(only(truth, three), *t);
  CHECK(t->columns[0].name == "c_custkey");  // the file's order
  const std::set<std::string> none;
  t = read_columnar(def, cache, stamp_of(tbl), &why, 0, &none);
  REQUIRE_MESSAGE(t, why);
  CHECK(t->rows == 3000);
  CHECK(t->columns.empty());

  // A flipped bit in c_custkey's payload (the first column): a load that reads it fails the
  // checksum; a load that leaves it unread does not look at it (documented: only read columns are
  // checked); the header is checked either way.
  const std::string good = test::read_file(cache);
  std::string bad = good;
  bad[64 + 64 * def.columns.size() + 8 + 4 * 1000] ^= 0x01;
  test::write_file(cache, bad);
  CHECK_FALSE(read_columnar(def, cache, stamp_of(tbl), &why, 0, &three));
  CHECK(why == "customer.tbl.hqc: column c_custkey is damaged (checksum mismatch)");
  const std::set<std::string> comment = {"c_comment"};
  t = read_columnar(def, cache, stamp_of(tbl), &why, 0, &comment);
  REQUIRE_MESSAGE(t, why);
  check_same(only(truth, comment), *t);
  bad = good;
  bad[64 + 8] ^= 0x40;  // a descriptor
  test::write_file(cache, bad);
  CHECK_FALSE(read_columnar(def, cache, stamp_of(tbl), &why, 0, &comment));
  CHECK(why == "customer.tbl.hqc: header checksum mismatch");
  test::write_file(cache, good);

  // load_database: "table.column" names across tables, from standalone columnar files and from
  // parsed .tbl files alike; a table with none of them keeps its rows.
  const Catalog tpch = Catalog::tpch();
  LoadOptions no_cache = quiet();
  no_cache.use_cache = false;
  const Database full = load_database(tpch, test::data_dir() / "tpch", no_cache);
  const std::filesystem::path columnar = dir / "columnar";
  std::filesystem::create_directories(columnar);
  for (const auto& [name, table] : full.tables) write_columnar(table, *tpch.find(name), columnar / (name + ".hqc"));
  LoadOptions some = no_cache;
  some.columns = std::set<std::string>{"nation.n_name", "region.r_regionkey", "lineitem.l_shipdate", "lineitem.l_comment"};
  for (const std::filesystem::path& from : {columnar, test::data_dir() / "tpch"}) {
    CAPTURE(from);
    const Database part = load_database(tpch, from, some);
    REQUIRE(part.tables.size() == 8);
    check_same(only(full.table("nation"), {"n_name"}), part.table("nation"));
    check_same(only(full.table("region"), {"r_regionkey"}), part.table("region"));
    check_same(only(full.table("lineitem"), {"l_shipdate", "l_comment"}), part.table("lineitem"));
    CHECK(part.table("orders").columns.empty());
    CHECK(part.table("orders").rows == full.table("orders").rows);
  }

  // A .tbl parsed anew (no cache yet) keeps the asked columns; its cache holds every column.
  std::filesystem::remove(cache);
  LoadOptions customer_only = quiet();
  customer_only.columns = std::set<std::string>{"customer.c_acctbal"};
  const Table parsed = load_tbl(def, tbl, customer_only, &rep);
  CHECK_FALSE(rep.from_columnar);
  check_same(only(truth, {"c_acctbal"}), parsed);
  const std::optional<Table> whole = read_columnar(def, cache, stamp_of(tbl), &why);
  REQUIRE_MESSAGE(whole, why);
  check_same(truth, *whole);

  some.columns = std::set<std::string>{"nation.n_nome"};
  CHECK_THROWS_WITH_AS(load_database(tpch, columnar, some),
                       "column nation.n_nome is not part of schema tpch", Error);
}

TEST_CASE("load_database_statistics: every table as a share of no rows with the file's statistics and dictionaries") {
  // What planner::DatabaseStatistics reads of the loaded tables — rows (a share's whole-table rows),
  // each column's stats and dictionary — must be what the headers give, or horseqc-run's first query
  // compiled while the rows load would not be the one it runs.
  test::ScratchDir dir;
  const Catalog tpch = Catalog::tpch();
  LoadOptions no_cache = quiet();
  no_cache.use_cache = false;
  const Database full = load_database(tpch, test::data_dir() / "tpch", no_cache);
  for (const auto& [name, table] : full.tables) write_columnar(table, *tpch.find(name), dir / (name + ".hqc"));
  const std::set<std::string> columns = {"nation.n_name", "lineitem.l_shipdate", "lineitem.l_returnflag", "orders.o_orderkey",
                                         "customer.c_comment"};
  LoadOptions some = no_cache;
  some.columns = columns;
  const Database loaded = load_database(tpch, dir.path(), some);
  const std::optional<Database> headers = load_database_statistics(tpch, dir.path(), columns);
  REQUIRE(headers);
  REQUIRE(headers->tables.size() == loaded.tables.size());
  for (const auto& entry : loaded.tables) {
    const std::string& name = entry.first;  // (not a structured binding: clang rejects one in CAPTURE)
    const Table& table = entry.second;
    CAPTURE(name);
    const Table& h = headers->table(name);
    CHECK(h.rows == 0);
    REQUIRE(h.partition);
    CHECK(h.partition->total_rows == table.rows);
    REQUIRE(h.columns.size() == table.columns.size());
    for (size_t i = 0; i < table.columns.size(); ++i) {
      const Column& a = table.columns[i];
      const Column& b = h.columns[i];
      CAPTURE(a.name);
      CHECK(b.name == a.name);
      CHECK(b.stats.valid == a.stats.valid);
      CHECK(b.stats.min == a.stats.min);
      CHECK(b.stats.max == a.stats.max);
      CHECK(b.stats.distinct == a.stats.distinct);
      CHECK(b.stats.sorted == a.stats.sorted);
      CHECK(b.dictionary == a.dictionary);
    }
  }
  CHECK_FALSE(headers->table("nation").columns.at(0).dictionary.empty());  // n_name is dictionary-coded
  // Not standalone columnar files: .tbl files (cached or not), or a table missing.
  CHECK_FALSE(load_database_statistics(tpch, test::data_dir() / "tpch", columns));
  std::filesystem::remove(dir / "region.hqc");
  CHECK_FALSE(load_database_statistics(tpch, dir.path(), columns));
}

TEST_CASE("concurrent loaders of one file never see a torn cache") {
  test::ScratchDir dir;
  const TableDef def = *Catalog::tpch().find("customer");
  const std::filesystem::path tbl = dir / "customer.tbl";
  test::write_file(tbl, customer_text(20000));
  LoadOptions one = quiet();
  one.threads = 1;
  const Table truth = load_tbl(def, tbl, LoadOptions{.use_cache = false, .progress = false});
  std::vector<Table> results(4);
  std::vector<std::string> errors(4);
  std::vector<std::thread> loaders;
  for (size_t i = 0; i < results.size(); ++i)
    loaders.emplace_back([&, i] {
      try {
        for (int round = 0; round < 3; ++round) results[i] = load_tbl(def, tbl, one);
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
    });
  for (std::thread& t : loaders) t.join();
  for (size_t i = 0; i < results.size(); ++i) {
    CHECK(errors[i].empty());
    check_same(truth, results[i]);
  }
  // No temporary files are left behind.
  for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
    CHECK(entry.path().filename().string().find(".tmp.") == std::string::npos);
}

TEST_CASE("an empty table round-trips through the cache") {
  test::ScratchDir dir;
  const TableDef nation = *Catalog::tpch().find("nation");
  test::write_file(dir / "nation.tbl", "");
  LoadOptions o = quiet();
  o.allow_empty = true;
  LoadReport rep;
  CHECK(load_tbl(nation, dir / "nation.tbl", o, &rep).rows == 0);
  CHECK_FALSE(rep.from_columnar);
  const Table t = load_tbl(nation, dir / "nation.tbl", o, &rep);
  CHECK(rep.from_columnar);
  CHECK(t.rows == 0);
  CHECK(t.columns.size() == 4);
  CHECK(t.column("n_comment").offsets == Values<uint64_t>{0});
}

TEST_CASE("when the cache cannot be written next to the data it goes to the user cache directory") {
  test::ScratchDir data, home;
  const TableDef def = *Catalog::tpch().find("customer");
  const std::filesystem::path tbl = data / "customer.tbl";
  test::write_file(tbl, customer_text(100));
  // A directory where the cache file should be: writing there fails for any user, root included.
  std::filesystem::create_directory(data / "customer.tbl.hqc");
  const char* old = std::getenv("XDG_CACHE_HOME");
  const std::string saved = old ? old : "";
  ::setenv("XDG_CACHE_HOME", home.path().c_str(), 1);
  LoadReport rep;
  load_tbl(def, tbl, quiet(), &rep);
  CHECK_FALSE(rep.from_columnar);
  CHECK(rep.cache_file.parent_path() == home / "horseqc/columnar");
  load_tbl(def, tbl, quiet(), &rep);
  CHECK(rep.from_columnar);
  CHECK(rep.cache_file.parent_path() == home / "horseqc/columnar");
  if (old) ::setenv("XDG_CACHE_HOME", saved.c_str(), 1);
  else ::unsetenv("XDG_CACHE_HOME");
}

// storage/tbl_writer: exact .tbl text per type, atomic replacement, refusal of unrepresentable
// strings, and a round trip generated SSB → .tbl → load_database → identical columns.
#include <doctest/doctest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <unistd.h>

#include "ssb/generator.h"
#include "storage/catalog.h"
#include "storage/date.h"
#include "storage/error.h"
#include "storage/tbl_loader.h"
#include "storage/tbl_writer.h"
#include "tests/ssb/ssb_fixture.h"

using namespace hqc;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("hqc_tbl_writer_test_" + std::to_string(::getpid()));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// One column of every storable type, with the edge values of each text form.
struct Sample {
  TableDef def;
  Table table;
};

Sample sample() {
  Sample s;
  s.def.name = "t";
  s.def.columns = {{"i", DataType::int32(), Encoding::Plain, ""},
                   {"big", DataType::int64(), Encoding::Plain, ""},
                   {"money", DataType::decimal(15, 2), Encoding::Plain, ""},
                   {"day", DataType::date(), Encoding::Plain, ""},
                   {"compact_day", DataType::date(), Encoding::Plain, "yyyymmdd"},
                   {"x", DataType::float64(), Encoding::Plain, ""},
                   {"word", DataType::varchar(10), Encoding::Dictionary, ""},
                   {"text", DataType::varchar(20), Encoding::Heap, ""}};
  Table& t = s.table;
  t.name = "t";
  t.rows = 3;
  Column i{"i", DataType::int32()};
  i.i32 = {0, -7, std::numeric_limits<int32_t>::max()};
  Column big{"big", DataType::int64()};
  big.i64 = {std::numeric_limits<int64_t>::min(), 42, 6000000000LL};
  Column money{"money", DataType::decimal(15, 2)};
  money.i64 = {-5, 123456, 100};
  Column day{"day", DataType::date()};
  day.i32 = {days_from_civil(1992, 1, 2), days_from_civil(1998, 12, 31), 0};
  Column compact{"compact_day", DataType::date()};
  compact.i32 = day.i32;
  Column x{"x", DataType::float64()};
  x.f64 = {0.1, -2.5, 1e300};
  t.columns = {i, big, money, day, compact, x, make_dictionary_column("word", DataType::varchar(10), {"b", "a", "b"}),
               make_heap_column("text", DataType::varchar(20), {"", "with space", "UNITED KI1"})};
  return s;
}

}  // namespace

TEST_CASE("tbl text of every type") {
  TempDir dir;
  const Sample s = sample();
  const fs::path file = dir.path / "t.tbl";
  write_tbl(s.table, s.def, file.string());
  CHECK(slurp(file) ==
        "0|-9223372036854775808|-0.05|1992-01-02|19920102|0.1|b||\n"
        "-7|42|1234.56|1998-12-31|19981231|-2.5|a|with space|\n"
        "2147483647|6000000000|1.00|1970-01-01|19700101|1e+300|b|UNITED KI1|\n");
  // Nothing else left in the directory: the temporary was renamed.
  CHECK(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()) == 1);

  std::string line;
  append_tbl_line(line, s.table, s.def, 1);
  CHECK(line == "-7|42|1234.56|1998-12-31|19981231|-2.5|a|with space|\n");
}

TEST_CASE("the bytes do not depend on the thread count") {
  TempDir dir;
  const Table& lo = ssb::testing::cached_ssb(0.01).table("lineorder");
  const Catalog cat = Catalog::ssb();
  const TableDef& def = *cat.find("lineorder");
  write_tbl(lo, def, (dir.path / "one.tbl").string(), 1);
  write_tbl(lo, def, (dir.path / "four.tbl").string(), 4);
  const std::string one = slurp(dir.path / "one.tbl");
  CHECK(one == slurp(dir.path / "four.tbl"));
  CHECK(std::count(one.begin(), one.end(), '\n') == int64_t(lo.rows));
}

TEST_CASE("an existing file is replaced whole; failures leave it untouched") {
  TempDir dir;
  Sample s = sample();
  const fs::path file = dir.path / "t.tbl";
  { std::ofstream(file) << "old contents\n"; }
  write_tbl(s.table, s.def, file.string());
  CHECK(slurp(file).rfind("0|-9223372036854775808|", 0) == 0);

  const std::string before = slurp(file);
  s.table.columns[7] = make_heap_column("text", DataType::varchar(20), {"ok", "a|b", "ok"});
  try {
    write_tbl(s.table, s.def, file.string());
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Input);
    const std::string msg = e.what();
    CHECK(msg.find("t.tbl") != std::string::npos);
    CHECK(msg.find("row 2") != std::string::npos);
    CHECK(msg.find("column text") != std::string::npos);
  }
  CHECK(slurp(file) == before);
  CHECK(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()) == 1);
}

TEST_CASE("an unwritable path is an input error naming it") {
  const Sample s = sample();
  try {
    write_tbl(s.table, s.def, "/nonexistent-dir-hqc/t.tbl");
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Input);
    CHECK(std::string(e.what()).find("/nonexistent-dir-hqc/t.tbl") != std::string::npos);
  }
}

TEST_CASE("a table that does not match its definition is refused") {
  Sample s = sample();
  s.def.columns[1].type = DataType::int32();
  CHECK_THROWS_AS(write_tbl(s.table, s.def, "/tmp/never-written.tbl"), Error);
  CHECK(!fs::exists("/tmp/never-written.tbl"));
}

TEST_CASE("generated SSB round-trips through .tbl files and the loader") {
  TempDir dir;
  const Database& generated = ssb::testing::cached_ssb(0.01);
  const Catalog cat = Catalog::ssb();
  for (const TableDef& def : cat.tables) write_tbl(generated.table(def.name), def, (dir.path / (def.name + ".tbl")).string(), 2);
  LoadOptions opts;
  opts.use_cache = false;
  opts.progress = false;
  const Database loaded = load_database(cat, dir.path, opts);
  for (const TableDef& def : cat.tables) {
    CAPTURE(def.name);
    const Table &a = generated.table(def.name), &b = loaded.table(def.name);
    REQUIRE(a.rows == b.rows);
    for (size_t i = 0; i < a.columns.size(); ++i) {
      CAPTURE(a.columns[i].name);
      CHECK(a.columns[i].encoding == b.columns[i].encoding);
      CHECK(a.columns[i].i32 == b.columns[i].i32);
      CHECK(a.columns[i].i64 == b.columns[i].i64);
      CHECK(a.columns[i].dictionary == b.columns[i].dictionary);
      CHECK(a.columns[i].offsets == b.columns[i].offsets);
      CHECK(a.columns[i].heap == b.columns[i].heap);
      CHECK(a.columns[i].stats.min == b.columns[i].stats.min);
      CHECK(a.columns[i].stats.max == b.columns[i].stats.max);
      CHECK(a.columns[i].stats.distinct == b.columns[i].stats.distinct);
    }
  }
}

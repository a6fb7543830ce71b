// libFuzzer target: the .tbl loader (storage/tbl_loader.h, storage/tbl_parser.h).
//
// Input: any bytes, written to a .tbl file and loaded with hqc::load_tbl as every table of the
// TPC-H and the SSB catalogs (one thread, no cache, empty files allowed), which covers every column
// type, encoding and text format. A table that loads must pass Table::validate() and survive the
// columnar cache's round trip (write_columnar, read_columnar) unchanged, column for column.
// Expected: a table, or an hqc::Error that is not Internal. Finding: anything else (crash,
// sanitizer report, another exception, a table that fails validation or the round trip).
// Seeds: tests/data (ssb/, tpch/, bad/).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "storage/catalog.h"
#include "storage/columnar_cache.h"
#include "storage/tbl_loader.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

bool same_column(const hqc::Column& a, const hqc::Column& b) {
  return a.name == b.name && a.type == b.type && a.encoding == b.encoding && a.i32 == b.i32 && a.i64 == b.i64 &&
         a.f64 == b.f64 && a.dictionary == b.dictionary && a.offsets == b.offsets && a.heap == b.heap;
}

void check_round_trip(const hqc::Table& table, const hqc::TableDef& def) {
  table.validate();
  const auto path = hqc::fuzz::scratch_dir() / "round_trip.hqc";
  hqc::write_columnar(table, def, path);
  std::string why;
  const std::optional<hqc::Table> back = hqc::read_columnar(def, path, std::nullopt, &why, 1);
  bool same = back && back->rows == table.rows && back->columns.size() == table.columns.size();
  for (size_t c = 0; same && c < table.columns.size(); ++c) same = same_column(table.columns[c], back->columns[c]);
  if (!same) {
    std::fprintf(stderr, "fuzz finding: table %s changed through the columnar cache (%s)\n", def.name.c_str(),
                 why.c_str());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const hqc::Catalog catalogs[] = {hqc::Catalog::tpch(), hqc::Catalog::ssb()};
  const auto file = hqc::fuzz::scratch_dir() / "fuzz.tbl";
  hqc::fuzz::write_bytes(file, std::string_view(reinterpret_cast<const char*>(data), size));
  hqc::LoadOptions options;
  options.threads = 1;
  options.allow_empty = true;
  options.use_cache = false;
  options.progress = false;
  for (const hqc::Catalog& catalog : catalogs) {
    for (const hqc::TableDef& def : catalog.tables) {
      try {
        check_round_trip(hqc::load_tbl(def, file, options), def);
      } catch (const hqc::Error& e) {
        hqc::fuzz::expect_refusal(e);
      }
    }
  }
  return 0;
}

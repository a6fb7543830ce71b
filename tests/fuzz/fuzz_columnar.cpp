// libFuzzer target: the columnar file reader (.hqc, storage/columnar_cache.h).
//
// Input: any bytes, written to a .hqc file and read with hqc::read_columnar as every table of the
// TPC-H and the SSB catalogs, as a standalone file (any source stamp). The fuzz build defines
// FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, under which the reader does not reject a file for its
// checksums alone, so mutated files reach the structural checks behind them; everything else is the
// product's code path. A table the reader returns must pass Table::validate() and every row of
// every column must be readable (Column::int_at / string_at).
// Expected: a table, or nullopt with a reason. Finding: anything else (crash, sanitizer report, an
// exception, a returned table that is invalid).
// Seeds: tests/fuzz/corpus/columnar (horseqc-gen tpch --format columnar, see tests/README.md).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "storage/catalog.h"
#include "storage/columnar_cache.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

// Reads every value once, so that a column whose arrays disagree with its row count is caught by
// AddressSanitizer here rather than later in a query.
void touch_every_row(const hqc::Table& table) {
  size_t sink = 0;
  for (const hqc::Column& c : table.columns) {
    for (uint64_t r = 0; r < table.rows; ++r) {
      if (c.type.id == hqc::TypeId::String) sink += c.string_at(r).size();
      else if (c.type.id == hqc::TypeId::Float64) sink += c.f64.at(r) > 0;
      else sink += static_cast<size_t>(c.int_at(r));
    }
  }
  volatile size_t keep = sink;
  (void)keep;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const hqc::Catalog catalogs[] = {hqc::Catalog::tpch(), hqc::Catalog::ssb()};
  const auto file = hqc::fuzz::scratch_dir() / "fuzz.hqc";
  hqc::fuzz::write_bytes(file, std::string_view(reinterpret_cast<const char*>(data), size));
  for (const hqc::Catalog& catalog : catalogs) {
    for (const hqc::TableDef& def : catalog.tables) {
      std::string why;
      if (const std::optional<hqc::Table> table = hqc::read_columnar(def, file, std::nullopt, &why, 1)) {
        table->validate();
        touch_every_row(*table);
      }
    }
  }
  return 0;
}

// libFuzzer target: the SQL front end and everything a bound query goes through before a device.
//
// Input: any bytes, taken as SQL text (docs/sql.md). Each input is parsed and bound against the
// TPC-H and the SSB catalogs (hqc::parse_sql, catalog statistics); a query that binds is compiled as
// horseqc-compile compiles it (fuzz_compile.h: IR, passes, CUDA and OpenCL source, both models).
// Expected: a bound plan or an hqc::Error that is not Internal. Finding: anything else (crash,
// sanitizer report, another exception, an Internal error).
// Seeds: tpch/queries, ssb/queries, tests/oracle/tpch_spec; dictionary: tests/fuzz/sql.dict.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "frontend/sql/sql_frontend.h"
#include "tests/fuzz/fuzz_compile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<hqc::Catalog> catalogs = {hqc::Catalog::tpch(), hqc::Catalog::ssb()};
  hqc::fuzz::bind_and_compile(std::string(reinterpret_cast<const char*>(data), size), catalogs,
                              [](const std::string& sql, const hqc::Catalog& catalog) {
                                return hqc::parse_sql(sql, "fuzz.sql", catalog);
                              });
  return 0;
}

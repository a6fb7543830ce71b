// libFuzzer target: the SQL front end and everything a bound query goes through before a device.
//
// Input: any bytes, taken as SQL text (docs/sql.md). Each input is parsed and bound against the
// TPC-H and the SSB catalogs (hqc::parse_sql, catalog statistics); a query that binds is compiled as
// horseqc-compile compiles it (fuzz_support.h: IR, passes, CUDA and OpenCL source, both models).
// Expected: a bound plan or an hqc::Error that is not Internal. Finding: anything else (crash,
// sanitizer report, another exception, an Internal error).
// Seeds: tpch/queries, ssb/queries, tests/oracle/tpch_spec; dictionary: tests/fuzz/sql.dict.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "frontend/sql/sql_frontend.h"
#include "tests/fuzz/fuzz_compile.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const hqc::Catalog catalogs[] = {hqc::Catalog::tpch(), hqc::Catalog::ssb()};
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const hqc::Catalog& catalog : catalogs) {
    std::shared_ptr<const hqc::plan::LogicalPlan> plan;
    try {
      plan = std::make_shared<const hqc::plan::LogicalPlan>(hqc::parse_sql(text, "fuzz.sql", catalog));
    } catch (const hqc::Error& e) {
      hqc::fuzz::expect_refusal(e);
      continue;
    }
    hqc::fuzz::compile_everywhere(std::move(plan), catalog);
  }
  return 0;
}

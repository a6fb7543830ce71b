// libFuzzer target: the JSON plan reader (docs/plan-format.md) and the compile chain after it.
//
// Input: any bytes, taken as a JSON plan. Each input is read and bound against the SSB and the TPC-H
// catalogs (hqc::plan::parse_json_plan); a plan that binds is compiled as horseqc-compile compiles
// it (fuzz_compile.h: IR, passes, CUDA and OpenCL source, both models).
// Expected: a bound plan or an hqc::Error that is not Internal. Finding: anything else (crash,
// sanitizer report, another exception such as nlohmann::json's, an Internal error).
// Seeds: ssb/plans.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "frontend/json_plan.h"
#include "tests/fuzz/fuzz_compile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<hqc::Catalog> catalogs = {hqc::Catalog::ssb(), hqc::Catalog::tpch()};
  hqc::fuzz::bind_and_compile(std::string(reinterpret_cast<const char*>(data), size), catalogs,
                              [](const std::string& json, const hqc::Catalog& catalog) {
                                return hqc::plan::parse_json_plan(json, "fuzz.json", catalog);
                              });
  return 0;
}

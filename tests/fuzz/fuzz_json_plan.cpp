// libFuzzer target: the JSON plan reader (docs/plan-format.md) and the compile chain after it.
//
// Input: any bytes, taken as a JSON plan. Each input is read and bound against the SSB and the TPC-H
// catalogs (hqc::plan::parse_json_plan); a plan that binds is compiled as horseqc-compile compiles
// it (fuzz_support.h: IR, passes, CUDA and OpenCL source, both models).
// Expected: a bound plan or an hqc::Error that is not Internal. Finding: anything else (crash,
// sanitizer report, another exception such as nlohmann::json's, an Internal error).
// Seeds: ssb/plans.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "frontend/json_plan.h"
#include "tests/fuzz/fuzz_compile.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const hqc::Catalog catalogs[] = {hqc::Catalog::ssb(), hqc::Catalog::tpch()};
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const hqc::Catalog& catalog : catalogs) {
    std::shared_ptr<const hqc::plan::LogicalPlan> plan;
    try {
      plan = std::make_shared<const hqc::plan::LogicalPlan>(hqc::plan::parse_json_plan(text, "fuzz.json", catalog));
    } catch (const hqc::Error& e) {
      hqc::fuzz::expect_refusal(e);
      continue;
    }
    hqc::fuzz::compile_everywhere(std::move(plan), catalog);
  }
  return 0;
}

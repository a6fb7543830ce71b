// The kernel-set JSON horseqc-plan reads (format and errors), the example file under data/, and the
// demand capping of plan_concurrent on a device where the example's kernels want too much.
#include <doctest/doctest.h>

#include <cstdlib>
#include <set>

#include <nlohmann/json.hpp>

#include "planner/concurrent_plan.h"
#include "planner/kernel_set_json.h"
#include "storage/error.h"

using namespace hqc::planner;

namespace {

std::string source_dir() {
  const char* dir = std::getenv("HORSEQC_SOURCE_DIR");
  return dir ? dir : ".";
}

void check_error(const char* text, const char* expected) {
  INFO(text);
  CHECK_THROWS_WITH_AS(kernel_set_from_json(nlohmann::json::parse(text), "set.json"), doctest::Contains(expected), hqc::Error);
}

}  // namespace

TEST_CASE("kernel set JSON: values and defaults") {
  const KernelSet s = kernel_set_from_json(nlohmann::json::parse(R"({"kernels": [
      {"name": "a", "threads": 1000, "registers": 40, "shared_bytes": 100, "shared_bytes_per_thread": 3},
      {"threads": 5, "registers": 16}]})"),
                                           "set.json");
  REQUIRE(s.kernels.size() == 2);
  CHECK(s.kernels[0].name == "a");
  CHECK(s.kernels[0].threads == 1000);
  CHECK(s.kernels[0].registers_per_thread == 40);
  CHECK(s.kernels[0].shared_per_block(256) == 100 + 3 * 256);
  CHECK(s.kernels[1].name == "k1");
  CHECK(s.kernels[1].shared_per_block(1024) == 0);
  CHECK_FALSE(s.stream.has_value());
}

TEST_CASE("kernel set JSON: errors name the path and what was expected") {
  check_error(R"({})", "$.kernels: expected a non-empty array");
  check_error(R"({"kernels": []})", "$.kernels: expected a non-empty array");
  check_error(R"({"kernels": [{"registers": 3}]})", "$.kernels[0].threads: missing");
  check_error(R"({"kernels": [{"threads": 0, "registers": 3}]})", "$.kernels[0].threads: expected at least 1");
  check_error(R"({"kernels": [{"threads": 1, "registers": -3}]})", "$.kernels[0].registers: expected a non-negative integer");
  check_error(R"({"kernels": [{"threads": 1, "registers": 3, "smem": 1}]})", "$.kernels[0].smem: unknown key");
  check_error(R"({"kernels": [{"threads": 1, "registers": 3}], "stream": {"bytes_in": 1}})", "$.stream.bytes_out: missing");
  check_error(R"({"kernels": [{"threads": 1, "registers": 3}], "stream": {"bytes_in": 1, "bytes_out": 1,
      "h2d_gb_per_s": 0, "d2h_gb_per_s": 1, "kernel_gb_per_s": 1, "chunk_overhead_us": 1}})",
              "$.stream.h2d_gb_per_s: expected a positive number");
  check_error(R"({"kernels": [{"threads": 1, "registers": 3}], "stream": {"bytes_in": 1, "bytes_out": 1,
      "h2d_gb_per_s": 1, "d2h_gb_per_s": 1, "kernel_gb_per_s": 1, "chunk_overhead_us": 1, "engines": "two"}})",
              "$.stream.engines: expected \"three\" or \"one\"");
  CHECK_THROWS_WITH_AS(load_kernel_set("/nonexistent.json"), doctest::Contains("cannot open"), hqc::Error);
}

TEST_CASE("the example kernel set plans on every built-in device") {
  const KernelSet s = load_kernel_set(source_dir() + "/tests/planner/data/four_queries.json");
  REQUIRE(s.kernels.size() == 4);
  REQUIRE(s.stream.has_value());
  CHECK(s.stream->engines == Engines::ThreeEngines);
  CHECK(s.stream->rates.host_to_device_bytes_per_s == doctest::Approx(55e9));
  for (const std::string& name : builtin_profile_names()) {
    INFO(name);
    const DeviceProfile d = named_profile(name);
    const ConcurrentPlan plan = plan_concurrent(d, s.kernels);
    std::set<size_t> seen;
    for (const Batch& b : plan.batches) {
      REQUIRE(b.plan.feasible);
      std::vector<KernelDemand> members;
      for (size_t i : b.kernels) members.push_back(plan.capped[i]);
      CHECK(co_resident(d, placements(members, b.plan)).empty());
      seen.insert(b.kernels.begin(), b.kernels.end());
      for (size_t j = 0; j < b.kernels.size(); ++j) {
        // Each launch covers the (capped) demand of its kernel on one SM.
        CHECK(uint64_t{b.plan.launches[j].block_size} * b.plan.launches[j].blocks_per_sm >=
              per_sm_demand(d, plan.capped[b.kernels[j]].threads));
      }
    }
    CHECK(seen.size() == 4);
    for (size_t i = 0; i < 4; ++i) CHECK(plan.capped[i].threads <= s.kernels[i].threads);
  }
  // On a CC 8.6 board q4.1 (64 registers) cannot hold 1536 threads per SM: capped to 1024.
  const ConcurrentPlan cc86 = plan_concurrent(named_profile("cc86"), s.kernels);
  CHECK(cc86.capped[3].threads == 1024ull * 82);
}

// Device profiles: the built-in values the issue names, JSON round trip, and the errors.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "planner/device_profile.h"
#include "storage/error.h"

using namespace hqc::planner;

TEST_CASE("device profiles: the H100 and the per-CC tables") {
  const DeviceProfile h = named_profile("h100");
  CHECK(h.sm_count == 132);
  CHECK(h.registers_per_sm == 65536);
  CHECK(h.shared_per_sm == 228 * 1024);
  CHECK(h.shared_per_block_optin == 227 * 1024);
  CHECK(h.shared_reserved_per_block == 1024);
  CHECK(h.max_threads_per_sm == 2048);
  CHECK(h.max_blocks_per_sm == 32);
  CHECK(h.max_warps_per_sm() == 64);
  CHECK(named_profile("cc75").max_threads_per_sm == 1024);
  CHECK(named_profile("cc86").max_blocks_per_sm == 16);
  CHECK(named_profile("cc89").max_blocks_per_sm == 24);
  CHECK(named_profile("cc70").shared_reserved_per_block == 0);
  CHECK(builtin_profile_names().size() == 7);
  for (const std::string& name : builtin_profile_names()) CHECK_NOTHROW(validate(named_profile(name), name));
  CHECK_THROWS_AS(named_profile("cc99"), hqc::Error);
  CHECK_THROWS_AS(profile_for_compute_capability(6, 1), hqc::Error);
}

TEST_CASE("device profiles: JSON round trip and errors") {
  const DeviceProfile h = named_profile("cc80");
  const DeviceProfile back = profile_from_json(to_json(h), "mem");
  CHECK(to_json(back) == to_json(h));

  const std::filesystem::path path = std::filesystem::temp_directory_path() / "hqc_planner_profile_test.json";
  save_profile(h, path.string());
  CHECK(to_json(load_profile(path.string())) == to_json(h));
  std::filesystem::remove(path);

  nlohmann::json j = to_json(h);
  j.erase("sm_count");
  try {
    profile_from_json(j, "dev.json");
    FAIL("expected an error");
  } catch (const hqc::Error& e) {
    CHECK(std::string(e.what()).find("dev.json: $.sm_count: missing") != std::string::npos);
    CHECK(e.kind() == hqc::ErrorKind::Input);
  }
  j = to_json(h);
  j["warp_size"] = -3;
  CHECK_THROWS_WITH_AS(profile_from_json(j, "dev.json"), doctest::Contains("$.warp_size: expected a non-negative integer"),
                       hqc::Error);
  j = to_json(h);
  j["shared_per_block_optin"] = h.shared_per_sm;  // plus the reservation no longer fits
  CHECK_THROWS_WITH_AS(profile_from_json(j, "dev.json"), doctest::Contains("shared_per_block_optin"), hqc::Error);
  j = to_json(h);
  j["smem"] = 1;
  CHECK_THROWS_WITH_AS(profile_from_json(j, "dev.json"), doctest::Contains("$.smem: unknown"), hqc::Error);
  CHECK_THROWS_AS(load_profile("/nonexistent/profile.json"), hqc::Error);
}

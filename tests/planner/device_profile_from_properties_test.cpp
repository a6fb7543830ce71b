// profile_from_reported(): CUDA limits overwrite the built-in profile of the compute capability
// (a newer CC takes the newest older rules, an older one is refused), and the conservative OpenCL
// profile (registers never limit, one resident work-group per compute unit unless reported).
#include <doctest/doctest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "planner/device_profile_from_properties.h"
#include "planner/occupancy.h"
#include "storage/error.h"

using namespace hqc;
using namespace hqc::planner;

namespace {

// What cuDeviceGetAttribute reports on the H100 of the device machine (DESIGN.md §7).
ReportedLimits h100_reported() {
  ReportedLimits r;
  r.name = "NVIDIA H100 80GB HBM3";
  r.cc_major = 9;
  r.cc_minor = 0;
  r.sm_count = 132;
  r.warp_size = 32;
  r.max_threads_per_block = 1024;
  r.max_threads_per_sm = 2048;
  r.max_blocks_per_sm = 32;
  r.registers_per_sm = 65536;
  r.registers_per_block = 65536;
  r.shared_per_sm = 228 * 1024;
  r.shared_per_block = 48 * 1024;
  r.shared_per_block_optin = 227 * 1024;
  r.shared_reserved_per_block = 1024;
  return r;
}

}  // namespace

TEST_CASE("device profile from reported limits: the H100's report reproduces the built-in profile") {
  const DeviceProfile p = profile_from_reported(h100_reported());
  DeviceProfile expected = named_profile("h100");
  expected.name = "NVIDIA H100 80GB HBM3";
  CHECK(to_json(p).dump() == to_json(expected).dump());
}

TEST_CASE("device profile from reported limits: reported counts replace the built-in ones") {
  ReportedLimits r = h100_reported();
  r.sm_count = 114;              // H100 PCIe
  r.shared_per_sm = 200 * 1024;  // a smaller carveout than the built-in maximum
  r.shared_per_block_optin = 199 * 1024;
  const DeviceProfile p = profile_from_reported(r);
  CHECK(p.sm_count == 114);
  CHECK(p.shared_per_sm == 200 * 1024);
  CHECK(p.shared_per_block_optin == 199 * 1024);
  CHECK(p.register_allocation_unit == 256);  // architecture rule, not reported
  CHECK(p.shared_allocation_unit == 128);

  // Fields the driver left at 0 keep the architecture's value.
  r.max_blocks_per_sm = 0;
  CHECK(profile_from_reported(r).max_blocks_per_sm == 32);
}

TEST_CASE("device profile from reported limits: compute capabilities without a built-in profile") {
  ReportedLimits r = h100_reported();
  r.cc_major = 12;  // newer than every built-in profile: the newest rules (9.0) apply
  r.cc_minor = 0;
  r.sm_count = 170;
  const DeviceProfile p = profile_from_reported(r);
  CHECK(p.cc_major == 12);
  CHECK(p.sm_count == 170);
  CHECK(p.register_warp_granularity == 4);

  r.cc_major = 8;  // 8.7 takes 8.6's rules
  r.cc_minor = 7;
  CHECK(profile_from_reported(r).cc_minor == 7);

  r.cc_major = 6;  // older than every built-in profile
  r.cc_minor = 1;
  try {
    profile_from_reported(r);
    FAIL("expected Error(Unsupported)");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Unsupported);
  }
}

TEST_CASE("device profile from reported limits: OpenCL devices get the conservative profile") {
  ReportedLimits r;  // what PoCL reports on a 2-core machine
  r.name = "pthread-skylake";
  r.sm_count = 2;
  r.warp_size = 8;
  r.max_threads_per_block = 4096;
  r.shared_per_block = 2 * 1024 * 1024;
  r.shared_per_block_optin = r.shared_per_block;
  const DeviceProfile p = profile_from_reported(r);
  CHECK(p.cc_major == 0);
  CHECK(p.sm_count == 2);
  CHECK(p.warp_size == 8);
  CHECK(p.max_threads_per_sm == 4096);
  CHECK(p.max_blocks_per_sm == 1);
  CHECK(p.shared_per_sm == 2 * 1024 * 1024);
  CHECK(p.shared_reserved_per_block == 0);

  // Registers never limit, even at the per-thread maximum and the largest work-group.
  const Occupancy o = compute_occupancy(p, {4096, 255, 0});
  CHECK(o.blocks_per_sm == 1);
  CHECK(o.limit_registers >= 1);
  CHECK(compute_occupancy(p, {1024, 0, 0}).occupancy == doctest::Approx(0.25));

  // A reported threads/blocks-per-unit budget is used when the platform has one.
  r.max_threads_per_sm = 8192;
  r.max_blocks_per_sm = 4;
  const DeviceProfile q = profile_from_reported(r);
  CHECK(q.max_threads_per_sm == 8192);
  CHECK(compute_occupancy(q, {1024, 0, 0}).blocks_per_sm == 4);
}

TEST_CASE("device profile from reported limits: a device that reports too little is refused by name") {
  ReportedLimits r;
  r.name = "mystery device";
  r.warp_size = 32;
  r.max_threads_per_block = 256;
  r.shared_per_block = 32768;
  try {
    profile_from_reported(r);
    FAIL("expected Error(Device)");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Device);
    CHECK(std::string(e.what()).find("mystery device") != std::string::npos);
    CHECK(std::string(e.what()).find("compute units") != std::string::npos);
  }
  r.sm_count = 4;
  r.max_threads_per_block = 16;  // below one warp
  CHECK_THROWS_AS(profile_from_reported(r), Error);
}

// choose_launch_config with made-up device properties (no device needed): grids, block lowering for
// the compiled kernel, and the scratchpad fit check of a C3 aggregation privatised per CTA — a slot
// count above the IR's bound and a scratchpad no allowed block size fits are refused with
// Error(Unsupported) naming the query and the numbers; a per-thread scratchpad that fits at a
// smaller block size lowers the block instead.
#include <doctest/doctest.h>

#include <string>

#include "runtime/launch_config.h"
#include "storage/error.h"

using namespace hqc;
using namespace hqc::runtime;

namespace {

DeviceProperties device_with(uint64_t shared_per_block, uint64_t optin = 0) {
  DeviceProperties d;
  d.name = "test device";
  d.max_threads_per_block = 1024;
  d.shared_memory_per_block = shared_per_block;
  d.shared_memory_per_block_optin = optin;
  return d;
}

// A C3 aggregation kernel: 8 bytes per thread for the prefix sum, 24 bytes per group slot.
LaunchSpec c3_launch() {
  LaunchSpec l;
  l.kernel = "q_agg";
  l.block_size = 256;
  l.tuples_param = "rows";
  l.scratch_bytes = 16;
  l.scratch_bytes_per_thread = 8;
  l.scratch_bytes_per_param = {{"agg0_slots", 24}};
  l.scratch_slot_bounds = {{"agg0_slots", 2048, "aggregation table agg0 privatised in scratchpad (24 B/slot)"}};
  l.block_size_multiple = 32;
  return l;
}

std::string unsupported_message(const LaunchSpec& l, const std::map<std::string, int64_t>& params,
                                const DeviceProperties& d, const KernelAttributes& k = {}) {
  try {
    choose_launch_config("q2_1", l, k, params, d);
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Unsupported);
    return e.what();
  }
  FAIL("expected Error(Unsupported)");
  return "";
}

}  // namespace

TEST_CASE("launch config: grid and scratchpad of a launch that fits") {
  const LaunchConfig c = choose_launch_config("q", c3_launch(), {}, {{"rows", 10000}, {"agg0_slots", 1000}}, device_with(48 * 1024));
  CHECK(c.block_size == 256);
  CHECK(c.grid_blocks == 40);  // ceil(10000 / 256)
  CHECK(c.dynamic_shared_bytes == 16 + 8 * 256 + 24 * 1000);
  CHECK(scratch_bytes_for(c3_launch(), 128, {{"agg0_slots", 10}}) == 16 + 8 * 128 + 240);
}

TEST_CASE("launch config: a slot count above the IR's scratchpad bound is refused") {
  const std::string m = unsupported_message(c3_launch(), {{"rows", 100}, {"agg0_slots", 3000}}, device_with(1 << 30));
  CHECK(m.find("q2_1") != std::string::npos);
  CHECK(m.find("q_agg") != std::string::npos);
  CHECK(m.find("agg0") != std::string::npos);
  CHECK(m.find("3000") != std::string::npos);
  CHECK(m.find("2048") != std::string::npos);
}

TEST_CASE("launch config: a per-thread scratchpad that fits at a smaller block lowers the block") {
  // 16 + 24*1800 = 43216 fixed; at 256 threads +2048 = 45264 > 44 KiB = 45056; 8*T <= 1840 → T <= 230,
  // the largest multiple of 32 is 224.
  const DeviceProperties d = device_with(44 * 1024);
  const LaunchConfig c = choose_launch_config("q", c3_launch(), {}, {{"rows", 10000}, {"agg0_slots", 1800}}, d);
  CHECK(c.block_size == 224);
  CHECK(c.grid_blocks == 45);  // ceil(10000 / 224): the grid follows the lowered block
  CHECK(c.dynamic_shared_bytes == 16 + 8 * 224 + 24 * 1800);
  CHECK(c.dynamic_shared_bytes <= d.shared_memory_per_block);

  LaunchSpec pow2 = c3_launch();
  pow2.power_of_two_block = true;
  pow2.block_size = 512;
  // 43216 + 8*T <= 44*1024 = 45056 → T <= 230 → 128 as a power of two.
  CHECK(choose_launch_config("q", pow2, {}, {{"rows", 1}, {"agg0_slots", 1800}}, d).block_size == 128);
}

TEST_CASE("launch config: a scratchpad no allowed block fits is refused, never launched") {
  // The slots alone (24 * 2000 = 48000) exceed 44 KiB: no block size helps.
  const std::string m = unsupported_message(c3_launch(), {{"rows", 100}, {"agg0_slots", 2000}}, device_with(44 * 1024));
  CHECK(m.find("q2_1") != std::string::npos);
  CHECK(m.find("test device") != std::string::npos);
  CHECK(m.find(std::to_string(44 * 1024)) != std::string::npos);
  CHECK(m.find(std::to_string(16 + 8 * 256 + 24 * 2000)) != std::string::npos);

  // Fits only below the kernel's block multiple of 32: 43216 + 8*T <= 43400 → T <= 23.
  const std::string n = unsupported_message(c3_launch(), {{"rows", 100}, {"agg0_slots", 1800}}, device_with(43400));
  CHECK(n.find("no smaller block size") != std::string::npos);

  // Static shared memory of the compiled kernel counts too.
  KernelAttributes k;
  k.static_shared_bytes = 4096;
  unsupported_message(c3_launch(), {{"rows", 100}, {"agg0_slots", 1800}}, device_with(45056), k);
}

TEST_CASE("launch config: the opt-in limit is the bound when the device has one") {
  const LaunchConfig c =
      choose_launch_config("q", c3_launch(), {}, {{"rows", 100}, {"agg0_slots", 2000}}, device_with(48 * 1024, 227 * 1024));
  CHECK(c.block_size == 256);
  CHECK(c.dynamic_shared_bytes == 16 + 8 * 256 + 24 * 2000);
}

TEST_CASE("launch config: a kernel limited by registers runs at its largest allowed block") {
  KernelAttributes k;
  k.max_threads_per_block = 200;
  LaunchSpec l = c3_launch();
  CHECK(choose_launch_config("q", l, k, {{"rows", 1000}, {"agg0_slots", 10}}, device_with(48 * 1024)).block_size == 192);
  k.max_threads_per_block = 16;  // below the multiple of 32
  CHECK_THROWS_AS(choose_launch_config("q", l, k, {{"rows", 1000}, {"agg0_slots", 10}}, device_with(48 * 1024)), Error);
}

// choose_launch_config / decide_launch with made-up device properties (no device needed).
// On an OpenCL-like device (no compute capability): grids, block limits of the compiled kernel, and
// the scratchpad fit check of a C3 aggregation privatised per CTA — a slot count above the IR's
// bound and a scratchpad no allowed block size fits are refused with Error(Unsupported) naming the
// query and the numbers. On the built-in H100 profile: the block of highest predicted occupancy,
// hand-checked against the occupancy equations (docs/planner.md), and the grid cap of kernels that
// stride over tiles.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include "planner/device_profile.h"
#include "runtime/execution/launch_config.h"
#include "storage/error.h"

using namespace hqc;
using namespace hqc::runtime;

namespace {

// An OpenCL device: one compute unit, one resident work-group (the conservative profile), so the
// largest allowed block that fits always has the highest predicted occupancy.
DeviceProperties device_with(uint64_t shared_per_block, uint64_t optin = 0) {
  DeviceProperties d;
  d.name = "test device";
  d.multiprocessors = 1;
  d.warp_size = 32;
  d.max_threads_per_block = 1024;
  d.shared_memory_per_block = shared_per_block;
  d.shared_memory_per_block_optin = optin;
  return d;
}

// The H100 as the CUDA backend reports it, from the built-in profile.
DeviceProperties h100() {
  const planner::DeviceProfile p = planner::named_profile("h100");
  DeviceProperties d;
  d.name = "H100 (built-in profile)";
  d.compute_major = p.cc_major;
  d.compute_minor = p.cc_minor;
  d.multiprocessors = p.sm_count;
  d.warp_size = p.warp_size;
  d.max_threads_per_block = p.max_threads_per_block;
  d.max_threads_per_multiprocessor = p.max_threads_per_sm;
  d.max_blocks_per_multiprocessor = p.max_blocks_per_sm;
  d.registers_per_block = p.registers_per_block;
  d.registers_per_multiprocessor = p.registers_per_sm;
  d.shared_memory_per_block = p.shared_per_block;
  d.shared_memory_per_block_optin = p.shared_per_block_optin;
  d.shared_memory_per_multiprocessor = p.shared_per_sm;
  d.reserved_shared_memory_per_block = p.shared_reserved_per_block;
  return d;
}

KernelAttributes with_registers(int registers) {
  KernelAttributes k;
  k.registers_per_thread = registers;
  k.max_threads_per_block = 1024;
  return k;
}

// A scan kernel over `rows` with the given scratchpad per thread.
LaunchSpec scan_launch(uint32_t bytes_per_thread, bool power_of_two) {
  LaunchSpec l;
  l.kernel = "q_scan";
  l.tuples_param = "rows";
  l.scratch_bytes_per_thread = bytes_per_thread;
  l.block_size_multiple = 32;
  l.power_of_two_block = power_of_two;
  return l;
}

// A C3 aggregation kernel: 8 bytes per thread for the prefix sum, 24 bytes per group slot.
LaunchSpec c3_launch() {
  LaunchSpec l;
  l.kernel = "q_agg";
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
  CHECK(c.block_size == 1024);  // one resident group: the largest block has the most warps
  CHECK(c.grid_blocks == 10);   // ceil(10000 / 1024)
  CHECK(c.dynamic_shared_bytes == 16 + 8 * 1024 + 24 * 1000);
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
  // 43216 + 8*T <= 44*1024 = 45056 → T <= 230 → 128 as a power of two.
  CHECK(choose_launch_config("q", pow2, {}, {{"rows", 1}, {"agg0_slots", 1800}}, d).block_size == 128);
}

TEST_CASE("launch config: a scratchpad no allowed block fits is refused, never launched") {
  // The slots alone (24 * 2000 = 48000) exceed 44 KiB: no block size helps.
  const std::string m = unsupported_message(c3_launch(), {{"rows", 100}, {"agg0_slots", 2000}}, device_with(44 * 1024));
  CHECK(m.find("q2_1") != std::string::npos);
  CHECK(m.find("test device") != std::string::npos);
  CHECK(m.find(std::to_string(44 * 1024)) != std::string::npos);
  // The numbers at the smallest block the kernel allows (32 threads), the most favourable one.
  CHECK(m.find(std::to_string(16 + 8 * 32 + 24 * 2000)) != std::string::npos);

  // Fits only below the kernel's block multiple of 32: 43216 + 8*T <= 43400 → T <= 23.
  const std::string n = unsupported_message(c3_launch(), {{"rows", 100}, {"agg0_slots", 1800}}, device_with(43400));
  CHECK(n.find("no block size the kernel allows fits") != std::string::npos);

  // Static shared memory of the compiled kernel counts too.
  KernelAttributes k;
  k.static_shared_bytes = 4096;
  unsupported_message(c3_launch(), {{"rows", 100}, {"agg0_slots", 1800}}, device_with(45056), k);
}

TEST_CASE("launch config: the opt-in limit is the bound when the device has one") {
  const LaunchConfig c =
      choose_launch_config("q", c3_launch(), {}, {{"rows", 100}, {"agg0_slots", 2000}}, device_with(48 * 1024, 227 * 1024));
  CHECK(c.block_size == 1024);
  CHECK(c.dynamic_shared_bytes == 16 + 8 * 1024 + 24 * 2000);
}

TEST_CASE("launch config: a kernel limited by registers runs at its largest allowed block") {
  KernelAttributes k;
  k.max_threads_per_block = 200;
  LaunchSpec l = c3_launch();
  CHECK(choose_launch_config("q", l, k, {{"rows", 1000}, {"agg0_slots", 10}}, device_with(48 * 1024)).block_size == 192);
  k.max_threads_per_block = 16;  // below the multiple of 32
  CHECK_THROWS_AS(choose_launch_config("q", l, k, {{"rows", 1000}, {"agg0_slots", 10}}, device_with(48 * 1024)), Error);
}

// ---- the occupancy model on the built-in H100 profile (W_SM = 64 warps, B_SM = 32, R_SM = 65536
// in 256-register units over 4 sub-partitions, S_SM = 228 KiB, 1 KiB reserved per block, 128-byte
// units, 227 KiB opt-in) ----

TEST_CASE("launch config on H100: a light kernel takes the smallest block that fills the SM") {
  // 32 registers: θ = 1024, ρ = 64 warps. T = 32 is held to B_SM = 32 blocks = 32 warps; T = 64
  // reaches 32 blocks x 2 warps = 64 warps (100%), and larger blocks only tie.
  const LaunchDecision d = decide_launch("q", scan_launch(0, true), with_registers(32), {{"rows", 1000}}, h100());
  CHECK(d.config.block_size == 64);
  CHECK(d.blocks_per_sm == 32);
  CHECK(d.occupancy == doctest::Approx(1.0));
  CHECK(d.config.grid_blocks == 16);  // ceil(1000 / 64)
}

TEST_CASE("launch config on H100: a register-limited kernel picks a smaller block") {
  // 72 registers: θ = ⌈72·32/256⌉·256 = 2304, ρ = ⌊65536/(2304·4)⌋·4 = 28 warps. Blocks of k warps
  // get ⌊28/k⌋ blocks: 28 warps for k = 1, 2, 4, 7, 14, 28, fewer otherwise (T = 1024 cannot run:
  // 72·1024 registers exceed the block's file). The tie goes to the smallest block, 32.
  for (const bool power_of_two : {false, true}) {
    const LaunchDecision d = decide_launch("q", scan_launch(0, power_of_two), with_registers(72), {{"rows", 1 << 20}}, h100());
    CHECK(d.config.block_size == 32);
    CHECK(d.blocks_per_sm == 28);
    CHECK(d.occupancy == doctest::Approx(28.0 / 64));
    CHECK(d.limiting == planner::OccupancyLimit::Registers);
  }
  // 255 registers: ρ = ⌊65536/(8192·4)⌋·4 = 8 warps: at most 256 threads, and 32 wins the tie.
  const LaunchConfig c = choose_launch_config("q", scan_launch(0, false), with_registers(255), {{"rows", 10}}, h100());
  CHECK(c.block_size == 32);
}

TEST_CASE("launch config on H100: a scratchpad that scales with the block picks the best fit") {
  // 200 B per thread, 32 registers: ζ(T) = 200·T + 1024 (already a multiple of 128), β = ⌊233472/ζ⌋.
  // Active warps by T: 32→31, 64→32, 96→33, 128→32, 160→35, 224→35, 352→33, 384→36 (ζ = 77824 =
  // 233472/3 exactly, 3 blocks x 12 warps), 576→36 (tie, larger), 608 and up → at most 32.
  const LaunchDecision d = decide_launch("q", scan_launch(200, false), with_registers(32), {{"rows", 100000}}, h100());
  CHECK(d.config.block_size == 384);
  CHECK(d.blocks_per_sm == 3);
  CHECK(d.occupancy == doctest::Approx(36.0 / 64));
  CHECK(d.limiting == planner::OccupancyLimit::SharedMemory);
  CHECK(d.config.dynamic_shared_bytes == 200 * 384);

  // As powers of two: 32→31 warps, 64..1024→32 warps; the tie goes to 64.
  CHECK(choose_launch_config("q", scan_launch(200, true), with_registers(32), {{"rows", 100000}}, h100()).block_size == 64);
}

TEST_CASE("launch config on H100: a scratchpad near the opt-in limit gets the largest block that fits") {
  // 228000 B of slots + 8 B per thread against 227 KiB = 232448 B: T <= 556, so 544 is the largest
  // multiple of 32; one block per SM at any size, so the most warps (17) win.
  LaunchSpec l = c3_launch();
  l.scratch_bytes = 0;
  l.scratch_slot_bounds.clear();
  l.scratch_bytes_per_param = {{"agg0_slots", 24}};
  const DeviceProperties d = h100();
  const LaunchDecision c = decide_launch("q", l, with_registers(32), {{"rows", 100000}, {"agg0_slots", 9500}}, d);
  CHECK(c.config.block_size == 544);
  CHECK(c.blocks_per_sm == 1);
  CHECK(c.config.dynamic_shared_bytes == 228000 + 8 * 544);
  CHECK(c.config.dynamic_shared_bytes <= d.shared_memory_per_block_optin);
}

TEST_CASE("launch config on H100: the kernel's constraints are respected") {
  KernelAttributes k = with_registers(32);
  k.max_threads_per_block = 200;  // what the compiler allows this kernel
  for (uint32_t bytes : {0u, 200u}) {
    for (const bool power_of_two : {false, true}) {
      const LaunchConfig c = choose_launch_config("q", scan_launch(bytes, power_of_two), k, {{"rows", 5000}}, h100());
      CHECK(c.block_size <= 200);
      CHECK(c.block_size % 32 == 0);
      if (power_of_two) CHECK((c.block_size & (c.block_size - 1)) == 0);
    }
  }
  // A multiple of 96 (three warps, not a power of two): 96 → 21 blocks = 63 warps beats 192 → 10
  // blocks = 60 warps.
  LaunchSpec l = scan_launch(0, false);
  l.block_size_multiple = 96;
  const LaunchConfig c = choose_launch_config("q", l, with_registers(32), {{"rows", 5000}}, h100());
  CHECK(c.block_size == 96);
}

TEST_CASE("launch config: kernels that stride over tiles get a grid of a few resident waves") {
  // 64 threads, 32 blocks per SM, 132 SMs, kGridWaves waves.
  const uint64_t cap = 32 * 132 * planner::kGridWaves;
  const std::map<std::string, int64_t> many = {{"rows", 10'000'000}};
  LaunchSpec striding = scan_launch(0, true);
  striding.strides_over_tiles = true;
  const LaunchDecision d = decide_launch("q", striding, with_registers(32), many, h100());
  CHECK(d.config.block_size == 64);
  CHECK(d.items_per_thread == 4);      // above 2^20 tuples the planner sizes the grid for 4 per thread
  CHECK(d.grid_for_tuples == 39063);   // ceil(10^7 / (64 * 4))
  CHECK(d.config.grid_blocks == cap);
  // One tuple per work-item: every tuple needs its thread.
  CHECK(choose_launch_config("q", scan_launch(0, true), with_registers(32), many, h100()).grid_blocks == 156250);
  // Fewer tuples than the cap: the grid the tuples need, one tuple per thread at this size.
  const LaunchDecision few = decide_launch("q", striding, with_registers(32), {{"rows", 1000}}, h100());
  CHECK(few.items_per_thread == 1);
  CHECK(few.config.grid_blocks == 16);
  // A one-tuple-per-work-item kernel's own items_per_thread divides the tuples first.
  LaunchSpec l = scan_launch(0, true);
  l.items_per_thread = 4;
  CHECK(decide_launch("q", l, with_registers(32), {{"rows", 1000}}, h100()).config.grid_blocks == 4);

  // On the conservative OpenCL profile: one group per compute unit, so 2 · 1 · kGridWaves groups.
  DeviceProperties pocl = device_with(2 << 20);
  pocl.multiprocessors = 2;
  pocl.warp_size = 8;
  pocl.max_threads_per_block = 4096;
  const LaunchDecision o = decide_launch("q", striding, {}, many, pocl);
  CHECK(o.config.block_size == planner::kMaxBlockSize);
  CHECK(o.config.grid_blocks == 2 * planner::kGridWaves);
}

TEST_CASE("launch config: HORSEQC_BLOCK_SIZE forces an allowed block size and refuses others") {
  const std::map<std::string, int64_t> params = {{"rows", 10000}, {"agg0_slots", 100}};
  ::setenv("HORSEQC_BLOCK_SIZE", "256", 1);
  const LaunchConfig c = choose_launch_config("q", c3_launch(), {}, params, device_with(48 * 1024));
  CHECK(c.block_size == 256);  // the model alone picks 1024 here (first test case)
  CHECK(c.grid_blocks == 40);  // ceil(10000 / 256)
  CHECK(c.dynamic_shared_bytes == 16 + 8 * 256 + 24 * 100);
  for (const char* bad : {"100", "2048", "0", "64x"}) {
    CAPTURE(bad);
    ::setenv("HORSEQC_BLOCK_SIZE", bad, 1);
    try {
      choose_launch_config("q", c3_launch(), {}, params, device_with(48 * 1024));
      FAIL("expected Error(Usage)");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::Usage);
      CHECK(std::string(e.what()).find("HORSEQC_BLOCK_SIZE") != std::string::npos);
    }
  }
  ::unsetenv("HORSEQC_BLOCK_SIZE");
  CHECK(choose_launch_config("q", c3_launch(), {}, params, device_with(48 * 1024)).block_size == 1024);
}

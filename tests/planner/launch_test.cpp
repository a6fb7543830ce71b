// planner::decide_launch on the built-in H100 profile: requests as the runtime builds them, no device.
#include <doctest/doctest.h>

#include "planner/launch.h"
#include "storage/error.h"

using namespace hqc;

namespace {

planner::LaunchRequest scan(uint64_t tuples, bool striding) {
  planner::LaunchRequest r;
  r.where = "q: kernel q_scan";
  r.tuples = tuples;
  r.strides_over_tiles = striding;
  r.block_size_multiple = 32;
  return r;
}

}  // namespace

TEST_CASE("planner launch: tuples per thread, grid and the striding cap") {
  const planner::DeviceProfile h100 = planner::named_profile("h100");
  CHECK(planner::tuples_per_thread(planner::kManyTuples) == 1);
  CHECK(planner::tuples_per_thread(planner::kManyTuples + 1) == 4);
  // 32 registers: 64 threads fill the SM (32 blocks x 2 warps).
  const planner::LaunchChoice big = planner::decide_launch(scan(10'000'000, true), {32, 0, 0}, h100, "H100");
  CHECK(big.block_size == 64);
  CHECK(big.items_per_thread == 4);
  CHECK(big.grid_for_tuples == 39063);
  CHECK(big.grid_blocks == 32 * uint64_t{h100.sm_count} * planner::kGridWaves);
  // One tuple per work-item: the whole grid, the request's own tuples per thread.
  const planner::LaunchChoice each = planner::decide_launch(scan(10'000'000, false), {32, 0, 0}, h100, "H100");
  CHECK(each.items_per_thread == 1);
  CHECK(each.grid_blocks == 156250);
  // No tuple count: the fixed grid.
  planner::LaunchRequest fixed = scan(0, true);
  fixed.tuples.reset();
  fixed.fixed_grid = 256;
  CHECK(planner::decide_launch(fixed, {32, 0, 0}, h100, "H100").grid_blocks == 256);
}

TEST_CASE("planner launch: scratchpad bounds, slot bounds and a forced block size") {
  const planner::DeviceProfile h100 = planner::named_profile("h100");
  planner::LaunchRequest r = scan(1000, true);
  r.scratch_fixed_bytes = 40'000;
  r.scratch_bytes_per_thread = 8;
  const planner::LaunchChoice c = planner::decide_launch(r, {32, 1024, 0}, h100, "H100");
  CHECK(c.dynamic_shared_bytes == 40'000 + 8 * c.block_size);
  CHECK(planner::scratch_bytes(r, 128) == 40'000 + 8 * 128);
  // More than the opt-in limit at every allowed size.
  r.scratch_fixed_bytes = h100.shared_per_block_optin;
  CHECK_THROWS_WITH_AS(planner::decide_launch(r, {32, 0, 0}, h100, "H100"),
                       doctest::Contains("bytes of dynamic scratchpad per block"), Error);
  CHECK(planner::launchable_block_sizes(r, {32, 0, 0}, h100).empty());
  // A privatised table compiled for fewer slots than this run needs.
  planner::LaunchRequest bounded = scan(1000, true);
  bounded.slot_bounds.push_back({"agg0_slots", 2000, 1800, "aggregation table agg0 privatised in scratchpad (24 B/slot)"});
  CHECK_THROWS_WITH_AS(planner::decide_launch(bounded, {32, 0, 0}, h100, "H100"),
                       doctest::Contains("needs 2000 slots (agg0_slots) for this data, but the plan was compiled for at most 1800"),
                       Error);
  // A forced size: taken when allowed, refused with the allowed sizes otherwise.
  CHECK(planner::decide_launch(scan(1000, true), {32, 0, 0}, h100, "H100", 256).block_size == 256);
  CHECK_THROWS_WITH_AS(planner::decide_launch(scan(1000, true), {32, 0, 0}, h100, "H100", 100),
                       doctest::Contains("HORSEQC_BLOCK_SIZE=100 is not a block size this kernel allows"), Error);
}

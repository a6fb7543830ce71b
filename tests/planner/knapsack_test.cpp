// The kernel-level knapsack against brute force over every (b_1, ..., b_n), on thousands of random
// small instances (small made-up devices and the real profiles), plus its properties: Theorem 1,
// the table size bound, and co-residence of feasible plans.
#include <doctest/doctest.h>

#include <algorithm>
#include <optional>
#include <random>
#include <tuple>

#include "planner/device_profile.h"
#include "planner/knapsack.h"
#include "planner/occupancy.h"

using namespace hqc::planner;

namespace {

// A device small enough that brute force over b_i ∈ 1..B_SM is cheap, with the real allocation rules.
DeviceProfile small_device(std::mt19937_64& rng) {
  DeviceProfile p = profile_for_compute_capability(9, 0);
  p.name = "small";
  p.sm_count = 1 + rng() % 4;
  p.max_blocks_per_sm = 2 + rng() % 7;
  p.max_threads_per_block = 32 * (1 + static_cast<uint32_t>(rng() % 8));
  p.max_threads_per_sm = std::max<uint32_t>(p.max_threads_per_block, 32 * (4 + static_cast<uint32_t>(rng() % 13)));
  p.registers_per_sm = 4 * 256 * (8 + static_cast<uint32_t>(rng() % 64));
  p.registers_per_block = p.registers_per_sm;
  p.shared_per_sm = 1024 * (8 + rng() % 40);
  p.shared_per_block_optin = p.shared_per_sm - p.shared_reserved_per_block;
  p.shared_per_block = std::min<uint64_t>(p.shared_per_block, p.shared_per_block_optin);
  validate(p, "small");
  return p;
}

KernelDemand random_kernel(std::mt19937_64& rng, const DeviceProfile& p, int index) {
  KernelDemand k;
  k.name = "k" + std::to_string(index);
  k.threads = 1 + rng() % (uint64_t{p.max_threads_per_sm} * p.sm_count / 2 + 1);
  k.registers_per_thread = 16 + static_cast<uint32_t>(rng() % 100);
  const uint64_t fixed = (rng() % 3 == 0) ? 0 : rng() % 6000;
  const uint64_t per_thread = (rng() % 2 == 0) ? 0 : rng() % 24;  // local-resolution scratchpad
  k.shared_per_block = linear_shared_memory(fixed, per_thread);
  return k;
}

using Score = std::tuple<uint64_t, uint64_t, uint64_t, std::vector<uint32_t>>;

// Enumerates every b vector and returns the best by (shared, warps, blocks, b lexicographic).
std::optional<Score> brute_force(const DeviceProfile& p, const std::vector<KernelDemand>& ks) {
  std::optional<Score> best;
  std::vector<uint32_t> b(ks.size(), 1);
  for (;;) {
    uint64_t shared = 0, warps = 0, blocks = 0;
    bool ok = true;
    for (size_t i = 0; i < ks.size() && ok; ++i) {
      // Block-size rules: the smallest allowed block at least Theorem 1's, within the kernel's limit.
      uint32_t w = warps_for_blocks(p, per_sm_demand(p, ks[i].threads), b[i]);
      w = std::max(w, (ks[i].min_block_size + p.warp_size - 1) / p.warp_size);
      while (ks[i].power_of_two_block && ((w * p.warp_size) & (w * p.warp_size - 1)) != 0) ++w;
      const uint32_t limit = ks[i].max_block_size > 0 ? std::min(ks[i].max_block_size, p.max_threads_per_block)
                                                      : p.max_threads_per_block;
      if (w > limit / p.warp_size) ok = false;
      const uint64_t s = ks[i].shared_per_block(w * p.warp_size);
      if (!launch_blocker(p, {w * p.warp_size, ks[i].registers_per_thread, s}).empty()) ok = false;
      shared += b[i] * allocated_shared_per_block(p, s);
      warps += uint64_t{w} * b[i];
      blocks += b[i];
    }
    if (ok && blocks <= p.max_blocks_per_sm && warps <= p.max_warps_per_sm()) {
      Score s{shared, warps, blocks, b};
      if (!best || s < *best) best = s;
    }
    size_t i = 0;
    while (i < b.size() && ++b[i] > p.max_blocks_per_sm) b[i++] = 1;
    if (i == b.size()) break;
  }
  return best;
}

void check_against_brute_force(const DeviceProfile& p, const std::vector<KernelDemand>& ks, int& solved, int& feasible) {
  const KernelPlan plan = plan_kernels(p, ks);
  const std::optional<Score> expected = brute_force(p, ks);
  REQUIRE(plan.dp_cells == (ks.size() + 1) * (p.max_blocks_per_sm + 1) * (p.max_warps_per_sm() + 1));
  if (!expected) {
    CHECK(plan.launches.empty());
    CHECK_FALSE(plan.feasible);
    return;
  }
  ++solved;
  REQUIRE(plan.launches.size() == ks.size());
  std::vector<uint32_t> b;
  for (const KernelLaunch& l : plan.launches) b.push_back(l.blocks_per_sm);
  CHECK(Score{plan.shared_per_sm, plan.warps_per_sm, plan.blocks_per_sm, b} == *expected);
  for (size_t i = 0; i < ks.size(); ++i) {
    const KernelLaunch& l = plan.launches[i];
    // Theorem 1: the fewest (allowed) warps per block that meet the per-SM demand.
    CHECK(l.warps_per_block == allowed_warps_for_blocks(p, ks[i], per_sm_demand(p, ks[i].threads), l.blocks_per_sm));
    if (ks[i].power_of_two_block) CHECK((l.block_size & (l.block_size - 1)) == 0);
    CHECK(l.block_size >= ks[i].min_block_size);
    if (ks[i].max_block_size > 0) CHECK(l.block_size <= ks[i].max_block_size);
    CHECK(uint64_t{l.block_size} * l.blocks_per_sm >= per_sm_demand(p, ks[i].threads));
    CHECK(l.shared_per_block == ks[i].shared_per_block(l.block_size));
    CHECK(l.grid_blocks == uint64_t{l.blocks_per_sm} * p.sm_count);
  }
  // Feasible exactly when the kernels are co-resident per the occupancy model.
  const std::string reason = co_resident(p, placements(ks, plan));
  CHECK(plan.feasible == reason.empty());
  if (plan.feasible) {
    ++feasible;
    for (size_t i = 0; i < ks.size(); ++i) {
      const KernelLaunch& l = plan.launches[i];
      CHECK(compute_occupancy(p, {l.block_size, ks[i].registers_per_thread, l.shared_per_block}).blocks_per_sm >= l.blocks_per_sm);
    }
  }
}

}  // namespace

TEST_CASE("knapsack with block-size rules (power of two, least and most threads) equals brute force") {
  std::mt19937_64 rng(606);
  int solved = 0, feasible = 0;
  for (int trial = 0; trial < 1500; ++trial) {
    const DeviceProfile p = small_device(rng);
    std::vector<KernelDemand> ks;
    const int n = 1 + static_cast<int>(rng() % 3);
    for (int i = 0; i < n; ++i) {
      KernelDemand k = random_kernel(rng, p, i);
      k.power_of_two_block = rng() % 2 == 0;
      k.min_block_size = rng() % 3 == 0 ? 32u << (rng() % 3) : 0;
      k.max_block_size = rng() % 3 == 0 ? 32u << (rng() % 4) : 0;
      ks.push_back(std::move(k));
    }
    check_against_brute_force(p, ks, solved, feasible);
  }
  CHECK(solved > 500);
  CHECK(feasible > 100);
}

TEST_CASE("allowed warps: Theorem 1 rounded up to the kernel's block rules") {
  const DeviceProfile h100 = profile_for_compute_capability(9, 0);
  KernelDemand k;
  CHECK(allowed_warps_for_blocks(h100, k, 158, 1) == 5);  // no rules: the paper's w = ⌈158/32⌉
  k.power_of_two_block = true;
  CHECK(allowed_warps_for_blocks(h100, k, 158, 1) == 8);  // 160 threads → a 256-thread block
  CHECK(allowed_warps_for_blocks(h100, k, 158, 5) == 1);
  CHECK(allowed_warps_for_blocks(h100, k, 100, 1) == 4);
  k.min_block_size = 128;
  CHECK(allowed_warps_for_blocks(h100, k, 10, 4) == 4);
  k.power_of_two_block = false;
  k.min_block_size = 96;
  CHECK(allowed_warps_for_blocks(h100, k, 10, 4) == 3);
}

TEST_CASE("knapsack equals brute force on random small devices") {
  std::mt19937_64 rng(20261121);
  int solved = 0, feasible = 0;
  for (int instance = 0; instance < 3000; ++instance) {
    const DeviceProfile p = small_device(rng);
    std::vector<KernelDemand> ks;
    const int n = 1 + static_cast<int>(rng() % 4);
    for (int i = 0; i < n; ++i) ks.push_back(random_kernel(rng, p, i));
    check_against_brute_force(p, ks, solved, feasible);
  }
  MESSAGE("small devices: " << solved << " of 3000 solvable, " << feasible << " feasible");
  CHECK(solved > 1000);
  CHECK(feasible > 300);
}

TEST_CASE("knapsack equals brute force on the built-in profiles") {
  std::mt19937_64 rng(7);
  int solved = 0, feasible = 0;
  const std::vector<std::string> names = builtin_profile_names();
  for (int instance = 0; instance < 600; ++instance) {
    const DeviceProfile p = named_profile(names[instance % names.size()]);
    std::vector<KernelDemand> ks;
    const int n = 1 + static_cast<int>(rng() % 3);
    for (int i = 0; i < n; ++i) {
      KernelDemand k = random_kernel(rng, p, i);
      k.threads = 1 + rng() % (uint64_t{p.max_threads_per_sm} * p.sm_count / static_cast<uint64_t>(n));
      ks.push_back(k);
    }
    check_against_brute_force(p, ks, solved, feasible);
  }
  MESSAGE("built-in profiles: " << solved << " of 600 solvable, " << feasible << " feasible");
  CHECK(solved > 300);
}

TEST_CASE("knapsack: hand-checked H100 cases") {
  const DeviceProfile h100 = named_profile("h100");
  SUBCASE("one kernel with no shared memory takes one large block") {
    // 132·1024 threads → 1024 per SM: b = 1 block of 32 warps costs one 1 KiB reservation.
    const KernelPlan plan = plan_kernels(h100, {{"scan", 132 * 1024, 32, linear_shared_memory(0, 0)}});
    REQUIRE(plan.feasible);
    CHECK(plan.launches[0].blocks_per_sm == 1);
    CHECK(plan.launches[0].block_size == 1024);
    CHECK(plan.shared_per_sm == 1024);
    CHECK(plan.launches[0].grid_blocks == 132);
  }
  SUBCASE("two kernels share the SM's warps") {
    const KernelPlan plan = plan_kernels(h100, {{"a", 132 * 1536, 32, linear_shared_memory(0, 0)},
                                                {"b", 132 * 512, 32, linear_shared_memory(4096, 0)}});
    REQUIRE(plan.feasible);
    CHECK(plan.warps_per_sm == 64);
    CHECK(plan.launches[0].blocks_per_sm * plan.launches[0].block_size >= 1536);
    CHECK(plan.launches[1].blocks_per_sm == 1);
  }
  SUBCASE("demand beyond the SM has no solution") {
    const KernelPlan plan = plan_kernels(h100, {{"big", 132 * 4096, 32, linear_shared_memory(0, 0)}});
    CHECK_FALSE(plan.feasible);
    CHECK(plan.launches.empty());
    CHECK(plan.reason.find("do not fit") != std::string::npos);
  }
  SUBCASE("registers fail the feasibility check after the recurrence") {
    // 2048 threads per SM at 64 registers need 128 Ki registers: warps fit, registers do not.
    const KernelPlan plan = plan_kernels(h100, {{"r", 132 * 2048, 64, linear_shared_memory(0, 0)}});
    CHECK_FALSE(plan.feasible);
    CHECK(plan.reason.find("registers") != std::string::npos);
  }
  SUBCASE("block-size-dependent scratchpad prefers more, smaller blocks only when cheaper") {
    // s(T) = 64·T: total shared is ~64·threads regardless of split, so the reservation decides.
    const KernelPlan plan = plan_kernels(h100, {{"agg", 132 * 1024, 32, linear_shared_memory(0, 64)}});
    REQUIRE(plan.feasible);
    CHECK(plan.launches[0].blocks_per_sm == 1);
    CHECK(plan.shared_per_sm == 64 * 1024 + 1024);
  }
  SUBCASE("empty input") {
    const KernelPlan plan = plan_kernels(h100, {});
    CHECK(plan.feasible);
    CHECK(plan.launches.empty());
  }
}

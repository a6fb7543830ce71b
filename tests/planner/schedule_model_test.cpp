// The concurrent/sequential schedule model on synthetic kernel sets computed by hand: bandwidth-
// bound big scans run faster one at a time, many small kernels that cannot fill the device faster
// together, a memory-bound and a compute-bound kernel faster together (the two fluids); the tail of
// a batch, the warp oversubscription scale, running-round floors, ties. Then the two mixes measured
// on an H200 (bench/results/2026-11-22-h200-planner): seed 002's Table I fixed mix, launched as
// bench/synthetic-mix launches it, is predicted faster with the knapsack (measured 1.03 vs 1.13 ms),
// and 13 SSB fact-table scans with equal-share launches are predicted faster one at a time
// (measured 10.05 vs 5.71 ms) — for any bandwidth and compute throughput in a wide range.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "planner/concurrent_plan.h"
#include "planner/device_profile.h"
#include "planner/occupancy.h"
#include "planner/schedule_model.h"
#include "storage/error.h"

using namespace hqc::planner;

namespace {

// 4 SMs of 64 warps, a scan reaches the 1 GB/s bandwidth with 32 warps per SM, arithmetic the
// 1 G ops/s with 16 warps per SM; 10 µs per batch, 1 µs per running round.
ScheduleDevice small_device() {
  ScheduleDevice d;
  d.sm_count = 4;
  d.warp_size = 32;
  d.max_warps_per_sm = 64;
  d.saturating_warps_per_sm = 32;
  d.saturating_compute_warps_per_sm = 16;
  d.bandwidth_bytes_per_s = 1e9;
  d.compute_ops_per_s = 1e9;
  d.launch_overhead_s = 1e-5;
  d.round_latency_s = 1e-6;
  return d;
}

ScheduledKernel kernel(const char* name, uint64_t bytes, uint32_t block, uint64_t grid, uint32_t per_sm, size_t batch = 0,
                       double ops = 0) {
  return {name, bytes, block, grid, per_sm, batch, ops};
}

}  // namespace

TEST_CASE("schedule model: bandwidth-bound big scans run one at a time") {
  const ScheduleDevice d = small_device();
  // Alone: 128 threads (4 warps), 16 blocks per SM (all 64 warps), a grid of two waves → 256 warps
  // resident, above the 128 that saturate: each reads at the full 1 GB/s; 2 rounds (2 µs ≪ bytes).
  std::vector<ScheduledKernel> alone = {kernel("a", 100'000'000, 128, 128, 16), kernel("b", 100'000'000, 128, 128, 16),
                                        kernel("c", 200'000'000, 128, 128, 16), kernel("d", 400'000'000, 128, 128, 16)};
  // Together (the knapsack's equal share): 4 blocks of 128 per SM each, grid 16 → 64 warps each,
  // a cap of half the bandwidth; four caps ask for 2 GB/s, so each gets 0.25 GB/s.
  std::vector<ScheduledKernel> together = {kernel("a", 100'000'000, 128, 16, 4), kernel("b", 100'000'000, 128, 16, 4),
                                           kernel("c", 200'000'000, 128, 16, 4), kernel("d", 400'000'000, 128, 16, 4)};
  const ScheduleDecision decision = choose_schedule(d, together, alone);
  // Sequential: 4 × (10 µs + bytes / 1 GB/s).
  CHECK(decision.sequential.seconds == doctest::Approx(4e-5 + 0.8).epsilon(1e-12));
  CHECK(decision.sequential.batch_seconds.size() == 4);
  CHECK(decision.sequential.batch_seconds[3] == doctest::Approx(1e-5 + 0.4).epsilon(1e-12));
  // Concurrent: a, b done at 0.4 s (1e8 at 0.25 GB/s); c (1e8 left) and d (3e8 left) then read at
  // their caps of 0.5 GB/s, which together are the bandwidth: c done at 0.6 s; d alone, still at its
  // cap (only 64 warps resident): 2e8 more at 0.5 GB/s → 1.0 s. The tail costs 0.2 s.
  CHECK(decision.concurrent.seconds == doctest::Approx(1e-5 + 1.0).epsilon(1e-12));
  REQUIRE(decision.concurrent.kernels.size() == 4);
  CHECK(decision.concurrent.kernels[0].finish_s == doctest::Approx(0.4).epsilon(1e-12));
  CHECK(decision.concurrent.kernels[1].finish_s == doctest::Approx(0.4).epsilon(1e-12));
  CHECK(decision.concurrent.kernels[2].finish_s == doctest::Approx(0.6).epsilon(1e-12));
  CHECK(decision.concurrent.kernels[3].finish_s == doctest::Approx(1.0).epsilon(1e-12));
  CHECK(decision.concurrent.kernels[3].resident_warps == 64);
  CHECK(decision.concurrent.kernels[3].cap_bytes_per_s == doctest::Approx(0.5e9).epsilon(1e-12));
  CHECK(decision.choice == ScheduleChoice::Sequential);

  SUBCASE("equal scans: no tail, concurrency saves only the launch overheads") {
    for (ScheduledKernel& k : alone) k.bytes = 100'000'000;
    for (ScheduledKernel& k : together) k.bytes = 100'000'000;
    const ScheduleDecision even = choose_schedule(d, together, alone);
    CHECK(even.concurrent.seconds == doctest::Approx(1e-5 + 0.4).epsilon(1e-12));
    CHECK(even.sequential.seconds == doctest::Approx(4e-5 + 0.4).epsilon(1e-12));
    CHECK(even.choice == ScheduleChoice::Concurrent);
  }
}

TEST_CASE("schedule model: many small kernels that cannot fill the device run together") {
  const ScheduleDevice d = small_device();
  // 8 kernels of 2 blocks of 64 threads (their tiles need no more): 4 warps resident whatever the
  // launch, a cap of 1 GB/s · 4/128 = 31.25 MB/s; 1 MB each takes 32 ms alone.
  std::vector<ScheduledKernel> alone;
  std::vector<ScheduledKernel> together;
  for (int i = 0; i < 8; ++i) {
    alone.push_back(kernel("small", 1'000'000, 64, 2, 32));
    together.push_back(kernel("small", 1'000'000, 64, 2, 1));
  }
  const ScheduleDecision decision = choose_schedule(d, together, alone);
  CHECK(decision.sequential.seconds == doctest::Approx(8 * (1e-5 + 0.032)).epsilon(1e-12));
  // Together the 8 caps ask for 250 MB/s, a quarter of the bandwidth: nobody slows down.
  CHECK(decision.concurrent.seconds == doctest::Approx(1e-5 + 0.032).epsilon(1e-12));
  CHECK(decision.concurrent.kernels[7].rounds == 1);
  CHECK(decision.choice == ScheduleChoice::Concurrent);
}

TEST_CASE("schedule model: running rounds floor tiny kernels; batches run one after the other") {
  const ScheduleDevice d = small_device();
  // No bytes: a grid of 10 blocks at 1 block per SM on 4 SMs takes ⌈10/4⌉ = 3 rounds of 1 µs.
  const std::vector<ScheduledKernel> alone = {kernel("x", 0, 256, 10, 1), kernel("y", 0, 256, 10, 1), kernel("z", 0, 256, 10, 1)};
  std::vector<ScheduledKernel> together = alone;
  const ScheduleDecision decision = choose_schedule(d, together, alone);
  CHECK(decision.sequential.seconds == doctest::Approx(3 * (1e-5 + 3e-6)).epsilon(1e-12));
  CHECK(decision.concurrent.seconds == doctest::Approx(1e-5 + 3e-6).epsilon(1e-12));
  CHECK(decision.choice == ScheduleChoice::Concurrent);
  // Two batches (the batch-level model's split): two overheads.
  together[2].batch = 1;
  CHECK(predict_schedule(d, together).seconds == doctest::Approx(2 * (1e-5 + 3e-6)).epsilon(1e-12));
  // An empty grid finishes at once.
  CHECK(predict_schedule(d, {kernel("empty", 0, 256, 0, 0)}).seconds == doctest::Approx(1e-5).epsilon(1e-12));
}

TEST_CASE("schedule model: one kernel launched the same way either way is a tie, and ties go to sequential") {
  const ScheduleDevice d = small_device();
  const std::vector<ScheduledKernel> one = {kernel("only", 50'000'000, 128, 128, 16)};
  const ScheduleDecision decision = choose_schedule(d, one, one);
  CHECK(decision.concurrent.seconds == decision.sequential.seconds);
  CHECK(decision.choice == ScheduleChoice::Sequential);
}

TEST_CASE("schedule model: kernels asking for more warps than the device holds share the slots") {
  const ScheduleDevice d = small_device();
  // Each alone would keep 64 blocks of 4 warps = 256 warps (all of the device); together they are
  // scaled to half, 128 warps each = 32 per SM: still saturating, so they split the bandwidth.
  const std::vector<ScheduledKernel> both = {kernel("p", 100'000'000, 128, 1000, 16), kernel("q", 100'000'000, 128, 1000, 16)};
  const SchedulePrediction p = predict_schedule(d, both);
  CHECK(p.kernels[0].resident_warps == 128);
  CHECK(p.kernels[1].resident_warps == 128);
  CHECK(p.kernels[0].rounds == 16);  // ⌈1000 / 64⌉
  CHECK(p.seconds == doctest::Approx(1e-5 + 0.2).epsilon(1e-12));
}

TEST_CASE("schedule model: the device from a profile, and bad inputs") {
  const ScheduleDevice h100 = schedule_device(named_profile("h100"), 3e12, 17e12, 8e-6);
  CHECK(h100.sm_count == 132);
  CHECK(h100.max_warps_per_sm == 64);
  CHECK(h100.saturating_warps_per_sm == 32);
  CHECK(h100.saturating_compute_warps_per_sm == 8);
  CHECK(h100.bandwidth_bytes_per_s == 3e12);
  CHECK(h100.compute_ops_per_s == 17e12);
  CHECK(h100.launch_overhead_s == 8e-6);
  CHECK(h100.round_latency_s == kDefaultRoundLatencySeconds);

  ScheduleDevice d = small_device();
  CHECK_THROWS_WITH_AS(predict_schedule(d, {kernel("k", 10, 128, 4, 0)}), doctest::Contains("kernel k has a grid of 4 blocks"),
                       hqc::Error);
  CHECK_THROWS_WITH_AS(predict_schedule(d, {kernel("k", 10, 128, 4, 1, 0, -1)}), doctest::Contains("kernel k has -1"),
                       hqc::Error);
  d.compute_ops_per_s = 0;
  CHECK_THROWS_WITH_AS(predict_schedule(d, {kernel("k", 10, 128, 4, 1, 0, 5)}),
                       doctest::Contains("device with a compute throughput"), hqc::Error);
  CHECK(predict_schedule(d, {kernel("k", 10'000'000, 128, 4, 1)}).seconds > 0);  // memory only needs no P
  d.bandwidth_bytes_per_s = 0;
  CHECK_THROWS_AS(predict_schedule(d, {}), hqc::Error);
}

TEST_CASE("schedule model: a memory-bound and a compute-bound kernel are faster together") {
  const ScheduleDevice d = small_device();
  // Alone each has the whole device (16 blocks of 4 warps per SM): "m" reads 0.4 GB at 1 GB/s,
  // "c" issues 4e8 ops at 1 G ops/s — 0.4 s each, 0.8 s one after the other.
  std::vector<ScheduledKernel> alone = {kernel("m", 400'000'000, 128, 128, 16), kernel("c", 0, 128, 128, 16, 0, 4e8)};
  // Together each keeps 8 blocks of 4 warps per SM = 128 warps: m at its full cap of 1 GB/s
  // (128 = W_sat·#SM), c at its full cap of 1 G ops/s (128 ≥ W_csat·#SM = 64; this device's W_csat
  // is 16). Neither resource is shared: both finish at 0.4 s.
  std::vector<ScheduledKernel> together = {kernel("m", 400'000'000, 128, 32, 8), kernel("c", 0, 128, 32, 8, 0, 4e8)};
  const ScheduleDecision decision = choose_schedule(d, together, alone);
  CHECK(decision.sequential.seconds == doctest::Approx(2e-5 + 0.8).epsilon(1e-12));
  CHECK(decision.concurrent.seconds == doctest::Approx(1e-5 + 0.4).epsilon(1e-12));
  CHECK(decision.concurrent.kernels[1].cap_ops_per_s == doctest::Approx(1e9).epsilon(1e-12));
  CHECK(decision.choice == ScheduleChoice::Concurrent);

  SUBCASE("the compute kernel also reads: bandwidth shared while both read, each kernel done when both fluids are") {
    alone[1].bytes = 100'000'000;
    together[1].bytes = 100'000'000;
    const ScheduleDecision both = choose_schedule(d, together, alone);
    // Alone: c takes max(0.1 GB / 1 GB/s, 0.4 s) = 0.4 s (the roofline).
    CHECK(both.sequential.kernels[1].memory_finish_s == doctest::Approx(0.1).epsilon(1e-12));
    CHECK(both.sequential.kernels[1].finish_s == doctest::Approx(0.4).epsilon(1e-12));
    CHECK(both.sequential.seconds == doctest::Approx(2e-5 + 0.8).epsilon(1e-12));
    // Together: caps 1 + 1 GB/s on 1 GB/s, half each: c's 0.1 GB done at 0.2 s (m has read 0.1 GB),
    // then m alone at its cap: 0.3 GB more → 0.5 s. c's ops: 0.4 s. The batch: 0.5 s.
    CHECK(both.concurrent.kernels[1].memory_finish_s == doctest::Approx(0.2).epsilon(1e-12));
    CHECK(both.concurrent.kernels[1].compute_finish_s == doctest::Approx(0.4).epsilon(1e-12));
    CHECK(both.concurrent.kernels[0].finish_s == doctest::Approx(0.5).epsilon(1e-12));
    CHECK(both.concurrent.seconds == doctest::Approx(1e-5 + 0.5).epsilon(1e-12));
    CHECK(both.choice == ScheduleChoice::Concurrent);
  }

  SUBCASE("two compute-bound kernels share the issue slots: no gain but the launch overhead") {
    std::vector<ScheduledKernel> c2_alone = {kernel("c1", 0, 128, 128, 16, 0, 4e8), kernel("c2", 0, 128, 128, 16, 0, 2e8)};
    std::vector<ScheduledKernel> c2_together = {kernel("c1", 0, 128, 32, 8, 0, 4e8), kernel("c2", 0, 128, 32, 8, 0, 2e8)};
    const ScheduleDecision c2 = choose_schedule(d, c2_together, c2_alone);
    CHECK(c2.sequential.seconds == doctest::Approx(2e-5 + 0.6).epsilon(1e-12));
    // Caps 1 + 1 G ops/s on 1 G ops/s: c2 done at 0.4 s, then c1 (0.2e9 left) at 1 G ops/s: 0.6 s.
    CHECK(c2.concurrent.kernels[1].finish_s == doctest::Approx(0.4).epsilon(1e-12));
    CHECK(c2.concurrent.seconds == doctest::Approx(1e-5 + 0.6).epsilon(1e-12));
  }
}

TEST_CASE("schedule model: two bandwidth-saturating scans are not faster together") {
  const ScheduleDevice d = small_device();
  // 0.1 and 0.3 GB; alone at the full bandwidth (0.4 s + 2 overheads); together with half the warps
  // each (a cap of 0.5 GB/s): the short one done at 0.2 s, the long one then alone at its cap of
  // 0.5 GB/s for its last 0.2 GB: 0.6 s. A little arithmetic (1e7 ops each) changes nothing.
  const std::vector<ScheduledKernel> alone = {kernel("s", 100'000'000, 128, 128, 16, 0, 1e7),
                                              kernel("l", 300'000'000, 128, 128, 16, 0, 1e7)};
  const std::vector<ScheduledKernel> together = {kernel("s", 100'000'000, 128, 16, 4, 0, 1e7),
                                                 kernel("l", 300'000'000, 128, 16, 4, 0, 1e7)};
  const ScheduleDecision decision = choose_schedule(d, together, alone);
  CHECK(decision.sequential.seconds == doctest::Approx(2e-5 + 0.4).epsilon(1e-12));
  CHECK(decision.concurrent.seconds == doctest::Approx(1e-5 + 0.6).epsilon(1e-12));
  CHECK(decision.concurrent.kernels[1].compute_finish_s < decision.concurrent.kernels[1].memory_finish_s);
  CHECK(decision.choice == ScheduleChoice::Sequential);
}

namespace {

// The H200 of bench/results/2026-11-22-h200-planner: CC 9.0, 132 SMs (the cc90 profile's limits).
DeviceProfile h200() { return named_profile("cc90"); }

// The launch decide_launch() gives a kernel alone (docs/planner.md, "How the launcher uses it"): the
// block size (a multiple of 32) with the most resident warps, ties to the smaller, and a grid of
// β·#SM·2 blocks for kernels that stride over their input (capped by the blocks their input needs).
ScheduledKernel full_device(const DeviceProfile& p, const char* name, uint32_t registers, uint64_t shared,
                            uint64_t elements, uint64_t bytes, double ops) {
  uint32_t best_block = 0, best_beta = 0;
  for (uint32_t t = 32; t <= 1024; t += 32) {
    const uint32_t beta = compute_occupancy(p, {t, registers, shared}).blocks_per_sm;
    if (beta * t > best_beta * best_block) {
      best_block = t;
      best_beta = beta;
    }
  }
  const uint64_t grid = std::min<uint64_t>((elements + best_block - 1) / best_block, uint64_t{best_beta} * p.sm_count * 2);
  return {name, bytes, best_block, grid, best_beta, 0, ops};
}

// Table I's kernels as compiled on the H200 (registers, static shared bytes: the log of the run);
// memory kernels 2^22 elements reading and writing 4 bytes each, compute kernels 2^18 elements of
// accumulators × 48 rounds. Ops per element: bench/synthetic_kernels.h's estimate,
// accumulators × (rounds × 8 + 3) + 8 (8 lane instructions per round: shift, modulo by a constant
// (3), address, shared load, multiply-add, add).
struct TableOneKernel {
  const char* name;
  uint32_t registers;
  uint64_t shared;
  bool compute;
  uint32_t accumulators;
};
constexpr TableOneKernel kTableOne[5] = {{"I", 24, 24576, false, 1},
                                         {"II", 24, 12288, true, 8},
                                         {"III", 24, 6144, false, 16},
                                         {"IV", 32, 4608, true, 24},
                                         {"V", 29, 1536, false, 32}};

// The runtime's equal share of each SM's warps (runtime/execution/concurrent_executor.cpp): ⌊W_SM / n⌋ warps
// on every SM, at most what the kernel's input needs.
uint64_t equal_share(const DeviceProfile& p, size_t kernels, uint64_t threads) {
  return std::min<uint64_t>(threads, uint64_t{p.max_warps_per_sm() / static_cast<uint32_t>(kernels)} * p.warp_size * p.sm_count);
}

// The kernels with plan_concurrent()'s launches and batches (bytes and ops as `alone`).
std::vector<ScheduledKernel> planned(const ConcurrentPlan& plan, const std::vector<ScheduledKernel>& alone) {
  std::vector<ScheduledKernel> out(alone.size());
  for (size_t b = 0; b < plan.batches.size(); ++b) {
    for (size_t j = 0; j < plan.batches[b].kernels.size(); ++j) {
      const KernelLaunch& l = plan.batches[b].plan.launches[j];
      const size_t i = plan.batches[b].kernels[j];
      out[i] = {alone[i].name, alone[i].bytes, l.block_size, std::max<uint64_t>(1, l.grid_blocks), l.blocks_per_sm, b,
                alone[i].compute_ops};
    }
  }
  return out;
}

}  // namespace

namespace {

// A mix of Table I kernels (indices into kTableOne), one per stream: alone with decide_launch's
// launches, together with plan_concurrent()'s for the runtime's equal-share demands.
struct Mix {
  std::vector<ScheduledKernel> alone, together;
  size_t batches = 0;
  double bytes = 0, ops = 0;
};

Mix table_one_mix(const DeviceProfile& p, const std::vector<size_t>& kinds) {
  Mix mix;
  std::vector<KernelDemand> demands;
  for (size_t kind : kinds) {
    const TableOneKernel& k = kTableOne[kind];
    const uint64_t elements = k.compute ? (uint64_t{1} << 18) : (uint64_t{1} << 22);
    const uint32_t rounds = k.compute ? 48 : 1;
    const double ops = static_cast<double>(elements) * (k.accumulators * (rounds * 8.0 + 3) + 8);
    mix.alone.push_back(full_device(p, k.name, k.registers, k.shared, elements, elements * 8, ops));
    mix.ops += ops;
    mix.bytes += static_cast<double>(elements * 8);
    KernelDemand demand;
    demand.name = k.name;
    demand.threads = equal_share(p, kinds.size(), elements);
    demand.registers_per_thread = k.registers;
    demand.shared_per_block = linear_shared_memory(k.shared, 0);
    demand.max_block_size = 1024;
    demands.push_back(std::move(demand));
  }
  const ConcurrentPlan plan = plan_concurrent(p, demands);
  mix.batches = plan.batches.size();
  mix.together = planned(plan, mix.alone);
  return mix;
}

}  // namespace

TEST_CASE("schedule model: seed 002's fixed synthetic mix is predicted faster with the knapsack") {
  const DeviceProfile p = h200();
  std::vector<size_t> kinds;
  for (size_t s = 0; s < 16; ++s) kinds.push_back(s % 5);  // I II III IV V I II ... I, as synthetic-mix --set fixed
  const Mix mix = table_one_mix(p, kinds);
  // One block of 4 warps of each kernel per SM: 64 warps, Σ shared 168 KiB + 16 KiB reserved ≤ 228 KiB.
  REQUIRE(mix.batches == 1);
  CHECK(mix.together[0].block_size == 128);
  CHECK(mix.together[0].blocks_per_sm == 1);
  // Read bandwidth from 2 to 6 TB/s (the H200's streaming read: 4.6 TB/s), compute from 5 to 40 T
  // ops/s (64 integer lanes per SM per cycle at 1.98 GHz: 16.7 T), launch overhead 8 µs.
  for (double bw : {2e12, 4.6e12, 6e12}) {
    for (double ops : {5e12, 16.7e12, 40e12}) {
      CAPTURE(bw);
      CAPTURE(ops);
      const ScheduleDevice d = schedule_device(p, bw, ops, 8e-6);
      const ScheduleDecision decision = choose_schedule(d, mix.together, mix.alone);
      // One at a time every kernel pays its own roofline max(bytes/BW, ops/P) and an overhead.
      double rooflines = 0;
      for (const ScheduledKernel& k : mix.alone) rooflines += std::max(static_cast<double>(k.bytes) / bw, k.compute_ops / ops);
      CHECK(decision.sequential.seconds >= rooflines + 16 * 8e-6 - 1e-12);
      // Together the memory and compute work overlap: at least the larger resource's time.
      CHECK(decision.concurrent.seconds >= std::max(mix.bytes / bw, mix.ops / ops) + 8e-6 - 1e-12);
      // Concurrency saves 15 launch overheads and, unless compute dominates every kernel (5 T ops/s:
      // all sixteen compute-bound, sharing the issue slots), overlaps the memory-bound ones too.
      const double gain = decision.sequential.seconds - decision.concurrent.seconds;
      CHECK(gain >= 15 * 8e-6 - 1e-12);
      if (ops > 5e12) CHECK(gain > 15 * 8e-6 + 1e-6);
      CHECK(decision.choice == ScheduleChoice::Concurrent);
    }
  }
  const ScheduleDecision h200_like = choose_schedule(schedule_device(p, 4.6e12, 16.7e12, 8e-6), mix.together, mix.alone);
  MESSAGE("fixed mix at 4.6 TB/s, 16.7 T ops/s, 8 us: knapsack " << h200_like.concurrent.seconds * 1e3 << " ms, sequential "
          << h200_like.sequential.seconds * 1e3 << " ms");
}

TEST_CASE("schedule model: random synthetic mixes are predicted faster with the knapsack") {
  // synthetic-mix --set random's 20 mixes of 16 (run r draws with mt19937_64(r + 1)).
  const DeviceProfile p = h200();
  const ScheduleDevice d = schedule_device(p, 4.6e12, 16.7e12, 8e-6);
  double knapsack = 0, sequential = 0;
  int faster = 0;
  for (uint64_t r = 0; r < 20; ++r) {
    std::mt19937_64 pick(r + 1);
    std::vector<size_t> kinds;
    for (int s = 0; s < 16; ++s) kinds.push_back(std::uniform_int_distribution<size_t>(0, 4)(pick));
    const Mix mix = table_one_mix(p, kinds);
    CAPTURE(r);
    REQUIRE(mix.batches >= 1);
    const ScheduleDecision decision = choose_schedule(d, mix.together, mix.alone);
    knapsack += decision.concurrent.seconds;
    sequential += decision.sequential.seconds;
    if (decision.choice == ScheduleChoice::Concurrent) ++faster;
    // Together never faster than the larger resource's work.
    CHECK(decision.concurrent.seconds >= std::max(mix.bytes / d.bandwidth_bytes_per_s, mix.ops / d.compute_ops_per_s));
  }
  MESSAGE("20 random mixes at 4.6 TB/s, 16.7 T ops/s, 8 us: knapsack " << knapsack * 1e3 << " ms, sequential "
          << sequential * 1e3 << " ms; knapsack predicted faster in " << faster << "/20");
  CHECK(faster == 20);
}

TEST_CASE("schedule model: 13 SSB fact-table scans are predicted faster one at a time") {
  const DeviceProfile p = h200();
  // The bytes each SSB query's pipelines read at SF 10 (bench/ssb_bandwidth_bound on the H200:
  // 1144.4 MiB for q1.x ... 1842.7 for q4.3), compute 0 (memory dominates compound kernels). Alone:
  // decide_launch's full-device launch for a kernel of 32 registers (13 × 4 warps of more registers
  // no longer fit one SM and the batch-level model splits them: the same tail, twice) over 60 M rows in tiles of 4 rows per thread; together: the runtime's
  // equal share, ⌊64 / 13⌋ = 4 warps on every SM, through the knapsack.
  const double mib[13] = {1144.4, 1144.4, 1144.4, 1153.7, 1150.7, 1150.7, 1148.1,
                          1148.1, 1146.8, 1146.9, 1840.7, 1842.7, 1842.7};
  std::vector<ScheduledKernel> alone;
  std::vector<KernelDemand> demands;
  double total_bytes = 0;
  for (double m : mib) {
    const auto bytes = static_cast<uint64_t>(m * 1048576.0);
    total_bytes += static_cast<double>(bytes);
    alone.push_back(full_device(p, "q", 32, 0, 60'000'000 / 4, bytes, 0));
    KernelDemand demand;
    demand.name = "q";
    demand.threads = equal_share(p, 13, 60'000'000 / 4);  // 4 warps on every SM
    demand.registers_per_thread = 32;
    demand.power_of_two_block = true;
    demands.push_back(std::move(demand));
  }
  const ConcurrentPlan plan = plan_concurrent(p, demands);
  REQUIRE(plan.batches.size() == 1);
  const std::vector<ScheduledKernel> together = planned(plan, alone);
  for (double bw : {2e12, 4.6e12, 6e12}) {
    CAPTURE(bw);
    const ScheduleDecision decision = choose_schedule(schedule_device(p, bw, 16.7e12, 8e-6), together, alone);
    // Alone each scan saturates the bandwidth: the bytes at BW plus 13 overheads.
    CHECK(decision.sequential.seconds == doctest::Approx(total_bytes / bw + 13 * 8e-6).epsilon(1e-9));
    // Together the 4 q4.x-sized scans outlast the others at their 4-warp caps (BW·4/32 each): a tail.
    CHECK(decision.concurrent.seconds > decision.sequential.seconds);
    CHECK(decision.choice == ScheduleChoice::Sequential);
  }
  MESSAGE("13 SSB scans at 4.6 TB/s: sequential "
          << choose_schedule(schedule_device(p, 4.6e12, 16.7e12, 8e-6), together, alone).sequential.seconds * 1e3
          << " ms (measured 5.71 ms on the H200)");
}

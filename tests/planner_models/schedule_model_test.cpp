// The concurrent/sequential schedule model on synthetic kernel sets computed by hand: bandwidth-
// bound big scans run faster one at a time, many small kernels that cannot fill the device faster
// together; the tail of a batch, the warp oversubscription scale, running-round floors, ties.
#include <doctest/doctest.h>

#include <vector>

#include "planner/device_profile.h"
#include "planner/schedule_model.h"
#include "storage/error.h"

using namespace hqc::planner;

namespace {

// 4 SMs of 64 warps, a scan reaches the 1 GB/s bandwidth with 32 warps per SM; 10 µs per batch,
// 1 µs per running round.
ScheduleDevice small_device() {
  ScheduleDevice d;
  d.sm_count = 4;
  d.warp_size = 32;
  d.max_warps_per_sm = 64;
  d.saturating_warps_per_sm = 32;
  d.bandwidth_bytes_per_s = 1e9;
  d.launch_overhead_s = 1e-5;
  d.round_latency_s = 1e-6;
  return d;
}

ScheduledKernel kernel(const char* name, uint64_t bytes, uint32_t block, uint64_t grid, uint32_t per_sm, size_t batch = 0) {
  return {name, bytes, block, grid, per_sm, batch};
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
  const ScheduleDevice h100 = schedule_device(named_profile("h100"), 3e12, 8e-6);
  CHECK(h100.sm_count == 132);
  CHECK(h100.max_warps_per_sm == 64);
  CHECK(h100.saturating_warps_per_sm == 32);
  CHECK(h100.bandwidth_bytes_per_s == 3e12);
  CHECK(h100.launch_overhead_s == 8e-6);
  CHECK(h100.round_latency_s == kDefaultRoundLatencySeconds);

  ScheduleDevice d = small_device();
  CHECK_THROWS_WITH_AS(predict_schedule(d, {kernel("k", 10, 128, 4, 0)}), doctest::Contains("kernel k has a grid of 4 blocks"),
                       hqc::Error);
  d.bandwidth_bytes_per_s = 0;
  CHECK_THROWS_AS(predict_schedule(d, {}), hqc::Error);
}

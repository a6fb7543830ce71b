// The stream/chunk model: hand-computed cases of both regimes of seed 001, the three-engine form
// against a discrete-event simulation of the pipeline, and the optimal n against a full sweep.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "planner/stream_model.h"
#include "storage/error.h"

using namespace hqc::planner;

namespace {

// Chunks pass H→D, kernel, D→H in order; each engine handles one chunk at a time, FIFO.
double simulate_three_engines(const StreamTimes& t, uint64_t n) {
  const double stage[3] = {t.host_to_device / n, t.kernel / n, t.device_to_host / n};
  double engine_free[3] = {0, 0, 0};
  double done = 0;
  for (uint64_t c = 0; c < n; ++c) {
    double ready = 0;
    for (int s = 0; s < 3; ++s) {
      const double start = std::max(ready, engine_free[s]);
      ready = start + stage[s];
      engine_free[s] = ready;
    }
    done = ready;
  }
  return done;
}

}  // namespace

TEST_CASE("stream model: seed 001's two regimes, by hand") {
  SUBCASE("transfer-dominant (Eqs. 5, 6)") {
    const StreamTimes t{10, 4, 2, 0.25};
    CHECK(streamed_seconds(t, 4, Engines::OneCopyEngineOverlap) == doctest::Approx(10 + 1 + 2 + 1));
    CHECK(continuous_optimal_chunks(t, Engines::OneCopyEngineOverlap) == doctest::Approx(4.0));
    const ChunkPlan p = optimal_chunks(t, Engines::OneCopyEngineOverlap, 64);
    CHECK(p.chunks == 4);
    CHECK(p.seconds == doctest::Approx(14.0));
    CHECK(p.serial_seconds == doctest::Approx(16.25));
  }
  SUBCASE("kernel-dominant (Eqs. 7, 8)") {
    const StreamTimes t{9, 20, 3, 1};
    CHECK(streamed_seconds(t, 3, Engines::OneCopyEngineOverlap) == doctest::Approx(3 + 20 + 3 + 3));
    const ChunkPlan p = optimal_chunks(t, Engines::OneCopyEngineOverlap, 64);
    CHECK(p.chunks == 3);
    CHECK(p.seconds == doctest::Approx(29.0));
  }
}

TEST_CASE("stream model: three engines by hand") {
  // t(n) = 4 + 3/n + 0.1·n; n* = √30 ≈ 5.48; n = 5 and n = 6 both give 5.1, ties go to fewer chunks.
  const StreamTimes t{4, 2, 1, 0.1};
  CHECK(streamed_seconds(t, 1, Engines::ThreeEngines) == doctest::Approx(serial_seconds(t)));
  CHECK(continuous_optimal_chunks(t, Engines::ThreeEngines) == doctest::Approx(std::sqrt(30.0)));
  const ChunkPlan p = optimal_chunks(t, Engines::ThreeEngines, 1000);
  CHECK(p.chunks == 5);
  CHECK(p.seconds == doctest::Approx(5.1));
  // The cap on chunks binds.
  CHECK(optimal_chunks(t, Engines::ThreeEngines, 3).chunks == 3);
  // No overhead: as many chunks as allowed.
  CHECK(optimal_chunks({4, 2, 1, 0}, Engines::ThreeEngines, 77).chunks == 77);
  // Nothing to hide (only a kernel): one chunk.
  CHECK(optimal_chunks({0, 5, 0, 0.01}, Engines::ThreeEngines, 100).chunks == 1);
}

TEST_CASE("stream model: three-engine formula equals a pipeline simulation, optimum equals a sweep") {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> time(0.0, 10.0);
  for (int i = 0; i < 500; ++i) {
    StreamTimes t{time(rng), time(rng), time(rng), 0};
    for (uint64_t n : {1u, 2u, 3u, 7u, 16u, 100u}) {
      CHECK(streamed_seconds(t, n, Engines::ThreeEngines) == doctest::Approx(simulate_three_engines(t, n)).epsilon(1e-9));
    }
    t.per_chunk_overhead = time(rng) / 50 + 1e-4;
    for (Engines e : {Engines::ThreeEngines, Engines::OneCopyEngineOverlap}) {
      const uint64_t cap = 1 + rng() % 300;
      const ChunkPlan p = optimal_chunks(t, e, cap);
      double best = 1e300;
      uint64_t best_n = 0;
      for (uint64_t n = 1; n <= cap; ++n) {
        const double v = streamed_seconds(t, n, e);
        if (v < best - 1e-12) {
          best = v;
          best_n = n;
        }
      }
      CHECK(p.seconds == doctest::Approx(best).epsilon(1e-12));
      CHECK(streamed_seconds(t, p.chunks, e) == doctest::Approx(streamed_seconds(t, best_n, e)).epsilon(1e-12));
    }
  }
}

TEST_CASE("stream model: rates from the H100 facts (DESIGN.md §7)") {
  // 10 GiB in at 55 GB/s, kernel at 500 GB/s, 1 MB out, 20 µs per chunk.
  const StreamTimes t = from_rates({10.0 * (1ull << 30), 1e6, 55e9, 55e9, 500e9, 20e-6});
  CHECK(t.host_to_device == doctest::Approx(10.0 * (1ull << 30) / 55e9));
  CHECK(t.kernel == doctest::Approx(10.0 * (1ull << 30) / 500e9));
  const ChunkPlan p = optimal_chunks(t, Engines::ThreeEngines, 4096);
  // Transfer-bound: streaming hides nearly all of the kernel; n* = √((t_E + t_D)/t_o) ≈ 33.
  CHECK(p.chunks == 33);
  CHECK(p.seconds < p.serial_seconds);
  CHECK(p.seconds > t.host_to_device);
  CHECK_THROWS_AS(from_rates({1, 1, 0, 1, 1, 0}), hqc::Error);
  CHECK_THROWS_AS(streamed_seconds(t, 0, Engines::ThreeEngines), hqc::Error);
}

// Stream/chunk model (seed 001, extended to three engines): predicted time of processing data
// streamed from host memory in n chunks, and the n that minimizes it.
//
// Contract (times in seconds, for the whole input; t_o = overhead per chunk):
//   - Engines::ThreeEngines (H100: separate H→D and D→H copy engines and the SMs): the chunks flow
//     through a three-stage pipeline with per-chunk stage times t_H/n, t_E/n, t_D/n, so
//       t(n) = max(t_H, t_E, t_D) + (t_H + t_E + t_D − max)/n + n·t_o,
//     minimized at n* = √((t_H + t_E + t_D − max) / t_o).
//   - Engines::OneCopyEngineOverlap (seed 001 §3.2.2, CC 2.x: only H→D overlaps the kernel,
//     D→H is not hidden):
//       t_H > t_E:  t(n) = t_H + t_E/n + t_D + n·t_o,  n* = √(t_E / t_o)   (Eqs. 5, 6)
//       t_H ≤ t_E:  t(n) = t_H/n + t_E + t_D + n·t_o,  n* = √(t_H / t_o)   (Eqs. 7, 8)
//   - Non-streamed (n = 1 without overlap) is t_H + t_E + t_D + t_o; `serial_seconds` reports it.
//   - optimal_chunks() returns the integer n in [1, max_chunks] with the least predicted time
//     (checks ⌊n*⌋ and ⌈n*⌉ after clamping; with t_o = 0 it is max_chunks). Ties go to fewer chunks.
//   - from_rates() turns bytes and rates into times; rates must be positive (Error(Input) otherwise).
#pragma once

#include <cstdint>

namespace hqc::planner {

enum class Engines { ThreeEngines, OneCopyEngineOverlap };

struct StreamTimes {
  double host_to_device = 0;  // t_H, all input bytes
  double kernel = 0;          // t_E, the whole input
  double device_to_host = 0;  // t_D, all output bytes
  double per_chunk_overhead = 0;  // t_o (seed 001's t_sc)
};

struct StreamRates {
  double bytes_in = 0;
  double bytes_out = 0;
  double host_to_device_bytes_per_s = 0;
  double device_to_host_bytes_per_s = 0;
  double kernel_bytes_per_s = 0;  // input bytes the kernel consumes per second
  double per_chunk_overhead_s = 0;
};

StreamTimes from_rates(const StreamRates& rates);

double streamed_seconds(const StreamTimes& t, uint64_t chunks, Engines engines);
double serial_seconds(const StreamTimes& t);
// The continuous optimum n* (infinity when t_o = 0 and streaming helps).
double continuous_optimal_chunks(const StreamTimes& t, Engines engines);

struct ChunkPlan {
  uint64_t chunks = 1;
  double seconds = 0;         // predicted, at `chunks`
  double serial_seconds = 0;  // without streaming
  double continuous_optimum = 0;
};

ChunkPlan optimal_chunks(const StreamTimes& t, Engines engines, uint64_t max_chunks);

const char* to_string(Engines engines);

}  // namespace hqc::planner

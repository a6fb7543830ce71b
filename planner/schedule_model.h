// Concurrent or sequential? The predicted time of a set of kernels launched together in streams
// (batch by batch, e.g. with the knapsack's launch parameters) and of the same kernels one at a time
// with full-device launches, so the runtime can run the faster schedule (--launch-params auto).
//
// Seed 002's knapsack maximizes the threads resident at once; that only pays when the kernels are
// too small to fill the device alone. A scan that saturates the memory bandwidth alone gains
// nothing from company: bandwidth does not add up when kernels share the device. This model
// predicts both from the occupancy model's resident blocks, each kernel's bytes read and its grid's
// running rounds (docs/planner.md, "Concurrent or sequential").
//
// Contract (times in seconds; #SM, warp size from the device):
//   - A kernel in a batch keeps w = min(grid, β·#SM)·ω warps resident (β: its blocks per SM in this
//     schedule — the knapsack's b_i, or the stand-alone occupancy; ω = ⌈T/warp⌉). When a batch's
//     kernels together ask for more than W_SM·#SM warps, each w is scaled by W_SM·#SM / Σw.
//   - Memory: a kernel with w resident warps can read at most cap = BW·min(1, w / (W_sat·#SM))
//     bytes/s (Little's law: W_sat resident warps per SM keep enough loads in flight to reach the
//     bandwidth BW). Kernels of a batch share BW in proportion to their caps: while the set A runs,
//     kernel i reads at cap_i·min(1, BW / Σ_{j∈A} cap_j). When one finishes the others speed up, but
//     never past their own cap — the tail of a batch whose small kernels finished first.
//   - Rounds: a kernel needs at least rounds·L seconds, rounds = ⌈grid / (β·#SM)⌉ (seed 000's
//     running rounds) and L the least time of one round of blocks. It finishes at
//     max(its last byte, rounds·L); a kernel with an empty grid at 0.
//   - A batch costs one launch overhead t_o (issue + synchronise) plus the finish of its last
//     kernel; batches run one after the other. Sequential execution is the same model with every
//     kernel in its own batch (so n kernels pay n·t_o).
//   - choose_schedule() returns Concurrent only when it is predicted strictly faster; ties (e.g. a
//     single kernel with the same launch either way) go to Sequential.
//   - Error(Input) for a device with a non-positive bandwidth, SM count or W_sat, or a kernel with
//     a non-empty grid and 0 blocks per SM or 0 threads per block.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "planner/device_profile.h"

namespace hqc::planner {

// Least time of one running round of blocks (a tile's loads: a few DRAM round trips).
inline constexpr double kDefaultRoundLatencySeconds = 2e-6;

struct ScheduleDevice {
  uint32_t sm_count = 0;
  uint32_t warp_size = 32;
  uint32_t max_warps_per_sm = 0;        // W_SM
  uint32_t saturating_warps_per_sm = 0; // W_sat
  double bandwidth_bytes_per_s = 0;     // BW
  double launch_overhead_s = 0;         // t_o per batch
  double round_latency_s = kDefaultRoundLatencySeconds;  // L
};

// The profile's SMs, warps and W_sat = W_SM / 2 (H100: 32 of 64 warps; Little's law with ~3.35 TB/s,
// ~0.6 µs DRAM latency and 16 bytes in flight per lane gives ~30 warps per SM on 132 SMs), with a
// measured bandwidth and launch overhead.
ScheduleDevice schedule_device(const DeviceProfile& profile, double bandwidth_bytes_per_s, double launch_overhead_s);

struct ScheduledKernel {
  std::string name;
  uint64_t bytes = 0;          // bytes the kernel reads from device memory
  uint32_t block_size = 0;     // T
  uint64_t grid_blocks = 0;
  uint32_t blocks_per_sm = 0;  // β: resident blocks per SM under this schedule
  size_t batch = 0;            // kernels of one batch run together; batches one after the other
};

struct KernelTiming {
  double resident_warps = 0;   // w, after scaling
  double cap_bytes_per_s = 0;
  uint64_t rounds = 0;
  double finish_s = 0;         // from the start of its batch
};

struct SchedulePrediction {
  double seconds = 0;
  std::vector<double> batch_seconds;  // including each batch's launch overhead
  std::vector<KernelTiming> kernels;  // in input order
};

SchedulePrediction predict_schedule(const ScheduleDevice& device, const std::vector<ScheduledKernel>& kernels);

enum class ScheduleChoice { Concurrent, Sequential };

struct ScheduleDecision {
  ScheduleChoice choice = ScheduleChoice::Sequential;
  SchedulePrediction concurrent;
  SchedulePrediction sequential;
};

// `concurrent`: the kernels with their concurrent launches and batches; `sequential`: the same
// kernels with their full-device launches (their batch fields are ignored: one batch each).
ScheduleDecision choose_schedule(const ScheduleDevice& device, const std::vector<ScheduledKernel>& concurrent,
                                 std::vector<ScheduledKernel> sequential);

const char* to_string(ScheduleChoice choice);

}  // namespace hqc::planner

// Concurrent or sequential? The predicted time of a set of kernels launched together in streams
// (batch by batch, e.g. with the knapsack's launch parameters) and of the same kernels one at a time
// with full-device launches, so the runtime can run the faster schedule (--launch-params auto).
//
// Seed 002's knapsack maximizes the threads resident at once; that only pays when the kernels are
// too small to fill the device alone, or when they need different resources. A scan that saturates
// the memory bandwidth alone gains nothing from company: bandwidth does not add up when kernels share
// the device. A compute-bound kernel next to a memory-bound one does gain: one uses the SMs' issue
// slots, the other the DRAM, and together they take the longer of the two instead of the sum. This
// model predicts both schedules from the occupancy model's resident blocks, each kernel's bytes read
// and compute work, and its grid's running rounds (docs/planner.md, "Concurrent or sequential").
//
// Contract (times in seconds; #SM, warp size from the device):
//   - A kernel in a batch keeps w = min(grid, β·#SM)·ω warps resident (β: its blocks per SM in this
//     schedule — the knapsack's b_i, or the stand-alone occupancy; ω = ⌈T/warp⌉). When a batch's
//     kernels together ask for more than W_SM·#SM warps, each w is scaled by W_SM·#SM / Σw.
//   - Memory: a kernel with w resident warps can read at most capM = BW·min(1, w / (W_sat·#SM))
//     bytes/s (Little's law: W_sat resident warps per SM keep enough loads in flight to reach the
//     bandwidth BW). Kernels of a batch share BW in proportion to their caps: while the set A runs,
//     kernel i reads at capM_i·min(1, BW / Σ_{j∈A} capM_j). When one finishes the others speed up, but
//     never past their own cap — the tail of a batch whose small kernels finished first.
//   - Compute: a kernel's work is `compute_ops` lane operations (thread-instructions, in the unit of
//     the device's compute throughput P, measured by a compute probe with the whole device). With w
//     resident warps it issues at most capC = P·min(1, w / (W_csat·#SM)) ops/s (W_csat warps per SM
//     keep the 4 schedulers issuing); kernels of a batch share P in proportion
//     to their caps — in proportion to their resident warps, i.e. the SMs' issue slots — exactly as
//     they share BW: rate capC_i·min(1, P / Σ_{j∈A} capC_j), the same fluid with its own tail.
//   - Both resources at once: the memory and the compute fluid run side by side, independently; a
//     kernel's work is done when both are: t_i = max(its last byte, its last op). Why not a coupled
//     fluid (each kernel advancing at the slower of its two rates, capacities water-filled per
//     step): alone, a kernel overlaps its loads with its arithmetic across warps, so max() is the
//     roofline, exact for one kernel; in a batch each fluid is work-conserving, so the batch takes
//     at least max(Σ bytes/BW, Σ ops/P) — the overlap concurrency buys — plus each resource's tail.
//     What max() misses is a kernel that is balanced (both resources near its share) running next
//     to others: it cannot really read at full share while waiting for issue slots, so a batch of
//     balanced kernels is predicted somewhat fast. The runtime's compound kernels carry no compute
//     term (memory dominates them, bench/ssb_bandwidth_bound), the synthetic kernels are either
//     clearly memory- or clearly compute-bound; a coupled fluid waits for a measurement it would fix.
//   - Rounds: a kernel needs at least rounds·L seconds, rounds = ⌈grid / (β·#SM)⌉ (seed 000's
//     running rounds) and L the least time of one round of blocks. It finishes at
//     max(its last byte, its last op, rounds·L); a kernel with an empty grid at 0.
//   - A batch costs one launch overhead t_o (issue + synchronise) plus the finish of its last
//     kernel; batches run one after the other. Sequential execution is the same model with every
//     kernel in its own batch (so n kernels pay n·t_o).
//   - choose_schedule() returns Concurrent only when it is predicted strictly faster; ties (e.g. a
//     single kernel with the same launch either way) go to Sequential.
//   - Error(Input) for a device with a non-positive bandwidth, SM count, W_sat or W_csat, a kernel
//     with a non-empty grid and 0 blocks per SM or 0 threads per block, a negative compute work, or
//     compute work on a device without a compute throughput.
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
  uint32_t saturating_warps_per_sm = 0; // W_sat: warps per SM that reach the bandwidth
  uint32_t saturating_compute_warps_per_sm = 0;  // W_csat: warps per SM that reach the issue rate
  double bandwidth_bytes_per_s = 0;     // BW: the read bandwidth (a streaming read kernel's)
  double compute_ops_per_s = 0;         // P: lane operations per second, whole device (0: none known)
  double launch_overhead_s = 0;         // t_o per batch
  double round_latency_s = kDefaultRoundLatencySeconds;  // L
};

// The profile's SMs, warps, W_sat = W_SM / 2 (H100: 32 of 64 warps; Little's law with ~3.35 TB/s,
// ~0.6 µs DRAM latency and 16 bytes in flight per lane gives ~30 warps per SM on 132 SMs) and
// W_csat = W_SM / 8 (8 on an H100: two warps on each of the 4 schedulers; a warp issues one
// instruction per cycle at most, and an arithmetic loop over a few independent values issues most
// cycles, so two per scheduler cover the dependent-issue latency), with a measured read bandwidth,
// compute throughput and launch overhead.
ScheduleDevice schedule_device(const DeviceProfile& profile, double bandwidth_bytes_per_s, double compute_ops_per_s,
                               double launch_overhead_s);

struct ScheduledKernel {
  std::string name;
  uint64_t bytes = 0;          // bytes the kernel reads (and writes) in device memory
  uint32_t block_size = 0;     // T
  uint64_t grid_blocks = 0;
  uint32_t blocks_per_sm = 0;  // β: resident blocks per SM under this schedule
  size_t batch = 0;            // kernels of one batch run together; batches one after the other
  double compute_ops = 0;      // lane operations (thread-instructions) of its work; 0: memory only
};

struct KernelTiming {
  double resident_warps = 0;   // w, after scaling
  double cap_bytes_per_s = 0;
  double cap_ops_per_s = 0;
  uint64_t rounds = 0;
  double memory_finish_s = 0;  // its last byte, from the start of its batch
  double compute_finish_s = 0; // its last op
  double finish_s = 0;         // max(memory, compute, rounds·L)
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

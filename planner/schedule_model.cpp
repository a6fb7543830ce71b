// The concurrent/sequential schedule model: per batch, resident warps → bandwidth and issue caps →
// two fluid simulations (shared bandwidth, shared issue slots), floored by running rounds. See
// schedule_model.h.
#include "planner/schedule_model.h"

#include <algorithm>
#include <limits>

#include "storage/error.h"

namespace hqc::planner {

ScheduleDevice schedule_device(const DeviceProfile& profile, double bandwidth_bytes_per_s, double compute_ops_per_s,
                               double launch_overhead_s) {
  ScheduleDevice d;
  d.sm_count = profile.sm_count;
  d.warp_size = profile.warp_size;
  d.max_warps_per_sm = profile.max_warps_per_sm();
  d.saturating_warps_per_sm = std::max<uint32_t>(1, d.max_warps_per_sm / 2);
  d.saturating_compute_warps_per_sm = std::max<uint32_t>(1, d.max_warps_per_sm / 8);
  d.bandwidth_bytes_per_s = bandwidth_bytes_per_s;
  d.compute_ops_per_s = compute_ops_per_s;
  d.launch_overhead_s = launch_overhead_s;
  return d;
}

namespace {

// One shared resource of capacity `capacity` (bytes/s or ops/s): the kernels in `members` with work
// left (`work`) run at cap_i·min(1, capacity / Σ caps of those still running), from finish to finish.
// Returns each member's finish time (0 without work).
std::vector<double> fluid_finish(const std::vector<size_t>& members, const std::vector<double>& work,
                                 const std::vector<double>& caps, double capacity) {
  std::vector<double> finish(work.size(), 0);
  std::vector<size_t> active;
  std::vector<double> remaining(work.size(), 0);
  for (size_t i : members) {
    if (work[i] > 0) {
      active.push_back(i);
      remaining[i] = work[i];
    }
  }
  double now = 0;
  while (!active.empty()) {
    double demand = 0;
    for (size_t i : active) demand += caps[i];
    const double share = std::min(1.0, capacity / demand);
    double step = std::numeric_limits<double>::infinity();
    size_t first = active.front();
    for (size_t i : active) {
      const double t = remaining[i] / (caps[i] * share);
      if (t < step) {
        step = t;
        first = i;
      }
    }
    now += step;
    std::vector<size_t> still;
    for (size_t i : active) {
      remaining[i] -= step * caps[i] * share;
      // The kernel that set the step is done; others finishing within rounding error too.
      if (i == first || remaining[i] <= 1e-9 * work[i]) {
        finish[i] = now;
      } else {
        still.push_back(i);
      }
    }
    active = std::move(still);
  }
  return finish;
}

// The finish time of each kernel of one batch, from the batch's start.
void simulate_batch(const ScheduleDevice& device, const std::vector<ScheduledKernel>& kernels,
                    const std::vector<size_t>& members, std::vector<KernelTiming>& out) {
  const double sms = device.sm_count;
  double warps = 0;
  for (size_t i : members) {
    const ScheduledKernel& k = kernels[i];
    if (k.grid_blocks == 0) continue;
    const uint64_t omega = (k.block_size + device.warp_size - 1) / device.warp_size;
    const uint64_t per_round = uint64_t{k.blocks_per_sm} * device.sm_count;
    out[i].resident_warps = static_cast<double>(std::min<uint64_t>(k.grid_blocks, per_round)) * static_cast<double>(omega);
    out[i].rounds = (k.grid_blocks + per_round - 1) / per_round;
    warps += out[i].resident_warps;
  }
  const double device_warps = static_cast<double>(device.max_warps_per_sm) * sms;
  const double scale = device.max_warps_per_sm > 0 && warps > device_warps ? device_warps / warps : 1.0;
  const double saturating = static_cast<double>(device.saturating_warps_per_sm) * sms;
  const double saturating_compute = static_cast<double>(device.saturating_compute_warps_per_sm) * sms;
  std::vector<double> bytes(kernels.size(), 0), ops(kernels.size(), 0);
  std::vector<double> byte_caps(kernels.size(), 0), op_caps(kernels.size(), 0);
  for (size_t i : members) {
    KernelTiming& t = out[i];
    t.resident_warps *= scale;
    t.cap_bytes_per_s = device.bandwidth_bytes_per_s * std::min(1.0, t.resident_warps / saturating);
    t.cap_ops_per_s = device.compute_ops_per_s * std::min(1.0, t.resident_warps / saturating_compute);
    byte_caps[i] = t.cap_bytes_per_s;
    op_caps[i] = t.cap_ops_per_s;
    if (kernels[i].grid_blocks > 0) {
      bytes[i] = static_cast<double>(kernels[i].bytes);
      ops[i] = kernels[i].compute_ops;
    }
  }
  // Two fluids side by side: the bandwidth and the SMs' issue slots (see the header for why).
  const std::vector<double> memory = fluid_finish(members, bytes, byte_caps, device.bandwidth_bytes_per_s);
  const std::vector<double> compute = fluid_finish(members, ops, op_caps, device.compute_ops_per_s);
  for (size_t i : members) {
    out[i].memory_finish_s = memory[i];
    out[i].compute_finish_s = compute[i];
    out[i].finish_s = std::max({memory[i], compute[i], static_cast<double>(out[i].rounds) * device.round_latency_s});
  }
}

}  // namespace

SchedulePrediction predict_schedule(const ScheduleDevice& device, const std::vector<ScheduledKernel>& kernels) {
  if (device.sm_count == 0 || device.warp_size == 0 || device.saturating_warps_per_sm == 0 ||
      device.saturating_compute_warps_per_sm == 0 || !(device.bandwidth_bytes_per_s > 0) || device.compute_ops_per_s < 0) {
    throw Error(ErrorKind::Input, "schedule model: the device needs SMs, a warp size, saturating warps (memory and "
                                  "compute), a positive bandwidth and a non-negative compute throughput");
  }
  size_t batches = 0;
  for (const ScheduledKernel& k : kernels) {
    if (k.grid_blocks > 0 && (k.blocks_per_sm == 0 || k.block_size == 0)) {
      throw Error(ErrorKind::Input, "schedule model: kernel " + k.name + " has a grid of " + std::to_string(k.grid_blocks) +
                                        " blocks but " + std::to_string(k.blocks_per_sm) + " resident blocks per SM of " +
                                        std::to_string(k.block_size) + " threads");
    }
    if (!(k.compute_ops >= 0) || (k.compute_ops > 0 && k.grid_blocks > 0 && !(device.compute_ops_per_s > 0))) {
      throw Error(ErrorKind::Input, "schedule model: kernel " + k.name + " has " + std::to_string(k.compute_ops) +
                                        " compute ops, which need a non-negative count and a device with a compute throughput");
    }
    batches = std::max(batches, k.batch + 1);
  }
  SchedulePrediction p;
  p.kernels.resize(kernels.size());
  for (size_t b = 0; b < batches; ++b) {
    std::vector<size_t> members;
    for (size_t i = 0; i < kernels.size(); ++i) {
      if (kernels[i].batch == b) members.push_back(i);
    }
    if (members.empty()) continue;
    simulate_batch(device, kernels, members, p.kernels);
    double last = 0;
    for (size_t i : members) last = std::max(last, p.kernels[i].finish_s);
    p.batch_seconds.push_back(device.launch_overhead_s + last);
    p.seconds += p.batch_seconds.back();
  }
  return p;
}

ScheduleDecision choose_schedule(const ScheduleDevice& device, const std::vector<ScheduledKernel>& concurrent,
                                 std::vector<ScheduledKernel> sequential) {
  for (size_t i = 0; i < sequential.size(); ++i) sequential[i].batch = i;
  ScheduleDecision d;
  d.concurrent = predict_schedule(device, concurrent);
  d.sequential = predict_schedule(device, sequential);
  d.choice = d.concurrent.seconds < d.sequential.seconds ? ScheduleChoice::Concurrent : ScheduleChoice::Sequential;
  return d;
}

const char* to_string(ScheduleChoice choice) {
  return choice == ScheduleChoice::Concurrent ? "concurrent" : "sequential";
}

}  // namespace hqc::planner

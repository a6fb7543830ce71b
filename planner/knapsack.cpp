// Kernel-level knapsack: the Bellman recurrence over (kernel, blocks, warps). See knapsack.h.
//
// The table is filled over suffixes (kernels i..n−1) so that the solution can be read forwards,
// taking the smallest b_i that attains the optimum at each step: that gives the lexicographically
// smallest (b_1, b_2, ...) among the optimal solutions, the tie rule knapsack.h promises.
#include "planner/knapsack.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "storage/error.h"

namespace hqc::planner {
namespace {

constexpr uint64_t kInfinity = std::numeric_limits<uint64_t>::max();

// One admissible choice b for a kernel: the warps per block it forces and its shared cost.
struct Choice {
  uint32_t blocks = 0;
  uint32_t warps = 0;           // per block
  uint64_t shared_bytes = 0;    // s_i(32·w), requested
  uint64_t cost = 0;            // b·ζ
};

std::vector<Choice> choices_for(const DeviceProfile& device, const KernelDemand& k) {
  std::vector<Choice> out;
  const uint64_t demand = per_sm_demand(device, k.threads);
  const uint32_t max_threads = k.max_block_size > 0 ? std::min(k.max_block_size, device.max_threads_per_block)
                                                    : device.max_threads_per_block;
  const uint32_t max_warps = max_threads / device.warp_size;
  for (uint32_t b = 1; b <= device.max_blocks_per_sm; ++b) {
    const uint32_t w = allowed_warps_for_blocks(device, k, demand, b);
    if (w > max_warps) continue;
    const uint32_t block_size = w * device.warp_size;
    const uint64_t s = k.shared_per_block(block_size);
    // A block that could never launch (registers or shared memory per block) is no choice at all.
    if (!launch_blocker(device, KernelResources{block_size, k.registers_per_thread, s}).empty()) continue;
    out.push_back(Choice{b, w, s, uint64_t{b} * allocated_shared_per_block(device, s)});
  }
  return out;
}

}  // namespace

SharedMemoryFunction linear_shared_memory(uint64_t fixed_bytes, uint64_t bytes_per_thread) {
  return [fixed_bytes, bytes_per_thread](uint32_t block_size) { return fixed_bytes + bytes_per_thread * block_size; };
}

uint64_t per_sm_demand(const DeviceProfile& device, uint64_t threads) {
  const uint64_t d = (threads + device.sm_count - 1) / device.sm_count;
  return d == 0 ? 1 : d;
}

uint32_t warps_for_blocks(const DeviceProfile& device, uint64_t per_sm_threads, uint32_t blocks) {
  const uint64_t per_block = uint64_t{device.warp_size} * blocks;
  const uint64_t w = (per_sm_threads + per_block - 1) / per_block;
  if (w == 0) return 1;
  return w > std::numeric_limits<uint32_t>::max() ? std::numeric_limits<uint32_t>::max() : static_cast<uint32_t>(w);
}

uint32_t allowed_warps_for_blocks(const DeviceProfile& device, const KernelDemand& kernel, uint64_t per_sm_threads,
                                  uint32_t blocks) {
  const uint32_t least = (kernel.min_block_size + device.warp_size - 1) / device.warp_size;
  const uint32_t w = std::max(warps_for_blocks(device, per_sm_threads, blocks), least);
  if (!kernel.power_of_two_block) return w;
  // The smallest power-of-two block of at least w warps (warp sizes are powers of two on NVIDIA;
  // elsewhere the block is the smallest power of two that is a whole number of warps).
  // No such block when the warp size has an odd factor: "no choice" (above every limit).
  uint64_t threads = 1;
  while (threads < uint64_t{w} * device.warp_size || threads % device.warp_size != 0) {
    threads *= 2;
    if (threads > (uint64_t{1} << 32)) return std::numeric_limits<uint32_t>::max();
  }
  const uint64_t warps = threads / device.warp_size;
  return warps > std::numeric_limits<uint32_t>::max() ? std::numeric_limits<uint32_t>::max()
                                                       : static_cast<uint32_t>(warps);
}

KernelPlan plan_kernels(const DeviceProfile& device, const std::vector<KernelDemand>& kernels) {
  validate(device, "device profile " + device.name);
  KernelPlan plan;
  const size_t n = kernels.size();
  const uint32_t B = device.max_blocks_per_sm;
  const uint32_t W = device.max_warps_per_sm();
  const size_t stride_b = W + 1;
  const size_t layer = size_t{B + 1} * stride_b;
  plan.dp_cells = uint64_t{n + 1} * layer;
  if (n == 0) {
    plan.feasible = true;
    return plan;
  }

  std::vector<std::vector<Choice>> choices(n);
  for (size_t i = 0; i < n; ++i) {
    if (!kernels[i].shared_per_block) {
      throw Error(ErrorKind::Internal, "kernel " + kernels[i].name + ": no shared-memory function");
    }
    choices[i] = choices_for(device, kernels[i]);
    if (choices[i].empty()) {
      plan.reason = "kernel " + kernels[i].name + " has no launchable configuration with at most " +
                    std::to_string(B) + " blocks per SM (demand " + std::to_string(per_sm_demand(device, kernels[i].threads)) +
                    " threads per SM)";
      return plan;
    }
  }

  // F[i][b][w]: least Σ cost of kernels i..n−1 using exactly b blocks and w warps per SM.
  std::vector<uint64_t> F((n + 1) * layer, kInfinity);
  auto at = [&](size_t i, uint32_t b, uint32_t w) -> uint64_t& { return F[i * layer + b * stride_b + w]; };
  at(n, 0, 0) = 0;
  for (size_t i = n; i-- > 0;) {
    for (uint32_t b = 1; b <= B; ++b) {
      for (uint32_t w = 1; w <= W; ++w) {
        uint64_t best = kInfinity;
        for (const Choice& c : choices[i]) {
          if (c.blocks > b) break;  // choices are in increasing b
          const uint64_t used_warps = uint64_t{c.warps} * c.blocks;
          if (used_warps > w) continue;
          const uint64_t rest = at(i + 1, b - c.blocks, static_cast<uint32_t>(w - used_warps));
          if (rest != kInfinity && rest + c.cost < best) best = rest + c.cost;
        }
        at(i, b, w) = best;
      }
    }
  }

  // Best final state by (shared, warps, blocks).
  std::optional<std::pair<uint32_t, uint32_t>> final_state;
  uint64_t best_cost = kInfinity;
  for (uint32_t w = 1; w <= W; ++w) {
    for (uint32_t b = 1; b <= B; ++b) {
      const uint64_t v = at(0, b, w);
      if (v == kInfinity) continue;
      if (v < best_cost) {  // scanning w, then b, ascending: strict < keeps the smallest (w, b)
        best_cost = v;
        final_state = {b, w};
      }
    }
  }
  if (!final_state) {
    plan.reason = "the kernels' thread demands do not fit one SM's " + std::to_string(W) + " warps and " +
                  std::to_string(B) + " blocks at once";
    return plan;
  }

  auto [b, w] = *final_state;
  plan.shared_per_sm = best_cost;
  plan.warps_per_sm = w;
  plan.blocks_per_sm = b;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t target = at(i, b, w);
    bool found = false;
    for (const Choice& c : choices[i]) {
      const uint64_t used_warps = uint64_t{c.warps} * c.blocks;
      if (c.blocks > b || used_warps > w) continue;
      const uint64_t rest = at(i + 1, b - c.blocks, static_cast<uint32_t>(w - used_warps));
      if (rest == kInfinity || rest + c.cost != target) continue;
      plan.launches.push_back(KernelLaunch{c.blocks, c.warps, c.warps * device.warp_size, c.shared_bytes,
                                           uint64_t{c.blocks} * device.sm_count});
      b -= c.blocks;
      w -= static_cast<uint32_t>(used_warps);
      found = true;
      break;
    }
    if (!found) throw Error(ErrorKind::Internal, "knapsack: reconstruction lost the optimum at kernel " + kernels[i].name);
  }

  plan.reason = co_resident(device, placements(kernels, plan));
  plan.feasible = plan.reason.empty();
  return plan;
}

std::vector<Placement> placements(const std::vector<KernelDemand>& kernels, const KernelPlan& plan) {
  std::vector<Placement> out;
  for (size_t i = 0; i < plan.launches.size() && i < kernels.size(); ++i) {
    const KernelLaunch& l = plan.launches[i];
    out.push_back(Placement{KernelResources{l.block_size, kernels[i].registers_per_thread, l.shared_per_block}, l.blocks_per_sm});
  }
  return out;
}

}  // namespace hqc::planner

// The launches of kernels that run at the same time; see concurrent_launch.h.
#include "planner/concurrent_launch.h"

#include <algorithm>

#include "planner/concurrent_plan.h"
#include "storage/error.h"

namespace hqc::planner {

bool knapsack_can_plan(const LaunchRequest& launch, const DeviceProfile& device) {
  return launch.strides_over_tiles && (launch.power_of_two_block || launch.block_size_multiple <= 1 ||
                                       device.warp_size % launch.block_size_multiple == 0);
}

ConcurrentLaunches plan_concurrent_launches(const std::vector<ConcurrentKernel>& kernels, const DeviceProfile& device) {
  ConcurrentLaunches out;
  out.kernels.resize(kernels.size());
  if (kernels.empty()) return out;
  // An equal share of each SM's warps (whole warps, so the shares' sum fits W_SM).
  const uint64_t share = std::max<uint64_t>(1, device.max_warps_per_sm() / kernels.size()) * device.warp_size * device.sm_count;
  std::vector<KernelDemand> demands;
  for (const ConcurrentKernel& c : kernels) {
    if (!knapsack_can_plan(c.request, device))
      throw Error(ErrorKind::Internal, c.request.where + ": the knapsack cannot size this launch");
    const uint64_t rows = c.request.tuples.value_or(0);
    const uint32_t per_thread = tuples_per_thread(rows);
    KernelDemand k;
    k.name = c.name;
    k.threads = std::min(std::max<uint64_t>(1, (rows + per_thread - 1) / per_thread), share);
    k.registers_per_thread = c.kernel.registers_per_thread;
    const LaunchRequest request = c.request;
    const uint64_t static_shared = c.kernel.static_shared_bytes;
    k.shared_per_block = [request, static_shared](uint32_t t) { return scratch_bytes(request, t) + static_shared; };
    k.power_of_two_block = c.request.power_of_two_block;
    k.max_block_size = std::min<uint32_t>(kMaxBlockSize, c.kernel.max_threads_per_block > 0 ? c.kernel.max_threads_per_block
                                                                                           : kMaxBlockSize);
    k.min_block_size = std::max<uint32_t>(1, c.request.block_size_multiple);
    demands.push_back(std::move(k));
  }
  const ConcurrentPlan cp = plan_concurrent(device, demands);
  out.batches = cp.batches.size();
  out.planner = cp.batches.size() == 1 ? "knapsack" : std::string("knapsack+") + to_string(cp.packing.method);
  for (size_t b = 0; b < cp.batches.size(); ++b) {
    const Batch& batch = cp.batches[b];
    for (size_t j = 0; j < batch.kernels.size(); ++j) {
      const size_t i = batch.kernels[j];
      const KernelLaunch& l = batch.plan.launches[j];
      ConcurrentChoice& c = out.kernels[i];
      c.block_size = l.block_size;
      c.dynamic_shared_bytes = static_cast<uint32_t>(scratch_bytes(kernels[i].request, l.block_size));
      c.grid_blocks = std::max<uint64_t>(1, l.grid_blocks);
      c.blocks_per_sm = l.blocks_per_sm;
      c.batch = b;
      c.demand_threads = cp.capped[i].threads;
    }
  }
  return out;
}

std::optional<ConcurrentChoice> random_launch(const ConcurrentKernel& kernel, const DeviceProfile& device,
                                              std::mt19937_64& rng) {
  const std::vector<uint32_t> sizes = launchable_block_sizes(kernel.request, kernel.kernel, device);
  if (sizes.empty()) return std::nullopt;
  ConcurrentChoice c;
  c.block_size = sizes[std::uniform_int_distribution<size_t>(0, sizes.size() - 1)(rng)];
  const uint64_t scratch = scratch_bytes(kernel.request, c.block_size);
  const Occupancy occ =
      compute_occupancy(device, {c.block_size, kernel.kernel.registers_per_thread, scratch + kernel.kernel.static_shared_bytes});
  const uint64_t most = std::max<uint64_t>(1, uint64_t{2} * occ.blocks_per_sm * device.sm_count);
  c.dynamic_shared_bytes = static_cast<uint32_t>(scratch);
  c.grid_blocks = std::uniform_int_distribution<uint64_t>(1, most)(rng);
  c.blocks_per_sm = occ.blocks_per_sm;
  return c;
}

}  // namespace hqc::planner

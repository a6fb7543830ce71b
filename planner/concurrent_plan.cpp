// Knapsack first, batch packing when it fails. See concurrent_plan.h.
#include "planner/concurrent_plan.h"

#include <algorithm>

#include "storage/error.h"

namespace hqc::planner {
namespace {

// The most threads one SM can hold of this kernel alone, over every block size (a multiple of the
// warp size): its demand is capped there, the rest runs in later rounds of the grid-stride loop.
uint64_t max_resident_threads(const DeviceProfile& device, const KernelDemand& k) {
  uint64_t best = 0;
  const uint32_t max_threads = k.max_block_size > 0 ? std::min(k.max_block_size, device.max_threads_per_block)
                                                    : device.max_threads_per_block;
  for (uint32_t t = device.warp_size; t <= max_threads; t += device.warp_size) {
    if (k.power_of_two_block && (t & (t - 1)) != 0) continue;
    const Occupancy o = compute_occupancy(device, {t, k.registers_per_thread, k.shared_per_block(t)});
    best = std::max<uint64_t>(best, uint64_t{o.active_warps} * device.warp_size);
  }
  return best;
}

}  // namespace

PackItem pack_item(const DeviceProfile& device, const KernelDemand& kernel, const KernelLaunch& launch) {
  const Placement p{KernelResources{launch.block_size, kernel.registers_per_thread, launch.shared_per_block}, launch.blocks_per_sm};
  const SmUsage u = sm_usage(device, std::span<const Placement>(&p, 1));
  return PackItem{kernel.name, ResourceVector{u.blocks, u.warps, u.register_rows, u.shared}};
}

ConcurrentPlan plan_concurrent(const DeviceProfile& device, const std::vector<KernelDemand>& kernels) {
  ConcurrentPlan out;
  const uint64_t device_threads = uint64_t{device.max_threads_per_sm} * device.sm_count;
  out.capped = kernels;
  for (KernelDemand& k : out.capped) {
    k.threads = std::min(k.threads, device_threads);
    if (!plan_kernels(device, {k}).feasible) {
      const uint64_t resident = max_resident_threads(device, k);
      if (resident == 0) {
        throw Error(ErrorKind::Input, "kernel " + k.name + " cannot run on " + device.name + ": " +
                                          compute_occupancy(device, {device.warp_size, k.registers_per_thread,
                                                                     k.shared_per_block(device.warp_size)}).reason);
      }
      k.threads = std::min(k.threads, resident * device.sm_count);
    }
  }

  KernelPlan together = plan_kernels(device, out.capped);
  if (together.feasible || kernels.size() <= 1) {
    if (!together.feasible) {
      throw Error(ErrorKind::Input, "kernel " + kernels.front().name + " cannot run on " + device.name + ": " + together.reason);
    }
    Batch b;
    for (size_t i = 0; i < kernels.size(); ++i) b.kernels.push_back(i);
    b.plan = std::move(together);
    out.batches.push_back(std::move(b));
    return out;
  }

  std::vector<KernelPlan> alone;
  std::vector<PackItem> items;
  for (const KernelDemand& k : out.capped) {
    KernelPlan p = plan_kernels(device, {k});
    if (!p.feasible) throw Error(ErrorKind::Input, "kernel " + k.name + " cannot run on " + device.name + ": " + p.reason);
    items.push_back(pack_item(device, k, p.launches.front()));
    alone.push_back(std::move(p));
  }
  out.packing = column_generation_packing(items, sm_capacity(device));
  for (const std::vector<size_t>& members : out.packing.batches) {
    std::vector<KernelDemand> subset;
    for (size_t i : members) subset.push_back(out.capped[i]);
    Batch b;
    b.kernels = members;
    b.plan = plan_kernels(device, subset);
    if (!b.plan.feasible) {
      KernelPlan fallback;
      for (size_t i : members) {
        const KernelLaunch& l = alone[i].launches.front();
        fallback.launches.push_back(l);
        fallback.shared_per_sm += uint64_t{l.blocks_per_sm} * allocated_shared_per_block(device, l.shared_per_block);
        fallback.warps_per_sm += uint64_t{l.blocks_per_sm} * l.warps_per_block;
        fallback.blocks_per_sm += l.blocks_per_sm;
      }
      fallback.reason = co_resident(device, placements(subset, fallback));
      if (!fallback.reason.empty()) throw Error(ErrorKind::Internal, "batch packing produced a batch that does not fit: " + fallback.reason);
      fallback.feasible = true;
      b.plan = std::move(fallback);
    }
    out.batches.push_back(std::move(b));
  }
  return out;
}

}  // namespace hqc::planner

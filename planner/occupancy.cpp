// Single-kernel occupancy and multi-kernel co-residence. See occupancy.h for the equations.
#include "planner/occupancy.h"

#include <algorithm>

#include "storage/error.h"

namespace hqc::planner {
namespace {

uint64_t round_up(uint64_t x, uint64_t unit) { return (x + unit - 1) / unit * unit; }
uint64_t div_up(uint64_t x, uint64_t d) { return (x + d - 1) / d; }

// Warps per sub-partition that registers allow: ⌊(R_SM/G_W)/θ⌋, the per-partition form of ρ/G_W.
uint64_t register_rows_per_partition(const DeviceProfile& d) { return d.registers_per_sm / d.register_warp_granularity; }

uint32_t clamp32(uint64_t v) { return v > kUnlimitedBlocks ? kUnlimitedBlocks : static_cast<uint32_t>(v); }

}  // namespace

uint32_t warps_per_block(const DeviceProfile& device, uint32_t block_size) {
  return static_cast<uint32_t>(div_up(block_size, device.warp_size));
}

uint32_t allocated_registers_per_warp(const DeviceProfile& device, uint32_t registers_per_thread) {
  return static_cast<uint32_t>(
      round_up(uint64_t{registers_per_thread} * device.warp_size, device.register_allocation_unit));
}

uint64_t allocated_shared_per_block(const DeviceProfile& device, uint64_t shared_bytes) {
  return round_up(shared_bytes + device.shared_reserved_per_block, device.shared_allocation_unit);
}

std::string launch_blocker(const DeviceProfile& device, const KernelResources& k) {
  if (k.block_size == 0) return "block size 0";
  if (k.block_size > device.max_threads_per_block) {
    return "block size " + std::to_string(k.block_size) + " exceeds the device limit of " +
           std::to_string(device.max_threads_per_block) + " threads";
  }
  if (k.registers_per_thread > device.max_registers_per_thread) {
    return std::to_string(k.registers_per_thread) + " registers per thread exceed the limit of " +
           std::to_string(device.max_registers_per_thread);
  }
  // The hardware allocates registers for whole groups of G_W warps; the block's file must hold them.
  const uint64_t warps = warps_per_block(device, k.block_size);
  const uint64_t block_registers =
      uint64_t{allocated_registers_per_warp(device, k.registers_per_thread)} * round_up(warps, device.register_warp_granularity);
  if (block_registers > device.registers_per_block) {
    return "a block needs " + std::to_string(block_registers) + " registers, the per-block limit is " +
           std::to_string(device.registers_per_block);
  }
  if (k.shared_per_block > device.shared_per_block_optin ||
      allocated_shared_per_block(device, k.shared_per_block) > device.shared_per_block_optin + device.shared_reserved_per_block) {
    return std::to_string(k.shared_per_block) + " bytes of shared memory per block exceed the opt-in limit of " +
           std::to_string(device.shared_per_block_optin);
  }
  return {};
}

Occupancy compute_occupancy(const DeviceProfile& device, const KernelResources& k) {
  Occupancy o;
  o.warps_per_block = warps_per_block(device, k.block_size);
  o.registers_per_warp = allocated_registers_per_warp(device, k.registers_per_thread);
  o.shared_allocated_per_block = allocated_shared_per_block(device, k.shared_per_block);
  o.limit_blocks = device.max_blocks_per_sm;
  o.reason = launch_blocker(device, k);

  o.limit_warps = (k.block_size == 0 || k.block_size > device.max_threads_per_block)
                      ? 0
                      : device.max_warps_per_sm() / o.warps_per_block;
  if (o.registers_per_warp == 0) {
    o.limit_registers = kUnlimitedBlocks;
  } else {
    const uint64_t rho = register_rows_per_partition(device) / o.registers_per_warp * device.register_warp_granularity;
    o.limit_registers = o.warps_per_block == 0 ? 0 : clamp32(rho / o.warps_per_block);
  }
  o.limit_shared = o.shared_allocated_per_block == 0 ? kUnlimitedBlocks
                                                     : clamp32(device.shared_per_sm / o.shared_allocated_per_block);
  if (!o.reason.empty()) {
    o.blocks_per_sm = 0;
    o.limiting = OccupancyLimit::NotLaunchable;
    return o;
  }
  o.blocks_per_sm = std::min({o.limit_warps, o.limit_registers, o.limit_shared, o.limit_blocks});
  // The first binding limit in a fixed order, so the report is stable when several tie.
  if (o.blocks_per_sm == o.limit_warps) {
    o.limiting = OccupancyLimit::Warps;
  } else if (o.blocks_per_sm == o.limit_registers) {
    o.limiting = OccupancyLimit::Registers;
  } else if (o.blocks_per_sm == o.limit_shared) {
    o.limiting = OccupancyLimit::SharedMemory;
  } else {
    o.limiting = OccupancyLimit::Blocks;
  }
  if (o.blocks_per_sm == 0) o.reason = std::string("one block exceeds the SM's ") + to_string(o.limiting);
  o.active_warps = o.blocks_per_sm * o.warps_per_block;
  o.occupancy = static_cast<double>(o.active_warps) / device.max_warps_per_sm();
  return o;
}

uint64_t running_rounds(const DeviceProfile& device, const Occupancy& occupancy, uint64_t grid_blocks) {
  if (grid_blocks == 0) return 0;
  if (occupancy.blocks_per_sm == 0) {
    throw Error(ErrorKind::Input, "running rounds of a kernel that cannot be resident: " + occupancy.reason);
  }
  return div_up(grid_blocks, uint64_t{occupancy.blocks_per_sm} * device.sm_count);
}

SmUsage sm_usage(const DeviceProfile& device, std::span<const Placement> placements) {
  SmUsage u;
  for (const Placement& p : placements) {
    if (p.blocks == 0) continue;
    const uint64_t warps = uint64_t{p.blocks} * warps_per_block(device, p.kernel.block_size);
    u.blocks += p.blocks;
    u.warps += warps;
    u.register_rows += div_up(warps, device.register_warp_granularity) *
                       allocated_registers_per_warp(device, p.kernel.registers_per_thread);
    u.shared += uint64_t{p.blocks} * allocated_shared_per_block(device, p.kernel.shared_per_block);
  }
  return u;
}

std::string co_resident(const DeviceProfile& device, std::span<const Placement> placements) {
  for (const Placement& p : placements) {
    if (p.blocks == 0) continue;
    std::string blocker = launch_blocker(device, p.kernel);
    if (!blocker.empty()) return blocker;
  }
  const SmUsage u = sm_usage(device, placements);
  if (u.blocks > device.max_blocks_per_sm) {
    return std::to_string(u.blocks) + " blocks exceed " + std::to_string(device.max_blocks_per_sm) + " per SM";
  }
  if (u.warps > device.max_warps_per_sm()) {
    return std::to_string(u.warps) + " warps exceed " + std::to_string(device.max_warps_per_sm()) + " per SM";
  }
  if (u.register_rows > register_rows_per_partition(device)) {
    return "registers: " + std::to_string(u.register_rows) + " per sub-partition exceed " +
           std::to_string(register_rows_per_partition(device));
  }
  if (u.shared > device.shared_per_sm) {
    return "shared memory: " + std::to_string(u.shared) + " bytes exceed " + std::to_string(device.shared_per_sm) + " per SM";
  }
  return {};
}

const char* to_string(OccupancyLimit limit) {
  switch (limit) {
    case OccupancyLimit::Warps: return "warps";
    case OccupancyLimit::Registers: return "registers";
    case OccupancyLimit::SharedMemory: return "shared memory";
    case OccupancyLimit::Blocks: return "blocks";
    case OccupancyLimit::NotLaunchable: return "not launchable";
  }
  return "?";
}

}  // namespace hqc::planner

// Launch geometry of one launch from the occupancy model; see launch.h.
#include "planner/launch.h"

#include <algorithm>
#include <numeric>

#include "storage/error.h"

namespace hqc::planner {

namespace {

// What bounds a launch's block size: a multiple of `step` (the warp and the kernel's multiple), at
// most `at_most` (the compiled kernel's, the device's and the templates' limits).
struct BlockLimits {
  uint32_t step = 1;
  uint32_t kernel_max = 0;
  uint32_t at_most = 0;
};

BlockLimits block_limits(const LaunchRequest& launch, const CompiledKernel& kernel, const DeviceProfile& device) {
  BlockLimits l;
  l.step = std::lcm(std::max<uint32_t>(1, launch.block_size_multiple), device.warp_size);
  l.kernel_max = kernel.max_threads_per_block > 0 ? kernel.max_threads_per_block : device.max_threads_per_block;
  l.at_most = std::min({l.kernel_max, device.max_threads_per_block, kMaxBlockSize});
  return l;
}

// The block sizes the kernel's rules and the device's limits allow, ascending: multiples of the
// step, or powers of two that are such multiples.
std::vector<uint32_t> allowed_block_sizes(const LaunchRequest& launch, const BlockLimits& l) {
  std::vector<uint32_t> sizes;
  if (launch.power_of_two_block) {
    for (uint64_t p = 1; p <= l.at_most; p *= 2)
      if (p % l.step == 0) sizes.push_back(static_cast<uint32_t>(p));
  } else {
    for (uint64_t b = l.step; b <= l.at_most; b += l.step) sizes.push_back(static_cast<uint32_t>(b));
  }
  return sizes;
}

std::string scratch_parts(const LaunchRequest& launch, uint32_t block) {
  std::string parts = launch.scratch_parts.empty() ? std::to_string(launch.scratch_fixed_bytes) + " fixed" : launch.scratch_parts;
  if (launch.scratch_bytes_per_thread > 0)
    parts += " + " + std::to_string(launch.scratch_bytes_per_thread) + " per thread x " + std::to_string(block);
  return parts;
}

void check_slot_bounds(const LaunchRequest& launch) {
  for (const LaunchRequest::SlotBound& bound : launch.slot_bounds) {
    if (bound.slots > bound.max_slots) {
      throw Error(ErrorKind::Unsupported,
                  launch.where + ": " + bound.what + " needs " + std::to_string(bound.slots) + " slots (" + bound.param +
                      ") for this data, but the plan was compiled for at most " + std::to_string(bound.max_slots) +
                      "; compile the query again against this database's statistics");
    }
  }
}

}  // namespace

uint64_t scratch_bytes(const LaunchRequest& launch, uint32_t block_size) {
  return launch.scratch_fixed_bytes + uint64_t{launch.scratch_bytes_per_thread} * block_size;
}

uint32_t tuples_per_thread(uint64_t tuples) { return tuples > kManyTuples ? 4 : 1; }

LaunchChoice decide_launch(const LaunchRequest& launch, const CompiledKernel& kernel, const DeviceProfile& device,
                           const std::string& device_name, uint32_t forced_block) {
  check_slot_bounds(launch);

  // ---- block sizes the compiled kernel can run ----
  const BlockLimits limits = block_limits(launch, kernel, device);
  std::vector<uint32_t> sizes = allowed_block_sizes(launch, limits);
  if (forced_block != 0 && !sizes.empty()) {
    if (std::find(sizes.begin(), sizes.end(), forced_block) == sizes.end()) {
      std::string allowed;
      for (uint32_t s : sizes) allowed += (allowed.empty() ? "" : ", ") + std::to_string(s);
      throw Error(ErrorKind::Usage, launch.where + ": HORSEQC_BLOCK_SIZE=" + std::to_string(forced_block) +
                                        " is not a block size this kernel allows (" + allowed + ")");
    }
    sizes = {forced_block};
  }
  if (sizes.empty()) {
    throw Error(ErrorKind::Device, launch.where + ": the compiled kernel allows at most " + std::to_string(limits.kernel_max) +
                                       " threads per block, below its required multiple of " + std::to_string(limits.step) +
                                       (launch.power_of_two_block ? " (as a power of two)" : ""));
  }

  // ---- the allowed size of highest predicted occupancy whose scratchpad fits ----
  // CUDA launches opt in above the default limit automatically, so the opt-in maximum is the bound.
  const uint64_t limit = device.shared_per_block_optin;
  bool chosen = false;
  uint32_t block = 0;
  Occupancy best;
  std::string blocked;  // why the last size that fitted the scratchpad could not run at all
  for (const uint32_t size : sizes) {
    const uint64_t shared = scratch_bytes(launch, size) + kernel.static_shared_bytes;
    if (shared > limit || shared - kernel.static_shared_bytes > UINT32_MAX) continue;
    const Occupancy occupancy = compute_occupancy(device, {size, kernel.registers_per_thread, shared});
    if (occupancy.blocks_per_sm == 0) {
      blocked = std::to_string(size) + " threads: " + occupancy.reason;
      continue;
    }
    // Strictly more active warps wins: sizes ascend, so a tie keeps the smaller block.
    if (!chosen || occupancy.active_warps > best.active_warps) {
      chosen = true;
      block = size;
      best = occupancy;
    }
  }
  if (!chosen && blocked.empty()) {
    const uint32_t smallest = sizes.front();
    throw Error(ErrorKind::Unsupported,
                launch.where + " needs " + std::to_string(scratch_bytes(launch, smallest)) +
                    " bytes of dynamic scratchpad per block (" + scratch_parts(launch, smallest) + ") + " +
                    std::to_string(kernel.static_shared_bytes) + " static at its smallest allowed block of " +
                    std::to_string(smallest) + " threads, but " + device_name + " offers " + std::to_string(limit) +
                    " bytes per block and no block size the kernel allows fits");
  }
  if (!chosen) {
    throw Error(ErrorKind::Device, launch.where + ": no block size the kernel allows can run on " + device_name + " (" +
                                       blocked + ", " + std::to_string(kernel.registers_per_thread) + " registers per thread)");
  }

  LaunchChoice choice;
  choice.block_size = block;
  choice.dynamic_shared_bytes = static_cast<uint32_t>(scratch_bytes(launch, block));
  choice.blocks_per_sm = best.blocks_per_sm;
  choice.occupancy = best.occupancy;
  choice.limiting = best.limiting;

  // ---- grid ----
  if (!launch.tuples) {
    choice.grid_for_tuples = std::max<uint64_t>(1, launch.fixed_grid);
    choice.grid_blocks = choice.grid_for_tuples;
    return choice;
  }
  choice.items_per_thread = launch.strides_over_tiles ? tuples_per_thread(*launch.tuples) : std::max<uint32_t>(1, launch.items_per_thread);
  const uint64_t per_block = uint64_t{block} * choice.items_per_thread;
  choice.grid_for_tuples = std::max<uint64_t>(1, (*launch.tuples + per_block - 1) / per_block);
  choice.grid_blocks = choice.grid_for_tuples;
  if (launch.strides_over_tiles)
    choice.grid_blocks = std::min(choice.grid_for_tuples, uint64_t{best.blocks_per_sm} * device.sm_count * kGridWaves);
  return choice;
}

std::vector<uint32_t> launchable_block_sizes(const LaunchRequest& launch, const CompiledKernel& kernel, const DeviceProfile& device) {
  std::vector<uint32_t> out;
  for (const uint32_t size : allowed_block_sizes(launch, block_limits(launch, kernel, device))) {
    const uint64_t shared = scratch_bytes(launch, size) + kernel.static_shared_bytes;
    if (shared > device.shared_per_block_optin) continue;
    if (compute_occupancy(device, {size, kernel.registers_per_thread, shared}).blocks_per_sm == 0) continue;
    out.push_back(size);
  }
  return out;
}

}  // namespace hqc::planner

// Launch geometry from the occupancy model, and its scratchpad checks; see launch_config.h.
#include "runtime/launch_config.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <vector>

#include "planner/device_profile_from_properties.h"
#include "storage/error.h"

namespace hqc::runtime {

namespace {

uint64_t param_value(const std::map<std::string, int64_t>& params, const std::string& name) {
  return static_cast<uint64_t>(std::max<int64_t>(0, params.at(name)));
}

// Every block size the kernel's local-resolution primitives and the device accept, ascending:
// multiples of `step` (the warp and the kernel's multiple), or powers of two that are such
// multiples, up to `at_most`.
std::vector<uint32_t> allowed_block_sizes(const LaunchSpec& launch, uint32_t step, uint32_t at_most) {
  std::vector<uint32_t> sizes;
  if (launch.power_of_two_block) {
    for (uint64_t p = 1; p <= at_most; p *= 2) {
      if (p % step == 0) sizes.push_back(static_cast<uint32_t>(p));
    }
  } else {
    for (uint64_t b = step; b <= at_most; b += step) sizes.push_back(static_cast<uint32_t>(b));
  }
  return sizes;
}

// HORSEQC_BLOCK_SIZE (experiments: every launch at this many threads per block), or 0 when unset.
uint32_t forced_block_size() {
  const char* text = std::getenv("HORSEQC_BLOCK_SIZE");
  if (text == nullptr || *text == '\0') return 0;
  char* end = nullptr;
  const unsigned long value = std::strtoul(text, &end, 10);
  if (*end != '\0' || value == 0 || value > kMaxBlockSize)
    throw Error(ErrorKind::Usage, std::string("HORSEQC_BLOCK_SIZE: expected a block size of 1 to ") +
                                      std::to_string(kMaxBlockSize) + " threads, got \"" + text + "\"");
  return static_cast<uint32_t>(value);
}

std::string scratch_parts(const LaunchSpec& launch, uint32_t block, const std::map<std::string, int64_t>& params) {
  std::string parts = std::to_string(launch.scratch_bytes) + " fixed";
  if (launch.scratch_bytes_per_thread > 0) {
    parts += " + " + std::to_string(launch.scratch_bytes_per_thread) + " per thread x " + std::to_string(block);
  }
  for (const auto& [name, bytes] : launch.scratch_bytes_per_param) {
    parts += " + " + std::to_string(bytes) + " x " + name + " (" + std::to_string(param_value(params, name)) + ")";
  }
  return parts;
}

}  // namespace

planner::DeviceProfile device_profile_for(const DeviceProperties& device) {
  planner::ReportedLimits r;
  r.name = device.name;
  r.cc_major = device.compute_major;
  r.cc_minor = device.compute_minor;
  r.sm_count = device.multiprocessors;
  r.warp_size = device.warp_size;
  r.max_threads_per_block = device.max_threads_per_block;
  r.max_threads_per_sm = device.max_threads_per_multiprocessor;
  r.max_blocks_per_sm = device.max_blocks_per_multiprocessor;
  r.registers_per_sm = device.registers_per_multiprocessor;
  r.registers_per_block = device.registers_per_block;
  r.shared_per_sm = device.shared_memory_per_multiprocessor;
  r.shared_per_block = device.shared_memory_per_block;
  r.shared_per_block_optin = device.shared_memory_per_block_optin;
  r.shared_reserved_per_block = device.reserved_shared_memory_per_block;
  return planner::profile_from_reported(r);
}

uint64_t scratch_bytes_for(const LaunchSpec& launch, uint32_t block_size, const std::map<std::string, int64_t>& params) {
  uint64_t scratch = launch.scratch_bytes + uint64_t{launch.scratch_bytes_per_thread} * block_size;
  for (const auto& [name, bytes] : launch.scratch_bytes_per_param) scratch += bytes * param_value(params, name);
  return scratch;
}

LaunchDecision decide_launch(const std::string& label, const LaunchSpec& launch, const KernelAttributes& kernel,
                             const std::map<std::string, int64_t>& params, const DeviceProperties& device,
                             GridPolicy grid_policy) {
  const std::string where = label + ": kernel " + launch.kernel;

  // ---- the slot counts the scratchpad layout was chosen for ----
  for (const LaunchSpec::ScratchSlotBound& bound : launch.scratch_slot_bounds) {
    const uint64_t slots = param_value(params, bound.param);
    if (slots > bound.max_slots) {
      throw Error(ErrorKind::Unsupported,
                  where + ": " + bound.what + " needs " + std::to_string(slots) + " slots (" + bound.param +
                      ") for this data, but the plan was compiled for at most " + std::to_string(bound.max_slots) +
                      "; compile the query again against this database's statistics");
    }
  }

  const planner::DeviceProfile profile = device_profile_for(device);

  // ---- block sizes the compiled kernel can run ----
  const uint32_t multiple = std::max<uint32_t>(1, launch.block_size_multiple);
  const uint32_t step = std::lcm(multiple, profile.warp_size);
  const uint32_t kernel_max = kernel.max_threads_per_block > 0 ? kernel.max_threads_per_block : profile.max_threads_per_block;
  const uint32_t at_most = std::min({kernel_max, profile.max_threads_per_block, kMaxBlockSize});
  std::vector<uint32_t> sizes = allowed_block_sizes(launch, step, at_most);
  if (const uint32_t forced = forced_block_size(); forced != 0 && !sizes.empty()) {
    if (std::find(sizes.begin(), sizes.end(), forced) == sizes.end()) {
      std::string allowed;
      for (uint32_t s : sizes) allowed += (allowed.empty() ? "" : ", ") + std::to_string(s);
      throw Error(ErrorKind::Usage, where + ": HORSEQC_BLOCK_SIZE=" + std::to_string(forced) +
                                        " is not a block size this kernel allows (" + allowed + ")");
    }
    sizes = {forced};
  }
  if (sizes.empty()) {
    throw Error(ErrorKind::Device, where + ": the compiled kernel allows at most " + std::to_string(kernel_max) +
                                       " threads per block, below its required multiple of " + std::to_string(step) +
                                       (launch.power_of_two_block ? " (as a power of two)" : ""));
  }

  // ---- the allowed size of highest predicted occupancy whose scratchpad fits ----
  // CUDA launches opt in above the default limit automatically, so the opt-in maximum is the bound.
  const uint64_t limit = profile.shared_per_block_optin;
  const uint32_t registers = static_cast<uint32_t>(std::max(0, kernel.registers_per_thread));
  bool chosen = false;
  uint32_t block = 0;
  planner::Occupancy best;
  std::string blocked;  // why the last size that fitted the scratchpad could not run at all
  for (const uint32_t size : sizes) {
    const uint64_t shared = scratch_bytes_for(launch, size, params) + kernel.static_shared_bytes;
    if (shared > limit || shared - kernel.static_shared_bytes > UINT32_MAX) continue;
    const planner::Occupancy occupancy = planner::compute_occupancy(profile, {size, registers, shared});
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
                where + " needs " + std::to_string(scratch_bytes_for(launch, smallest, params)) +
                    " bytes of dynamic scratchpad per block (" + scratch_parts(launch, smallest, params) + ") + " +
                    std::to_string(kernel.static_shared_bytes) + " static at its smallest allowed block of " +
                    std::to_string(smallest) + " threads, but " + device.name + " offers " + std::to_string(limit) +
                    " bytes per block and no block size the kernel allows fits");
  }
  if (!chosen) {
    throw Error(ErrorKind::Device, where + ": no block size the kernel allows can run on " + device.name + " (" +
                                       blocked + ", " + std::to_string(registers) + " registers per thread)");
  }

  LaunchDecision decision;
  decision.config.block_size = block;
  decision.config.dynamic_shared_bytes = static_cast<uint32_t>(scratch_bytes_for(launch, block, params));
  decision.blocks_per_sm = best.blocks_per_sm;
  decision.occupancy = best.occupancy;
  decision.limiting = best.limiting;

  // ---- grid ----
  if (launch.tuples_param.empty()) {
    decision.grid_for_tuples = std::max<uint64_t>(1, launch.fixed_grid);
    decision.config.grid_blocks = decision.grid_for_tuples;
  } else {
    const uint64_t tuples = param_value(params, launch.tuples_param);
    const uint64_t per_block = uint64_t{block} * std::max<uint32_t>(1, launch.items_per_thread);
    decision.grid_for_tuples = std::max<uint64_t>(1, (tuples + per_block - 1) / per_block);
    decision.config.grid_blocks = decision.grid_for_tuples;
    if (grid_policy == GridPolicy::StrideOverTiles) {
      const uint64_t resident = uint64_t{best.blocks_per_sm} * profile.sm_count * kGridWaves;
      decision.config.grid_blocks = std::min(decision.grid_for_tuples, resident);
    }
  }
  return decision;
}

std::vector<uint32_t> launchable_block_sizes(const LaunchSpec& launch, const KernelAttributes& kernel,
                                             const std::map<std::string, int64_t>& params, const DeviceProperties& device) {
  const planner::DeviceProfile profile = device_profile_for(device);
  const uint32_t multiple = std::max<uint32_t>(1, launch.block_size_multiple);
  const uint32_t step = std::lcm(multiple, profile.warp_size);
  const uint32_t kernel_max = kernel.max_threads_per_block > 0 ? kernel.max_threads_per_block : profile.max_threads_per_block;
  const uint32_t at_most = std::min({kernel_max, profile.max_threads_per_block, kMaxBlockSize});
  const uint32_t registers = static_cast<uint32_t>(std::max(0, kernel.registers_per_thread));
  std::vector<uint32_t> out;
  for (const uint32_t size : allowed_block_sizes(launch, step, at_most)) {
    const uint64_t shared = scratch_bytes_for(launch, size, params) + kernel.static_shared_bytes;
    if (shared > profile.shared_per_block_optin) continue;
    if (planner::compute_occupancy(profile, {size, registers, shared}).blocks_per_sm == 0) continue;
    out.push_back(size);
  }
  return out;
}

LaunchConfig choose_launch_config(const std::string& label, const LaunchSpec& launch, const KernelAttributes& kernel,
                                  const std::map<std::string, int64_t>& params, const DeviceProperties& device,
                                  GridPolicy grid_policy) {
  return decide_launch(label, launch, kernel, params, device, grid_policy).config;
}

}  // namespace hqc::runtime

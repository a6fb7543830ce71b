// Launch geometry and its scratchpad checks; see launch_config.h.
#include "runtime/launch_config.h"

#include <algorithm>

#include "storage/error.h"

namespace hqc::runtime {

namespace {

// The largest block size <= `at_most` that the kernel's local-resolution primitives accept
// (a power of two, or a multiple of block_size_multiple); 0 when there is none.
uint32_t largest_allowed_block(const LaunchSpec& launch, uint64_t at_most) {
  const uint32_t multiple = std::max<uint32_t>(1, launch.block_size_multiple);
  if (launch.power_of_two_block) {
    uint64_t p = 1;
    while (p * 2 <= at_most) p *= 2;
    if (p > at_most || p % multiple != 0) return 0;
    return static_cast<uint32_t>(p);
  }
  const uint64_t b = at_most / multiple * multiple;
  return static_cast<uint32_t>(std::min<uint64_t>(b, UINT32_MAX / multiple * multiple));
}

uint64_t param_value(const std::map<std::string, int64_t>& params, const std::string& name) {
  return static_cast<uint64_t>(std::max<int64_t>(0, params.at(name)));
}

}  // namespace

uint64_t scratch_bytes_for(const LaunchSpec& launch, uint32_t block_size, const std::map<std::string, int64_t>& params) {
  uint64_t scratch = launch.scratch_bytes + uint64_t{launch.scratch_bytes_per_thread} * block_size;
  for (const auto& [name, bytes] : launch.scratch_bytes_per_param) scratch += bytes * param_value(params, name);
  return scratch;
}

LaunchConfig choose_launch_config(const std::string& label, const LaunchSpec& launch, const KernelAttributes& kernel,
                                  const std::map<std::string, int64_t>& params, const DeviceProperties& device) {
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

  // ---- block size the compiled kernel can run ----
  uint32_t block = launch.block_size;
  const uint32_t kernel_max = kernel.max_threads_per_block > 0 ? kernel.max_threads_per_block : device.max_threads_per_block;
  if (kernel_max > 0 && block > kernel_max) {
    const uint32_t lowered = largest_allowed_block(launch, kernel_max);
    if (lowered == 0) {
      throw Error(ErrorKind::Device, where + ": the compiled kernel allows at most " + std::to_string(kernel_max) +
                                         " threads per block, below its required multiple of " +
                                         std::to_string(launch.block_size_multiple));
    }
    block = lowered;
  }

  // ---- dynamic scratchpad against the device's per-block shared memory ----
  // CUDA launches opt in above the default limit automatically, so the opt-in maximum is the bound.
  const uint64_t limit = std::max(device.shared_memory_per_block_optin, device.shared_memory_per_block);
  uint64_t scratch = scratch_bytes_for(launch, block, params);
  if (limit > 0 && scratch + kernel.static_shared_bytes > limit) {
    // Only the per-thread part shrinks with the block; fixed and per-slot parts do not.
    const uint64_t fixed = scratch_bytes_for(launch, 0, params) + kernel.static_shared_bytes;
    uint32_t smaller = 0;
    if (launch.scratch_bytes_per_thread > 0 && fixed < limit) {
      smaller = largest_allowed_block(launch, std::min<uint64_t>(block, (limit - fixed) / launch.scratch_bytes_per_thread));
    }
    if (smaller == 0) {
      std::string parts = std::to_string(launch.scratch_bytes) + " fixed";
      if (launch.scratch_bytes_per_thread > 0) {
        parts += " + " + std::to_string(launch.scratch_bytes_per_thread) + " per thread x " + std::to_string(block);
      }
      for (const auto& [name, bytes] : launch.scratch_bytes_per_param) {
        parts += " + " + std::to_string(bytes) + " x " + name + " (" + std::to_string(param_value(params, name)) + ")";
      }
      throw Error(ErrorKind::Unsupported,
                  where + " needs " + std::to_string(scratch) + " bytes of dynamic scratchpad per block (" + parts +
                      ") + " + std::to_string(kernel.static_shared_bytes) + " static, but " + device.name + " offers " +
                      std::to_string(limit) + " bytes per block and no smaller block size the kernel allows fits");
    }
    block = smaller;
    scratch = scratch_bytes_for(launch, block, params);
  }
  if (scratch > UINT32_MAX) {
    throw Error(ErrorKind::Unsupported, where + " needs " + std::to_string(scratch) +
                                            " bytes of dynamic scratchpad per block, more than a launch can pass");
  }

  LaunchConfig config;
  config.block_size = block;
  if (launch.tuples_param.empty()) {
    config.grid_blocks = std::max<uint64_t>(1, launch.fixed_grid);
  } else {
    const uint64_t tuples = param_value(params, launch.tuples_param);
    const uint64_t per_block = uint64_t{block} * launch.items_per_thread;
    config.grid_blocks = std::max<uint64_t>(1, (tuples + per_block - 1) / per_block);
  }
  config.dynamic_shared_bytes = static_cast<uint32_t>(scratch);
  return config;
}

}  // namespace hqc::runtime

// A LaunchSpec and the run's parameters as a planner::LaunchRequest, and the planner's choice as a
// LaunchConfig; see launch_config.h.
#include "runtime/execution/launch_config.h"

#include <algorithm>
#include <cstdlib>

#include "planner/device_profile_from_properties.h"
#include "storage/error.h"

namespace hqc::runtime {

namespace {

uint64_t param_value(const std::map<std::string, int64_t>& params, const std::string& name) {
  return static_cast<uint64_t>(std::max<int64_t>(0, params.at(name)));
}

// HORSEQC_BLOCK_SIZE (experiments: every launch at this many threads per block), or 0 when unset.
uint32_t forced_block_size() {
  const char* text = std::getenv("HORSEQC_BLOCK_SIZE");
  if (text == nullptr || *text == '\0') return 0;
  char* end = nullptr;
  const unsigned long value = std::strtoul(text, &end, 10);
  if (*end != '\0' || value == 0 || value > planner::kMaxBlockSize)
    throw Error(ErrorKind::Usage, std::string("HORSEQC_BLOCK_SIZE: expected a block size of 1 to ") +
                                      std::to_string(planner::kMaxBlockSize) + " threads, got \"" + text + "\"");
  return static_cast<uint32_t>(value);
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

planner::CompiledKernel compiled_kernel(const KernelAttributes& kernel) {
  return {static_cast<uint32_t>(std::max(0, kernel.registers_per_thread)), kernel.static_shared_bytes,
          kernel.max_threads_per_block};
}

namespace {

// The request's scratchpad demand alone (the parts sized by parameters resolved).
planner::LaunchRequest scratch_request(const LaunchSpec& launch, const std::map<std::string, int64_t>& params) {
  planner::LaunchRequest r;
  r.scratch_fixed_bytes = launch.scratch_bytes;
  r.scratch_bytes_per_thread = launch.scratch_bytes_per_thread;
  r.scratch_parts = std::to_string(launch.scratch_bytes) + " fixed";
  for (const auto& [name, bytes] : launch.scratch_bytes_per_param) {
    const uint64_t value = param_value(params, name);
    r.scratch_fixed_bytes += bytes * value;
    r.scratch_parts += " + " + std::to_string(bytes) + " x " + name + " (" + std::to_string(value) + ")";
  }
  return r;
}

}  // namespace

planner::LaunchRequest launch_request(const std::string& label, const LaunchSpec& launch,
                                      const std::map<std::string, int64_t>& params) {
  planner::LaunchRequest r = scratch_request(launch, params);
  r.where = label + ": kernel " + launch.kernel;
  if (!launch.tuples_param.empty()) r.tuples = param_value(params, launch.tuples_param);
  r.fixed_grid = launch.fixed_grid;
  r.items_per_thread = launch.items_per_thread;
  r.strides_over_tiles = launch.strides_over_tiles;
  for (const LaunchSpec::ScratchSlotBound& b : launch.scratch_slot_bounds)
    r.slot_bounds.push_back({b.param, param_value(params, b.param), b.max_slots, b.what});
  r.block_size_multiple = launch.block_size_multiple;
  r.power_of_two_block = launch.power_of_two_block;
  return r;
}

uint64_t scratch_bytes_for(const LaunchSpec& launch, uint32_t block_size, const std::map<std::string, int64_t>& params) {
  return planner::scratch_bytes(scratch_request(launch, params), block_size);
}

LaunchDecision decide_launch(const std::string& label, const LaunchSpec& launch, const KernelAttributes& kernel,
                             const std::map<std::string, int64_t>& params, const DeviceProperties& device) {
  LaunchDecision d{planner::decide_launch(launch_request(label, launch, params), compiled_kernel(kernel),
                                          device_profile_for(device), device.name, forced_block_size()),
                   {}};
  d.config = {.grid_blocks = d.grid_blocks, .block_size = d.block_size, .dynamic_shared_bytes = d.dynamic_shared_bytes};
  return d;
}

std::vector<uint32_t> launchable_block_sizes(const LaunchSpec& launch, const KernelAttributes& kernel,
                                             const std::map<std::string, int64_t>& params, const DeviceProperties& device) {
  return planner::launchable_block_sizes(launch_request("", launch, params), compiled_kernel(kernel), device_profile_for(device));
}

LaunchConfig choose_launch_config(const std::string& label, const LaunchSpec& launch, const KernelAttributes& kernel,
                                  const std::map<std::string, int64_t>& params, const DeviceProperties& device) {
  return decide_launch(label, launch, kernel, params, device).config;
}

}  // namespace hqc::runtime

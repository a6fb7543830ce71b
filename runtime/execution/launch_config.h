// The runtime's side of a launch decision: a LaunchSpec of the executable plan, with the run's
// parameters applied, becomes a planner::LaunchRequest; the planner decides (planner/launch.h: block
// size by occupancy, tuples per thread, grid, scratchpad checks); the result comes back as the
// backend's LaunchConfig. Nothing is decided here.
//
// Contract:
//   - expects a LaunchSpec from a validated plan (every parameter it names is in `params`);
//   - the device profile is planner::profile_from_reported() over the backend's DeviceProperties
//     (device_profile_for());
//   - LaunchSpec::block_size is not consulted; the environment variable HORSEQC_BLOCK_SIZE=N (for
//     experiments) is read here and handed to the planner as the forced block size;
//   - pure apart from that variable (tests call it with made-up DeviceProperties).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "planner/device_profile.h"
#include "planner/launch.h"
#include "planner/occupancy.h"
#include "runtime/device/backend.h"
#include "runtime/execution/executable_plan.h"

namespace hqc::runtime {

// What the planner decided and why (planner::LaunchChoice), with the backend's configuration of it.
struct LaunchDecision : planner::LaunchChoice {
  LaunchConfig config;
};

// The device as the occupancy model sees it (see planner/device_profile_from_properties.h).
planner::DeviceProfile device_profile_for(const DeviceProperties& device);
// The compiled kernel's resources as the occupancy model sees them.
planner::CompiledKernel compiled_kernel(const KernelAttributes& kernel);

// `launch` with `params` applied, as the planner takes it; `label` is the query's name for
// messages (ExecutablePlan::label).
planner::LaunchRequest launch_request(const std::string& label, const LaunchSpec& launch,
                                      const std::map<std::string, int64_t>& params);

// planner::decide_launch for this launch on this device (HORSEQC_BLOCK_SIZE applied).
LaunchDecision decide_launch(const std::string& label, const LaunchSpec& launch, const KernelAttributes& kernel,
                             const std::map<std::string, int64_t>& params, const DeviceProperties& device);

// decide_launch(...).config.
LaunchConfig choose_launch_config(const std::string& label, const LaunchSpec& launch, const KernelAttributes& kernel,
                                  const std::map<std::string, int64_t>& params, const DeviceProperties& device);

// planner::launchable_block_sizes for this launch on this device.
std::vector<uint32_t> launchable_block_sizes(const LaunchSpec& launch, const KernelAttributes& kernel,
                                             const std::map<std::string, int64_t>& params, const DeviceProperties& device);

// Dynamic scratchpad bytes per block of `launch` at `block_size` threads under `params`.
uint64_t scratch_bytes_for(const LaunchSpec& launch, uint32_t block_size, const std::map<std::string, int64_t>& params);

}  // namespace hqc::runtime

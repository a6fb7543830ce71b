// Launch geometry of one kernel launch under the run's parameters: block size, grid and dynamic
// scratchpad, chosen by the planner's occupancy model from the compiled kernel's real attributes and
// checked against the kernel and the device before anything is launched.
//
// Contract:
//   - expects a LaunchSpec from a validated plan (every parameter it names is in `params`);
//   - the device profile is planner::profile_from_reported() over the backend's DeviceProperties
//     (device_profile_for()); the block size is, among the sizes the kernel allows — a multiple of
//     the warp and of LaunchSpec::block_size_multiple, a power of two when power_of_two_block, at
//     most the compiled kernel's and the device's thread limit and kMaxBlockSize — the one whose
//     predicted occupancy (compute_occupancy with the kernel's registers per thread and its static
//     shared bytes + the dynamic scratchpad at that size) is highest, ties broken toward the smaller
//     block; sizes whose scratchpad does not fit the device's per-block shared memory are skipped.
//     LaunchSpec::block_size is not consulted. For experiments, the environment variable
//     HORSEQC_BLOCK_SIZE=N restricts the choice to N threads (Error(Usage) when the kernel does not
//     allow N); the launch statistics show the size every launch ran with;
//   - grid: ceil(tuples / (block · items_per_thread)) blocks, at least 1 (fixed_grid when the launch
//     has no tuple count). With GridPolicy::StrideOverTiles the grid is further capped at
//     blocks-per-SM · SMs · kGridWaves: such kernels stride over tiles, so any grid is correct and
//     a grid larger than a few waves only adds block scheduling;
//   - never returns a configuration whose scratchpad overruns what the kernel was compiled for or
//     what the device offers: a slot count above a LaunchSpec::ScratchSlotBound, or a scratchpad
//     that no allowed block size fits, throws Error(Unsupported) naming the query, the kernel and
//     the numbers; a kernel that cannot run even its required block multiple throws Error(Device);
//   - pure: reads only its arguments (tests call it with made-up DeviceProperties).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "planner/device_profile.h"
#include "planner/occupancy.h"
#include "runtime/backend.h"
#include "runtime/executable_plan.h"

namespace hqc::runtime {

// The local-resolution primitives of templates/device (scan.h, reduce.h) accept at most 1024
// work-items per CTA, whatever the device allows (PoCL offers 4096).
inline constexpr uint32_t kMaxBlockSize = 1024;
// Resident waves a striding kernel's grid is capped at: more than one so that SMs finishing early
// pick up blocks of the last wave, few enough that each block strides over many tiles.
inline constexpr uint64_t kGridWaves = 2;

// Whether the kernel of a launch loops over tiles (generated compound kernels, templates/device/
// tile.h) or covers one tuple per work-item (hand-written kernels): only the former may get a
// grid smaller than its tuples need.
enum class GridPolicy { OneTuplePerWorkItem, StrideOverTiles };

// What the launcher decided and why: the configuration plus the occupancy model's prediction.
struct LaunchDecision {
  LaunchConfig config;
  uint32_t blocks_per_sm = 0;       // β predicted at the chosen block size
  double occupancy = 0;             // active warps / W_SM at the chosen block size
  planner::OccupancyLimit limiting = planner::OccupancyLimit::NotLaunchable;  // what bounds β
  uint64_t grid_for_tuples = 0;     // blocks the tuples need at one tile per block (before the cap)
};

// The device as the occupancy model sees it (see planner/device_profile_from_properties.h).
planner::DeviceProfile device_profile_for(const DeviceProperties& device);

// `label` is the query's name for messages (ExecutablePlan::label).
LaunchDecision decide_launch(const std::string& label, const LaunchSpec& launch, const KernelAttributes& kernel,
                             const std::map<std::string, int64_t>& params, const DeviceProperties& device,
                             GridPolicy grid_policy);

// decide_launch(...).config.
LaunchConfig choose_launch_config(const std::string& label, const LaunchSpec& launch, const KernelAttributes& kernel,
                                  const std::map<std::string, int64_t>& params, const DeviceProperties& device,
                                  GridPolicy grid_policy = GridPolicy::OneTuplePerWorkItem);

// The block sizes decide_launch() considers (the kernel's rules, its and the device's thread limits)
// whose scratchpad fits the device and at which the occupancy model predicts at least one resident
// block, ascending; empty when none. Concurrent launches draw random parameters from these.
std::vector<uint32_t> launchable_block_sizes(const LaunchSpec& launch, const KernelAttributes& kernel,
                                             const std::map<std::string, int64_t>& params, const DeviceProperties& device);

// Dynamic scratchpad bytes per block of `launch` at `block_size` threads under `params`.
uint64_t scratch_bytes_for(const LaunchSpec& launch, uint32_t block_size, const std::map<std::string, int64_t>& params);

}  // namespace hqc::runtime

// The launch geometry of one kernel launch — block size, grid, dynamic scratchpad, tuples per
// thread — chosen by the occupancy model (occupancy.h) from the compiled kernel's real resources,
// and checked against the kernel and the device before anything is launched. Every launch decision
// of a single query is taken here; the runtime only fills a LaunchRequest from its plan and the
// run's parameters, and applies the LaunchChoice (runtime/execution/launch_config.h).
//
// Contract:
//   - block size: among the sizes the kernel allows — multiples of the warp and of
//     LaunchRequest::block_size_multiple, powers of two when power_of_two_block, at most the
//     compiled kernel's and the device's thread limit and kMaxBlockSize — the one whose predicted
//     occupancy (compute_occupancy with the kernel's registers per thread and its static shared
//     bytes + the dynamic scratchpad at that size) is highest, ties broken toward the smaller block;
//     sizes whose scratchpad exceeds the device's opt-in limit are skipped. `forced_block` (an
//     experiment's HORSEQC_BLOCK_SIZE) restricts the choice to that size (Error(Usage) when the
//     kernel does not allow it).
//   - tuples per thread: a kernel that strides over tiles takes tuples_per_thread(tuples) (4 above
//     2^20 tuples, else 1: fewer, fuller blocks for big scans); a kernel with one work-item per
//     tuple takes LaunchRequest::items_per_thread as given.
//   - grid: ceil(tuples / (block · tuples per thread)) blocks, at least 1, or fixed_grid blocks when
//     the launch has no tuple count. A kernel that strides over tiles gets at most blocks-per-SM ·
//     SMs · kGridWaves: any grid is correct for it and more waves only add block scheduling.
//   - never returns a configuration whose scratchpad overruns what the kernel was compiled for or
//     what the device offers: a slot count above a SlotBound, or a scratchpad no allowed block fits,
//     throws Error(Unsupported) naming the launch and the numbers; a kernel that cannot run even its
//     required block multiple throws Error(Device).
//   - pure: reads only its arguments (no device, no environment).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "planner/device_profile.h"
#include "planner/occupancy.h"

namespace hqc::planner {

// The local-resolution primitives of templates/device (scan.h, reduce.h) accept at most 1024
// work-items per CTA, whatever the device allows (PoCL offers 4096).
inline constexpr uint32_t kMaxBlockSize = 1024;
// Resident waves a striding kernel's grid is capped at: more than one so that SMs finishing early
// pick up blocks of the last wave, few enough that each block strides over many tiles.
inline constexpr uint64_t kGridWaves = 2;
// Above this many tuples a tile-striding kernel's grid is sized for 4 tuples per thread.
inline constexpr uint64_t kManyTuples = uint64_t{1} << 20;

// One launch as the planner sees it: the kernel's constraints with the run's parameters applied.
struct LaunchRequest {
  std::string where;                       // "q2_1: kernel q2_1_p3_aggregate", for messages
  std::optional<uint64_t> tuples;          // rows the launch covers; none: fixed_grid blocks
  uint64_t fixed_grid = 1;
  uint32_t items_per_thread = 1;           // one work-item per tuple kernels only
  bool strides_over_tiles = false;         // generated compound kernels (templates/device/tile.h)
  // Dynamic scratchpad per block = scratch_fixed_bytes + scratch_bytes_per_thread · block.
  uint64_t scratch_fixed_bytes = 0;        // includes the parts sized by parameters (resolved)
  uint32_t scratch_bytes_per_thread = 0;
  std::string scratch_parts;               // how scratch_fixed_bytes is made up, for messages
  // The slot counts a scratchpad layout was compiled for (a table privatised per CTA, C3).
  struct SlotBound {
    std::string param;                     // "agg0_slots"
    uint64_t slots = 0;                    // its value in this run
    uint64_t max_slots = 0;                // the bound the kernel was compiled against
    std::string what;                      // "aggregation table agg0 privatised in scratchpad (24 B/slot)"
  };
  std::vector<SlotBound> slot_bounds;
  uint32_t block_size_multiple = 1;
  bool power_of_two_block = false;
};

// What the compiled kernel needs per thread and per block (from the driver, after compilation).
struct CompiledKernel {
  uint32_t registers_per_thread = 0;       // 0 when the API does not say (OpenCL)
  uint64_t static_shared_bytes = 0;
  uint32_t max_threads_per_block = 0;      // 0: the device's limit
};

// What the planner decided and why.
struct LaunchChoice {
  uint32_t block_size = 0;
  uint64_t grid_blocks = 0;
  uint32_t dynamic_shared_bytes = 0;
  uint32_t items_per_thread = 1;           // tuples per thread the grid was sized for
  uint32_t blocks_per_sm = 0;              // β predicted at the chosen block size
  double occupancy = 0;                    // active warps / W_SM at the chosen block size
  OccupancyLimit limiting = OccupancyLimit::NotLaunchable;  // what bounds β
  uint64_t grid_for_tuples = 0;            // blocks the tuples need (before the cap)
};

// See the contract. `device_name` names the device in messages.
LaunchChoice decide_launch(const LaunchRequest& launch, const CompiledKernel& kernel, const DeviceProfile& device,
                           const std::string& device_name, uint32_t forced_block = 0);

// The block sizes decide_launch() considers whose scratchpad fits the device and at which the
// occupancy model predicts at least one resident block, ascending; empty when none. Concurrent
// launches (the knapsack, random parameters) choose among these.
std::vector<uint32_t> launchable_block_sizes(const LaunchRequest& launch, const CompiledKernel& kernel,
                                             const DeviceProfile& device);

// Dynamic scratchpad bytes per block of `launch` at `block_size` threads.
uint64_t scratch_bytes(const LaunchRequest& launch, uint32_t block_size);

// Tuples per thread a tile-striding kernel's grid is sized for (see the contract).
uint32_t tuples_per_thread(uint64_t tuples);

}  // namespace hqc::planner

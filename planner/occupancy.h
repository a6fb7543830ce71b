// Single-kernel occupancy (seed 000, Eqs. 1–9, generalized to CC 7.0+ allocation rules) and the
// co-residence check for several kernels sharing an SM.
//
// Contract (notation of DESIGN.md §5):
//   ω  = ⌈T / warp⌉ warps per block;
//   θ  = ⌈R·warp / G_R⌉·G_R registers allocated per warp;
//   the register file is split into G_W sub-partitions of R_SM/G_W registers and a warp lives in one:
//   ρ  = ⌊R_SM / (θ·G_W)⌋·G_W warps per SM by registers;
//   ζ  = ⌈(S + reserved) / unit⌉·unit shared bytes allocated per block;
//   β  = min(β_W, β_R, β_S, B_SM) with β_W = ⌊W_SM/ω⌋, β_R = ⌊ρ/ω⌋, β_S = ⌊S_SM/ζ⌋.
//   A block that cannot run at all (T above the block limit, R above the per-thread maximum, a
//   block's registers above the per-block file, S above the opt-in limit) gives β = 0.
//   Shared memory above the no-opt-in limit is assumed opted in (the runtime sets the attribute).
//   The result equals cudaOccMaxActiveBlocksPerMultiprocessor of CUDA 13's cuda_occupancy.h for
//   every built-in profile (tests/planner/occupancy_oracle_test.cpp checks it exhaustively).
//
//   co_resident() generalizes the limits to several kernels on one SM: blocks and warps add up,
//   shared memory adds up by ζ, and each kernel's warps spread evenly over the G_W sub-partitions
//   (Σ ⌈b_i·ω_i/G_W⌉·θ_i ≤ R_SM/G_W), which reduces to β_R for a single kernel.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>

#include "planner/device_profile.h"

namespace hqc::planner {

inline constexpr uint32_t kUnlimitedBlocks = std::numeric_limits<uint32_t>::max();

struct KernelResources {
  uint32_t block_size = 0;             // threads per block, T
  uint32_t registers_per_thread = 0;   // R
  uint64_t shared_per_block = 0;       // S, static + dynamic bytes requested by the kernel
};

enum class OccupancyLimit { Warps, Registers, SharedMemory, Blocks, NotLaunchable };

struct Occupancy {
  uint32_t blocks_per_sm = 0;          // β
  uint32_t limit_warps = 0;            // β_W (0 when T exceeds the block limit)
  uint32_t limit_registers = 0;        // β_R, kUnlimitedBlocks when R = 0
  uint32_t limit_shared = 0;           // β_S, kUnlimitedBlocks when ζ = 0
  uint32_t limit_blocks = 0;           // B_SM
  uint32_t warps_per_block = 0;        // ω
  uint32_t registers_per_warp = 0;     // θ
  uint64_t shared_allocated_per_block = 0;  // ζ
  uint32_t active_warps = 0;           // β·ω
  double occupancy = 0;                // β·ω / W_SM
  OccupancyLimit limiting = OccupancyLimit::NotLaunchable;
  std::string reason;                  // why β = 0, empty otherwise
};

uint32_t warps_per_block(const DeviceProfile& device, uint32_t block_size);
uint32_t allocated_registers_per_warp(const DeviceProfile& device, uint32_t registers_per_thread);
uint64_t allocated_shared_per_block(const DeviceProfile& device, uint64_t shared_bytes);
// The empty string when one block of `kernel` can run on an SM, else the reason it cannot.
std::string launch_blocker(const DeviceProfile& device, const KernelResources& kernel);

Occupancy compute_occupancy(const DeviceProfile& device, const KernelResources& kernel);

// Seed 000's running rounds: ⌈grid_blocks / (β·#SM)⌉; 0 for an empty grid.
// Throws Error(Input) when β = 0 and the grid is not empty.
uint64_t running_rounds(const DeviceProfile& device, const Occupancy& occupancy, uint64_t grid_blocks);

// One kernel's share of an SM: `blocks` resident blocks of `kernel`.
struct Placement {
  KernelResources kernel;
  uint32_t blocks = 0;
};

// Resources a set of placements takes on one SM, in the units the limits are checked in.
struct SmUsage {
  uint64_t blocks = 0;
  uint64_t warps = 0;
  uint64_t register_rows = 0;          // Σ ⌈b·ω/G_W⌉·θ, compared with R_SM / G_W
  uint64_t shared = 0;                 // Σ b·ζ
};

SmUsage sm_usage(const DeviceProfile& device, std::span<const Placement> placements);
// The empty string when all placements fit on one SM at once, else which limit they exceed.
std::string co_resident(const DeviceProfile& device, std::span<const Placement> placements);

const char* to_string(OccupancyLimit limit);

}  // namespace hqc::planner

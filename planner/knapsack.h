// Kernel-level resource allocation for kernels that run at the same time (seed 002, Eqs. 11–15,
// Theorem 1, Algorithm 1), solved by the Bellman recurrence of DESIGN.md §5.
//
// Contract:
//   - Input: per kernel its thread demand c_i over the whole device, registers per thread r_i and
//     shared memory per block s_i(T) as a function of the block size (a compound kernel's
//     scratchpad for local resolution grows with T). Demand is spread over the SMs:
//     c'_i = ⌈c_i / #SM⌉ threads per SM.
//   - Output per kernel: b_i blocks per SM and w_i warps per block with w_i = ⌈c'_i / (32·b_i)⌉
//     (Theorem 1: the fewest warps that meet the demand), 1 ≤ w_i ≤ max_threads_per_block/32,
//     minimizing Σ b_i·ζ_i (ζ: shared memory allocated per block, occupancy.h) subject to
//     Σ b_i ≤ B_SM and Σ w_i·b_i ≤ W_SM. Ties go to fewer total warps, then fewer total blocks,
//     then the lexicographically smallest (b_1, b_2, ...), so the answer is unique.
//   - The recurrence V[i][b][w] = min over b_i of V[i−1][b−b_i][w−w_i·b_i] + ζ_i·b_i runs in
//     O(n·B_SM·W_SM·B_SM) time and O(n·B_SM·W_SM) memory: pseudo-polynomial in the device limits,
//     linear in n. `dp_cells` reports the table size so tests can check the bound.
//   - After the recurrence the solution is checked against registers and shared memory with
//     co_resident() (occupancy.h); `feasible` is true exactly when all kernels fit one SM at once,
//     and `reason` says which limit failed otherwise (no solution of the warps/blocks problem,
//     registers, shared memory, or a kernel that cannot launch at all).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "planner/device_profile.h"
#include "planner/occupancy.h"

namespace hqc::planner {

// Shared memory per block for a block of `block_size` threads.
using SharedMemoryFunction = std::function<uint64_t(uint32_t block_size)>;

// s(T) = fixed + per_thread·T: the shape of every scratchpad horseqc's templates allocate.
SharedMemoryFunction linear_shared_memory(uint64_t fixed_bytes, uint64_t bytes_per_thread);

struct KernelDemand {
  std::string name;
  uint64_t threads = 0;                // c_i, over the whole device
  uint32_t registers_per_thread = 0;   // r_i
  SharedMemoryFunction shared_per_block = linear_shared_memory(0, 0);  // s_i(T)
  // Block sizes the compiled kernel accepts (its local-resolution primitives): a power of two
  // and/or at most `max_block_size` threads (0: the device limit). Under these rules Theorem 1's w_i
  // becomes the fewest *allowed* warps per block that meet the demand (⌈c'_i / 32 b_i⌉ rounded up to
  // the next allowed size); a b_i whose rounded w_i is above the limit is no choice.
  bool power_of_two_block = false;
  uint32_t max_block_size = 0;
  uint32_t min_block_size = 0;         // e.g. a warp-synchronous scan's 32 (0: one warp)
};

struct KernelLaunch {
  uint32_t blocks_per_sm = 0;          // b_i
  uint32_t warps_per_block = 0;        // w_i
  uint32_t block_size = 0;             // 32·w_i
  uint64_t shared_per_block = 0;       // s_i(block_size)
  uint64_t grid_blocks = 0;            // b_i·#SM: one resident round over the whole device
};

struct KernelPlan {
  bool feasible = false;
  std::string reason;                  // empty when feasible
  std::vector<KernelLaunch> launches;  // one per kernel, in input order (empty without a solution)
  uint64_t shared_per_sm = 0;          // Σ b_i·ζ_i, the objective
  uint64_t warps_per_sm = 0;           // Σ w_i·b_i
  uint64_t blocks_per_sm = 0;          // Σ b_i
  uint64_t dp_cells = 0;               // (n+1)·(B_SM+1)·(W_SM+1)
};

// Threads per SM a kernel asks for: ⌈threads / #SM⌉, at least 1.
uint64_t per_sm_demand(const DeviceProfile& device, uint64_t threads);
// Theorem 1: w = ⌈demand / (warp·b)⌉, at least 1.
uint32_t warps_for_blocks(const DeviceProfile& device, uint64_t per_sm_threads, uint32_t blocks);
// Theorem 1 under the kernel's block-size rules (KernelDemand::power_of_two_block, min_block_size):
// the fewest warps per block, at least warps_for_blocks(), whose block size the kernel accepts.
uint32_t allowed_warps_for_blocks(const DeviceProfile& device, const KernelDemand& kernel, uint64_t per_sm_threads,
                                  uint32_t blocks);

KernelPlan plan_kernels(const DeviceProfile& device, const std::vector<KernelDemand>& kernels);

// The placements a plan puts on each SM (for co_resident() / sm_usage()).
std::vector<Placement> placements(const std::vector<KernelDemand>& kernels, const KernelPlan& plan);

}  // namespace hqc::planner

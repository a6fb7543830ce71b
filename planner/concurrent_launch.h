// Launch geometry of kernels that run at the same time — one phase of concurrent queries, each
// query's main launch on its own stream: the knapsack's launches (plan_concurrent over an equal share
// of the device per kernel) or, for experiments, random block sizes and grids. A launch that runs
// alone takes decide_launch() (launch.h); the executor applies what is chosen here.
//
// Contract:
//   - knapsack_can_plan(): the kernel strides over tiles (any grid is correct) and the knapsack can
//     honour its block multiple (it sizes blocks in whole warps; a larger multiple only through
//     power-of-two blocks).
//   - plan_concurrent_launches(): every kernel's demand is its tile threads (tuples / tuples per
//     thread) capped at an equal share of each SM's warps (whole warps, so the shares' sum fits
//     W_SM); plan_concurrent() then sizes blocks and grids, in one batch when they fit together,
//     else in batches (its packing method named in `planner`). Scratchpad per block is the
//     request's at each block size. Results are in the input's order.
//   - random_launch(): a block size drawn uniformly from launchable_block_sizes(), then a grid drawn
//     from 1 .. 2 · blocks per SM · SMs; std::nullopt when no block size can run.
//   - pure (the generator is the caller's).
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "planner/device_profile.h"
#include "planner/launch.h"

namespace hqc::planner {

struct ConcurrentKernel {
  std::string name;          // "q2_1/q2_1_p3_aggregate"
  LaunchRequest request;     // tuples: the rows it covers in this phase (a chunk's when streamed)
  CompiledKernel kernel;
};

struct ConcurrentChoice {
  uint32_t block_size = 0;
  uint64_t grid_blocks = 0;
  uint32_t dynamic_shared_bytes = 0;
  uint32_t blocks_per_sm = 0;
  size_t batch = 0;            // kernels of one batch run together; batches one after the other
  uint64_t demand_threads = 0; // the demand the knapsack was given (0: random)
};

struct ConcurrentLaunches {
  std::vector<ConcurrentChoice> kernels;  // in the input's order
  size_t batches = 0;
  std::string planner;                    // "knapsack", or "knapsack+<packing method>" over batches
};

bool knapsack_can_plan(const LaunchRequest& launch, const DeviceProfile& device);

// Every kernel must satisfy knapsack_can_plan() (Error(Internal) otherwise).
ConcurrentLaunches plan_concurrent_launches(const std::vector<ConcurrentKernel>& kernels, const DeviceProfile& device);

std::optional<ConcurrentChoice> random_launch(const ConcurrentKernel& kernel, const DeviceProfile& device,
                                              std::mt19937_64& rng);

}  // namespace hqc::planner

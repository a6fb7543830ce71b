// Launch parameters for a set of kernels meant to run at the same time: the kernel-level knapsack
// when they all fit one SM, else batch-level packing into the fewest batches and the knapsack per
// batch (seed 002's two models, composed as its Section III describes).
//
// Contract:
//   - A kernel's thread demand is capped at one full device (max_threads_per_sm·#SM), and further at
//     the most threads of it one SM can hold alone (registers, shared memory) when the knapsack finds
//     no feasible launch for it alone: a kernel that wants more runs in several rounds of its
//     grid-stride loop, which the plan does not change. `capped` holds the demands planned for.
//   - Every kernel appears in exactly one batch; every batch's launches are co-resident per
//     co_resident() (occupancy.h). Batches run one after the other.
//   - Within a batch the knapsack's launches are used when they pass its feasibility checks; when
//     they fail (the knapsack optimizes shared memory only, registers can still overflow) the
//     kernels' stand-alone launches are used, which fit by construction of the packing.
//   - Throws Error(Input) naming a kernel that cannot run on the device even alone.
#pragma once

#include <vector>

#include "planner/batch_packing.h"
#include "planner/knapsack.h"

namespace hqc::planner {

struct Batch {
  std::vector<size_t> kernels;     // indices into the input
  KernelPlan plan;                 // launches in the order of `kernels`
};

struct ConcurrentPlan {
  std::vector<Batch> batches;
  Packing packing;                 // empty batches when everything fit at once
  std::vector<KernelDemand> capped; // the demands the plan was made for
};

ConcurrentPlan plan_concurrent(const DeviceProfile& device, const std::vector<KernelDemand>& kernels);

// A kernel's resources on one SM under `launch`, as a packing item.
PackItem pack_item(const DeviceProfile& device, const KernelDemand& kernel, const KernelLaunch& launch);

}  // namespace hqc::planner

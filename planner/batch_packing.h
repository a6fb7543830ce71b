// Batch-level packing (seed 002, Eqs. 16–22, Algorithm 2): when kernels cannot all be resident at
// once, split them into the fewest batches that each fit one SM under blocks, warps, registers and
// shared memory — a vector bin-packing problem.
//
// Contract:
//   - Items and capacities are vectors over the kResourceCount dimensions of SmUsage (occupancy.h):
//     blocks, warps, register rows per sub-partition, shared bytes. Every item must fit an empty
//     batch alone (else Error(Input) naming it). A batch fits when every dimension's sum is within
//     capacity, which is exactly co_resident() for kernels' placements.
//   - first_fit_decreasing(): items by their largest capacity share, descending; each goes to the
//     first batch with room.
//   - exact_packing(): depth-first search over assignments with the FFD count as the first bound and
//     the per-dimension volume bound; returns nothing when it exceeds `max_nodes` nodes.
//   - column_generation_packing(): Gilmore–Gomory column generation. The master LP relaxation
//     min Σ x_j s.t. Σ_j P_ij·x_j ≥ 1, x ≥ 0 is solved through its dual with simplex.h; the pricing
//     problem max Σ π_i·P_i over feasible patterns is solved exactly by branch and bound (up to a
//     node limit; `lp_bound_proven` says whether it was reached). The LP
//     optimum, rounded up, is a lower bound on the batches. The integer solution comes from diving:
//     fix the pattern with the largest x_j, drop its items, regenerate columns for the rest, repeat.
//     The result is the better of diving and FFD (`method` says which), so it is never worse than FFD.
//   - Batches list item indices in increasing order; batches are ordered by their first item.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "planner/device_profile.h"

namespace hqc::planner {

inline constexpr size_t kResourceCount = 4;
using ResourceVector = std::array<uint64_t, kResourceCount>;  // blocks, warps, register rows, shared

struct PackItem {
  std::string name;
  ResourceVector demand{};
};

enum class PackingMethod { FirstFitDecreasing, ColumnGeneration, Exact };

struct Packing {
  std::vector<std::vector<size_t>> batches;
  PackingMethod method = PackingMethod::FirstFitDecreasing;
  double lp_bound = 0;          // LP relaxation optimum (column generation only; else 0)
  bool lp_bound_proven = false; // false when pricing hit its node limit: lp_bound is then no bound
  size_t columns = 0;           // patterns generated
  size_t lp_solves = 0;
  size_t ffd_batches = 0;       // what FFD alone gives, for comparison
  size_t diving_batches = 0;    // what diving alone gives
};

// The capacity of one SM in the dimensions of ResourceVector.
ResourceVector sm_capacity(const DeviceProfile& device);

Packing first_fit_decreasing(const std::vector<PackItem>& items, const ResourceVector& capacity);
std::optional<Packing> exact_packing(const std::vector<PackItem>& items, const ResourceVector& capacity,
                                     uint64_t max_nodes = 2'000'000);
Packing column_generation_packing(const std::vector<PackItem>& items, const ResourceVector& capacity);

// Whether the items of `batch` fit together.
bool batch_fits(const std::vector<PackItem>& items, const std::vector<size_t>& batch, const ResourceVector& capacity);

const char* to_string(PackingMethod method);

}  // namespace hqc::planner

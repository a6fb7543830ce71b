// Batch-level packing: FFD, exact search, column generation with diving. See batch_packing.h.
#include "planner/batch_packing.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <set>

#include "planner/occupancy.h"
#include "planner/simplex.h"
#include "storage/error.h"

namespace hqc::planner {
namespace {

constexpr double kEps = 1e-9;
// Pricing is exponential in the worst case; past this many nodes it returns the best pattern found,
// which still improves the LP when it prices out, but no longer proves the LP optimal.
constexpr uint64_t kPricingNodeLimit = 1'000'000;

using Pattern = std::vector<size_t>;  // sorted item indices

bool fits_add(ResourceVector& load, const ResourceVector& demand, const ResourceVector& capacity) {
  for (size_t d = 0; d < kResourceCount; ++d) {
    if (load[d] + demand[d] > capacity[d]) return false;
  }
  for (size_t d = 0; d < kResourceCount; ++d) load[d] += demand[d];
  return true;
}

double largest_share(const ResourceVector& demand, const ResourceVector& capacity) {
  double s = 0;
  for (size_t d = 0; d < kResourceCount; ++d) s = std::max(s, static_cast<double>(demand[d]) / static_cast<double>(capacity[d]));
  return s;
}

void check_items(const std::vector<PackItem>& items, const ResourceVector& capacity) {
  for (size_t d = 0; d < kResourceCount; ++d) {
    if (capacity[d] == 0) throw Error(ErrorKind::Internal, "batch packing: zero capacity in dimension " + std::to_string(d));
  }
  for (const PackItem& it : items) {
    ResourceVector load{};
    if (!fits_add(load, it.demand, capacity)) {
      throw Error(ErrorKind::Input, "kernel " + it.name + " does not fit one SM even alone");
    }
  }
}

void normalize(std::vector<std::vector<size_t>>& batches) {
  for (auto& b : batches) std::sort(b.begin(), b.end());
  std::sort(batches.begin(), batches.end(), [](const auto& x, const auto& y) { return x.front() < y.front(); });
}

// Packs `subset` (item indices) first-fit in decreasing largest-share order.
std::vector<Pattern> ffd_batches(const std::vector<PackItem>& items, std::vector<size_t> subset, const ResourceVector& capacity) {
  std::stable_sort(subset.begin(), subset.end(), [&](size_t a, size_t b) {
    return largest_share(items[a].demand, capacity) > largest_share(items[b].demand, capacity);
  });
  std::vector<Pattern> bins;
  std::vector<ResourceVector> loads;
  for (size_t i : subset) {
    bool placed = false;
    for (size_t k = 0; k < bins.size() && !placed; ++k) {
      if (fits_add(loads[k], items[i].demand, capacity)) {
        bins[k].push_back(i);
        placed = true;
      }
    }
    if (!placed) {
      bins.push_back({i});
      loads.push_back({});
      fits_add(loads.back(), items[i].demand, capacity);
    }
  }
  return bins;
}

// Pricing: the feasible subset of `candidates` with the largest Σ π (exact branch and bound).
Pattern price(const std::vector<PackItem>& items, const std::vector<size_t>& candidates, const std::vector<double>& pi,
              const ResourceVector& capacity, double& best_value, bool& exhaustive) {
  std::vector<size_t> order;
  for (size_t i : candidates) {
    if (pi[i] > kEps) order.push_back(i);
  }
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return pi[a] > pi[b]; });
  std::vector<double> suffix(order.size() + 1, 0.0);
  for (size_t k = order.size(); k-- > 0;) suffix[k] = suffix[k + 1] + pi[order[k]];
  Pattern best, current;
  best_value = 0;
  uint64_t nodes = 0;
  exhaustive = true;
  std::function<void(size_t, ResourceVector, double)> dfs = [&](size_t k, ResourceVector load, double value) {
    if (++nodes > kPricingNodeLimit) {
      exhaustive = false;
      return;
    }
    if (value > best_value + kEps) {
      best_value = value;
      best = current;
    }
    if (k == order.size() || value + suffix[k] <= best_value + kEps) return;
    ResourceVector with = load;
    if (fits_add(with, items[order[k]].demand, capacity)) {
      current.push_back(order[k]);
      dfs(k + 1, with, value + pi[order[k]]);
      current.pop_back();
    }
    dfs(k + 1, load, value);
  };
  dfs(0, ResourceVector{}, 0.0);
  std::sort(best.begin(), best.end());
  return best;
}

struct LpResult {
  std::vector<Pattern> patterns;
  std::vector<double> usage;  // x_j
  double value = 0;
  bool proven = true;         // pricing was exhaustive when the generation stopped
};

// Column generation for the items in `remaining`, starting from `pool` restricted to them.
LpResult solve_master(const std::vector<PackItem>& items, const std::vector<size_t>& remaining, const std::vector<Pattern>& pool,
                      const ResourceVector& capacity, Packing& stats) {
  std::vector<size_t> position(items.size(), SIZE_MAX);
  for (size_t k = 0; k < remaining.size(); ++k) position[remaining[k]] = k;
  std::set<Pattern> seen;
  LpResult lp;
  auto add = [&](const Pattern& p) {
    Pattern q;
    for (size_t i : p) {
      if (position[i] != SIZE_MAX) q.push_back(i);
    }
    if (!q.empty() && seen.insert(q).second) lp.patterns.push_back(q);
  };
  for (size_t i : remaining) add({i});
  for (const Pattern& p : pool) add(p);
  for (Pattern p : ffd_batches(items, remaining, capacity)) {
    std::sort(p.begin(), p.end());
    add(p);
  }
  for (;;) {
    // Dual of the master: max Σ π_i s.t. Σ_{i∈p} π_i ≤ 1 for every pattern p, π ≥ 0.
    std::vector<std::vector<double>> A(lp.patterns.size(), std::vector<double>(remaining.size(), 0.0));
    for (size_t j = 0; j < lp.patterns.size(); ++j) {
      for (size_t i : lp.patterns[j]) A[j][position[i]] = 1.0;
    }
    const LpSolution sol = maximize_simplex(A, std::vector<double>(lp.patterns.size(), 1.0),
                                            std::vector<double>(remaining.size(), 1.0));
    ++stats.lp_solves;
    std::vector<double> pi(items.size(), 0.0);
    for (size_t k = 0; k < remaining.size(); ++k) pi[remaining[k]] = sol.primal[k];
    double value = 0;
    bool exhaustive = true;
    Pattern column = price(items, remaining, pi, capacity, value, exhaustive);
    // A column prices out (reduced cost 1 − Σπ < 0) only when Σπ > 1; otherwise the LP is optimal.
    if (value <= 1.0 + 1e-7 || !seen.insert(column).second) {
      lp.usage = sol.dual;
      lp.value = sol.objective;
      lp.proven = exhaustive;
      return lp;
    }
    lp.patterns.push_back(column);
    ++stats.columns;
  }
}

}  // namespace

ResourceVector sm_capacity(const DeviceProfile& device) {
  return ResourceVector{device.max_blocks_per_sm, device.max_warps_per_sm(),
                        device.registers_per_sm / device.register_warp_granularity, device.shared_per_sm};
}

bool batch_fits(const std::vector<PackItem>& items, const std::vector<size_t>& batch, const ResourceVector& capacity) {
  ResourceVector load{};
  for (size_t i : batch) {
    if (!fits_add(load, items[i].demand, capacity)) return false;
  }
  return true;
}

Packing first_fit_decreasing(const std::vector<PackItem>& items, const ResourceVector& capacity) {
  check_items(items, capacity);
  std::vector<size_t> all(items.size());
  std::iota(all.begin(), all.end(), size_t{0});
  Packing p;
  p.batches = ffd_batches(items, all, capacity);
  normalize(p.batches);
  p.method = PackingMethod::FirstFitDecreasing;
  p.ffd_batches = p.batches.size();
  return p;
}

std::optional<Packing> exact_packing(const std::vector<PackItem>& items, const ResourceVector& capacity, uint64_t max_nodes) {
  Packing best = first_fit_decreasing(items, capacity);
  const size_t n = items.size();
  // Volume bound: no packing uses fewer batches than the fullest dimension needs.
  size_t lower = n == 0 ? 0 : 1;
  for (size_t d = 0; d < kResourceCount; ++d) {
    uint64_t sum = 0;
    for (const PackItem& it : items) sum += it.demand[d];
    lower = std::max<size_t>(lower, static_cast<size_t>((sum + capacity[d] - 1) / capacity[d]));
  }
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return largest_share(items[a].demand, capacity) > largest_share(items[b].demand, capacity);
  });
  std::vector<std::vector<size_t>> bins;
  std::vector<ResourceVector> loads;
  uint64_t nodes = 0;
  bool aborted = false;
  std::function<void(size_t)> dfs = [&](size_t k) {
    if (aborted || best.batches.size() <= lower) return;
    if (++nodes > max_nodes) {
      aborted = true;
      return;
    }
    if (k == n) {
      if (bins.size() < best.batches.size()) best.batches = bins;
      return;
    }
    const size_t i = order[k];
    for (size_t b = 0; b < bins.size(); ++b) {
      ResourceVector load = loads[b];
      if (!fits_add(load, items[i].demand, capacity)) continue;
      std::swap(load, loads[b]);
      bins[b].push_back(i);
      dfs(k + 1);
      bins[b].pop_back();
      std::swap(load, loads[b]);
    }
    // Opening a new batch is worth it only if it can still beat the best packing.
    if (bins.size() + 1 < best.batches.size()) {
      bins.push_back({i});
      loads.push_back(items[i].demand);
      dfs(k + 1);
      bins.pop_back();
      loads.pop_back();
    }
  };
  dfs(0);
  if (aborted) return std::nullopt;
  normalize(best.batches);
  best.method = PackingMethod::Exact;
  return best;
}

Packing column_generation_packing(const std::vector<PackItem>& items, const ResourceVector& capacity) {
  Packing ffd = first_fit_decreasing(items, capacity);
  Packing out;
  out.ffd_batches = ffd.batches.size();
  if (items.empty()) return ffd;

  std::vector<size_t> remaining(items.size());
  std::iota(remaining.begin(), remaining.end(), size_t{0});
  std::vector<Pattern> pool;
  std::vector<std::vector<size_t>> dive;
  bool first = true;
  while (!remaining.empty()) {
    LpResult lp = solve_master(items, remaining, pool, capacity, out);
    if (first) {
      out.lp_bound = lp.value;
      out.lp_bound_proven = lp.proven;
      first = false;
    }
    pool.insert(pool.end(), lp.patterns.begin(), lp.patterns.end());
    // Fix the most used pattern; an integral LP solution is taken whole, one pattern per pass.
    size_t pick = 0;
    for (size_t j = 1; j < lp.patterns.size(); ++j) {
      if (lp.usage[j] > lp.usage[pick] + kEps) pick = j;
    }
    const Pattern chosen = lp.patterns[pick];
    dive.push_back(chosen);
    std::vector<size_t> rest;
    std::set_difference(remaining.begin(), remaining.end(), chosen.begin(), chosen.end(), std::back_inserter(rest));
    remaining = std::move(rest);
  }
  out.diving_batches = dive.size();
  if (dive.size() <= ffd.batches.size()) {
    out.batches = std::move(dive);
    out.method = PackingMethod::ColumnGeneration;
  } else {
    out.batches = std::move(ffd.batches);
    out.method = PackingMethod::FirstFitDecreasing;
  }
  normalize(out.batches);
  return out;
}

const char* to_string(PackingMethod method) {
  switch (method) {
    case PackingMethod::FirstFitDecreasing: return "first-fit-decreasing";
    case PackingMethod::ColumnGeneration: return "column generation";
    case PackingMethod::Exact: return "exact search";
  }
  return "?";
}

}  // namespace hqc::planner

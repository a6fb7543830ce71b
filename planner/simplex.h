// A small dense simplex method for the master problem of batch-level column generation.
//
// Contract: solves  maximize cᵀy  subject to  A·y ≤ b,  y ≥ 0  with b ≥ 0 (so the slack basis is
// feasible and no phase 1 is needed). Bland's rule prevents cycling. Returns the optimum y, its
// value, and the optimal dual x ≥ 0 (one value per row of A), which is the solution of
// minimize bᵀx subject to Aᵀx ≥ c, x ≥ 0. Throws Error(Internal) when the problem is unbounded
// or the input is malformed (b < 0, ragged A), since the callers construct bounded problems.
// Sizes are those of column generation over a query's kernels: tens of rows and columns.
#pragma once

#include <vector>

namespace hqc::planner {

struct LpSolution {
  std::vector<double> primal;  // y, one per column of A
  std::vector<double> dual;    // x, one per row of A
  double objective = 0;
  int pivots = 0;
};

LpSolution maximize_simplex(const std::vector<std::vector<double>>& A, const std::vector<double>& b,
                            const std::vector<double>& c);

}  // namespace hqc::planner

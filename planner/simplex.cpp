// Dense tableau simplex with Bland's rule. See simplex.h.
#include "planner/simplex.h"

#include <cmath>
#include <string>

#include "storage/error.h"

namespace hqc::planner {
namespace {
constexpr double kEps = 1e-9;
}

LpSolution maximize_simplex(const std::vector<std::vector<double>>& A, const std::vector<double>& b,
                            const std::vector<double>& c) {
  const size_t m = A.size();
  const size_t n = c.size();
  if (b.size() != m) throw Error(ErrorKind::Internal, "simplex: " + std::to_string(m) + " rows but " + std::to_string(b.size()) + " bounds");
  for (size_t i = 0; i < m; ++i) {
    if (A[i].size() != n) throw Error(ErrorKind::Internal, "simplex: row " + std::to_string(i) + " has the wrong width");
    if (b[i] < 0) throw Error(ErrorKind::Internal, "simplex: negative bound in row " + std::to_string(i));
  }
  // Tableau rows 0..m−1: [A | I | b]; row m: the objective as z − cᵀy − 0·s = 0.
  const size_t width = n + m + 1;
  std::vector<std::vector<double>> T(m + 1, std::vector<double>(width, 0.0));
  std::vector<size_t> basis(m);
  for (size_t i = 0; i < m; ++i) {
    for (size_t j = 0; j < n; ++j) T[i][j] = A[i][j];
    T[i][n + i] = 1.0;
    T[i][width - 1] = b[i];
    basis[i] = n + i;
  }
  for (size_t j = 0; j < n; ++j) T[m][j] = -c[j];

  LpSolution out;
  for (;;) {
    // Bland: the entering column is the lowest index with a negative reduced cost.
    size_t enter = width;
    for (size_t j = 0; j + 1 < width; ++j) {
      if (T[m][j] < -kEps) {
        enter = j;
        break;
      }
    }
    if (enter == width) break;
    size_t leave = m;
    double best_ratio = 0;
    for (size_t i = 0; i < m; ++i) {
      if (T[i][enter] <= kEps) continue;
      const double ratio = T[i][width - 1] / T[i][enter];
      // Ties go to the lowest basic variable index (Bland).
      if (leave == m || ratio < best_ratio - kEps || (std::fabs(ratio - best_ratio) <= kEps && basis[i] < basis[leave])) {
        leave = i;
        best_ratio = ratio;
      }
    }
    if (leave == m) throw Error(ErrorKind::Internal, "simplex: unbounded problem");
    const double pivot = T[leave][enter];
    for (double& v : T[leave]) v /= pivot;
    for (size_t i = 0; i <= m; ++i) {
      if (i == leave || std::fabs(T[i][enter]) <= 0) continue;
      const double f = T[i][enter];
      for (size_t j = 0; j < width; ++j) T[i][j] -= f * T[leave][j];
    }
    basis[leave] = enter;
    ++out.pivots;
  }
  out.primal.assign(n, 0.0);
  for (size_t i = 0; i < m; ++i) {
    if (basis[i] < n) out.primal[basis[i]] = T[i][width - 1];
  }
  out.dual.assign(m, 0.0);
  for (size_t i = 0; i < m; ++i) out.dual[i] = T[m][n + i];
  out.objective = T[m][width - 1];
  return out;
}

}  // namespace hqc::planner

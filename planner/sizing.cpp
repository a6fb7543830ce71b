// Selectivity estimates and table sizing from statistics (planner/sizing.h).
#include "planner/sizing.h"

#include <algorithm>
#include <cmath>

#include "storage/error.h"

namespace hqc::planner {

namespace {

using plan::CompareOp;
using plan::Expr;
using plan::ExprKind;

// The column a comparison constrains when its left side is a plain column. Whether it belongs to
// `table` is settled by the statistics lookup: a column the table lacks has no statistics.
const Expr* column_of(const Expr& e, const std::string&) {
  return e.kind == ExprKind::Column ? &e : nullptr;
}

bool constant_value(const Expr& e, int64_t& out) {
  if (e.kind == ExprKind::Literal && e.type.is_integer_like()) {
    out = e.int_value;
    return true;
  }
  return false;
}

// Stats of the physical column an attribute reads; `table` names the physical table.
bool stats_of(const Expr& col, const std::string& table, const Statistics& stats, ColumnStats& out) {
  try {
    out = stats.column(table, col.column);
    return true;
  } catch (...) {
    return false;  // a computed attribute or an unknown column: no statistics, estimate 1
  }
}

double equality(const Expr& col, const std::string& table, const Statistics& stats, double values) {
  ColumnStats s;
  if (!stats_of(col, table, stats, s) || s.distinct == 0) return 1.0;
  return std::min(1.0, 2.0 * values / static_cast<double>(s.distinct));
}

double range(const Expr& col, const std::string& table, const Statistics& stats, int64_t lo, int64_t hi) {
  ColumnStats s;
  if (!stats_of(col, table, stats, s) || !s.valid) return 1.0;
  if (hi < lo) return 1.0 / static_cast<double>(std::max<uint64_t>(1, s.distinct));
  double domain = static_cast<double>(s.max) - static_cast<double>(s.min) + 1.0;
  double covered = static_cast<double>(std::min(hi, s.max)) - static_cast<double>(std::max(lo, s.min)) + 1.0;
  if (covered <= 0) return 1.0 / domain;  // outside the range: keep a nonzero estimate
  return std::min(1.0, covered / domain);
}

// A comparison of a column with a constant, or a BETWEEN of constants, as the closed interval
// [lo, hi] of the column it keeps; false for anything else.
bool as_interval(const Expr& e, const Expr*& col, int64_t& lo, int64_t& hi) {
  lo = INT64_MIN / 2;
  hi = INT64_MAX / 2;
  if (e.args.empty() || (col = column_of(*e.args[0], {})) == nullptr) return false;
  if (e.kind == ExprKind::Between) return constant_value(*e.args[1], lo) && constant_value(*e.args[2], hi);
  int64_t v = 0;
  if (e.kind != ExprKind::Compare || !constant_value(*e.args[1], v)) return false;
  switch (e.compare) {
    case CompareOp::Lt: hi = v - 1; return true;
    case CompareOp::Le: hi = v; return true;
    case CompareOp::Gt: lo = v + 1; return true;
    case CompareOp::Ge: lo = v; return true;
    default: return false;
  }
}

double estimate(const Expr& e, const std::string& table, const Statistics& stats);

// The minimum over the conjuncts (correlated predicates are not assumed independent), except that
// the ranges of one column are intersected first: `d >= '1994-01-01' AND d < '1995-01-01'` keeps one
// year, not the smaller of "since 1994" and "before 1995" (TPC-H Q20's groups were sized 4x over).
double conjunction(const Expr& e, const std::string& table, const Statistics& stats) {
  struct Interval {
    const Expr* col;
    int64_t lo, hi;
  };
  std::vector<Interval> intervals;
  double s = 1.0;
  for (const auto& a : e.args) {
    const Expr* col = nullptr;
    int64_t lo = 0, hi = 0;
    if (!as_interval(*a, col, lo, hi)) {
      s = std::min(s, estimate(*a, table, stats));
      continue;
    }
    auto same = std::find_if(intervals.begin(), intervals.end(), [&](const Interval& i) {
      return i.col->source == col->source && i.col->column == col->column;
    });
    if (same == intervals.end()) {
      intervals.push_back({col, lo, hi});
    } else {
      same->lo = std::max(same->lo, lo);
      same->hi = std::min(same->hi, hi);
    }
  }
  for (const Interval& i : intervals) s = std::min(s, range(*i.col, table, stats, i.lo, i.hi));
  return s;
}

double estimate(const Expr& e, const std::string& table, const Statistics& stats) {
  switch (e.kind) {
    case ExprKind::And: return conjunction(e, table, stats);
    case ExprKind::Or: {
      double s = 0.0;
      for (const auto& a : e.args) s += estimate(*a, table, stats);
      return std::min(1.0, s);
    }
    case ExprKind::InList: {
      const Expr* col = column_of(*e.args[0], table);
      return col ? equality(*col, table, stats, static_cast<double>(e.args.size() - 1)) : 1.0;
    }
    case ExprKind::Between:
    case ExprKind::Compare: {
      const Expr* col = nullptr;
      int64_t lo = 0, hi = 0;
      if (as_interval(e, col, lo, hi)) return range(*col, table, stats, lo, hi);
      // Equality; other comparisons with a non-constant (dictionary bounds are run-time values): 1.
      col = e.args.empty() ? nullptr : column_of(*e.args[0], table);
      return col != nullptr && e.kind == ExprKind::Compare && e.compare == CompareOp::Eq ? equality(*col, table, stats, 1.0) : 1.0;
    }
    default:
      return 1.0;
  }
}

}  // namespace

double estimate_selectivity(const plan::Expr& predicate, const std::string& table, const Statistics& stats) {
  double s = estimate(predicate, table, stats);
  return std::clamp(s, 1e-9, 1.0);
}

uint64_t hash_capacity(uint64_t rows, double selectivity, double load_factor) {
  double wanted = std::ceil(static_cast<double>(rows) * selectivity / load_factor);
  uint64_t capacity = 16;
  while (static_cast<double>(capacity) < wanted && capacity < (1ull << 62)) capacity <<= 1;
  return capacity;
}

double CapacityTerms::estimate(double source_rows) const {
  double rows = source_rows * per_row;
  if (groups > 0) rows = std::min(rows, groups);
  return std::max(1.0, rows);
}

uint64_t CapacityTerms::slots(double source_rows) const {
  return hash_capacity(static_cast<uint64_t>(estimate(source_rows)), 1.0, load_factor);
}

bool use_perfect_hash(uint64_t key_domain, uint64_t build_rows) {
  if (key_domain == 0 || key_domain > kMaxPerfectHashSlots) return false;
  return key_domain <= kSmallPerfectHashSlots || key_domain <= kPerfectHashDensity * std::max<uint64_t>(build_rows, 1);
}

uint64_t scratchpad_budget(const DeviceProfile& profile) {
  const uint64_t granted = std::min(profile.shared_per_block, kMaxScratchpadBytes);
  if (granted <= kScratchpadReserveBytes)
    throw Error(ErrorKind::Input, "device profile " + profile.name + ": " + std::to_string(profile.shared_per_block) +
                                      " bytes of scratchpad per block leave nothing for a privatised table");
  return granted - kScratchpadReserveBytes;
}

bool fits_scratchpad(uint64_t slots, uint64_t bytes_per_slot, uint64_t budget) {
  return slots > 0 && bytes_per_slot > 0 && slots <= budget / bytes_per_slot;
}

}  // namespace hqc::planner

// Aggregates over DISTINCT values (COUNT(DISTINCT x), SUM(DISTINCT x), ...) → two aggregations.
//
// Contract:
//   expects: a bound Aggregate (frontend/logical_plan.h) and, parallel to its aggregates, which of
//     them were written with DISTINCT.
//   guarantees: an equivalent plan without DISTINCT. The inner Aggregate groups by the keys and the
//     distinct argument x (so each (keys, x) pair occurs once) and computes partial aggregates of
//     the other calls; the outer Aggregate groups by the keys again, applies the distinct calls to
//     x (COUNT(DISTINCT x) = COUNT(x) over the pairs) and combines the partials (SUM of SUMs, SUM
//     of COUNTs, MIN of MINs, MAX of MAXs). The outer Aggregate's schema equals the input's, so
//     operators above it are unchanged. Distinct calls with a filter (NULLs skipped: a value of a
//     LEFT JOIN's NULL side; FILTER (WHERE ...)) group by one more key, `__distinct_valid`, 1 where
//     the filter holds and 0 elsewhere, and count only the pairs where it is 1.
//   throws: Error(Unsupported) at `location` when the distinct calls have different arguments or
//     different filters.
#pragma once

#include <memory>
#include <vector>

#include "frontend/logical_plan.h"
#include "frontend/sql/sql_source.h"

namespace hqc::sql {

std::unique_ptr<plan::LogicalOp> split_distinct_aggregate(std::unique_ptr<plan::LogicalOp> agg, const std::vector<bool>& distinct,
                                                          const SqlSource& src, int location);

}  // namespace hqc::sql

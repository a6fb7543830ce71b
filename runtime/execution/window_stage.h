// SQL window functions over an assembled result, computed on the device (the frontend's Window
// operator, frontend/sql/sql_windows.h; ResultSpec::windows).
//
// For each window (windows with the same PARTITION BY and ORDER BY share one sort):
//   1. host: every key column becomes order-preserving 64-bit keys (integers and decimals biased,
//      floats by their bits, strings by their rank among the column's distinct values, DESC
//      complemented, a NULL flag key before a column with NULLs so NULLs sort last in both
//      directions); the aggregated argument becomes 64-bit values (NULLs the operation's
//      identity) and 0/1 validities. These are uploaded.
//   2. device: a stable sort by each key, last key first (DevicePrimitives::stable_sort_by_key on
//      a permutation, with gathers between), gives the window order.
//   3. device: heads of partitions and of peer groups (templates/window/window.h), then segmented
//      scans (DevicePrimitives): ROW_NUMBER counts rows, RANK takes the row number at the peer
//      group's head, DENSE_RANK counts peer-group heads, LAG / LEAD shift values within the partition
//      (hqc_window_shift), aggregates scan their values and read the
//      scan at the frame's last row (the peer group's last row for the default RANGE frame, the
//      row itself for ROWS, the partition's last row without ORDER BY or for UNBOUNDED FOLLOWING).
//   4. device → host: the answers scattered back into result-row order and downloaded; AVG divides
//      there as every AVG does (finalize_average); SUM/MIN/MAX/AVG whose frame has no non-NULL
//      value are NULL.
//
// Contract: replaces each window's placeholder column of `result` with its values (same name,
// the window's type); leaves row order alone. Throws Error(Unsupported) for what it cannot compute
// exactly — more than kMaxPrimitiveElements (2^31 - 1) rows, a SUM whose partial sums could leave int64, an argument it
// cannot order or add (floating point) — and Error(Internal) for a window naming a missing column.
#pragma once

#include <vector>

#include "frontend/logical_plan.h"
#include "runtime/device/backend.h"
#include "runtime/execution/result.h"

namespace hqc::runtime {

class KernelCache;

// The stage's kernels (templates/window/window.h) for `backend`'s dialect.
ModuleSource window_module(const Backend& backend);

void apply_windows(Backend& backend, KernelCache* cache, const std::vector<plan::WindowExpr>& windows, Result& result);

}  // namespace hqc::runtime

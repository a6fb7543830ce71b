// ORDER BY ... LIMIT k of a compacted aggregation table, narrowed on the device: the rows that can be
// among the first k, so that the host reads and compares those instead of every group (TPC-H q10 at
// SF 10: ~388 k groups read to the host for 20 rows; the host's share was mostly first-touch page
// faults of row-sized vectors, bench/results/2026-11-28-h200-first-query).
//
// Contract:
//   - device_top_k_candidates() turns each of `rows` dense rows' first ORDER BY key into an ordered
//     unsigned word on the device (the compaction module's hqc_order_words, templates/compact/
//     compact.h), sorts (word, row) pairs with the backend's library sort (CUB / Boost.Compute,
//     device_primitives.h), and returns the rows whose word is at most the k-th smallest word — every
//     row that can be among the first k of the whole ORDER BY (the word order is monotone in the
//     first key; later keys and ties are for the host to compare) — in ascending row order, so that
//     the host's stable top-k over them breaks ties exactly as over all rows. Usually k rows, more
//     when words tie at the k-th.
//   - It applies (otherwise nullopt, and the host reads every row) when `key` is read straight from
//     a buffer: 64-bit integers, doubles, 32-bit integers (dictionary codes, dates), a 128-bit sum
//     (low, high word per row); not an AVG, a heap string's row reference, a slot-derived key, or a
//     key with NULLs (a left outer join's validity, an aggregate over no rows).
//   - Device memory for the words and rows (12 bytes a row, plus what the library sort needs) is the
//     backend's scratch (Backend::acquire_scratch), kept for the next call.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "runtime/device/backend.h"
#include "runtime/execution/executable_plan.h"
#include "runtime/execution/result_assembly.h"

namespace hqc::runtime {

std::optional<std::vector<uint64_t>> device_top_k_candidates(Backend& backend, const Module& module, const ResultColumnSpec& key,
                                                             const AllocatedBuffer& buffer, bool descending, uint64_t rows,
                                                             uint64_t k);

}  // namespace hqc::runtime

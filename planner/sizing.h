// Sizing of hash tables, aggregation tables and outputs from statistics, and the scratchpad budget
// of privatised tables (launch geometry: planner/launch.h). Every size is computed from the data's
// statistics at run time (never a per-query or per-scale-factor constant); overflow at run time
// makes the executor grow the table, so an estimate that proves low costs a rebuild, never a wrong
// result.
//
// Contract:
//   - estimate_selectivity() returns a value in (0, 1], an upper-leaning estimate: equality on a
//     column with d distinct values counts 2/d (skew headroom), ranges count the covered fraction
//     of [min, max], AND takes the minimum after intersecting the ranges of each column, OR sums
//     (capped at 1), NOT and anything unknown 1.
//   - hash_capacity() is a power of two >= max(16, rows / load_factor).
//   - perfect hashing is chosen when the key domain (max - min + 1) is at most
//     kPerfectHashDensity x the build rows, or small in absolute terms (kSmallPerfectHashSlots:
//     SSB's yyyymmdd date keys span 70k values for 2.5k rows), and below kMaxPerfectHashSlots.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "frontend/expr.h"
#include "planner/device_profile.h"
#include "planner/statistics.h"

namespace hqc::planner {

inline constexpr uint64_t kPerfectHashDensity = 4;            // domain may be 4x sparser than rows
// The most slots of a table indexed by key - min (a perfect-hash join table, a direct-indexed group
// table): keys are 32-bit. Memory is bounded by the density rules instead — a perfect table's slots
// are at most kPerfectHashDensity x its table's rows, about what the hashed table of the same build
// takes at load 0.5. Was 2^28: TPC-H SF 100's order keys (600 M values) fell to hashed tables, whose
// builds and probes of orders/lineitem rows run at random where key - min runs in order. On an H200
// at SF 100, one GPU, the same call: Q12 23.9 -> 5.1 ms, Q18 117.5 -> 22.5, Q3 29.3 -> 12.7, the 22
// queries' kernel time 0.69x in geometric mean (bench/results/2026-11-28-h200-sf100).
inline constexpr uint64_t kMaxPerfectHashSlots = 1ull << 31;
// A perfect-hash table of at least this many slots (16 MiB of int32 keys, a third of an H100's L2)
// whose build keeps few of its table's rows gets a bitmap of its slots for the probes
// (ir::HashTable::bitmap_buffer): one bit per slot stays in L2 where the keys do not.
inline constexpr uint64_t kProbeBitmapMinSlots = 1ull << 22;
// ...and whose build the statistics expect to keep at most 1 in this many of its table's rows.
inline constexpr uint64_t kProbeBitmapSparsity = 8;
inline constexpr uint64_t kSmallPerfectHashSlots = 1ull << 20;  // 4 MiB of int32 keys: always fine
// Scratchpad budget for one privatized aggregation table per CTA: what the device grants a block
// without opt-in (DeviceProfile::shared_per_block: 48 KiB on every CUDA GPU and on NVIDIA's OpenCL),
// at most kMaxScratchpadBytes, less what the rest of a compound kernel keeps there (CTA reductions
// and scans, its static flags). A table of the whole 48 KiB left no room for those: TPC-H q13's
// 2048-slot table plus one static byte exceeded NVIDIA OpenCL's 48 KiB of local memory per
// work-group. The cap keeps a query's kernels the same on every device of a dialect (PoCL on a CPU
// reports 2 MiB of "local" memory, which is global memory there) and bounds the per-CTA cost of
// zeroing and merging the private copy.
inline constexpr uint64_t kScratchpadReserveBytes = 2 * 1024;
inline constexpr uint64_t kMaxScratchpadBytes = 48 * 1024;
// The budget when no device is known (horseqc-compile without a profile): every current GPU's.
inline constexpr uint64_t kScratchpadBudgetBytes = kMaxScratchpadBytes - kScratchpadReserveBytes;
// Direct-indexed aggregation tables up to this many slots; beyond it a global hash table...
inline constexpr uint64_t kMaxDirectSlots = 1ull << 24;
// ...except for one group key that is a sorted column of the scanned table, direct-indexed up to
// kMaxPerfectHashSlots when its domain is at most this many times its distinct values: its rows
// update the table in slot order (a warp's neighbouring rows combined first, on CUDA), so an empty
// slot costs only its share of the fill, where a hash table costs a key array, a slot claim per
// group and a random access per update (TPC-H Q18's GROUP BY l_orderkey: 4 slots per group).
inline constexpr uint64_t kSortedDirectSparsity = 8;

// `table` is the physical table the predicate's columns belong to (the predicate only references
// columns of that scan; others count as unknown).
double estimate_selectivity(const plan::Expr& predicate, const std::string& table, const Statistics& stats);
uint64_t hash_capacity(uint64_t rows, double selectivity, double load_factor);
// A table sized for the rows that reach it: `per_row` of the source rows (selectivities), at most
// `groups` (0: no such bound), at least 1 — then hash_capacity at `load_factor`. ir::capacity_terms
// gives a Capacity param's; a distributed rank sizes its partial tables with them (runtime rank_plan).
struct CapacityTerms {
  double per_row = 1.0;
  double groups = 0;
  double load_factor = 0.5;
  double estimate(double source_rows) const;
  uint64_t slots(double source_rows) const;
};
bool use_perfect_hash(uint64_t key_domain, uint64_t build_rows);
// The budget of `profile`'s device (see kMaxScratchpadBytes); Error(Input) when it grants less
// than the reserve.
uint64_t scratchpad_budget(const DeviceProfile& profile);
// Whether a direct-indexed table of `slots` slots x `bytes_per_slot` fits a CTA's `budget`.
bool fits_scratchpad(uint64_t slots, uint64_t bytes_per_slot, uint64_t budget = kScratchpadBudgetBytes);


}  // namespace hqc::planner

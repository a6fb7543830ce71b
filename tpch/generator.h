// The TPC-H data generator: the eight tables of TPC-H (specification 3.0, clause 4.2) generated straight
// into memory as an hqc::Database laid out by Catalog::tpch().
//
// Contract:
//   - generate(options) returns part, supplier, partsupp, customer, orders, lineitem, nation, region,
//     every column typed and encoded as Catalog::tpch() declares it (dictionary strings with
//     order-preserving codes, decimals in cents, dates as day numbers), statistics computed,
//     Table::validate() passing.
//   - Deterministic: the data is a pure function of (seed, sf). The thread count changes only the
//     speed; every value is drawn from a random stream keyed by (seed, stream tag, row number).
//   - Referential integrity: every foreign key of the catalog holds, including (l_partkey, l_suppkey)
//     ∈ partsupp; customers with c_custkey % 3 == 0 place no orders.
//   - Cardinalities (N = rounding to the nearest integer, at least 1): supplier N(10,000·SF),
//     part N(200,000·SF), partsupp 4 per part, customer N(150,000·SF), orders N(1,500,000·SF) with
//     sparse keys (8 of every 32 key values used), lineitem 1..7 per order (≈ 6,000,000·SF),
//     nation 25, region 5.
//   The value domains follow clause 4.2.3; it is not dbgen byte for byte (tpch/README.md lists how it
//   differs), but the filter factors of the 22 queries agree with dbgen's data within ±10 %
//   (tests/oracle/tpch_selectivity_check.py).
#pragma once

#include <cstdint>

#include "storage/generation/gen_options.h"
#include "storage/table.h"

namespace hqc::tpch {

// sf, seed, threads and progress (storage/generation/gen_options.h). A progress unit is one row of
// part, partsupp, supplier, customer and orders, and four per order for its lines (the mean line
// count); progress_units() below is the total.
using GenOptions = gen::GenOptions;

// Row counts for a scale factor (the formulas in the header comment); lineitem is known only after
// generation (it is random, about 4 · orders).
struct Cardinalities {
  uint64_t suppliers, parts, partsupps, customers, orders;
  uint64_t clerks;  // o_clerk numbers are drawn from [1, N(1,000·SF)]
};
Cardinalities cardinalities(double sf);

// Progress units of a whole generation at this scale factor (the `total` passed to progress).
uint64_t progress_units(const Cardinalities& counts);

// The sparse order key of the i-th order (1-based): keys 1..7, 32..39, 64..71, ... (dbgen keeps the low
// 3 bits and leaves two key bits unused above them, so 8 of every 32 values are taken).
inline int64_t order_key(uint64_t i) { return static_cast<int64_t>(((i >> 3) << 5) | (i & 7)); }

// Throws hqc::Error(Usage) for sf <= 0, a non-finite sf, or an sf so large that a key would pass 2^31
// (o_orderkey, int32 in the catalog, reaches about 6,000,000·SF: SF ≤ 357).
Database generate(const GenOptions& options);
// The same checks, without generating (callers that must refuse before writing anything).
void check_generatable(double sf);

}  // namespace hqc::tpch

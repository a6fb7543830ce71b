// The Star Schema Benchmark data generator: SSB revision 3 (O'Neil, O'Neil, Chen) with ssb-dbgen's
// value domains, generated straight into memory as an hqc::Database laid out by Catalog::ssb().
//
// Contract:
//   - generate(options) returns the five tables lineorder, part, supplier, customer, date, every column
//     (or those options.columns names: the others are drawn but never stored, so the kept values are
//     those of a full generation) typed and encoded as Catalog::ssb() declares it (dictionary strings with order-preserving codes),
//     statistics computed, Table::validate() passing.
//   - Deterministic: the data is a pure function of (seed, sf). The thread count changes only the
//     speed; every row derives its random stream from (seed, table, row number).
//   - Referential integrity: every lo_custkey, lo_partkey, lo_suppkey, lo_orderdate and lo_commitdate
//     exists in its dimension table.
//   - Cardinalities (N = rounding to the nearest integer, at least 1 row):
//       customer  N(30,000·SF)    supplier  N(2,000·SF)     date  2,557 (1992-01-01..1998-12-31)
//       part      200,000·(1+⌊log2 SF⌋) for SF ≥ 1, N(200,000·SF) below (what ssb-dbgen does there)
//       lineorder N(1,500,000·SF) orders of 1..7 lines each (≈ 6,000,000·SF rows)
//   Deliberate differences from ssb-dbgen are listed in ssb/README.md.
#pragma once

#include <cstdint>

#include "storage/generation/gen_options.h"
#include "storage/table.h"

namespace hqc::ssb {

// sf, seed, threads and progress (storage/generation/gen_options.h). A progress unit is one dimension
// row, four per order (its mean line count, so units ≈ rows).
using GenOptions = gen::GenOptions;

// Row counts for a scale factor (the formulas in the header comment).
struct Cardinalities {
  uint64_t customers, suppliers, parts, dates, orders;
};
Cardinalities cardinalities(double sf);

// Throws hqc::Error(Usage) for sf <= 0, a non-finite sf, or an sf so large that a key would pass
// 2^31 (custkey, partkey and suppkey are int32 in SSB).
Database generate(const GenOptions& options);
// The same checks, without generating (callers that must refuse before writing anything).
void check_generatable(double sf);

}  // namespace hqc::ssb

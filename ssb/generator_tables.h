// Internal to the SSB generator: one function per table, and the shared context they run in.
//
// Contract: each make_* function returns its table complete (catalog layout, statistics, validated)
// and depends only on (context.seed, context.counts) for its values; context.for_chunks spreads
// row ranges over the worker threads and reports progress, never changing which values are drawn.
#pragma once

#include <cstdint>

#include "ssb/generator.h"
#include "storage/catalog.h"
#include "storage/generation/gen_workers.h"

namespace hqc::ssb {

// Seed, threads, for_chunks and progress from gen::GenWorkers (storage/generation/gen_workers.h); the
// row counts of this scale factor on top.
class GenContext : public gen::GenWorkers {
 public:
  GenContext(const GenOptions& options, const Cardinalities& c, uint64_t total_rows)
      : gen::GenWorkers(options, total_rows), counts(c) {}

  Cardinalities counts;
};

Table make_customer(GenContext& ctx, const TableDef& def);
Table make_supplier(GenContext& ctx, const TableDef& def);
Table make_part(GenContext& ctx, const TableDef& def);
Table make_date(GenContext& ctx, const TableDef& def);
Table make_lineorder(GenContext& ctx, const TableDef& def);

// First and last day of the SSB calendar as yyyymmdd keys and as day numbers (days since 1970-01-01).
inline constexpr int32_t kFirstYear = 1992;
inline constexpr int32_t kLastYear = 1998;
int32_t first_day();
int32_t last_day();
// yyyymmdd of a day number.
int32_t date_key(int32_t day);

// ssb-dbgen's retail price of a part in cents (TPC-H's P_RETAILPRICE formula); SSB keeps it only as
// the input of lo_extendedprice and lo_supplycost.
inline int64_t retail_price_cents(int64_t partkey) {
  return 90000 + (partkey / 10) % 20001 + 100 * (partkey % 1000);
}

}  // namespace hqc::ssb

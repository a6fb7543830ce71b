// Internal to the TPC-H generator: the shared context and one function per table (or table pair).
//
// Contract: each make_* function returns its table(s) complete (catalog layout, statistics, validated)
// and depends only on (ctx.seed, ctx.counts, ctx.pool) for its values; ctx.for_chunks spreads row ranges
// over the worker threads and reports progress, never changing which values are drawn.
#pragma once

#include <cstdint>

#include "storage/catalog.h"
#include "storage/generation/gen_workers.h"
#include "tpch/generator.h"
#include "tpch/generator_text.h"

namespace hqc::tpch {

// Seed, threads, for_chunks and progress from gen::GenWorkers (storage/generation/gen_workers.h); the
// row counts of this scale factor and the comment text pool on top.
class GenContext : public gen::GenWorkers {
 public:
  GenContext(const GenOptions& options, const Cardinalities& counts);

  Cardinalities counts;
  TextPool pool;
};

Table make_nation(GenContext& ctx, const TableDef& def);
Table make_region(GenContext& ctx, const TableDef& def);
Table make_supplier(GenContext& ctx, const TableDef& def);
Table make_customer(GenContext& ctx, const TableDef& def);
Table make_part(GenContext& ctx, const TableDef& def);
Table make_partsupp(GenContext& ctx, const TableDef& def);
struct OrdersAndLines {
  Table orders, lineitem;
};
OrdersAndLines make_orders_and_lineitem(GenContext& ctx, const TableDef& orders_def, const TableDef& lineitem_def);

// Clause 4.2.2.12 and 4.2.3: the calendar of the data.
int32_t start_date();    // 1992-01-01
int32_t end_date();      // 1998-12-31
int32_t current_date();  // 1995-06-17, splits returned/open lines

// P_RETAILPRICE in cents (clause 4.2.3): (90000 + ((key/10) mod 20001) + 100·(key mod 1000)) / 100.
inline int64_t retail_price_cents(int64_t partkey) {
  return 90000 + (partkey / 10) % 20001 + 100 * (partkey % 1000);
}

// The i-th (0..3) supplier of a part (clause 4.2.3, PS_SUPPKEY), S = number of suppliers.
inline int64_t part_supplier(int64_t partkey, int64_t i, int64_t suppliers) {
  return (partkey + i * (suppliers / 4 + (partkey - 1) / suppliers)) % suppliers + 1;
}

}  // namespace hqc::tpch

// Internal to the TPC-H generator: the shared context and one function per table (or table pair).
//
// Contract: each make_* function returns its table(s) complete (catalog layout, statistics, validated)
// and depends only on (ctx.seed, ctx.counts, ctx.pool) for its values; ctx.for_chunks spreads row ranges
// over the worker threads and reports progress, never changing which values are drawn.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>

#include "storage/catalog.h"
#include "tpch/generator.h"
#include "tpch/generator_text.h"

namespace hqc::tpch {

class GenContext {
 public:
  GenContext(const GenOptions& options, const Cardinalities& counts);

  uint64_t seed;
  Cardinalities counts;
  unsigned threads;
  TextPool pool;

  // Calls body(begin, end) over disjoint chunks covering [0, n) on up to `threads` threads and
  // advances progress by `weight` units per index (weight 0: no progress).
  void for_chunks(uint64_t n, uint64_t weight, const std::function<void(uint64_t, uint64_t)>& body);
  // Advances progress without parallel work.
  void advance(uint64_t units);

 private:
  std::function<void(uint64_t, uint64_t)> progress_;
  uint64_t total_units_;
  uint64_t done_units_ = 0;
  std::mutex progress_mutex_;
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

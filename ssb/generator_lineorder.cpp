// The SSB fact table lineorder: N(1,500,000·SF) orders of 1..7 lines each.
//
// Contract (per order o = 1..orders, all draws from RowRandom(seed, Order, o)):
//   lines 1..7; lo_orderkey = TPC-H's sparse key of o (8 keys used of every 32, as ssb-dbgen);
//   lo_orderdate uniform over all 2,557 days 1992-01-01..1998-12-31; lo_custkey uniform over the
//   customers whose key is not a multiple of 3 (TPC-H's rule, kept by ssb-dbgen: a third of the
//   customers never order); lo_orderpriority one of 5; lo_shippriority "0".
//   Per line: lo_partkey, lo_suppkey uniform over their tables; lo_quantity 1..50; lo_discount 0..10;
//   lo_tax 0..8; lo_commitdate = orderdate + 30..90 days, capped at 1998-12-31 so it stays a date
//   key; lo_shipmode one of 7; money in cents: lo_extendedprice = quantity · retail price,
//   lo_revenue = ⌊extendedprice · (100 − discount) / 100⌋, lo_supplycost = ⌊6 · retail price / 10⌋,
//   lo_ordtotalprice = Σ over the order's lines of ⌊⌊extendedprice·(100−discount)/100⌋·(100+tax)/100⌋.
// Rows are laid out order by order, lines in line-number order, whatever the thread count: a first
// pass draws each order's line count, a prefix sum gives every order its first row, and a second pass
// fills the rows of disjoint order ranges in parallel.
#include <algorithm>
#include <functional>
#include <string_view>
#include <vector>

#include "ssb/generator_columns.h"
#include "ssb/generator_random.h"
#include "ssb/generator_tables.h"
#include "ssb/generator_vocabulary.h"

namespace hqc::ssb {

namespace {

int64_t sparse_order_key(uint64_t order) {
  return static_cast<int64_t>(((order >> 3) << 5) | (order & 7));
}

// The j-th (0-based) customer key that is not a multiple of 3: 1, 2, 4, 5, 7, 8, ...
int64_t ordering_customer(int64_t j) { return 3 * (j / 2) + 1 + j % 2; }

}  // namespace

Table make_lineorder(GenContext& ctx, const TableDef& def) {
  const uint64_t orders = ctx.counts.orders;
  const int64_t customers = static_cast<int64_t>(ctx.counts.customers);
  const int64_t ordering_customers = customers - customers / 3;
  const int32_t first = first_day(), last = last_day();
  std::vector<int32_t> key_of_day(static_cast<size_t>(last - first + 1));
  for (int32_t d = first; d <= last; ++d) key_of_day[static_cast<size_t>(d - first)] = date_key(d);

  // Pass 1: line counts, then each order's first row.
  std::vector<uint64_t> first_row(orders + 1, 0);
  ctx.for_chunks(orders, 0, [&](uint64_t begin, uint64_t end) {
    for (uint64_t o = begin; o < end; ++o) {
      RowRandom rng(ctx.seed, StreamTag::Order, o + 1);
      first_row[o + 1] = static_cast<uint64_t>(rng.uniform(1, 7));
    }
  });
  for (uint64_t o = 0; o < orders; ++o) first_row[o + 1] += first_row[o];
  const uint64_t rows = first_row[orders];

  // Columns GenOptions::columns leaves out are drawn (the random streams stay the same) but not stored.
  auto col = [&](const char* name, int64_t max_value) {
    return IntColumn(column_def(def, name), rows, max_value,
                     ctx.keeps(def.name, name) ? IntColumn::Allocation::Deferred : IntColumn::Allocation::Skipped);
  };
  const int64_t max_price = retail_price_cents(static_cast<int64_t>(ctx.counts.parts)) + 200 * 100;
  IntColumn orderkey = col("lo_orderkey", sparse_order_key(orders)), linenumber = col("lo_linenumber", 7),
            custkey = col("lo_custkey", customers), partkey = col("lo_partkey", static_cast<int64_t>(ctx.counts.parts)),
            suppkey = col("lo_suppkey", static_cast<int64_t>(ctx.counts.suppliers)),
            orderdate = col("lo_orderdate", 19981231), quantity = col("lo_quantity", 50),
            extendedprice = col("lo_extendedprice", 50 * max_price),
            ordtotalprice = col("lo_ordtotalprice", 7 * 50 * max_price * 108 / 100), discount = col("lo_discount", 10),
            revenue = col("lo_revenue", 50 * max_price), supplycost = col("lo_supplycost", max_price),
            tax = col("lo_tax", 8), commitdate = col("lo_commitdate", 19981231);
  const std::vector<IntColumn*> int_columns = {&orderkey, &linenumber, &custkey, &partkey, &suppkey,
                                               &orderdate, &quantity, &extendedprice, &ordtotalprice, &discount,
                                               &revenue, &supplycost, &tax, &commitdate};
  allocate_in_parallel(ctx.threads, int_columns);
  const bool keep_priority = ctx.keeps(def.name, "lo_orderpriority"), keep_shipmode = ctx.keeps(def.name, "lo_shipmode");
  std::vector<uint8_t> priority(keep_priority ? rows : 0), shipmode(keep_shipmode ? rows : 0);

  // Pass 2: the rows, order by order. Progress: 3 units per order here, 1 when the columns are
  // finished (dictionaries, statistics), so a drawn bar does not sit at 100 % during that tail.
  ctx.for_chunks(orders, 3, [&](uint64_t begin, uint64_t end) {
    for (uint64_t o = begin; o < end; ++o) {
      RowRandom rng(ctx.seed, StreamTag::Order, o + 1);
      const auto lines = static_cast<uint64_t>(rng.uniform(1, 7));
      const int32_t day = first + static_cast<int32_t>(rng.uniform(0, last - first));
      const int64_t cust = ordering_customer(rng.uniform(0, ordering_customers - 1));
      const auto prio = static_cast<uint8_t>(rng.uniform(0, vocab::kPriorities.size() - 1));
      const uint64_t row0 = first_row[o];
      int64_t total = 0;
      for (uint64_t l = 0; l < lines; ++l) {
        const uint64_t r = row0 + l;
        const int64_t part = rng.uniform(1, static_cast<int64_t>(ctx.counts.parts));
        const int64_t qty = rng.uniform(1, 50), disc = rng.uniform(0, 10), tx = rng.uniform(0, 8);
        const int32_t commit = std::min(last, day + static_cast<int32_t>(rng.uniform(30, 90)));
        const int64_t price = retail_price_cents(part), ext = qty * price, rev = ext * (100 - disc) / 100;
        orderkey.put(r, sparse_order_key(o + 1));
        linenumber.put(r, static_cast<int64_t>(l + 1));
        custkey.put(r, cust);
        partkey.put(r, part);
        suppkey.put(r, rng.uniform(1, static_cast<int64_t>(ctx.counts.suppliers)));
        orderdate.put(r, key_of_day[static_cast<size_t>(day - first)]);
        if (keep_priority) priority[r] = prio;
        quantity.put(r, qty);
        extendedprice.put(r, ext);
        discount.put(r, disc);
        revenue.put(r, rev);
        supplycost.put(r, 6 * price / 10);
        tax.put(r, tx);
        commitdate.put(r, key_of_day[static_cast<size_t>(commit - first)]);
        const auto mode = static_cast<uint8_t>(rng.uniform(0, vocab::kShipModes.size() - 1));
        if (keep_shipmode) shipmode[r] = mode;
        total += rev * (100 + tx) / 100;
      }
      for (uint64_t l = 0; l < lines; ++l) ordtotalprice.put(row0 + l, total);
    }
  });

  const std::vector<std::string_view> priorities(vocab::kPriorities.begin(), vocab::kPriorities.end());
  const std::vector<std::string_view> modes(vocab::kShipModes.begin(), vocab::kShipModes.end());
  const ColumnDef& ship_priority = column_def(def, "lo_shippriority");
  std::vector<std::function<Column()>> builders;
  for (IntColumn* c : int_columns) builders.push_back([c] { return c->finish(); });
  if (keep_priority)
    builders.push_back([&] { return vocabulary_column(ctx.threads, column_def(def, "lo_orderpriority"), priorities, priority); });
  if (keep_shipmode)
    builders.push_back([&] { return vocabulary_column(ctx.threads, column_def(def, "lo_shipmode"), modes, shipmode); });
  // TPC-H's o_shippriority is always 0; SSB declares it char(1), some schemas an integer.
  if (ctx.keeps(def.name, "lo_shippriority")) builders.push_back([&] {
    if (ship_priority.type.is_string())
      return vocabulary_column(ctx.threads, ship_priority, {std::string_view("0")}, std::vector<uint8_t>(rows, 0));
    return IntColumn(ship_priority, rows, 0).finish();
  });
  std::vector<Column> cols = build_columns(ctx.threads, builders);
  ctx.advance(orders);
  return assemble_table(ctx, def, rows, std::move(cols));
}

}  // namespace hqc::ssb

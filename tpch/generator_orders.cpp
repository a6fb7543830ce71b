// orders and lineitem (clause 4.2.3), generated together because an order's status and total price
// are functions of its lines.
//
// Contract:
//   - Order i (0-based) has key order_key(i + 1) and 1..7 lines drawn from its own OrderLines stream;
//     a first pass draws every count, a prefix sum places each order's lines, and a second pass (in
//     parallel) draws the order and its lines from the order's Order stream. Comments come from
//     separate streams (per order, per line row) so they are written straight into their heaps.
//   - o_custkey is uniform over the customers whose key is not a multiple of 3 (a third of the
//     customers place no orders, as in dbgen); o_orderdate uniform in [1992-01-01, 1998-12-31 − 151];
//     l_shipdate = o_orderdate + [1, 121], l_commitdate = o_orderdate + [30, 90], l_receiptdate =
//     l_shipdate + [1, 30]; l_returnflag R or A (even odds) when l_receiptdate <= 1995-06-17, else N;
//     l_linestatus O when l_shipdate > 1995-06-17, else F; o_orderstatus F / O when all lines are F / O,
//     else P; l_suppkey is one of the part's four partsupp suppliers; l_extendedprice = l_quantity ·
//     p_retailprice; o_totalprice = Σ extendedprice · (1 − discount) · (1 + tax), each factor rounded
//     down to the cent as dbgen does.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tpch/generator_columns.h"
#include "tpch/generator_random.h"
#include "tpch/generator_tables.h"
#include "tpch/generator_text.h"

namespace hqc::tpch {

namespace {

template <size_t N>
std::vector<std::string_view> views(const std::array<std::string_view, N>& list) {
  return {list.begin(), list.end()};
}

// Vocabulary indexes of the one-letter flags.
constexpr uint8_t kFlagA = 0, kFlagN = 1, kFlagR = 2;
constexpr uint8_t kStatusF = 0, kStatusO = 1, kStatusP = 2;

int64_t customer_of(RowRandom& rng, int64_t customers) {
  // The allowed keys 1, 2, 4, 5, 7, 8, ... (not multiples of 3), numbered densely by j.
  const int64_t allowed = customers - customers / 3;
  const int64_t j = rng.uniform(0, allowed - 1);
  return 3 * (j / 2) + 1 + (j % 2);
}

}  // namespace

OrdersAndLines make_orders_and_lineitem(GenContext& ctx, const TableDef& odef, const TableDef& ldef) {
  const uint64_t orders = ctx.counts.orders;
  const uint64_t seed = ctx.seed;
  const auto parts = static_cast<int64_t>(ctx.counts.parts);
  const auto suppliers = static_cast<int64_t>(ctx.counts.suppliers);
  const auto customers = static_cast<int64_t>(ctx.counts.customers);
  const auto clerks = static_cast<int64_t>(ctx.counts.clerks);
  const int32_t first_order_day = start_date(), last_order_day = end_date() - 151, today = current_date();

  // Pass 1: line counts, then each order's first line row.
  std::vector<uint64_t> first_line(orders + 1, 0);
  ctx.for_chunks(orders, 0, [&](uint64_t begin, uint64_t end) {
    for (uint64_t o = begin; o < end; ++o)
      first_line[o + 1] = static_cast<uint64_t>(RowRandom(seed, Stream::OrderLines, o).uniform(1, 7));
  });
  for (uint64_t o = 0; o < orders; ++o) first_line[o + 1] += first_line[o];
  const uint64_t lines = first_line[orders];

  const int64_t max_key = order_key(orders);
  IntColumn o_orderkey(column_def(odef, "o_orderkey"), orders, max_key);
  IntColumn o_custkey(column_def(odef, "o_custkey"), orders, customers);
  IntColumn o_totalprice(column_def(odef, "o_totalprice"), orders, 0);
  IntColumn o_orderdate(column_def(odef, "o_orderdate"), orders, last_order_day);
  IntColumn o_shippriority(column_def(odef, "o_shippriority"), orders, 0);
  std::vector<uint8_t> o_status(orders), o_priority(orders);
  std::vector<int32_t> o_clerk(orders);

  IntColumn l_orderkey(column_def(ldef, "l_orderkey"), lines, max_key);
  IntColumn l_partkey(column_def(ldef, "l_partkey"), lines, parts);
  IntColumn l_suppkey(column_def(ldef, "l_suppkey"), lines, suppliers);
  IntColumn l_linenumber(column_def(ldef, "l_linenumber"), lines, 7);
  IntColumn l_quantity(column_def(ldef, "l_quantity"), lines, 5000);
  IntColumn l_extendedprice(column_def(ldef, "l_extendedprice"), lines, 0);
  IntColumn l_discount(column_def(ldef, "l_discount"), lines, 10);
  IntColumn l_tax(column_def(ldef, "l_tax"), lines, 8);
  IntColumn l_shipdate(column_def(ldef, "l_shipdate"), lines, last_order_day + 121);
  IntColumn l_commitdate(column_def(ldef, "l_commitdate"), lines, last_order_day + 90);
  IntColumn l_receiptdate(column_def(ldef, "l_receiptdate"), lines, last_order_day + 151);
  std::vector<uint8_t> l_flag(lines), l_status(lines), l_instruct(lines), l_mode(lines);

  // Pass 2: orders and their lines. Progress: one unit per order plus four for its lines.
  ctx.for_chunks(orders, 5, [&](uint64_t begin, uint64_t end) {
    for (uint64_t o = begin; o < end; ++o) {
      RowRandom rng(seed, Stream::Order, o);
      const int64_t key = order_key(o + 1);
      const int64_t orderdate = rng.uniform(first_order_day, last_order_day);
      o_orderkey.put(o, key);
      o_custkey.put(o, customer_of(rng, customers));
      o_orderdate.put(o, orderdate);
      o_priority[o] = static_cast<uint8_t>(rng.uniform(0, 4));
      o_clerk[o] = static_cast<int32_t>(rng.uniform(1, clerks));
      o_shippriority.put(o, 0);

      int64_t total = 0;
      uint64_t open = 0, n = first_line[o + 1] - first_line[o];
      for (uint64_t i = 0; i < n; ++i) {
        const uint64_t l = first_line[o] + i;
        const int64_t partkey = rng.uniform(1, parts);
        const int64_t supplier = rng.uniform(0, 3);
        const int64_t quantity = rng.uniform(1, 50);
        const int64_t discount = rng.uniform(0, 10);
        const int64_t tax = rng.uniform(0, 8);
        const int64_t shipdate = orderdate + rng.uniform(1, 121);
        const int64_t commitdate = orderdate + rng.uniform(30, 90);
        const int64_t receiptdate = shipdate + rng.uniform(1, 30);
        const bool returned = rng.uniform(0, 1) == 1;
        const auto instruct = static_cast<uint8_t>(rng.uniform(0, 3));
        const auto mode = static_cast<uint8_t>(rng.uniform(0, 6));
        const int64_t extended = quantity * retail_price_cents(partkey);

        l_orderkey.put(l, key);
        l_partkey.put(l, partkey);
        l_suppkey.put(l, part_supplier(partkey, supplier, suppliers));
        l_linenumber.put(l, static_cast<int64_t>(i + 1));
        l_quantity.put(l, quantity * 100);
        l_extendedprice.put(l, extended);
        l_discount.put(l, discount);
        l_tax.put(l, tax);
        l_shipdate.put(l, shipdate);
        l_commitdate.put(l, commitdate);
        l_receiptdate.put(l, receiptdate);
        l_flag[l] = receiptdate <= today ? (returned ? kFlagR : kFlagA) : kFlagN;
        l_status[l] = shipdate > today ? kStatusO : kStatusF;
        l_instruct[l] = instruct;
        l_mode[l] = mode;
        if (shipdate > today) ++open;
        total += (extended * (100 - discount) / 100) * (100 + tax) / 100;
      }
      o_totalprice.put(o, total);
      o_status[o] = open == n ? kStatusO : open == 0 ? kStatusF : kStatusP;
    }
  });

  const std::vector<std::string_view> flags = {"A", "N", "R"}, statuses = {"F", "O", "P"};
  const TextPool& pool = ctx.pool;
  auto comment_length = [&](Stream stream, int64_t lo, int64_t hi) {
    return [&, stream, lo, hi](uint64_t r) {
      RowRandom rng(seed, stream, r);
      return static_cast<size_t>(TextPool::comment_length(rng, lo, hi));
    };
  };
  auto comment_text = [&](Stream stream, int64_t lo, int64_t hi) {
    return [&, stream, lo, hi](uint64_t r, char* dst) {
      RowRandom rng(seed, stream, r);
      const std::string_view text = pool.comment(rng, lo, hi);
      std::memcpy(dst, text.data(), text.size());
    };
  };

  std::vector<Column> ocols;
  ocols.push_back(o_orderkey.finish());
  ocols.push_back(o_custkey.finish());
  ocols.push_back(o_totalprice.finish());
  ocols.push_back(o_orderdate.finish());
  ocols.push_back(o_shippriority.finish());
  ocols.push_back(vocabulary_column(ctx.threads, column_def(odef, "o_orderstatus"), statuses, o_status));
  ocols.push_back(vocabulary_column(ctx.threads, column_def(odef, "o_orderpriority"), views(vocab::kPriorities), o_priority));
  ocols.push_back(text_column(
      ctx.threads, column_def(odef, "o_clerk"), orders, [](uint64_t) { return size_t{15}; },
      [&](uint64_t r, char* dst) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "Clerk#%09d", o_clerk[r]);
        std::memcpy(dst, buf, 15);
      }));
  ocols.push_back(text_column(ctx.threads, column_def(odef, "o_comment"), orders, comment_length(Stream::OrderComment, 19, 78),
                              comment_text(Stream::OrderComment, 19, 78)));

  std::vector<Column> lcols;
  for (IntColumn* c : {&l_orderkey, &l_partkey, &l_suppkey, &l_linenumber, &l_quantity, &l_extendedprice, &l_discount,
                       &l_tax, &l_shipdate, &l_commitdate, &l_receiptdate})
    lcols.push_back(c->finish());
  lcols.push_back(vocabulary_column(ctx.threads, column_def(ldef, "l_returnflag"), flags, l_flag));
  lcols.push_back(vocabulary_column(ctx.threads, column_def(ldef, "l_linestatus"), statuses, l_status));
  lcols.push_back(vocabulary_column(ctx.threads, column_def(ldef, "l_shipinstruct"), views(vocab::kInstructions), l_instruct));
  lcols.push_back(vocabulary_column(ctx.threads, column_def(ldef, "l_shipmode"), views(vocab::kShipModes), l_mode));
  lcols.push_back(text_column(ctx.threads, column_def(ldef, "l_comment"), lines, comment_length(Stream::LineComment, 10, 43),
                              comment_text(Stream::LineComment, 10, 43)));

  return {assemble_table(ctx, odef, orders, std::move(ocols)), assemble_table(ctx, ldef, lines, std::move(lcols))};
}

}  // namespace hqc::tpch

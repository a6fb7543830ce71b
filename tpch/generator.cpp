// TPC-H generator driver: cardinalities, the worker-thread context, and generate(), which builds the
// eight tables in catalog order. See generator.h for the contract.
#include "tpch/generator.h"

#include <algorithm>
#include <cmath>
#include <thread>
#include <vector>

#include "storage/catalog.h"
#include "storage/date.h"
#include "storage/error.h"
#include "storage/parallel.h"
#include "tpch/generator_tables.h"

namespace hqc::tpch {

namespace {

uint64_t scaled(double base, double sf) {
  return std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(base * sf)));
}

// dbgen draws comments from a 300 MB pool; 16 MiB of the same grammar gives the same word and phrase
// frequencies (what query filters see) at a fraction of the start-up cost.
constexpr uint64_t kPoolBytes = 16ull << 20;

}  // namespace

Cardinalities cardinalities(double sf) {
  Cardinalities c{};
  c.suppliers = scaled(10000, sf);
  c.parts = scaled(200000, sf);
  c.partsupps = 4 * c.parts;
  c.customers = scaled(150000, sf);
  c.orders = scaled(1500000, sf);
  c.clerks = scaled(1000, sf);
  return c;
}

uint64_t progress_units(const Cardinalities& c) {
  return c.suppliers + c.parts + c.partsupps + c.customers + c.orders + 4 * c.orders;
}

int32_t start_date() { return days_from_civil(1992, 1, 1); }
int32_t end_date() { return days_from_civil(1998, 12, 31); }
int32_t current_date() { return days_from_civil(1995, 6, 17); }

GenContext::GenContext(const GenOptions& options, const Cardinalities& c)
    : seed(options.seed),
      counts(c),
      threads(resolve_threads(options.threads)),
      pool(options.seed, kPoolBytes, threads),
      progress_(options.progress),
      total_units_(progress_units(c)) {}

void GenContext::advance(uint64_t units) {
  std::lock_guard<std::mutex> lock(progress_mutex_);
  done_units_ = std::min(total_units_, done_units_ + units);
  if (progress_) progress_(done_units_, total_units_);
}

void GenContext::for_chunks(uint64_t n, uint64_t weight, const std::function<void(uint64_t, uint64_t)>& body) {
  if (n == 0) return;
  // Chunks small enough to balance the load and move the progress bar, large enough that the shared
  // counter is not contended.
  const uint64_t chunk = std::clamp<uint64_t>(n / (uint64_t{threads} * 16), 1024, 1u << 20);
  const uint64_t chunks = (n + chunk - 1) / chunk;
  parallel_for(chunks, threads, [&](size_t k) {
    const uint64_t begin = k * chunk, end = std::min(n, begin + chunk);
    body(begin, end);
    if (weight) advance((end - begin) * weight);
  });
}

Database generate(const GenOptions& options) {
  if (!std::isfinite(options.sf) || options.sf <= 0)
    throw Error(ErrorKind::Usage, "TPC-H scale factor must be a positive number, got " + std::to_string(options.sf));
  const Cardinalities counts = cardinalities(options.sf);
  if (order_key(counts.orders) > 2147483647LL)
    throw Error(ErrorKind::Usage, "TPC-H scale factor " + std::to_string(options.sf) +
                                      " is too large: o_orderkey (about 6,000,000 * SF) would pass 2^31 - 1, "
                                      "the int32 identifiers of Catalog::tpch(); use SF <= 357");
  const Catalog catalog = Catalog::tpch();
  auto def = [&](const char* name) -> const TableDef& {
    const TableDef* t = catalog.find(name);
    if (!t) throw Error(ErrorKind::Internal, std::string("Catalog::tpch() has no table ") + name);
    return *t;
  };
  GenContext ctx(options, counts);

  Database db;
  db.tables.emplace("region", make_region(ctx, def("region")));
  db.tables.emplace("nation", make_nation(ctx, def("nation")));
  db.tables.emplace("supplier", make_supplier(ctx, def("supplier")));
  db.tables.emplace("customer", make_customer(ctx, def("customer")));
  db.tables.emplace("part", make_part(ctx, def("part")));
  db.tables.emplace("partsupp", make_partsupp(ctx, def("partsupp")));
  OrdersAndLines ol = make_orders_and_lineitem(ctx, def("orders"), def("lineitem"));
  db.tables.emplace("orders", std::move(ol.orders));
  db.tables.emplace("lineitem", std::move(ol.lineitem));
  return db;
}

}  // namespace hqc::tpch

// TPC-H generator driver: cardinalities, the context (its text pool), and generate(), which builds the
// eight tables in catalog order. See generator.h for the contract.
#include "tpch/generator.h"

#include <string>

#include "storage/catalog.h"
#include "storage/date.h"
#include "storage/error.h"
#include "tpch/generator_tables.h"

namespace hqc::tpch {

using gen::scaled;

namespace {

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
    : gen::GenWorkers(options, progress_units(c)), counts(c), pool(options.seed, kPoolBytes, threads) {}

void check_generatable(double sf) {
  gen::check_scale_factor("TPC-H", sf);
  const Cardinalities counts = cardinalities(sf);
  if (order_key(counts.orders) > 2147483647LL)
    throw Error(ErrorKind::Usage, "TPC-H scale factor " + std::to_string(sf) +
                                      " is too large: o_orderkey (about 6,000,000 * SF) would pass 2^31 - 1, "
                                      "the int32 identifiers of Catalog::tpch(); use SF <= 357");
}

Database generate(const GenOptions& options) {
  check_generatable(options.sf);
  const Cardinalities counts = cardinalities(options.sf);
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

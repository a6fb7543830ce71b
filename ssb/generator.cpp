// SSB generator driver: cardinalities and generate(), which builds the five tables in catalog order.
// See generator.h for the contract.
#include "ssb/generator.h"

#include <cmath>
#include <string>

#include "ssb/generator_tables.h"
#include "storage/catalog.h"
#include "storage/error.h"

namespace hqc::ssb {

using gen::scaled;

Cardinalities cardinalities(double sf) {
  Cardinalities c{};
  c.customers = scaled(30000, sf);
  c.suppliers = scaled(2000, sf);
  // ssb-dbgen grows part logarithmically from SF 1 on; below SF 1 it scales the base linearly.
  c.parts = sf >= 1 ? 200000 * static_cast<uint64_t>(1 + std::floor(std::log2(sf))) : scaled(200000, sf);
  c.dates = 2557;  // 1992-01-01..1998-12-31, checked against the calendar by make_date
  c.orders = scaled(1500000, sf);
  return c;
}

void check_generatable(double sf) {
  gen::check_scale_factor("SSB", sf);
  const Cardinalities counts = cardinalities(sf);
  // Keys are int32 in SSB; the largest key is the customer key (30,000·SF).
  if (counts.customers > 2147483647ULL || counts.parts > 2147483647ULL)
    throw Error(ErrorKind::Usage, "SSB scale factor " + std::to_string(sf) +
                                      " is too large: customer and part keys would pass 2^31");
}

Database generate(const GenOptions& options) {
  check_generatable(options.sf);
  const Cardinalities counts = cardinalities(options.sf);
  const Catalog catalog = Catalog::ssb();
  auto def = [&](const char* name) -> const TableDef& {
    const TableDef* t = catalog.find(name);
    if (!t) throw Error(ErrorKind::Internal, std::string("Catalog::ssb() has no table ") + name);
    return *t;
  };
  // Progress units: one per dimension row, four per order (its mean line count; the exact row count
  // is known only after the first lineorder pass).
  const uint64_t total = counts.customers + counts.suppliers + counts.parts + counts.dates + 4 * counts.orders;
  GenContext ctx(options, counts, total);

  Database db;
  db.tables.emplace("date", make_date(ctx, def("date")));
  db.tables.emplace("customer", make_customer(ctx, def("customer")));
  db.tables.emplace("supplier", make_supplier(ctx, def("supplier")));
  db.tables.emplace("part", make_part(ctx, def("part")));
  db.tables.emplace("lineorder", make_lineorder(ctx, def("lineorder")));
  return db;
}

}  // namespace hqc::ssb

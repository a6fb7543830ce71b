// SSB generator driver: cardinalities, the worker-thread context, and generate(), which builds the
// five tables in catalog order. See generator.h for the contract.
#include "ssb/generator.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <thread>
#include <vector>

#include "ssb/generator_tables.h"
#include "storage/catalog.h"
#include "storage/error.h"

namespace hqc::ssb {

namespace {

uint64_t scaled(double base, double sf) {
  return std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(base * sf)));
}

}  // namespace

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

GenContext::GenContext(const GenOptions& options, const Cardinalities& c, uint64_t total_rows)
    : seed(options.seed), counts(c), threads(options.threads), progress_(options.progress), total_rows_(total_rows) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
}

void GenContext::advance(uint64_t rows) {
  done_rows_ += rows;
  if (progress_) progress_(done_rows_, total_rows_);
}

void GenContext::parallel_for(uint64_t n, uint64_t weight, const std::function<void(uint64_t, uint64_t)>& body) {
  if (n == 0) return;
  // Chunks small enough to balance the load and to move the progress bar, large enough that the
  // atomic counter is not contended.
  const uint64_t chunk = std::clamp<uint64_t>(n / (uint64_t{threads} * 16), 1024, 1u << 20);
  const uint64_t chunks = (n + chunk - 1) / chunk;
  std::atomic<uint64_t> next{0};
  std::mutex report;
  std::exception_ptr failure;
  auto worker = [&] {
    for (;;) {
      const uint64_t k = next.fetch_add(1);
      if (k >= chunks) return;
      const uint64_t begin = k * chunk, end = std::min(n, begin + chunk);
      try {
        body(begin, end);
      } catch (...) {
        std::lock_guard<std::mutex> lock(report);
        if (!failure) failure = std::current_exception();
        next.store(chunks);
        return;
      }
      std::lock_guard<std::mutex> lock(report);
      advance((end - begin) * weight);
    }
  };
  const unsigned workers = static_cast<unsigned>(std::min<uint64_t>(threads, chunks));
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < workers; ++i) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

Database generate(const GenOptions& options) {
  if (!std::isfinite(options.sf) || options.sf <= 0)
    throw Error(ErrorKind::Usage, "SSB scale factor must be a positive number, got " + std::to_string(options.sf));
  const Cardinalities counts = cardinalities(options.sf);
  // Keys are int32 in SSB; the largest key is the customer key (30,000·SF).
  if (counts.customers > 2147483647ULL || counts.parts > 2147483647ULL)
    throw Error(ErrorKind::Usage, "SSB scale factor " + std::to_string(options.sf) +
                                      " is too large: customer and part keys would pass 2^31");
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

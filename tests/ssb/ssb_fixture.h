// Shared by the SSB generator tests: generated databases cached per (sf, seed, threads), so the
// test cases of one binary generate each data set once, and small lookup helpers.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>

#include "ssb/generator.h"
#include "storage/table.h"

namespace hqc::ssb::testing {

inline const Database& cached_ssb(double sf, uint64_t seed = GenOptions{}.seed, unsigned threads = 2) {
  static std::map<std::tuple<double, uint64_t, unsigned>, Database> cache;
  auto key = std::make_tuple(sf, seed, threads);
  auto it = cache.find(key);
  if (it == cache.end()) {
    GenOptions o;
    o.sf = sf;
    o.seed = seed;
    o.threads = threads;
    it = cache.emplace(key, generate(o)).first;
  }
  return it->second;
}

inline std::string str(const Table& t, const char* column, uint64_t row) {
  return std::string(t.column(column).string_at(row));
}
inline int64_t num(const Table& t, const char* column, uint64_t row) { return t.column(column).int_at(row); }

}  // namespace hqc::ssb::testing

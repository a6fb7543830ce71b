// Counter-based random streams for the TPC-H generator.
//
// Contract: RowRandom(seed, tag, row) yields the same sequence for the same triple on any thread and in
// any order of construction, so a row never reads a shared sequential generator and generation does not
// depend on the thread count. splitmix64 over a mix of seed, stream tag and row; uniform integers map a
// 64-bit draw onto [lo, hi] by multiply-shift (bias below 2^-40 for the ranges used here).
#pragma once

#include <cstdint>

namespace hqc::tpch {

// One tag per independent stream, so that row 7 of customer and row 7 of supplier draw unrelated
// values, and so that a text column can be generated on its own (it has its own stream per row).
enum class Stream : uint64_t {
  Part = 1, PartName, PartComment, PartSupp, PartSuppComment, Supplier, SupplierAddress, SupplierComment,
  SupplierPress, Customer, CustomerAddress, CustomerComment, Order, OrderLines, OrderComment, LineComment,
  NationComment, RegionComment, TextPool
};

inline uint64_t splitmix64(uint64_t& state) {
  state += 0x9E3779B97F4A7C15ULL;
  uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

class RowRandom {
 public:
  RowRandom(uint64_t seed, Stream tag, uint64_t row) {
    // Two rounds of mixing so that neighbouring (tag, row) pairs start far apart.
    uint64_t s = seed ^ (static_cast<uint64_t>(tag) * 0xD6E8FEB86659FD93ULL);
    state_ = splitmix64(s) ^ (row * 0x9E6C63D0676A9A99ULL);
    splitmix64(state_);
  }

  uint64_t next() { return splitmix64(state_); }

  // Uniform in [lo, hi], both inclusive; requires lo <= hi.
  int64_t uniform(int64_t lo, int64_t hi) {
    const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
    __extension__ using u128 = unsigned __int128;
    return lo + static_cast<int64_t>((static_cast<u128>(next()) * span) >> 64);
  }

 private:
  uint64_t state_;
};

}  // namespace hqc::tpch

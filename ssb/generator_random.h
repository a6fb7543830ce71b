// Counter-based random streams for the SSB generator.
//
// Contract: RowRandom(seed, table, row) yields the same sequence of values for the same triple, on any
// thread and in any order of construction. That is what makes generation independent of the thread
// count: a row never reads a shared sequential generator, it derives its own stream from its identity
// (splitmix64 over a mix of seed, table tag and row number). Uniform integers use the multiply-shift
// mapping of a 64-bit draw onto [lo, hi]; its bias is below 2^-40 for the ranges used here.
#pragma once

#include <cstdint>

namespace hqc::ssb {

// One tag per table, so that row 7 of customer and row 7 of supplier draw unrelated values.
enum class StreamTag : uint64_t { Customer = 1, Supplier = 2, Part = 3, Order = 4, CustomerSlots = 5,
                                  SupplierSlots = 6, PartSlots = 7 };

inline uint64_t splitmix64(uint64_t& state) {
  state += 0x9E3779B97F4A7C15ULL;
  uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

class RowRandom {
 public:
  RowRandom(uint64_t seed, StreamTag tag, uint64_t row) {
    // Two rounds of mixing so that neighbouring (tag, row) pairs start far apart.
    uint64_t s = seed ^ (static_cast<uint64_t>(tag) * 0xD6E8FEB86659FD93ULL);
    state_ = splitmix64(s) ^ row;
    splitmix64(state_);
  }

  uint64_t next() { return splitmix64(state_); }

  // Uniform in [lo, hi], both inclusive; requires lo <= hi.
  int64_t uniform(int64_t lo, int64_t hi) {
    const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
    __extension__ using u128 = unsigned __int128;
    const uint64_t draw = static_cast<uint64_t>((static_cast<u128>(next()) * span) >> 64);
    return lo + static_cast<int64_t>(draw);
  }

 private:
  uint64_t state_;
};

// A seeded pseudo-random bijection of [0, n): a balanced Feistel network over the smallest even
// number of bits covering n, with cycle walking back into [0, n). Used to deal dimension attributes
// out evenly (slot = permutation(row), attribute = slot mod domain), so every nation, city, category
// and brand gets its share of rows up to one row, while which row gets which stays random.
class Permutation {
 public:
  Permutation(uint64_t seed, StreamTag tag, uint64_t n) : n_(n) {
    half_bits_ = 1;
    while ((uint64_t{1} << (2 * half_bits_)) < n) ++half_bits_;
    uint64_t s = seed ^ (static_cast<uint64_t>(tag) * 0xA0761D6478BD642FULL);
    for (uint64_t& k : keys_) k = splitmix64(s);
  }

  uint64_t operator()(uint64_t i) const {
    // Cycle walking terminates: the Feistel network permutes [0, 4^half_bits) and i < n, so the
    // orbit of i returns into [0, n); on average fewer than four steps since 4^half_bits < 4n.
    do i = encrypt(i);
    while (i >= n_);
    return i;
  }

 private:
  uint64_t encrypt(uint64_t x) const {
    const uint64_t mask = (uint64_t{1} << half_bits_) - 1;
    uint64_t left = x >> half_bits_, right = x & mask;
    for (uint64_t k : keys_) {
      uint64_t state = k ^ right;
      const uint64_t f = splitmix64(state) & mask;
      const uint64_t next = left ^ f;
      left = right;
      right = next;
    }
    return (left << half_bits_) | right;
  }

  uint64_t n_;
  unsigned half_bits_;
  uint64_t keys_[4];
};

}  // namespace hqc::ssb

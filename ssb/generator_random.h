// The SSB generator's random streams: its stream tags, how a row keys its stream, and Permutation.
//
// Contract: RowRandom(seed, table, row) is gen::RowRandom (storage/generation/row_random.h) keyed by
// the plain row number, so it yields the same sequence for the same triple on any thread and in any
// order of construction. Tags and keying are part of the data: changing either changes every data set.
#pragma once

#include <cstdint>

#include "storage/generation/row_random.h"

namespace hqc::ssb {

// One tag per table, so that row 7 of customer and row 7 of supplier draw unrelated values.
enum class StreamTag : uint64_t { Customer = 1, Supplier = 2, Part = 3, Order = 4, CustomerSlots = 5,
                                  SupplierSlots = 6, PartSlots = 7 };

using gen::splitmix64;

// SSB's row streams: the row number itself is the row key (what the data has always been drawn from).
class RowRandom : public gen::RowRandom {
 public:
  RowRandom(uint64_t seed, StreamTag tag, uint64_t row) : gen::RowRandom(seed, static_cast<uint64_t>(tag), row) {}
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

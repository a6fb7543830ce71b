// Column::compute_stats. Contract:
//   - Integer-backed columns (Int32, Int64, Decimal, Date, dictionary codes): valid = true, min/max
//     exact over the physical value; distinct exact when max - min < 2^27 (a bitmap of at most 16 MiB),
//     otherwise a HyperLogLog estimate (standard error about 1%).
//   - Heap strings and Float64: min/max have no physical integer meaning, so valid = false, but
//     distinct is still filled with an estimate (exact below 4096 values) for the planner's sizing.
//   - An empty column: valid = true for integer-backed columns with min = max = distinct = 0.
//   - sorted: integer-backed columns whose values never decrease in row order (an empty column too);
//     false for every other column.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <string_view>
#include <unordered_set>

#include "storage/column.h"

namespace hqc {

namespace {

uint64_t mix64(uint64_t x) {  // splitmix64 finalizer: spreads small consecutive keys over all bits
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

// HyperLogLog with 2^14 registers: 16 KiB of state regardless of the column size.
class DistinctSketch {
 public:
  void add_hash(uint64_t h) {
    const uint64_t index = h >> (64 - kBits);
    const uint64_t rest = (h << kBits) | (uint64_t{1} << (kBits - 1));  // sentinel bounds the rank
    const auto rank = static_cast<uint8_t>(std::countl_zero(rest) + 1);
    if (rank > registers_[index]) registers_[index] = rank;
  }
  uint64_t estimate() const {
    constexpr double m = kRegisters;
    double sum = 0;
    uint64_t zeros = 0;
    for (uint8_t r : registers_) {
      sum += std::ldexp(1.0, -r);
      zeros += r == 0;
    }
    const double alpha = 0.7213 / (1.0 + 1.079 / m);
    double e = alpha * m * m / sum;
    if (e <= 2.5 * m && zeros > 0) e = m * std::log(m / static_cast<double>(zeros));  // linear counting
    return static_cast<uint64_t>(std::llround(e));
  }

 private:
  static constexpr int kBits = 14;
  static constexpr size_t kRegisters = size_t{1} << kBits;
  uint8_t registers_[kRegisters] = {};
};

template <typename T>
void integer_stats(const Values<T>& v, ColumnStats& s) {
  s = ColumnStats{};
  s.valid = true;
  s.sorted = std::is_sorted(v.begin(), v.end());
  if (v.empty()) return;
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  s.min = static_cast<int64_t>(*lo);
  s.max = static_cast<int64_t>(*hi);
  const uint64_t range = static_cast<uint64_t>(s.max) - static_cast<uint64_t>(s.min);
  if (range < (uint64_t{1} << 27)) {
    std::vector<uint64_t> bits(range / 64 + 1, 0);
    for (T x : v) {
      const uint64_t i = static_cast<uint64_t>(static_cast<int64_t>(x)) - static_cast<uint64_t>(s.min);
      bits[i / 64] |= uint64_t{1} << (i % 64);
    }
    for (uint64_t w : bits) s.distinct += static_cast<uint64_t>(std::popcount(w));
    return;
  }
  DistinctSketch sketch;
  for (T x : v) sketch.add_hash(mix64(static_cast<uint64_t>(static_cast<int64_t>(x))));
  s.distinct = sketch.estimate();
}

// Small inputs get an exact count, so tiny tables (nation, region, fixtures) have exact statistics.
template <typename Key, typename Each>
uint64_t distinct_of(uint64_t n, Each&& key_at) {
  constexpr uint64_t kExactBelow = 4096;
  if (n < kExactBelow) {
    std::unordered_set<Key> seen;
    for (uint64_t r = 0; r < n; ++r) seen.insert(key_at(r));
    return seen.size();
  }
  DistinctSketch sketch;
  for (uint64_t r = 0; r < n; ++r) sketch.add_hash(mix64(std::hash<Key>{}(key_at(r))));
  return sketch.estimate();
}

}  // namespace

void Column::compute_stats() {
  if (type.is_string() && encoding == Encoding::Dictionary) {
    integer_stats(i32, stats);
  } else if (type.id == TypeId::Int32 || type.id == TypeId::Date) {
    integer_stats(i32, stats);
  } else if (type.id == TypeId::Int64 || type.id == TypeId::Decimal) {
    integer_stats(i64, stats);
  } else if (type.id == TypeId::Float64) {
    stats = ColumnStats{};
    stats.distinct = distinct_of<uint64_t>(f64.size(), [&](uint64_t r) {
      const double x = f64[r] == 0.0 ? 0.0 : f64[r];  // -0.0 and 0.0 are one value
      return std::bit_cast<uint64_t>(x);
    });
  } else if (type.is_string() && encoding == Encoding::Heap) {
    stats = ColumnStats{};
    stats.distinct = distinct_of<std::string_view>(size(), [&](uint64_t r) { return string_at(r); });
  } else {
    stats = ColumnStats{};
  }
}

}  // namespace hqc

// Counter-based random streams shared by the benchmark data generators (ssb/, tpch/).
//
// Contract: RowRandom(seed, tag, row_key) yields the same sequence of values for the same triple, on
// any thread and in any order of construction. That is what makes generation independent of the thread
// count: a row never reads a shared sequential generator, it derives its own stream from its identity
// (splitmix64 over a mix of seed, stream tag and row key). Uniform integers use the multiply-shift
// mapping of a 64-bit draw onto [lo, hi]; its bias is below 2^-40 for the ranges the generators use.
// Every constant here is part of the generated data: changing one changes every data set.
#pragma once

#include <cstdint>

namespace hqc::gen {

inline uint64_t splitmix64(uint64_t& state) {
  state += 0x9E3779B97F4A7C15ULL;
  uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

class RowRandom {
 public:
  // `tag` separates independent streams (tables, text columns); `row_key` is the row number, or a
  // mix of it (each generator decides how, and keeps deciding the same way: see its generator_random.h).
  RowRandom(uint64_t seed, uint64_t tag, uint64_t row_key) {
    // Two rounds of mixing so that neighbouring (tag, row) pairs start far apart.
    uint64_t s = seed ^ (tag * 0xD6E8FEB86659FD93ULL);
    state_ = splitmix64(s) ^ row_key;
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

}  // namespace hqc::gen

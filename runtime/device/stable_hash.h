// Hashes whose values never change between runs, compilers or platforms (std::hash gives no such
// promise), for on-disk kernel cache keys and entry checksums. Not cryptographic: the cache key
// combines two independently seeded 64-bit hashes, so an accidental collision is negligible.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace hqc::runtime {

// FNV-1a, 64-bit, continuing from `state` (the offset basis starts a fresh hash).
constexpr uint64_t kFnvOffsetBasis = 0xcbf29ce484222325ULL;
uint64_t fnv1a64(const void* data, size_t bytes, uint64_t state = kFnvOffsetBasis);
inline uint64_t fnv1a64(std::string_view text, uint64_t state = kFnvOffsetBasis) {
  return fnv1a64(text.data(), text.size(), state);
}
// Final avalanche (splitmix64), so that nearby FNV states spread over all bits.
uint64_t mix64(uint64_t x);
// 16 lowercase hex digits.
std::string hex64(uint64_t value);

// Accumulates length-prefixed fields so ("ab","c") and ("a","bc") hash differently.
class StableHasher {
 public:
  void add(std::string_view field);
  // 32 hex digits from two independently seeded lanes.
  std::string hex() const;

 private:
  uint64_t lane_a_ = kFnvOffsetBasis;
  uint64_t lane_b_ = 0x84222325cbf29ce4ULL;
};

}  // namespace hqc::runtime

// FNV-1a 64 and splitmix64 finalisation; see stable_hash.h for why these and not std::hash.
#include "runtime/device/stable_hash.h"

namespace hqc::runtime {

uint64_t fnv1a64(const void* data, size_t bytes, uint64_t state) {
  constexpr uint64_t kPrime = 0x100000001b3ULL;
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < bytes; ++i) {
    state ^= p[i];
    state *= kPrime;
  }
  return state;
}

uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::string hex64(uint64_t value) {
  static const char* digits = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i) {
    out[static_cast<size_t>(i)] = digits[value & 0xF];
    value >>= 4;
  }
  return out;
}

void StableHasher::add(std::string_view field) {
  const uint64_t length = field.size();
  unsigned char prefix[8];
  for (int i = 0; i < 8; ++i) prefix[i] = static_cast<unsigned char>(length >> (8 * i));
  lane_a_ = fnv1a64(field, fnv1a64(prefix, 8, lane_a_));
  lane_b_ = fnv1a64(field, fnv1a64(prefix, 8, lane_b_));
}

std::string StableHasher::hex() const { return hex64(mix64(lane_a_)) + hex64(mix64(lane_b_ ^ 0x5bd1e995ULL)); }

}  // namespace hqc::runtime

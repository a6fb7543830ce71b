// The fixed vocabularies of TPC-H (clause 4.2.2.13 and 4.2.3) and its comment text (clause 4.2.2.10).
//
// Contract:
//   - Every list keeps the order given in generator_text.cpp (or storage/generation/vocabulary.cpp) forever: the generator indexes into them
//     with random draws, so reordering one changes the data for every seed.
//   - TextPool is a block of sentences produced by the specification's grammar over its weighted word
//     lists; a comment of length [lo, hi] is a substring of the pool at a random offset, which is how
//     dbgen makes its comments (from a pool generated the same way). The pool is a function of the seed
//     only, built block-parallel, and contains no '|', '\n' or '\r'.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "storage/generation/vocabulary.h"
#include "tpch/generator_random.h"

namespace hqc::tpch::vocab {

// The lists TPC-H shares with SSB (storage/generation/vocabulary.h).
using gen::vocab::kColors;          // p_name words
using gen::vocab::kContainerKind;   // p_container syllable 2
using gen::vocab::kContainerSize;   // p_container syllable 1
using gen::vocab::kNations;         // in key order
using gen::vocab::kPriorities;
using gen::vocab::kRegions;         // in key order
using gen::vocab::kSegments;
using gen::vocab::kShipModes;
using gen::vocab::kTypeFinish;      // p_type syllable 2
using gen::vocab::kTypeMetal;       // p_type syllable 3
using gen::vocab::kTypeSize;        // p_type syllable 1
using gen::vocab::Nation;

extern const std::array<std::string_view, 4> kInstructions;

// dbgen's alphabet for V-strings (addresses): letters, digits, comma and blank.
inline constexpr std::string_view kAddressAlphabet =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ, ";

}  // namespace hqc::tpch::vocab

namespace hqc::tpch {

class TextPool {
 public:
  // About `bytes` bytes of grammar text (at least 64 KiB), generated on up to `threads` threads.
  TextPool(uint64_t seed, uint64_t bytes, unsigned threads);

  // A comment of a random length in [lo, hi] (hi < size()) at a random offset, drawn from `rng`.
  // Two draws: the length, then the offset.
  std::string_view comment(RowRandom& rng, int64_t lo, int64_t hi) const {
    const int64_t length = rng.uniform(lo, hi);
    const int64_t offset = rng.uniform(0, static_cast<int64_t>(text_.size()) - length);
    return std::string_view(text_).substr(static_cast<size_t>(offset), static_cast<size_t>(length));
  }
  // Just the length draw of comment(), for sizing a heap before the text is written.
  static int64_t comment_length(RowRandom& rng, int64_t lo, int64_t hi) { return rng.uniform(lo, hi); }

  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

}  // namespace hqc::tpch

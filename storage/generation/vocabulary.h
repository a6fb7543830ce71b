// The word lists TPC-H defines (clause 4.2.2.13 and 4.2.3) that both benchmark data generators use:
// SSB takes its nations, regions, market segments, order priorities, ship modes, part colors, types
// and containers from TPC-H, as ssb-dbgen does.
//
// Contract: every list keeps the order given in vocabulary.cpp forever: the generators index into
// them with random draws, so reordering one changes the data of both benchmarks for every seed.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace hqc::gen::vocab {

struct Nation {
  std::string_view name;
  uint8_t region;  // index into kRegions
};

// The 25 nations in key order, 5 per region.
extern const std::array<Nation, 25> kNations;
extern const std::array<std::string_view, 5> kRegions;  // in key order
// The 92 color words (p_name is made of them; SSB's p_color is one of them).
extern const std::array<std::string_view, 92> kColors;
// p_type = one word of each syllable list (6 × 5 × 5 = 150 types).
extern const std::array<std::string_view, 6> kTypeSize;
extern const std::array<std::string_view, 5> kTypeFinish;
extern const std::array<std::string_view, 5> kTypeMetal;
// p_container = size word + container word (5 × 8 = 40 containers).
extern const std::array<std::string_view, 5> kContainerSize;
extern const std::array<std::string_view, 8> kContainerKind;
extern const std::array<std::string_view, 5> kSegments;    // market segments
extern const std::array<std::string_view, 5> kPriorities;  // order priorities
extern const std::array<std::string_view, 7> kShipModes;

}  // namespace hqc::gen::vocab

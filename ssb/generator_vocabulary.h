// The fixed value domains of the Star Schema Benchmark data (SSB revision 3, O'Neil et al.), taken
// from TPC-H's vocabularies as ssb-dbgen uses them: nations and regions, market segments, order
// priorities, ship modes, part colors, types and containers, month and weekday names, selling seasons
// and the holiday calendar.
//
// Contract: every list is in the order given here forever (the generator indexes into them with random
// draws, so reordering a list changes the generated data for every seed).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace hqc::ssb::vocab {

struct Nation {
  std::string_view name;
  uint8_t region;  // index into kRegions
};

// TPC-H's 25 nations in key order, 5 per region.
extern const std::array<Nation, 25> kNations;
extern const std::array<std::string_view, 5> kRegions;
extern const std::array<std::string_view, 5> kMarketSegments;
extern const std::array<std::string_view, 5> kOrderPriorities;
extern const std::array<std::string_view, 7> kShipModes;
// TPC-H's 92 color words (p_name is made of them; p_color is one of them).
extern const std::array<std::string_view, 92> kColors;
// p_type = one word of each syllable list (6 × 5 × 5 = 150 types).
extern const std::array<std::string_view, 6> kTypeSyllable1;
extern const std::array<std::string_view, 5> kTypeSyllable2;
extern const std::array<std::string_view, 5> kTypeSyllable3;
// p_container = size word + container word (5 × 8 = 40 containers).
extern const std::array<std::string_view, 5> kContainerSyllable1;
extern const std::array<std::string_view, 8> kContainerSyllable2;
extern const std::array<std::string_view, 12> kMonthNames;
extern const std::array<std::string_view, 7> kWeekdayNames;  // Sunday first

// ssb-dbgen's selling seasons by month: Winter Jan–Mar, Spring Apr, Summer May–Aug, Fall Sep–Oct,
// Christmas Nov–Dec.
std::string_view selling_season(uint32_t month);
// ssb-dbgen's ten holidays (Dec 24, Jan 1, and the 20th of Feb, Apr, May, Jul, Aug, Sep, Oct, Nov).
bool is_holiday(uint32_t month, uint32_t day);

// SSB cities: the nation name cut or space-padded to 9 characters, followed by one digit 0–9,
// e.g. "UNITED KI1", "CHINA    4". Ten cities per nation, 250 in all.
std::string city_name(std::string_view nation, uint32_t digit);

}  // namespace hqc::ssb::vocab

// The fixed value domains of the Star Schema Benchmark data (SSB revision 3, O'Neil et al.), taken
// from TPC-H's vocabularies as ssb-dbgen uses them: nations and regions, market segments, order
// priorities, ship modes, part colors, types and containers, month and weekday names, selling seasons
// and the holiday calendar.
//
// Contract: every list is in the order given here (or in storage/generation/vocabulary.cpp) forever:
// the generator indexes into them with random draws, so reordering a list changes the data for every seed.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "storage/generation/vocabulary.h"

namespace hqc::ssb::vocab {

// The lists SSB shares with TPC-H (storage/generation/vocabulary.h): nations, regions, market
// segments, order priorities, ship modes, part colors, types and containers.
using gen::vocab::kColors;
using gen::vocab::kContainerKind;
using gen::vocab::kContainerSize;
using gen::vocab::kNations;
using gen::vocab::kPriorities;
using gen::vocab::kRegions;
using gen::vocab::kSegments;
using gen::vocab::kShipModes;
using gen::vocab::kTypeFinish;
using gen::vocab::kTypeMetal;
using gen::vocab::kTypeSize;
using gen::vocab::Nation;

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

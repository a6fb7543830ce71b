// Calendar arithmetic on day numbers (days since 1970-01-01, proleptic Gregorian).
// Used by the loaders (YYYY-MM-DD text), the generators, literals in plans and the result printer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hqc {

struct CivilDate {
  int32_t year;
  uint32_t month;  // 1..12
  uint32_t day;    // 1..31
};

int32_t days_from_civil(int32_t year, uint32_t month, uint32_t day);
CivilDate civil_from_days(int32_t days);
// Parses exactly "YYYY-MM-DD" with a valid calendar date; nullopt otherwise.
std::optional<int32_t> parse_iso_date(std::string_view text);
std::string format_iso_date(int32_t days);
// 0 = Sunday .. 6 = Saturday
uint32_t day_of_week(int32_t days);
bool is_leap_year(int32_t year);

}  // namespace hqc

// Word lists of the SSB generator; see generator_vocabulary.h for the contract (order is data).
#include "ssb/generator_vocabulary.h"

#include <string>

namespace hqc::ssb::vocab {

const std::array<std::string_view, 12> kMonthNames = {"January", "February", "March",     "April",
                                                      "May",     "June",     "July",      "August",
                                                      "September", "October", "November", "December"};

const std::array<std::string_view, 7> kWeekdayNames = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                                       "Thursday", "Friday", "Saturday"};

std::string_view selling_season(uint32_t month) {
  if (month <= 3) return "Winter";
  if (month == 4) return "Spring";
  if (month <= 8) return "Summer";
  if (month <= 10) return "Fall";
  return "Christmas";
}

bool is_holiday(uint32_t month, uint32_t day) {
  if (month == 12) return day == 24;
  if (month == 1) return day == 1;
  // The 20th of every other month except March, June and December.
  return day == 20 && month != 3 && month != 6;
}

std::string city_name(std::string_view nation, uint32_t digit) {
  std::string city(nation.substr(0, 9));
  city.resize(9, ' ');
  city.push_back(static_cast<char>('0' + digit % 10));
  return city;
}

}  // namespace hqc::ssb::vocab

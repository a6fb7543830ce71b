// Word lists of the SSB generator; see generator_vocabulary.h for the contract (order is data).
#include "ssb/generator_vocabulary.h"

#include <string>

namespace hqc::ssb::vocab {

// Region indexes: 0 AFRICA, 1 AMERICA, 2 ASIA, 3 EUROPE, 4 MIDDLE EAST.
const std::array<Nation, 25> kNations = {{
    {"ALGERIA", 0},      {"ARGENTINA", 1}, {"BRAZIL", 1},  {"CANADA", 1},         {"EGYPT", 4},
    {"ETHIOPIA", 0},     {"FRANCE", 3},    {"GERMANY", 3}, {"INDIA", 2},          {"INDONESIA", 2},
    {"IRAN", 4},         {"IRAQ", 4},      {"JAPAN", 2},   {"JORDAN", 4},         {"KENYA", 0},
    {"MOROCCO", 0},      {"MOZAMBIQUE", 0}, {"PERU", 1},   {"CHINA", 2},          {"ROMANIA", 3},
    {"SAUDI ARABIA", 4}, {"VIETNAM", 2},   {"RUSSIA", 3},  {"UNITED KINGDOM", 3}, {"UNITED STATES", 1},
}};

const std::array<std::string_view, 5> kRegions = {"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"};

const std::array<std::string_view, 5> kMarketSegments = {"AUTOMOBILE", "BUILDING", "FURNITURE", "MACHINERY",
                                                         "HOUSEHOLD"};

const std::array<std::string_view, 5> kOrderPriorities = {"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED",
                                                          "5-LOW"};

const std::array<std::string_view, 7> kShipModes = {"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"};

const std::array<std::string_view, 92> kColors = {
    "almond",    "antique",   "aquamarine", "azure",     "beige",     "bisque",    "black",     "blanched",
    "blue",      "blush",     "brown",      "burlywood", "burnished", "chartreuse", "chiffon",  "chocolate",
    "coral",     "cornflower", "cornsilk",  "cream",     "cyan",      "dark",      "deep",      "dim",
    "dodger",    "drab",      "firebrick",  "floral",    "forest",    "frosted",   "gainsboro", "ghost",
    "goldenrod", "green",     "grey",       "honeydew",  "hot",       "indian",    "ivory",     "khaki",
    "lace",      "lavender",  "lawn",       "lemon",     "light",     "lime",      "linen",     "magenta",
    "maroon",    "medium",    "metallic",   "midnight",  "mint",      "misty",     "moccasin",  "navajo",
    "navy",      "olive",     "orange",     "orchid",    "pale",      "papaya",    "peach",     "peru",
    "pink",      "plum",      "powder",     "puff",      "purple",    "red",       "rose",      "rosy",
    "royal",     "saddle",    "salmon",     "sandy",     "seashell",  "sienna",    "sky",       "slate",
    "smoke",     "snow",      "spring",     "steel",     "tan",       "thistle",   "tomato",    "turquoise",
    "violet",    "wheat",     "white",      "yellow",
};

const std::array<std::string_view, 6> kTypeSyllable1 = {"STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"};
const std::array<std::string_view, 5> kTypeSyllable2 = {"ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"};
const std::array<std::string_view, 5> kTypeSyllable3 = {"TIN", "NICKEL", "BRASS", "STEEL", "COPPER"};
const std::array<std::string_view, 5> kContainerSyllable1 = {"SM", "LG", "MED", "JUMBO", "WRAP"};
const std::array<std::string_view, 8> kContainerSyllable2 = {"CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM"};

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

// The word lists shared by the SSB and TPC-H generators; see vocabulary.h for the contract (order is data).
#include "storage/generation/vocabulary.h"

namespace hqc::gen::vocab {

// Region indexes: 0 AFRICA, 1 AMERICA, 2 ASIA, 3 EUROPE, 4 MIDDLE EAST.
const std::array<Nation, 25> kNations = {{
    {"ALGERIA", 0},    {"ARGENTINA", 1}, {"BRAZIL", 1},       {"CANADA", 1},         {"EGYPT", 4},
    {"ETHIOPIA", 0},   {"FRANCE", 3},    {"GERMANY", 3},      {"INDIA", 2},          {"INDONESIA", 2},
    {"IRAN", 4},       {"IRAQ", 4},      {"JAPAN", 2},        {"JORDAN", 4},         {"KENYA", 0},
    {"MOROCCO", 0},    {"MOZAMBIQUE", 0}, {"PERU", 1},        {"CHINA", 2},          {"ROMANIA", 3},
    {"SAUDI ARABIA", 4}, {"VIETNAM", 2}, {"RUSSIA", 3},       {"UNITED KINGDOM", 3}, {"UNITED STATES", 1},
}};
const std::array<std::string_view, 5> kRegions = {"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"};

const std::array<std::string_view, 92> kColors = {
    "almond",    "antique",   "aquamarine", "azure",     "beige",     "bisque",    "black",    "blanched",
    "blue",      "blush",     "brown",      "burlywood", "burnished", "chartreuse", "chiffon", "chocolate",
    "coral",     "cornflower", "cornsilk",  "cream",     "cyan",      "dark",      "deep",     "dim",
    "dodger",    "drab",      "firebrick",  "floral",    "forest",    "frosted",   "gainsboro", "ghost",
    "goldenrod", "green",     "grey",       "honeydew",  "hot",       "indian",    "ivory",    "khaki",
    "lace",      "lavender",  "lawn",       "lemon",     "light",     "lime",      "linen",    "magenta",
    "maroon",    "medium",    "metallic",   "midnight",  "mint",      "misty",     "moccasin", "navajo",
    "navy",      "olive",     "orange",     "orchid",    "pale",      "papaya",    "peach",    "peru",
    "pink",      "plum",      "powder",     "puff",      "purple",    "red",       "rose",     "rosy",
    "royal",     "saddle",    "salmon",     "sandy",     "seashell",  "sienna",    "sky",      "slate",
    "smoke",     "snow",      "spring",     "steel",     "tan",       "thistle",   "tomato",   "turquoise",
    "violet",    "wheat",     "white",      "yellow"};
const std::array<std::string_view, 6> kTypeSize = {"STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"};
const std::array<std::string_view, 5> kTypeFinish = {"ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"};
const std::array<std::string_view, 5> kTypeMetal = {"TIN", "NICKEL", "BRASS", "STEEL", "COPPER"};
const std::array<std::string_view, 5> kContainerSize = {"SM", "LG", "MED", "JUMBO", "WRAP"};
const std::array<std::string_view, 8> kContainerKind = {"CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM"};
const std::array<std::string_view, 5> kSegments = {"AUTOMOBILE", "BUILDING", "FURNITURE", "MACHINERY", "HOUSEHOLD"};
const std::array<std::string_view, 5> kPriorities = {"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"};
const std::array<std::string_view, 7> kShipModes = {"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"};

}  // namespace hqc::gen::vocab

#include "storage/date.h"

#include <cstdio>

namespace hqc {

// Howard Hinnant's well-known civil-calendar formulas (public domain algorithm description).
int32_t days_from_civil(int32_t y, uint32_t m, uint32_t d) {
  y -= m <= 2;
  const int32_t era = (y >= 0 ? y : y - 399) / 400;
  const uint32_t yoe = static_cast<uint32_t>(y - era * 400);
  const uint32_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const uint32_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int32_t>(doe) - 719468;
}

CivilDate civil_from_days(int32_t z) {
  z += 719468;
  const int32_t era = (z >= 0 ? z : z - 146096) / 146097;
  const uint32_t doe = static_cast<uint32_t>(z - era * 146097);
  const uint32_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int32_t y = static_cast<int32_t>(yoe) + era * 400;
  const uint32_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const uint32_t mp = (5 * doy + 2) / 153;
  const uint32_t d = doy - (153 * mp + 2) / 5 + 1;
  const uint32_t m = mp < 10 ? mp + 3 : mp - 9;
  return {y + (m <= 2), m, d};
}

bool is_leap_year(int32_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

std::optional<int32_t> parse_iso_date(std::string_view t) {
  if (t.size() != 10 || t[4] != '-' || t[7] != '-') return std::nullopt;
  auto digits = [&](size_t from, size_t n) -> std::optional<uint32_t> {
    uint32_t v = 0;
    for (size_t i = from; i < from + n; ++i) {
      if (t[i] < '0' || t[i] > '9') return std::nullopt;
      v = v * 10 + static_cast<uint32_t>(t[i] - '0');
    }
    return v;
  };
  auto y = digits(0, 4), m = digits(5, 2), d = digits(8, 2);
  if (!y || !m || !d || *m < 1 || *m > 12 || *d < 1) return std::nullopt;
  static constexpr uint32_t kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const uint32_t max_day = kDays[*m - 1] + (*m == 2 && is_leap_year(static_cast<int32_t>(*y)) ? 1 : 0);
  if (*d > max_day) return std::nullopt;
  return days_from_civil(static_cast<int32_t>(*y), *m, *d);
}

std::string format_iso_date(int32_t days) {
  const CivilDate c = civil_from_days(days);
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02u", c.year, c.month, c.day);
  return buf;
}

uint32_t day_of_week(int32_t days) {
  // 1970-01-01 was a Thursday (4).
  const int32_t w = (days + 4) % 7;
  return static_cast<uint32_t>(w < 0 ? w + 7 : w);
}

}  // namespace hqc

// The SSB date dimension: one row per day from 1992-01-01 to 1998-12-31 (2,557 rows), every column
// derived from the calendar, nothing random.
//
// Contract (SSB revision 3 §2.5, ssb-dbgen's formulas where the specification leaves room):
//   d_datekey yyyymmdd; d_date "January 1, 1992"; d_dayofweek "Wednesday"; d_month "January";
//   d_yearmonthnum 199201; d_yearmonth "Jan1992"; d_daynuminweek 1 = Sunday .. 7 = Saturday;
//   d_weeknuminyear = ⌊d_daynuminyear / 7⌋ + 1 (ssb-dbgen's formula: week 1 has six days, weeks are
//   then seven days long, so Q1.3's "week 6 of 1994" is seven days); d_sellingseason and d_holidayfl
//   from ssb-dbgen's season and holiday tables (generator_vocabulary.h); d_lastdayinweekfl on
//   Saturdays; d_lastdayinmonthfl on the month's last day; d_weekdayfl Monday..Friday.
//   ssb-dbgen names weekdays off by one (its day 1 is labelled "Sunday" but falls on a Saturday);
//   horseqc labels each day with its true name.
#include <string>
#include <vector>

#include "ssb/generator_columns.h"
#include "ssb/generator_tables.h"
#include "ssb/generator_vocabulary.h"
#include "storage/date.h"
#include "storage/error.h"

namespace hqc::ssb {

int32_t first_day() { return days_from_civil(kFirstYear, 1, 1); }
int32_t last_day() { return days_from_civil(kLastYear, 12, 31); }

int32_t date_key(int32_t day) {
  const CivilDate c = civil_from_days(day);
  return c.year * 10000 + static_cast<int32_t>(c.month * 100 + c.day);
}

Table make_date(GenContext& ctx, const TableDef& def) {
  const int32_t first = first_day();
  const auto n = static_cast<uint64_t>(last_day() - first + 1);
  if (n != ctx.counts.dates)
    throw Error(ErrorKind::Internal, "SSB generator: calendar has " + std::to_string(n) + " days, expected " +
                                         std::to_string(ctx.counts.dates));
  IntColumn datekey(column_def(def, "d_datekey"), n, 19981231), year(column_def(def, "d_year"), n, kLastYear),
      yearmonthnum(column_def(def, "d_yearmonthnum"), n, 199812),
      daynuminweek(column_def(def, "d_daynuminweek"), n, 7), daynuminmonth(column_def(def, "d_daynuminmonth"), n, 31),
      daynuminyear(column_def(def, "d_daynuminyear"), n, 366),
      monthnuminyear(column_def(def, "d_monthnuminyear"), n, 12),
      weeknuminyear(column_def(def, "d_weeknuminyear"), n, 53),
      lastdayinweek(column_def(def, "d_lastdayinweekfl"), n, 1),
      lastdayinmonth(column_def(def, "d_lastdayinmonthfl"), n, 1), holiday(column_def(def, "d_holidayfl"), n, 1),
      weekday(column_def(def, "d_weekdayfl"), n, 1);
  std::vector<std::string> date(n), dayofweek(n), month(n), yearmonth(n), season(n);

  for (uint64_t r = 0; r < n; ++r) {
    const int32_t day = first + static_cast<int32_t>(r);
    const CivilDate c = civil_from_days(day);
    const uint32_t dow = day_of_week(day);  // 0 = Sunday
    const int32_t doy = day - days_from_civil(c.year, 1, 1) + 1;
    const bool last_of_month = civil_from_days(day + 1).month != c.month;
    const std::string month_name(vocab::kMonthNames[c.month - 1]);

    datekey.put(r, date_key(day));
    date[r] = month_name + " " + std::to_string(c.day) + ", " + std::to_string(c.year);
    dayofweek[r] = vocab::kWeekdayNames[dow];
    month[r] = month_name;
    year.put(r, c.year);
    yearmonthnum.put(r, c.year * 100 + static_cast<int32_t>(c.month));
    yearmonth[r] = month_name.substr(0, 3) + std::to_string(c.year);
    daynuminweek.put(r, dow + 1);
    daynuminmonth.put(r, c.day);
    daynuminyear.put(r, doy);
    monthnuminyear.put(r, c.month);
    weeknuminyear.put(r, doy / 7 + 1);
    season[r] = vocab::selling_season(c.month);
    lastdayinweek.put(r, dow == 6 ? 1 : 0);
    lastdayinmonth.put(r, last_of_month ? 1 : 0);
    holiday.put(r, vocab::is_holiday(c.month, c.day) ? 1 : 0);
    weekday.put(r, dow >= 1 && dow <= 5 ? 1 : 0);
  }
  ctx.advance(n);

  std::vector<Column> cols = build_columns(ctx.threads, {
      [&] { return datekey.finish(); },
      [&] { return string_column(column_def(def, "d_date"), date); },
      [&] { return string_column(column_def(def, "d_dayofweek"), dayofweek); },
      [&] { return string_column(column_def(def, "d_month"), month); },
      [&] { return year.finish(); },
      [&] { return yearmonthnum.finish(); },
      [&] { return string_column(column_def(def, "d_yearmonth"), yearmonth); },
      [&] { return daynuminweek.finish(); },
      [&] { return daynuminmonth.finish(); },
      [&] { return daynuminyear.finish(); },
      [&] { return monthnuminyear.finish(); },
      [&] { return weeknuminyear.finish(); },
      [&] { return string_column(column_def(def, "d_sellingseason"), season); },
      [&] { return lastdayinweek.finish(); },
      [&] { return lastdayinmonth.finish(); },
      [&] { return holiday.finish(); },
      [&] { return weekday.finish(); }});
  return assemble_table(ctx, def, n, std::move(cols));
}

}  // namespace hqc::ssb

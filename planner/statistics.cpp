// Statistics over a loaded Database (planner/statistics.h).
#include "planner/statistics.h"

#include <algorithm>

#include "frontend/string_functions.h"
#include "storage/date.h"
#include "storage/error.h"

namespace hqc::planner {

uint64_t distinct_of_term(const std::string& term, const Statistics& stats) {
  std::string field, column = term;
  const auto open = term.find('(');
  if (open != std::string::npos) {
    if (term.back() != ')') throw Error(ErrorKind::Internal, "statistics: malformed distinct term \"" + term + "\"");
    field = term.substr(0, open);
    column = term.substr(open + 1, term.size() - open - 2);
  }
  const auto dot = column.find('.');
  if (dot == std::string::npos) throw Error(ErrorKind::Internal, "statistics: distinct term \"" + term + "\" names no table");
  const ColumnStats s = stats.column(column.substr(0, dot), column.substr(dot + 1));
  if (field.empty()) return std::max<uint64_t>(1, s.distinct);
  if (field.rfind("mod", 0) == 0 && field.size() > 3 && field.find_first_not_of("0123456789", 3) == std::string::npos) {
    const uint64_t c = std::stoull(field.substr(3));
    const uint64_t values = s.valid && s.min >= 0 ? c : 2 * c - 1;  // x % c has the sign of x
    return std::max<uint64_t>(1, s.distinct == 0 ? values : std::min<uint64_t>(s.distinct, values));
  }
  if (field != "year" && field != "month") throw Error(ErrorKind::Internal, "statistics: unknown distinct term \"" + term + "\"");
  if (!s.valid) return field == "month" ? 12 : std::max<uint64_t>(1, s.distinct);  // no range: every date its own year
  const CivilDate lo = civil_from_days(static_cast<int32_t>(s.min)), hi = civil_from_days(static_cast<int32_t>(s.max));
  const int64_t years = static_cast<int64_t>(hi.year) - lo.year + 1;
  if (field == "year") return static_cast<uint64_t>(std::max<int64_t>(1, years));
  const int64_t months = (years - 1) * 12 + static_cast<int64_t>(hi.month) - static_cast<int64_t>(lo.month) + 1;
  return static_cast<uint64_t>(std::clamp<int64_t>(months, 1, 12));
}

uint64_t DatabaseStatistics::rows(const std::string& table) const {
  const Table* t = db_.find(table);
  if (!t) throw Error(ErrorKind::Input, "statistics: the database has no table \"" + table + "\"");
  return t->partition ? t->partition->total_rows : t->rows;
}

const Column& DatabaseStatistics::find_column(const std::string& table, const std::string& column) const {
  const Table* t = db_.find(table);
  if (!t) throw Error(ErrorKind::Input, "statistics: the database has no table \"" + table + "\"");
  const Column* c = t->find(column);
  if (!c) throw Error(ErrorKind::Input, "statistics: table \"" + table + "\" has no column \"" + column + "\"");
  return *c;
}

ColumnStats DatabaseStatistics::column(const std::string& table, const std::string& column) const {
  return find_column(table, column).stats;
}

int64_t DatabaseStatistics::dictionary_code(const std::string& table, const std::string& column,
                                            const std::string& literal, plan::DictMatch match) const {
  const Column& c = find_column(table, column);
  if (c.encoding != Encoding::Dictionary) {
    throw Error(ErrorKind::Input, "statistics: column " + table + "." + column + " is not dictionary-encoded in the loaded data");
  }
  const std::vector<std::string>& d = c.dictionary;
  switch (match) {
    case plan::DictMatch::Equal: {
      auto it = std::lower_bound(d.begin(), d.end(), literal);
      return (it != d.end() && *it == literal) ? static_cast<int64_t>(it - d.begin()) : -1;
    }
    case plan::DictMatch::LowerBound:
      return static_cast<int64_t>(std::lower_bound(d.begin(), d.end(), literal) - d.begin());
    case plan::DictMatch::UpperBound:
      return static_cast<int64_t>(std::upper_bound(d.begin(), d.end(), literal) - d.begin());
    case plan::DictMatch::PrefixEnd: {
      auto first = std::lower_bound(d.begin(), d.end(), literal);
      auto end = std::partition_point(first, d.end(), [&](const std::string& s) { return s.starts_with(literal); });
      return static_cast<int64_t>(end - d.begin());
    }
  }
  return -1;
}

std::vector<int64_t> DatabaseStatistics::dictionary_values(const std::string& table, const std::string& column,
                                                            const plan::Expr& per_code) const {
  const Column& c = find_column(table, column);
  if (c.encoding != Encoding::Dictionary) {
    throw Error(ErrorKind::Input, "statistics: column " + table + "." + column + " is not dictionary-encoded in the loaded data");
  }
  std::vector<int64_t> values;
  values.reserve(c.dictionary.size());
  for (const std::string& s : c.dictionary) values.push_back(plan::evaluate_per_string(per_code, s));
  return values;
}

}  // namespace hqc::planner

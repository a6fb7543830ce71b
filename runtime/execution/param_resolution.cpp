// Run-time parameters of a plan from the data: row counts, column statistics and dictionary codes
// of string literals. These are kernel arguments, so one compiled source serves every scale factor.
#include <algorithm>

#include "runtime/device/database_lookup.h"
#include "runtime/execution/executor.h"
#include "storage/error.h"

namespace hqc::runtime {

namespace {

// Min/max of the physical integer values; statistics from load time when present.
std::pair<int64_t, int64_t> min_max(const Column& c) {
  if (c.stats.valid) return {c.stats.min, c.stats.max};
  int64_t lo = 0;
  int64_t hi = 0;
  if (!c.i32.empty()) {
    auto [a, b] = std::minmax_element(c.i32.begin(), c.i32.end());
    lo = *a;
    hi = *b;
  } else if (!c.i64.empty()) {
    auto [a, b] = std::minmax_element(c.i64.begin(), c.i64.end());
    lo = *a;
    hi = *b;
  }
  return {lo, hi};
}


}  // namespace

std::map<std::string, int64_t> resolve_params(const ExecutablePlan& plan, const Database& database) {
  std::map<std::string, int64_t> values;
  for (const ParamSpec& p : plan.params) {
    const std::string context = plan.label + ": parameter " + p.name;
    int64_t v = 0;
    switch (p.source) {
      case ParamSpec::Source::Constant:
        v = p.value;
        break;
      case ParamSpec::Source::RowCount:
        v = static_cast<int64_t>(row_count(lookup_table(database, p.table, context)));
        break;
      case ParamSpec::Source::ColumnMin:
        v = min_max(lookup_column(database, p.table, p.column, context)).first;
        break;
      case ParamSpec::Source::ColumnMax:
        v = min_max(lookup_column(database, p.table, p.column, context)).second;
        break;
      case ParamSpec::Source::ColumnDomain: {
        auto [lo, hi] = min_max(lookup_column(database, p.table, p.column, context));
        v = hi - lo + 1;
        break;
      }
      case ParamSpec::Source::DictionaryCode: {
        const Column& c = lookup_column(database, p.table, p.column, context);
        if (c.encoding != Encoding::Dictionary) {
          throw Error(ErrorKind::Internal, context + ": " + p.table + "." + p.column +
                                               " is not dictionary-encoded, so the literal \"" + p.literal +
                                               "\" has no code");
        }
        const auto& d = c.dictionary;
        switch (p.match) {
          case ParamSpec::Match::Equal: {
            auto it = std::lower_bound(d.begin(), d.end(), p.literal);
            v = (it != d.end() && *it == p.literal) ? static_cast<int64_t>(it - d.begin()) : -1;
            break;
          }
          case ParamSpec::Match::LowerBound:
            v = std::lower_bound(d.begin(), d.end(), p.literal) - d.begin();
            break;
          case ParamSpec::Match::UpperBound:
            v = std::upper_bound(d.begin(), d.end(), p.literal) - d.begin();
            break;
          case ParamSpec::Match::PrefixEnd: {
            auto first = std::lower_bound(d.begin(), d.end(), p.literal);
            v = std::partition_point(first, d.end(), [&](const std::string& s) { return s.starts_with(p.literal); }) - d.begin();
            break;
          }
        }
        break;
      }
    }
    values[p.name] = v;
  }
  return values;
}

}  // namespace hqc::runtime

// Selectivity and row estimates for join ordering (frontend/cardinality.h).
#include "frontend/cardinality.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "frontend/string_functions.h"
#include "storage/error.h"

namespace hqc::plan {

namespace {

std::optional<ColumnStats> column_stats(const Expr& col, const std::string& table, const Statistics& stats) {
  if (table.empty() || col.kind != ExprKind::Column) return std::nullopt;
  try {
    return stats.column(table, col.column);
  } catch (const Error&) {
    return std::nullopt;  // a computed attribute, or a column of another relation
  }
}

// The integer an operand compares as: an integer-like literal, or a dictionary string's code.
std::optional<int64_t> constant_of(const Expr& e, const Statistics& stats) {
  if (e.kind == ExprKind::Literal && e.type.is_integer_like()) return e.int_value;
  if (e.kind == ExprKind::DictCode && stats.has_dictionaries()) {
    try {
      return stats.dictionary_code(e.dict_table, e.dict_column, e.string_value, e.match);
    } catch (const Error&) {
      return std::nullopt;  // no dictionaries (catalog estimates)
    }
  }
  return std::nullopt;
}

bool is_constant(const Expr& e) { return e.kind == ExprKind::Literal || e.kind == ExprKind::DictCode || e.kind == ExprKind::Param; }

double equality(const Expr& col, const Expr& value, const std::string& table, const Statistics& stats) {
  std::optional<ColumnStats> s = column_stats(col, table, stats);
  if (!s || s->distinct == 0) return kDefaultEquality;
  if (value.kind == ExprKind::DictCode) {
    std::optional<int64_t> code = constant_of(value, stats);
    if (code && *code < 0) return kMinSelectivity;  // the string is not in the dictionary
  }
  return 1.0 / static_cast<double>(s->distinct);
}

// The constraint lo <= col <= hi that conjuncts put on one column (bounds inclusive).
struct Interval {
  const Expr* column = nullptr;
  int64_t lo = INT64_MIN / 2, hi = INT64_MAX / 2;
  int bounds = 0;        // how many bounds were intersected
  bool unknown = false;  // a bound whose value is not known at plan time
};

// Adds `e` to the column's interval when it is a comparison of a column with a constant.
bool add_bound(const Expr& e, const Statistics& stats, std::map<std::string, Interval>& intervals) {
  auto bound = [&](const Expr& col, CompareOp op, const Expr& value) {
    Interval& in = intervals[col.source + "." + col.column];
    in.column = &col;
    ++in.bounds;
    std::optional<int64_t> v = constant_of(value, stats);
    if (!v) {
      in.unknown = true;
      return;
    }
    switch (op) {
      case CompareOp::Lt: in.hi = std::min(in.hi, *v - 1); break;
      case CompareOp::Le: in.hi = std::min(in.hi, *v); break;
      case CompareOp::Gt: in.lo = std::max(in.lo, *v + 1); break;
      case CompareOp::Ge: in.lo = std::max(in.lo, *v); break;
      default: break;
    }
  };
  if (e.kind == ExprKind::Compare && e.compare != CompareOp::Eq && e.compare != CompareOp::Ne &&
      e.args[0]->kind == ExprKind::Column && is_constant(*e.args[1])) {
    bound(*e.args[0], e.compare, *e.args[1]);
    return true;
  }
  if (e.kind == ExprKind::Between && e.args[0]->kind == ExprKind::Column && is_constant(*e.args[1]) && is_constant(*e.args[2])) {
    bound(*e.args[0], CompareOp::Ge, *e.args[1]);
    bound(*e.args[0], CompareOp::Le, *e.args[2]);
    return true;
  }
  return false;
}

double interval_selectivity(const Interval& in, const std::string& table, const Statistics& stats) {
  std::optional<ColumnStats> s = column_stats(*in.column, table, stats);
  if (in.unknown || !s || !s->valid) return in.bounds >= 2 ? kDefaultBetween : kDefaultRange;
  const double domain = static_cast<double>(s->max) - static_cast<double>(s->min) + 1.0;
  const double covered = static_cast<double>(std::min(in.hi, s->max)) - static_cast<double>(std::max(in.lo, s->min)) + 1.0;
  if (covered <= 0) return kMinSelectivity;
  return std::min(1.0, covered / domain);
}

double selectivity(const Expr& e, const std::string& table, const Statistics& stats);

double conjunction(const std::vector<ExprPtr>& parts, const std::string& table, const Statistics& stats) {
  std::map<std::string, Interval> intervals;
  double s = 1.0;
  for (const ExprPtr& p : parts) {
    if (!add_bound(*p, stats, intervals)) s *= selectivity(*p, table, stats);
  }
  for (const auto& entry : intervals) s *= interval_selectivity(entry.second, table, stats);
  return s;
}

// The fraction of its dictionary's strings for which a predicate computed from one dictionary column
// holds (LIKE, string functions: evaluated per string as the IR's per-code tables are), when the
// statistics have the dictionary.
std::optional<double> dictionary_fraction(const Expr& e, const Statistics& stats) {
  const Expr* column = per_string_column(e);
  if (!column || !computes_from_string(e) || !per_string_evaluable(e) || !stats.has_dictionaries()) return std::nullopt;
  try {
    std::vector<int64_t> flags = stats.dictionary_values(column->dict_table, column->dict_column, e);
    if (flags.empty()) return std::nullopt;
    return static_cast<double>(std::count(flags.begin(), flags.end(), 1)) / static_cast<double>(flags.size());
  } catch (const Error&) {
    return std::nullopt;  // no dictionaries: the defaults
  }
}

double selectivity(const Expr& e, const std::string& table, const Statistics& stats) {
  if (e.kind != ExprKind::And && e.kind != ExprKind::Or && e.kind != ExprKind::Not) {
    if (std::optional<double> fraction = dictionary_fraction(e, stats)) return *fraction;
  }
  switch (e.kind) {
    case ExprKind::And: return conjunction(e.args, table, stats);
    case ExprKind::Or: {
      double none = 1.0;
      for (const ExprPtr& a : e.args) none *= 1.0 - selectivity(*a, table, stats);
      return 1.0 - none;
    }
    case ExprKind::Not: return 1.0 - selectivity(*e.args[0], table, stats);
    case ExprKind::Between:
    case ExprKind::Compare: {
      if (e.kind == ExprKind::Compare && (e.compare == CompareOp::Eq || e.compare == CompareOp::Ne)) {
        const Expr& l = *e.args[0];
        const Expr& r = *e.args[1];
        double eq = kDefaultEquality;
        if (l.kind == ExprKind::Column && is_constant(r)) {
          eq = equality(l, r, table, stats);
        } else if (l.kind == ExprKind::Column && r.kind == ExprKind::Column) {
          std::optional<ColumnStats> a = column_stats(l, table, stats), b = column_stats(r, table, stats);
          if (a && b && std::max(a->distinct, b->distinct) > 0) eq = 1.0 / static_cast<double>(std::max(a->distinct, b->distinct));
        }
        return e.compare == CompareOp::Eq ? eq : 1.0 - eq;
      }
      std::map<std::string, Interval> one;
      if (add_bound(e, stats, one)) return interval_selectivity(one.begin()->second, table, stats);
      return e.kind == ExprKind::Between ? kDefaultBetween : kDefaultRange;  // columns compared with columns
    }
    case ExprKind::InList: {
      const double items = static_cast<double>(e.args.size() - 1);
      return std::min(1.0, items * equality(*e.args[0], *e.args[1], table, stats));
    }
    case ExprKind::Like: return kDefaultEquality;  // over heap strings
    default:
      return kDefaultOther;
  }
}

// The scan that produces attributes of `alias` inside op's subtree, or nullptr.
const LogicalOp* find_scan(const LogicalOp& op, const std::string& alias) {
  if (op.kind == OpKind::Scan) return op.alias == alias ? &op : nullptr;
  for (const auto& c : op.children)
    if (const LogicalOp* s = find_scan(*c, alias)) return s;
  return nullptr;
}

// The base table a filter's predicate reads: the table of the scan below (through other filters).
std::string scanned_table(const LogicalOp& op) {
  if (op.kind == OpKind::Scan) return op.table;
  if (op.kind == OpKind::Filter) return scanned_table(op.child(0));
  return "";
}

// The fraction of a semi join's probe rows that find a match: with the smaller key set contained
// in the larger, min(1, distinct build keys / distinct probe keys) — each side's distinct count of
// its first key column where statistics have one (capped at the side's estimated rows, so a
// filtered build side counts what survives its filter), else the side's rows. kDefaultSemi without
// keys or without any distinct count. A residual predicate is not estimated (the fraction is an
// upper bound then).
double semi_match_fraction(const LogicalOp& op, double probe, double build, const Statistics& stats) {
  if (op.build_keys.empty() || op.probe_keys.empty()) return kDefaultSemi;
  const double dp = estimate_distinct(op.child(0), *op.probe_keys[0], stats);
  const double db = estimate_distinct(op.child(1), *op.build_keys[0], stats);
  if (dp <= 0 && db <= 0) return kDefaultSemi;
  return std::min(1.0, (db > 0 ? db : build) / std::max(dp > 0 ? dp : probe, 1.0));
}

}  // namespace

double filter_selectivity(const Expr& predicate, const std::string& table, const Statistics& stats) {
  bool known = false;
  visit(predicate, [&](const Expr& e) {
    if (known || e.kind != ExprKind::Column) return;
    std::optional<ColumnStats> s = column_stats(e, table, stats);
    known = s && (s->valid || s->distinct > 0);
  });
  if (!known) return kDefaultFilter;
  return std::clamp(selectivity(predicate, table, stats), kMinSelectivity, 1.0);
}

double estimate_distinct(const LogicalOp& op, const Expr& column, const Statistics& stats) {
  if (column.kind != ExprKind::Column || column.source.empty()) return 0;
  const LogicalOp* scan = find_scan(op, column.source);
  if (scan == nullptr) return 0;
  std::optional<ColumnStats> s = column_stats(column, scan->table, stats);
  if (!s || s->distinct == 0) return 0;
  return std::min(static_cast<double>(s->distinct), estimate_rows(op, stats));
}

double estimate_rows(const LogicalOp& op, const Statistics& stats) {
  if (op.estimated_rows >= 0) return op.estimated_rows;
  double rows = 1.0;
  switch (op.kind) {
    case OpKind::Scan:
      try {
        rows = static_cast<double>(stats.rows(op.table));
      } catch (const Error&) {
        rows = 1.0;
      }
      break;
    case OpKind::Filter:
      rows = estimate_rows(op.child(0), stats) * filter_selectivity(*op.predicate, scanned_table(op.child(0)), stats);
      break;
    case OpKind::Aggregate: {
      const LogicalOp& in = op.child(0);
      const double input = estimate_rows(in, stats);
      double groups = 1.0;
      for (const NamedExpr& k : op.group_by) {
        const double d = estimate_distinct(in, *k.expr, stats);
        groups *= d > 0 ? d : input;
        if (groups >= input) break;
      }
      rows = std::min(input, groups);
      break;
    }
    case OpKind::Join: {
      const double probe = estimate_rows(op.child(0), stats);
      const double build = estimate_rows(op.child(1), stats);
      if (op.join_type == JoinType::Semi || op.join_type == JoinType::Anti) {
        const double matched = semi_match_fraction(op, probe, build, stats);
        rows = probe * (op.join_type == JoinType::Semi ? matched : 1.0 - matched);
        break;
      }
      double matches = build;  // per probe row
      if (!op.build_keys.empty()) {
        const double dp = estimate_distinct(op.child(0), *op.probe_keys[0], stats);
        const double db = estimate_distinct(op.child(1), *op.build_keys[0], stats);
        matches = build / std::max({dp > 0 ? dp : probe, db > 0 ? db : build, 1.0});
      }
      rows = probe * matches;
      if (op.join_type == JoinType::LeftOuter) rows = std::max(rows, probe);
      break;
    }
    case OpKind::Union:
      rows = 0;
      for (const auto& c : op.children) rows += estimate_rows(*c, stats);
      break;
    case OpKind::Limit:
      rows = std::min(estimate_rows(op.child(0), stats), static_cast<double>(std::max<int64_t>(op.limit, 0)));
      break;
    default:
      rows = op.children.empty() ? 1.0 : estimate_rows(op.child(0), stats);
      break;
  }
  return std::max(rows, 1.0);
}

std::vector<std::vector<std::string>> unique_column_sets(const LogicalOp& op, const Catalog& catalog) {
  switch (op.kind) {
    case OpKind::Scan: {
      const TableDef* t = catalog.find(op.table);
      if (t == nullptr || t->primary_key.empty()) return {};
      return {t->primary_key};
    }
    case OpKind::Aggregate: {
      std::vector<std::string> keys;
      for (const NamedExpr& k : op.group_by) keys.push_back(k.name);
      return {keys};
    }
    case OpKind::Project: {
      // A set survives when each of its attributes is passed through as a plain column.
      std::vector<std::vector<std::string>> out;
      const LogicalOp& in = op.child(0);
      for (const std::vector<std::string>& set : unique_column_sets(in, catalog)) {
        std::vector<std::string> renamed;
        for (const std::string& name : set) {
          for (const NamedExpr& e : op.exprs) {
            if (e.expr->kind != ExprKind::Column || e.expr->column != name) continue;
            // The input attribute must be the one this set names (scans name columns by alias).
            const bool from_input = std::any_of(in.schema.begin(), in.schema.end(), [&](const Attribute& a) {
              return a.name == name && a.source == e.expr->source;
            });
            if (from_input) {
              renamed.push_back(e.name);
              break;
            }
          }
        }
        if (renamed.size() == set.size()) out.push_back(renamed);
      }
      return out;
    }
    case OpKind::Join:
      if (op.join_type == JoinType::Semi || op.join_type == JoinType::Anti) return unique_column_sets(op.child(0), catalog);
      return {};
    case OpKind::Union:  // the children's rows may repeat each other
      return {};
    case OpKind::Filter:
    case OpKind::Map:
    case OpKind::Window:
    case OpKind::OrderBy:
    case OpKind::Limit:
      return unique_column_sets(op.child(0), catalog);
  }
  return {};
}

}  // namespace hqc::plan

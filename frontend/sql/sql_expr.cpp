// SQL expression binding via the JSON expression binder (frontend/sql/sql_expr.h).
#include "frontend/sql/sql_expr.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "frontend/bind_expr.h"
#include "frontend/json_reader.h"
#include "storage/date.h"
#include "storage/error.h"

namespace hqc::sql {

namespace {

using nlohmann::json;

int32_t days_in_month(int32_t year, uint32_t month) {
  static const int32_t days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && is_leap_year(year) ? 29 : days[month - 1];
}

// date ± interval with PostgreSQL's rule for months: the day of month is clamped to the length of
// the target month (date '1995-01-31' + interval '1' month = 1995-02-28).
int32_t add_interval(int32_t days, int64_t amount, IntervalUnit unit) {
  if (unit == IntervalUnit::Day) return static_cast<int32_t>(days + amount);
  CivilDate c = civil_from_days(days);
  int64_t months = c.year * 12LL + (c.month - 1) + (unit == IntervalUnit::Year ? amount * 12 : amount);
  int32_t year = static_cast<int32_t>(months >= 0 ? months / 12 : (months - 11) / 12);
  uint32_t month = static_cast<uint32_t>(months - year * 12LL) + 1;
  uint32_t day = std::min<uint32_t>(c.day, static_cast<uint32_t>(days_in_month(year, month)));
  return days_from_civil(year, month, day);
}

class Translator {
 public:
  Translator(const AttributeLookup& lookup, const SqlSource& source) : lookup_(lookup), src_(source) {}

  json translate(const SqlExpr& e, const std::string& path) {
    locations_[path] = e.location;
    if (auto name = lookup_(e)) return json{{"column", *name}};
    switch (e.kind) {
      case SqlExprKind::Column:
        throw Error(ErrorKind::Internal, src_.position(e.location) + ": column " + e.to_sql() + " was not resolved before binding");
      case SqlExprKind::Attribute: return json{{"column", e.text}};
      case SqlExprKind::IntLiteral: return json{{"int", e.int_value}};
      case SqlExprKind::DecimalLiteral: return json{{"decimal", e.text}};
      case SqlExprKind::StringLiteral: return json{{"string", e.text}};
      case SqlExprKind::DateLiteral: return json{{"date", e.text}};
      case SqlExprKind::Binary: return binary(e, path);
      case SqlExprKind::Negate:
        return json{{"op", "-"}, {"left", json{{"int", 0}}}, {"right", translate(*e.args[0], path + ".right")}};
      case SqlExprKind::And:
      case SqlExprKind::Or: {
        json args = json::array();
        for (size_t i = 0; i < e.args.size(); ++i) args.push_back(translate(*e.args[i], path + ".args[" + std::to_string(i) + "]"));
        return json{{"op", e.kind == SqlExprKind::And ? "and" : "or"}, {"args", args}};
      }
      case SqlExprKind::Not: return json{{"op", "not"}, {"arg", translate(*e.args[0], path + ".arg")}};
      case SqlExprKind::Between: {
        // NOT BETWEEN wraps the between at the same position, so both paths map to the SQL node.
        std::string p = e.negated ? path + ".arg" : path;
        locations_[p] = e.location;
        json b = {{"op", "between"}, {"arg", translate(*e.args[0], p + ".arg")}, {"low", translate(*e.args[1], p + ".low")},
                  {"high", translate(*e.args[2], p + ".high")}};
        return e.negated ? json{{"op", "not"}, {"arg", b}} : b;
      }
      case SqlExprKind::InList: {
        std::string p = e.negated ? path + ".arg" : path;
        locations_[p] = e.location;
        json list = json::array();
        for (size_t i = 1; i < e.args.size(); ++i) list.push_back(translate(*e.args[i], p + ".list[" + std::to_string(i - 1) + "]"));
        json in = {{"op", "in"}, {"arg", translate(*e.args[0], p + ".arg")}, {"list", list}};
        return e.negated ? json{{"op", "not"}, {"arg", in}} : in;
      }
      case SqlExprKind::Case: {
        json when = json::array();
        for (size_t i = 0; i + 1 < e.args.size(); i += 2) {
          std::string w = path + ".when[" + std::to_string(i / 2) + "]";
          locations_[w] = e.args[i]->location;
          when.push_back(json{{"if", translate(*e.args[i], w + ".if")}, {"then", translate(*e.args[i + 1], w + ".then")}});
        }
        if (e.args.back()->kind == SqlExprKind::NullLiteral) {
          src_.unsupported(e.location, "CASE without ELSE (or ELSE NULL) is not supported: horseqc columns have no NULLs");
        }
        return json{{"op", "case"}, {"when", when}, {"else", translate(*e.args.back(), path + ".else")}};
      }
      case SqlExprKind::Cast: {
        if (e.text == "date" && e.args[0]->kind == SqlExprKind::StringLiteral) return json{{"date", e.args[0]->text}};
        std::string type = cast_type(e);
        return json{{"op", "cast"}, {"arg", translate(*e.args[0], path + ".arg")}, {"type", type}};
      }
      case SqlExprKind::Like: {
        std::string p = e.negated ? path + ".arg" : path;
        locations_[p] = e.location;
        const SqlExpr& pattern = *e.args[1];
        if (pattern.kind != SqlExprKind::StringLiteral) src_.unsupported(pattern.location, "LIKE needs its pattern as a string literal");
        json like = {{"op", e.text == "ilike" ? "ilike" : "like"}, {"arg", translate(*e.args[0], p + ".arg")}, {"pattern", pattern.text}};
        return e.negated ? json{{"op", "not"}, {"arg", like}} : like;
      }
      case SqlExprKind::Substring: {
        if (e.args.size() < 3) src_.unsupported(e.location, "SUBSTRING without FOR <length> is not supported");
        for (size_t i = 1; i < 3; ++i) {
          if (e.args[i]->kind != SqlExprKind::IntLiteral) src_.unsupported(e.args[i]->location, "SUBSTRING needs its start and length as integer literals");
        }
        locations_[path + ".start"] = e.args[1]->location;
        locations_[path + ".length"] = e.args[2]->location;
        return json{{"op", "substring"}, {"arg", translate(*e.args[0], path + ".arg")}, {"start", e.args[1]->int_value}, {"length", e.args[2]->int_value}};
      }
      case SqlExprKind::Extract:
        locations_[path + ".field"] = e.location;
        return json{{"op", "extract"}, {"field", e.text}, {"arg", translate(*e.args[0], path + ".arg")}};
      case SqlExprKind::Function:
        if (e.over)
          src_.unsupported(e.location, "window function " + e.text + "() OVER (...) is only supported as a whole item of the outermost "
                                       "select list (optionally aliased), not inside an expression or another clause");
        if (is_aggregate_call(e)) src_.fail(e.location, "aggregate function " + e.text + " is not allowed here (only in the select list, HAVING and ORDER BY)");
        if (std::optional<json> call = string_function(e, path)) return *call;
        if (e.text == "round") return round_call(e, path);
        if (std::optional<json> call = date_function(e, path)) return *call;
        src_.unsupported(e.location, "function " + e.text + "() is not supported");
      case SqlExprKind::IntervalLiteral:
        src_.unsupported(e.location, "an interval is only supported added to or subtracted from a date");
      case SqlExprKind::NullLiteral:
        src_.unsupported(e.location, "NULL is not supported: horseqc columns have no NULLs");
      default:
        src_.unsupported(e.location, std::string(kind_name(e.kind)) + " (" + e.to_sql() +
                                         ") is not supported yet: the plan expression language (frontend/expr.h) has no such operation");
    }
  }

  // The SQL offset of the deepest recorded JSON path that prefixes `path`.
  int location_of(const std::string& path) const {
    std::string p = path;
    while (!p.empty()) {
      if (auto it = locations_.find(p); it != locations_.end()) return it->second;
      auto cut = p.find_last_of(".[");
      if (cut == std::string::npos) break;
      p.resize(cut);
    }
    return -1;
  }

 private:
  // {"op": name, "args": [...]} at `location`, each argument's path mapped to its own position.
  json call(const std::string& name, const std::vector<const SqlExpr*>& args, const std::string& path, int location) {
    locations_[path] = location;
    json out = json::array();
    for (size_t i = 0; i < args.size(); ++i) out.push_back(translate(*args[i], path + ".args[" + std::to_string(i) + "]"));
    return json{{"op", name}, {"args", out}};
  }

  // The string functions (frontend/expr.h StringFn) under their SQL names: PostgreSQL's grammar
  // makes TRIM([BOTH|LEADING|TRAILING] FROM x) btrim/ltrim/rtrim and POSITION(n IN s) position(s, n);
  // concat(a, b, c, ...) nests as concat(concat(a, b), c).
  std::optional<json> string_function(const SqlExpr& e, const std::string& path) {
    static const std::map<std::string, std::pair<std::string, size_t>> names = {
        {"upper", {"upper", 1}},   {"lower", {"lower", 1}},   {"btrim", {"trim", 1}},       {"trim", {"trim", 1}},
        {"ltrim", {"ltrim", 1}},   {"rtrim", {"rtrim", 1}},   {"length", {"length", 1}},    {"char_length", {"length", 1}},
        {"character_length", {"length", 1}}, {"strpos", {"strpos", 2}}, {"position", {"strpos", 2}}, {"replace", {"replace", 3}},
    };
    std::vector<const SqlExpr*> args;
    for (const SqlExprPtr& a : e.args) args.push_back(a.get());
    if (e.text == "concat") {
      if (args.size() < 2) src_.unsupported(e.location, "concat needs at least two arguments");
      std::vector<const SqlExpr*> first(args.begin(), args.begin() + 2);
      json out = call("concat", first, path, e.location);
      for (size_t i = 2; i < args.size(); ++i) {
        const std::string p = path + ".concat" + std::to_string(i);
        locations_[p + ".args[1]"] = args[i]->location;
        out = json{{"op", "concat"}, {"args", json::array({out, translate(*args[i], p + ".args[1]")})}};
      }
      return out;
    }
    auto it = names.find(e.text);
    if (it == names.end()) return std::nullopt;
    const auto& [op, arity] = it->second;
    if ((e.text == "btrim" || e.text == "ltrim" || e.text == "rtrim") && args.size() == 2)
      src_.unsupported(args[1]->location, "TRIM of characters other than spaces is not supported");
    if (args.size() != arity)
      src_.fail(e.location, e.text + "() takes " + std::to_string(arity) + " argument" + (arity == 1 ? "" : "s") + ", found " + std::to_string(args.size()));
    return call(op, args, path, e.location);
  }

  // date_trunc('month', d), date_part('year', d) (EXTRACT), and DuckDB's year(d), quarter(d),
  // month(d), day(d), dayofweek(d), dayofyear(d).
  std::optional<json> date_function(const SqlExpr& e, const std::string& path) {
    static const std::map<std::string, std::string> parts = {{"year", "year"}, {"quarter", "quarter"}, {"month", "month"}, {"day", "day"},
                                                             {"dayofmonth", "day"}, {"dayofweek", "dow"}, {"dayofyear", "doy"}};
    locations_[path] = e.location;
    if (auto it = parts.find(e.text); it != parts.end()) {
      if (e.args.size() != 1) src_.fail(e.location, e.text + "() takes 1 argument, found " + std::to_string(e.args.size()));
      return json{{"op", "extract"}, {"field", it->second}, {"arg", translate(*e.args[0], path + ".arg")}};
    }
    if (e.text != "date_trunc" && e.text != "date_part" && e.text != "datepart" && e.text != "datetrunc") return std::nullopt;
    if (e.args.size() != 2) src_.fail(e.location, e.text + "() takes 2 arguments, found " + std::to_string(e.args.size()));
    if (e.args[0]->kind != SqlExprKind::StringLiteral) src_.unsupported(e.args[0]->location, e.text + "() needs its part as a string literal ('month')");
    std::string field = e.args[0]->text;
    std::transform(field.begin(), field.end(), field.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    locations_[path + ".field"] = e.args[0]->location;
    const bool trunc = e.text == "date_trunc" || e.text == "datetrunc";
    return json{{"op", trunc ? "date_trunc" : "extract"}, {"field", trunc || !parts.count(field) ? field : parts.at(field)},
                {"arg", translate(*e.args[1], path + ".arg")}};
  }

  // ROUND(x) and ROUND(x, n), n an integer literal.
  json round_call(const SqlExpr& e, const std::string& path) {
    if (e.args.empty() || e.args.size() > 2)
      src_.fail(e.location, "round() takes 1 or 2 arguments, found " + std::to_string(e.args.size()));
    locations_[path] = e.location;
    json out = {{"op", "round"}, {"arg", translate(*e.args[0], path + ".arg")}};
    if (e.args.size() == 2) {
      if (e.args[1]->kind != SqlExprKind::IntLiteral) src_.unsupported(e.args[1]->location, "round() needs its digits as an integer literal");
      locations_[path + ".digits"] = e.args[1]->location;
      out["digits"] = e.args[1]->int_value;
    }
    return out;
  }

  json binary(const SqlExpr& e, const std::string& path) {
    const SqlExpr& l = *e.args[0];
    const SqlExpr& r = *e.args[1];
    bool additive = e.text == "+" || e.text == "-";
    if (additive && r.kind == SqlExprKind::IntervalLiteral) {
      int64_t amount = e.text == "-" ? -r.int_value : r.int_value;
      if (l.kind == SqlExprKind::DateLiteral) {
        auto days = parse_iso_date(l.text);
        if (!days) src_.fail(l.location, "expected a date 'YYYY-MM-DD', found '" + l.text + "'");
        return json{{"date", format_iso_date(add_interval(*days, amount, r.interval_unit))}};
      }
      if (r.interval_unit != IntervalUnit::Day) {
        locations_[path + ".months"] = r.location;
        return json{{"op", "add_months"}, {"arg", translate(l, path + ".arg")},
                    {"months", r.interval_unit == IntervalUnit::Year ? amount * 12 : amount}};
      }
      locations_[path + ".right"] = r.location;
      return json{{"op", e.text}, {"left", translate(l, path + ".left")}, {"right", json{{"int", r.int_value}}}};
    }
    if (e.text == "||") return call("concat", {&l, &r}, path, e.location);
    return json{{"op", e.text}, {"left", translate(l, path + ".left")}, {"right", translate(r, path + ".right")}};
  }

  // PostgreSQL's internal type names (the parser keeps numeric's precision and scale as
  // "numeric(15,2)") → the plan's type spelling (DataType::to_string).
  std::string cast_type(const SqlExpr& e) const {
    const std::string& t = e.text;
    if (t == "int4" || t == "integer" || t == "int") return "int32";
    if (t == "int8" || t == "bigint") return "int64";
    if (t == "float8" || t == "double precision") return "float64";
    if (t == "date") return "date";
    if (t.starts_with("numeric(") || t.starts_with("decimal(")) return "decimal" + t.substr(t.find('('));
    if (t == "numeric" || t == "decimal") src_.unsupported(e.location, "CAST to " + t + " needs a precision and scale (numeric(15,2))");
    src_.unsupported(e.location, "CAST to " + t + " is not supported (int, bigint, double precision, numeric(p,s), date are)");
  }

  const AttributeLookup& lookup_;
  const SqlSource& src_;
  std::map<std::string, int> locations_;
};

plan::ExprPtr bind(const SqlExpr& e, const std::vector<plan::Attribute>& scope, const AttributeLookup& lookup,
                   const SqlSource& source, bool predicate) {
  Translator t(lookup, source);
  json doc = t.translate(e, "$");
  // The expression binder reports "<marker>: <json path>: <message>"; the marker cannot occur in
  // a path, so the message splits unambiguously.
  const std::string marker = "\x01sql";
  plan::JsonNode root(doc, "$", marker);
  try {
    return predicate ? plan::bind_predicate(root, scope) : plan::bind_expression(root, scope);
  } catch (const Error& err) {
    std::string what = err.what();
    if (!what.starts_with(marker + ": ")) throw;
    std::string rest = what.substr(marker.size() + 2);
    auto colon = rest.find(": ");
    std::string path = rest.substr(0, colon);
    std::string message = colon == std::string::npos ? rest : rest.substr(colon + 2);
    int location = t.location_of(path);
    throw Error(err.kind(), source.position(location >= 0 ? location : e.location) + ": " + message);
  }
}

}  // namespace

bool is_aggregate_call(const SqlExpr& e) {
  if (e.kind != SqlExprKind::Function || e.over) return false;
  return e.text == "sum" || e.text == "count" || e.text == "min" || e.text == "max" || e.text == "avg";
}

plan::ExprPtr bind_sql_expression(const SqlExpr& e, const std::vector<plan::Attribute>& scope,
                                  const AttributeLookup& lookup, const SqlSource& source) {
  return bind(e, scope, lookup, source, false);
}

plan::ExprPtr bind_sql_predicate(const SqlExpr& e, const std::vector<plan::Attribute>& scope,
                                 const AttributeLookup& lookup, const SqlSource& source) {
  return bind(e, scope, lookup, source, true);
}

}  // namespace hqc::sql

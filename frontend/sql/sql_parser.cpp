// libpg_query JSON parse tree → SQL AST (frontend/sql/sql_parser.h).
//
// The parse tree is PostgreSQL's raw grammar output (version 15): every node is a one-key object
// {"NodeType": {...fields...}}; protobuf-style JSON omits zero values, so a missing integer field
// means 0 (an `A_Const` with `"ival": {}` is the integer 0).
#include "frontend/sql/sql_parser.h"

#include <pg_query.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "storage/error.h"
#include "storage/field_parser.h"

namespace hqc::sql {

namespace {

// `text` as a whole as a signed decimal integer ("-12", "007"); nothing when it is anything else
// (empty, a lone '-', other characters) or leaves int64.
std::optional<int64_t> whole_integer(std::string_view text) {
  int64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [at, error] = std::from_chars(text.data(), end, v);
  if (error != std::errc() || at != end) return std::nullopt;
  return v;
}

// What the user wrote, for a parse-tree node horseqc does not bind: COALESCE, not CoalesceExpr.
std::string sql_name_of_node(const std::string& type) {
  static const std::map<std::string, std::string> names = {
      {"NullIfExpr", "NULLIF"},
      {"MinMaxExpr", "GREATEST / LEAST"},    {"TypeCast", "the cast"},
      {"A_ArrayExpr", "an ARRAY constructor"}, {"RowExpr", "a row constructor"},
      {"BooleanTest", "IS [NOT] TRUE / FALSE / UNKNOWN"}, {"ParamRef", "a parameter ($n)"},
      {"SQLValueFunction", "CURRENT_DATE / CURRENT_TIME / CURRENT_USER"}, {"CollateClause", "COLLATE"},
      {"A_Indirection", "array subscripts or field selection"}, {"GroupingFunc", "GROUPING()"},
      {"XmlExpr", "an XML function"},       {"A_Star", "* in this position"}};
  auto it = names.find(type);
  return it != names.end() ? it->second : "the expression (" + type + ")";
}

using nlohmann::json;

// PostgreSQL's interval field masks (INTERVAL_MASK in datetime.h), as `typmods[0]` of an interval
// cast written `interval '3' month`.
constexpr int64_t kMaskMonth = 1 << 1;
constexpr int64_t kMaskYear = 1 << 2;
constexpr int64_t kMaskDay = 1 << 3;

class Walker {
 public:
  explicit Walker(const SqlSource& source) : src_(source) {}

  std::shared_ptr<SelectStmt> statement(const json& node, int fallback_location) {
    if (!node.contains("SelectStmt")) {
      src_.unsupported(fallback_location, "only SELECT statements are supported, found " + type_of(node));
    }
    return select(node.at("SelectStmt"), fallback_location);
  }

 private:
  static std::string type_of(const json& node) { return node.is_object() && !node.empty() ? node.begin().key() : "nothing"; }

  static int location_of(const json& fields) {
    return fields.is_object() && fields.contains("location") ? fields.at("location").get<int>() : -1;
  }

  static std::string sval(const json& string_node) {
    // {"String": {"sval": "x"}}
    const json& s = string_node.at("String");
    return s.contains("sval") ? s.at("sval").get<std::string>() : "";
  }

  // The position of an operand of a set operation (libpg_query gives none): its first select item's.
  static int arm_location(const json& s, int fallback) {
    if (s.contains("targetList") && !s.at("targetList").empty()) {
      const int l = location_of(s.at("targetList").front().at("ResTarget"));
      if (l >= 0) return l;
    }
    return fallback;
  }

  std::shared_ptr<SelectStmt> select(const json& s, int location) {
    if (s.contains("valuesLists")) src_.unsupported(location, "VALUES lists are not supported");
    if (s.contains("windowClause")) src_.unsupported(location, "WINDOW clauses are not supported");
    auto out = std::make_shared<SelectStmt>();
    out->location = location;
    const std::string op = s.value("op", std::string("SETOP_NONE"));
    if (op != "SETOP_NONE") {
      // UNION / INTERSECT / EXCEPT: two whole SELECTs; WITH, ORDER BY and LIMIT belong to the result.
      out->set_op = op == "SETOP_UNION" ? SetOperation::Union : op == "SETOP_INTERSECT" ? SetOperation::Intersect : SetOperation::Except;
      out->set_all = s.value("all", false);
      out->left = select(s.at("larg"), arm_location(s.at("larg"), location));
      out->right = select(s.at("rarg"), arm_location(s.at("rarg"), location));
      out->location = out->left->location;
    }
    if (s.contains("withClause")) {
      const json& w = s.at("withClause");
      if (w.value("recursive", false)) src_.unsupported(location_of(w), "WITH RECURSIVE is not supported");
      for (const json& c : w.at("ctes")) {
        const json& cte = c.at("CommonTableExpr");
        CommonTable t;
        t.name = cte.at("ctename").get<std::string>();
        t.location = location_of(cte);
        if (cte.contains("aliascolnames")) {
          for (const json& n : cte.at("aliascolnames")) t.column_names.push_back(sval(n));
        }
        t.query = statement(cte.at("ctequery"), t.location);
        out->with.push_back(std::move(t));
      }
    }
    if (s.contains("distinctClause")) {
      const json& d = s.at("distinctClause");
      bool plain = d.is_array() && std::all_of(d.begin(), d.end(), [](const json& x) { return x.empty(); });
      if (!plain) src_.unsupported(location, "DISTINCT ON is not supported");
      out->distinct = true;
    }
    if (s.contains("targetList")) {
      for (const json& t : s.at("targetList")) out->items.push_back(select_item(t.at("ResTarget")));
    }
    if (s.contains("fromClause")) {
      for (const json& f : s.at("fromClause")) out->from.push_back(table_ref(f));
    }
    if (s.contains("whereClause")) out->where = expr(s.at("whereClause"));
    if (s.contains("groupClause")) {
      for (const json& g : s.at("groupClause")) {
        if (g.contains("GroupingSet")) src_.unsupported(location_of(g.at("GroupingSet")), "GROUPING SETS / ROLLUP / CUBE are not supported");
        out->group_by.push_back(expr(g));
      }
    }
    if (s.contains("havingClause")) out->having = expr(s.at("havingClause"));
    if (s.contains("sortClause")) {
      for (const json& o : s.at("sortClause")) {
        out->order_by.push_back(order_item(o));
      }
    }
    if (s.contains("limitCount")) {
      SqlExprPtr l = expr(s.at("limitCount"));
      out->limit_location = l->location;
      if (l->kind == SqlExprKind::NullLiteral) {
        out->limit.reset();  // LIMIT ALL
      } else if (l->kind != SqlExprKind::IntLiteral || l->int_value < 0) {
        src_.fail(l->location, "expected a non-negative integer after LIMIT, found " + l->to_sql());
      } else {
        out->limit = l->int_value;
      }
    }
    if (s.contains("limitOffset")) {
      SqlExprPtr o = expr(s.at("limitOffset"));
      if (o->kind != SqlExprKind::IntLiteral || o->int_value < 0)
        src_.fail(o->location, "expected a non-negative integer after OFFSET, found " + o->to_sql());
      out->offset = o->int_value;
      if (out->limit_location < 0) out->limit_location = o->location;
    }
    return out;
  }

  static const json& first_fields(const json& node) { return node.begin().value(); }

  SelectItem select_item(const json& rt) {
    SelectItem item;
    item.location = location_of(rt);
    if (rt.contains("name")) item.alias = rt.at("name").get<std::string>();
    const json& v = rt.at("val");
    if (v.contains("ColumnRef")) {
      const json& fields = v.at("ColumnRef").at("fields");
      if (fields.size() == 1 && fields[0].contains("A_Star")) return item;  // SELECT *
      if (fields.back().contains("A_Star")) src_.unsupported(item.location, "alias.* in the select list is not supported");
    }
    item.expr = expr(v);
    return item;
  }

  std::shared_ptr<TableRef> table_ref(const json& node) {
    auto out = std::make_shared<TableRef>();
    std::string type = type_of(node);
    const json& f = first_fields(node);
    out->location = location_of(f);
    if (type == "RangeVar") {
      out->kind = TableRefKind::Table;
      out->name = f.at("relname").get<std::string>();
      if (f.contains("alias")) alias(f.at("alias"), *out);
      return out;
    }
    if (type == "JoinExpr") {
      out->kind = TableRefKind::Join;
      if (f.value("isNatural", false)) src_.unsupported(out->location, "NATURAL JOIN is not supported; write the join condition with ON");
      if (f.contains("usingClause")) src_.unsupported(out->location, "JOIN ... USING is not supported; write the join condition with ON");
      if (f.contains("alias")) src_.unsupported(out->location, "an alias on a parenthesized join is not supported");
      std::string jt = f.value("jointype", std::string("JOIN_INNER"));
      out->left = table_ref(f.at("larg"));
      out->right = table_ref(f.at("rarg"));
      if (out->location < 0) out->location = out->left->location;
      if (jt == "JOIN_INNER") out->join_type = f.contains("quals") ? SqlJoinType::Inner : SqlJoinType::Cross;
      else if (jt == "JOIN_LEFT") out->join_type = SqlJoinType::Left;
      else if (jt == "JOIN_RIGHT") out->join_type = SqlJoinType::Right;
      else if (jt == "JOIN_FULL") out->join_type = SqlJoinType::Full;
      else src_.unsupported(out->location, "join type " + jt + " is not supported");
      if (f.contains("quals")) out->on = expr(f.at("quals"));
      return out;
    }
    if (type == "RangeSubselect") {
      out->kind = TableRefKind::Subquery;
      if (f.value("lateral", false)) src_.unsupported(out->location, "LATERAL subqueries are not supported");
      const json& sub = f.at("subquery");
      out->subquery = statement(sub, location_of(first_fields(sub)));
      if (f.contains("alias")) alias(f.at("alias"), *out);
      if (out->location < 0) out->location = out->subquery->location;
      return out;
    }
    src_.unsupported(out->location, "FROM item " + type + " is not supported (expected a table, a join or a subquery)");
  }

  void alias(const json& a, TableRef& out) {
    out.alias = a.at("aliasname").get<std::string>();
    if (a.contains("colnames")) {
      for (const json& n : a.at("colnames")) out.column_names.push_back(sval(n));
    }
  }

  static SqlExprPtr node(SqlExprKind kind, int location) {
    auto e = std::make_shared<SqlExpr>();
    e->kind = kind;
    e->location = location;
    return e;
  }

  // The integer written at byte `location` of the text: signs (the grammar folds `- -5` and
  // `-(-5)` into one constant), blanks and parentheses, then digits.
  int64_t integer_at(int location) const {
    const std::string& t = src_.text;
    size_t i = location >= 0 ? static_cast<size_t>(location) : t.size();
    bool negative = false;
    while (i < t.size() && (t[i] == '-' || t[i] == '+' || t[i] == '(' || std::isspace(static_cast<unsigned char>(t[i])))) {
      if (t[i] == '-') negative = !negative;
      ++i;
    }
    size_t j = i;
    while (j < t.size() && std::isdigit(static_cast<unsigned char>(t[j]))) ++j;
    // (Leading zeros are digits too: `0000000000000000000000` is 0.)
    const std::optional<int64_t> v = j == i ? std::nullopt : whole_integer(std::string_view(t).substr(i, j - i));
    if (!v) throw Error(ErrorKind::Internal, src_.position(location) + ": cannot read back the integer constant here");
    return negative ? -*v : *v;
  }

  SqlExprPtr constant(const json& c) {
    int loc = location_of(c);
    if (c.value("isnull", false)) return node(SqlExprKind::NullLiteral, loc);
    if (c.contains("ival")) {
      auto e = node(SqlExprKind::IntLiteral, loc);
      if (c.at("ival").contains("ival")) {
        e->int_value = c.at("ival").at("ival").get<int64_t>();
      } else {
        // libpg_query's JSON writes a constant the grammar negated (`-97`) as "ival": {} — the
        // same as 0 — so the value is read back from the text at its location.
        e->int_value = integer_at(loc);
      }
      return e;
    }
    if (c.contains("fval")) {
      // Integers too large for int32 also arrive as fval; keep integers integral.
      std::string t = c.at("fval").value("fval", std::string("0"));
      if (const std::optional<int64_t> v = t.size() < 19 ? whole_integer(t) : std::nullopt) {
        auto e = node(SqlExprKind::IntLiteral, loc);
        e->int_value = *v;
        return e;
      }
      auto e = node(SqlExprKind::DecimalLiteral, loc);
      e->text = t;
      return e;
    }
    if (c.contains("sval")) {
      auto e = node(SqlExprKind::StringLiteral, loc);
      e->text = c.at("sval").value("sval", std::string());
      return e;
    }
    if (c.contains("boolval")) src_.unsupported(loc, "boolean literals are not supported");
    src_.unsupported(loc, "this kind of constant is not supported");
  }

  SqlExprPtr type_cast(const json& t) {
    SqlExprPtr arg = expr(t.at("arg"));
    const json& tn = t.at("typeName");
    const json& names = tn.at("names");
    std::string type = sval(names.back());
    int loc = arg->location >= 0 ? arg->location : location_of(tn);
    if (tn.contains("arrayBounds")) src_.unsupported(loc, "array types are not supported");
    if (type == "date" && arg->kind == SqlExprKind::StringLiteral) {
      auto e = node(SqlExprKind::DateLiteral, location_of(tn) >= 0 ? std::min(location_of(tn), loc) : loc);
      e->text = arg->text;
      return e;
    }
    if (type == "interval") {
      if (arg->kind != SqlExprKind::StringLiteral) src_.unsupported(loc, "intervals other than literals (interval '3' month) are not supported");
      auto e = node(SqlExprKind::IntervalLiteral, location_of(tn) >= 0 ? location_of(tn) : loc);
      std::string text = arg->text;
      int64_t mask = 0;
      if (tn.contains("typmods")) {
        const json& tm = tn.at("typmods")[0];
        if (tm.contains("A_Const")) mask = tm.at("A_Const").contains("ival") ? tm.at("A_Const").at("ival").value("ival", int64_t{0}) : 0;
      } else {
        // interval '3 month': the unit is inside the string.
        auto space = text.find(' ');
        std::string unit = space == std::string::npos ? "" : text.substr(space + 1);
        text = text.substr(0, space);
        if (unit == "day" || unit == "days") mask = kMaskDay;
        else if (unit == "month" || unit == "months") mask = kMaskMonth;
        else if (unit == "year" || unit == "years") mask = kMaskYear;
      }
      if (mask == kMaskDay) e->interval_unit = IntervalUnit::Day;
      else if (mask == kMaskMonth) e->interval_unit = IntervalUnit::Month;
      else if (mask == kMaskYear) e->interval_unit = IntervalUnit::Year;
      else src_.unsupported(e->location, "only intervals of days, months or years are supported (interval '90' day)");
      const std::optional<int64_t> units = text.size() < 10 ? whole_integer(text) : std::nullopt;
      if (!units) src_.fail(arg->location, "expected a whole number of units in the interval, found '" + arg->text + "'");
      e->int_value = *units;
      return e;
    }
    if ((type == "numeric" || type == "decimal") && tn.contains("typmods")) {
      // numeric(15,2): keep precision and scale in the type name for the binder.
      std::string mods;
      for (const json& tm : tn.at("typmods")) {
        const json* c = tm.contains("A_Const") ? &tm.at("A_Const") : nullptr;
        if (!c || !c->contains("ival")) src_.fail(loc, "expected integer precision and scale in numeric(p,s)");
        mods += (mods.empty() ? "" : ",") + std::to_string(c->at("ival").value("ival", int64_t{0}));
      }
      type += "(" + mods + ")";
    }
    auto e = node(SqlExprKind::Cast, loc);
    e->text = type;
    e->args.push_back(arg);
    return e;
  }

  std::vector<SqlExprPtr> list_items(const json& list_node) {
    std::vector<SqlExprPtr> out;
    for (const json& i : list_node.at("List").at("items")) out.push_back(expr(i));
    return out;
  }

  SqlExprPtr a_expr(const json& a) {
    std::string kind = a.value("kind", std::string("AEXPR_OP"));
    int loc = location_of(a);
    std::string op = a.contains("name") ? sval(a.at("name").back()) : "";
    if (kind == "AEXPR_OP") {
      if (!a.contains("lexpr")) {
        SqlExprPtr operand = expr(a.at("rexpr"));
        if (op == "+") return operand;
        if (op != "-") src_.unsupported(loc, "prefix operator " + op + " is not supported");
        if (operand->kind == SqlExprKind::IntLiteral) {
          operand->int_value = -operand->int_value;
          operand->location = loc;
          return operand;
        }
        if (operand->kind == SqlExprKind::DecimalLiteral) {
          operand->text = "-" + operand->text;
          operand->location = loc;
          return operand;
        }
        auto e = node(SqlExprKind::Negate, loc);
        e->args.push_back(operand);
        return e;
      }
      if (!a.contains("rexpr")) src_.unsupported(loc, "postfix operator " + op + " is not supported");
      static const char* known[] = {"=", "<>", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "||", "%"};
      if (std::find(std::begin(known), std::end(known), op) == std::end(known)) src_.unsupported(loc, "operator " + op + " is not supported");
      auto e = node(SqlExprKind::Binary, loc);
      e->text = op == "!=" ? "<>" : op;
      e->args = {expr(a.at("lexpr")), expr(a.at("rexpr"))};
      return e;
    }
    if (kind == "AEXPR_BETWEEN" || kind == "AEXPR_NOT_BETWEEN") {
      auto e = node(SqlExprKind::Between, loc);
      e->negated = kind == "AEXPR_NOT_BETWEEN";
      e->args.push_back(expr(a.at("lexpr")));
      for (SqlExprPtr& b : list_items(a.at("rexpr"))) e->args.push_back(b);
      return e;
    }
    if (kind == "AEXPR_IN") {
      auto e = node(SqlExprKind::InList, loc);
      e->negated = op == "<>";
      e->args.push_back(expr(a.at("lexpr")));
      for (SqlExprPtr& b : list_items(a.at("rexpr"))) e->args.push_back(b);
      return e;
    }
    if (kind == "AEXPR_LIKE" || kind == "AEXPR_ILIKE") {
      auto e = node(SqlExprKind::Like, loc);
      e->negated = op == "!~~" || op == "!~~*";
      e->text = kind == "AEXPR_ILIKE" ? "ilike" : "like";
      e->args = {expr(a.at("lexpr")), expr(a.at("rexpr"))};
      return e;
    }
    if (kind == "AEXPR_SIMILAR") src_.unsupported(loc, "SIMILAR TO is not supported");
    if (kind == "AEXPR_OP_ANY" || kind == "AEXPR_OP_ALL") src_.unsupported(loc, "ANY/ALL over arrays is not supported");
    if (kind == "AEXPR_NULLIF") {
      auto e = node(SqlExprKind::Function, loc);
      e->text = "nullif";
      e->args = {expr(a.at("lexpr")), expr(a.at("rexpr"))};
      return e;
    }
    if (kind == "AEXPR_DISTINCT" || kind == "AEXPR_NOT_DISTINCT") {
      auto e = node(SqlExprKind::Binary, loc);
      e->text = kind == "AEXPR_DISTINCT" ? "is distinct from" : "is not distinct from";
      e->args = {expr(a.at("lexpr")), expr(a.at("rexpr"))};
      return e;
    }
    src_.unsupported(loc, "the operator " + (op.empty() ? kind : op) + " is not supported");
  }

  OrderItem order_item(const json& o) {
    const json& sb = o.at("SortBy");
    OrderItem item;
    item.expr = expr(sb.at("node"));
    item.location = item.expr->location;
    std::string dir = sb.value("sortby_dir", std::string("SORTBY_DEFAULT"));
    if (dir == "SORTBY_USING") src_.unsupported(item.location, "ORDER BY ... USING is not supported");
    item.descending = dir == "SORTBY_DESC";
    if (sb.value("sortby_nulls", std::string("SORTBY_NULLS_DEFAULT")) != "SORTBY_NULLS_DEFAULT") {
      src_.unsupported(item.location, "NULLS FIRST / NULLS LAST is not supported (NULLs sort last in both directions, as DuckDB's default)");
    }
    return item;
  }

  // OVER (PARTITION BY ... ORDER BY ... [frame]). PostgreSQL's frameOptions bits (parsenodes.h
  // FRAMEOPTION_*): 0x1 non-default, 0x2 RANGE, 0x4 ROWS, 0x8 GROUPS, 0x10 BETWEEN, 0x20 start
  // UNBOUNDED PRECEDING, 0x100 end UNBOUNDED FOLLOWING, 0x200 start CURRENT ROW, 0x400 end CURRENT
  // ROW, 0x800 / 0x1000 start / end n PRECEDING, 0x2000 / 0x4000 start / end n FOLLOWING (the
  // offsets in startOffset / endOffset). RANGE frames other than UNBOUNDED PRECEDING to CURRENT ROW
  // or UNBOUNDED FOLLOWING, GROUPS and EXCLUDE are refused.
  std::shared_ptr<WindowOver> window_over(const json& w, int call_location) {
    auto over = std::make_shared<WindowOver>();
    over->location = w.contains("location") ? w.at("location").get<int>() : call_location;
    if (w.contains("name") || w.contains("refname")) src_.unsupported(over->location, "named windows (OVER w, WINDOW w AS ...) are not supported");
    if (w.contains("partitionClause")) {
      for (const json& p : w.at("partitionClause")) over->partition_by.push_back(expr(p));
    }
    if (w.contains("orderClause")) {
      for (const json& o : w.at("orderClause")) over->order_by.push_back(order_item(o));
    }
    const int options = w.value("frameOptions", 0) & ~(0x1 | 0x10);
    const int range = 0x2, rows = 0x4, start_unbounded = 0x20, end_unbounded = 0x100, end_current = 0x400;
    if (options == (range | start_unbounded | end_current)) {
      over->frame = WindowFrame::RangeToCurrentRow;
    } else if (options == (rows | start_unbounded | end_current)) {
      over->frame = WindowFrame::RowsToCurrentRow;
    } else if (options == (range | start_unbounded | end_unbounded) || options == (rows | start_unbounded | end_unbounded)) {
      over->frame = WindowFrame::WholePartition;
    } else if ((options & rows) && !(options & ~0x7ffe)) {
      rows_frame(w, options, *over);
    } else {
      src_.unsupported(over->location, "this window frame is not supported (supported: the default, ROWS BETWEEN any bounds, and RANGE "
                                       "BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW or UNBOUNDED FOLLOWING)");
    }
    if (over->order_by.empty() && over->frame != WindowFrame::WholePartition) {
      // Without ORDER BY every row of a partition is a peer of every other: the frame is the partition.
      // (ROWS frames count rows in whatever order the partition has, as in DuckDB.)
      if (over->frame != WindowFrame::RowsToCurrentRow && over->frame != WindowFrame::Rows) over->frame = WindowFrame::WholePartition;
    }
    return over;
  }

  // ROWS BETWEEN <start> AND <end> with offsets (frameOptions bits as in window_over).
  void rows_frame(const json& w, int options, WindowOver& over) {
    auto offset = [&](const char* field) -> int64_t {
      SqlExprPtr e = expr(w.at(field));
      if (e->kind != SqlExprKind::IntLiteral || e->int_value < 0)
        src_.unsupported(e->location, "a window frame offset must be a non-negative integer literal, found " + e->to_sql());
      return e->int_value;
    };
    over.frame = WindowFrame::Rows;
    if (options & 0x20) over.start_unbounded = true;
    else if (options & 0x800) over.frame_start = -offset("startOffset");
    else if (options & 0x2000) over.frame_start = offset("startOffset");
    else if (!(options & 0x200)) src_.unsupported(over.location, "a window frame starting UNBOUNDED FOLLOWING is not valid");
    if (options & 0x100) over.end_unbounded = true;
    else if (options & 0x1000) over.frame_end = -offset("endOffset");
    else if (options & 0x4000) over.frame_end = offset("endOffset");
    else if (!(options & 0x400)) src_.unsupported(over.location, "a window frame ending UNBOUNDED PRECEDING is not valid");
    if (!over.start_unbounded && !over.end_unbounded && over.frame_start > over.frame_end)
      src_.fail(over.location, "this window frame ends before it starts");
  }

  SqlExprPtr func_call(const json& f) {
    int loc = location_of(f);
    const json& names = f.at("funcname");
    std::string name = sval(names.back());
    if (f.contains("agg_order")) src_.unsupported(loc, "ORDER BY inside an aggregate is not supported");
    std::vector<SqlExprPtr> args;
    if (f.contains("args")) {
      for (const json& a : f.at("args")) args.push_back(expr(a));
    }
    bool sql_syntax = f.value("funcformat", std::string()) == "COERCE_SQL_SYNTAX";
    if (sql_syntax && name == "extract") {
      auto e = node(SqlExprKind::Extract, loc);
      e->text = args.at(0)->text;
      e->args.push_back(args.at(1));
      return e;
    }
    if (name == "substring" || name == "substr") {
      auto e = node(SqlExprKind::Substring, loc);
      if (args.size() < 2 || args.size() > 3) src_.fail(loc, "SUBSTRING takes a string, a start and an optional length");
      e->args = args;
      return e;
    }
    auto e = node(SqlExprKind::Function, loc);
    e->text = name;
    e->star = f.value("agg_star", false);
    e->distinct = f.value("agg_distinct", false);
    e->args = std::move(args);
    if (f.contains("agg_filter")) e->filter = expr(f.at("agg_filter"));
    if (f.contains("over")) e->over = window_over(f.at("over"), loc);
    return e;
  }

  SqlExprPtr case_expr(const json& c) {
    auto e = node(SqlExprKind::Case, location_of(c));
    SqlExprPtr subject = c.contains("arg") ? expr(c.at("arg")) : nullptr;
    for (const json& w : c.at("args")) {
      const json& cw = w.at("CaseWhen");
      SqlExprPtr cond = expr(cw.at("expr"));
      if (subject) {
        auto eq = node(SqlExprKind::Binary, cond->location);
        eq->text = "=";
        eq->args = {subject, cond};
        cond = eq;
      }
      e->args.push_back(cond);
      e->args.push_back(expr(cw.at("result")));
    }
    e->args.push_back(c.contains("defresult") ? expr(c.at("defresult")) : node(SqlExprKind::NullLiteral, e->location));
    return e;
  }

  // `x IN (a UNION b)`, `EXISTS (a UNION b)`: the subquery becomes `SELECT <first column> FROM
  // (a UNION b) AS __set<offset>`, which the unnesting of subqueries handles like any other (its
  // first column is named as the binder names the left operand's first select item).
  static std::shared_ptr<SelectStmt> select_from_set_operation(const std::shared_ptr<SelectStmt>& set) {
    const SelectStmt* leftmost = set.get();
    while (leftmost->set_op != SetOperation::None) leftmost = leftmost->left.get();
    auto derived = std::make_shared<TableRef>();
    derived->kind = TableRefKind::Subquery;
    derived->location = set->location;
    derived->alias = "__set" + std::to_string(std::max(0, set->location));
    derived->subquery = set;
    auto out = std::make_shared<SelectStmt>();
    out->location = set->location;
    out->from.push_back(derived);
    SelectItem item;
    item.location = set->location;
    if (!leftmost->items.empty() && leftmost->items.front().expr) {
      const std::string name = leftmost->items.front().output_name();
      auto column = std::make_shared<SqlExpr>();
      column->kind = SqlExprKind::Column;
      column->location = set->location;
      column->qualifiers = {derived->alias, name};
      item.expr = column;
    }
    out->items.push_back(item);  // `*` when the first item is `*`
    return out;
  }

  SqlExprPtr sublink(const json& s) {
    int loc = location_of(s);
    std::string type = s.value("subLinkType", std::string("EXISTS_SUBLINK"));
    const json& sub = s.at("subselect");
    std::shared_ptr<SelectStmt> q = statement(sub, loc);
    if (q->set_op != SetOperation::None && (type == "EXISTS_SUBLINK" || type == "ANY_SUBLINK")) q = select_from_set_operation(q);
    if (type == "EXISTS_SUBLINK") {
      auto e = node(SqlExprKind::Exists, loc);
      e->subquery = q;
      return e;
    }
    if (type == "EXPR_SUBLINK") {
      auto e = node(SqlExprKind::ScalarSubquery, loc);
      e->subquery = q;
      return e;
    }
    if (type == "ANY_SUBLINK" && (!s.contains("operName") || sval(s.at("operName").back()) == "=")) {
      auto e = node(SqlExprKind::InSubquery, loc);
      e->args.push_back(expr(s.at("testexpr")));
      e->subquery = q;
      return e;
    }
    src_.unsupported(loc, "subquery comparison " + type + " (ANY/ALL with an operator) is not supported");
  }

  SqlExprPtr expr(const json& n) {
    std::string type = type_of(n);
    const json& f = first_fields(n);
    if (type == "ColumnRef") {
      auto e = node(SqlExprKind::Column, location_of(f));
      for (const json& part : f.at("fields")) {
        if (part.contains("A_Star")) src_.unsupported(e->location, "* is only allowed as a whole select list or in COUNT(*)");
        e->qualifiers.push_back(sval(part));
      }
      if (e->qualifiers.size() > 2) src_.unsupported(e->location, "schema-qualified column names are not supported");
      return e;
    }
    if (type == "A_Const") return constant(f);
    if (type == "TypeCast") return type_cast(f);
    if (type == "A_Expr") return a_expr(f);
    if (type == "BoolExpr") {
      std::string op = f.at("boolop").get<std::string>();
      auto e = node(op == "AND_EXPR" ? SqlExprKind::And : op == "OR_EXPR" ? SqlExprKind::Or : SqlExprKind::Not, location_of(f));
      for (const json& a : f.at("args")) e->args.push_back(expr(a));
      return e;
    }
    if (type == "NullTest") {
      auto e = node(SqlExprKind::IsNull, location_of(f));
      e->negated = f.value("nulltesttype", std::string()) == "IS_NOT_NULL";
      e->args.push_back(expr(f.at("arg")));
      return e;
    }
    if (type == "CaseExpr") return case_expr(f);
    if (type == "CoalesceExpr") {
      auto e = node(SqlExprKind::Function, location_of(f));
      e->text = "coalesce";
      for (const json& a : f.at("args")) e->args.push_back(expr(a));
      return e;
    }
    if (type == "FuncCall") return func_call(f);
    if (type == "SubLink") return sublink(f);
    if (type == "String") {  // e.g. the field of EXTRACT in some grammar paths
      auto e = node(SqlExprKind::StringLiteral, -1);
      e->text = f.value("sval", std::string());
      return e;
    }
    src_.unsupported(location_of(f), sql_name_of_node(type) + " is not supported");
  }

  const SqlSource& src_;
};

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The SQL standard's leading field precision of an interval qualifier — `interval '90' day (3)`,
// as TPC-H Q1 is written — which PostgreSQL's grammar (and so libpg_query) does not have: the
// `(3)` is checked (the literal has at most that many digits) and blanked out, byte for byte, so
// every position in a message still points into the text as written. Strings, quoted names and
// comments are skipped.
std::string strip_interval_precision(const SqlSource& source) {
  std::string text = source.text;
  const size_t n = text.size();
  auto skip_space = [&](size_t i) {
    while (i < n && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    return i;
  };
  auto word_at = [&](size_t i, const char* w) {
    const size_t len = std::strlen(w);
    if (i + len > n || (i > 0 && ident_char(text[i - 1])) || (i + len < n && ident_char(text[i + len]))) return false;
    for (size_t k = 0; k < len; ++k)
      if (std::tolower(static_cast<unsigned char>(text[i + k])) != w[k]) return false;
    return true;
  };
  for (size_t i = 0; i < n; ++i) {
    const char c = text[i];
    if (c == '\'' || c == '"') {  // a string or quoted name ('' and "" escape themselves)
      for (++i; i < n && !(text[i] == c && (i + 1 >= n || text[i + 1] != c)); ++i)
        if (text[i] == c) ++i;
      continue;
    }
    if (c == '-' && i + 1 < n && text[i + 1] == '-') {
      while (i < n && text[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && text[i + 1] == '*') {
      const size_t end = text.find("*/", i + 2);
      i = end == std::string::npos ? n : end + 1;
      continue;
    }
    if (!word_at(i, "interval")) continue;
    size_t j = skip_space(i + 8);
    if (j >= n || text[j] != '\'') continue;
    const size_t literal = j + 1;
    const size_t close = text.find('\'', literal);
    if (close == std::string::npos) break;
    const std::string value = text.substr(literal, close - literal);
    j = skip_space(close + 1);
    const char* units[] = {"day", "month", "year", "hour", "minute"};
    size_t unit_len = 0;
    for (const char* u : units)
      if (word_at(j, u)) unit_len = std::strlen(u);
    if (unit_len == 0) continue;
    const size_t open = skip_space(j + unit_len);
    if (open >= n || text[open] != '(') continue;
    size_t k = skip_space(open + 1);
    const size_t digits_start = k;
    while (k < n && std::isdigit(static_cast<unsigned char>(text[k]))) ++k;
    if (k == digits_start) continue;
    const int precision = std::stoi(text.substr(digits_start, std::min<size_t>(k - digits_start, 3)));
    k = skip_space(k);
    if (k >= n || text[k] != ')') continue;
    size_t value_digits = 0;
    for (char d : value) value_digits += std::isdigit(static_cast<unsigned char>(d)) ? 1 : 0;
    if (precision < 1 || value_digits > static_cast<size_t>(precision))
      source.fail(static_cast<int>(open), "interval '" + value + "' has more digits than its leading field precision (" +
                                             std::to_string(precision) + ")");
    for (size_t b = open; b <= k; ++b) text[b] = ' ';
    i = k;
  }
  return text;
}

}  // namespace

// A script: one SELECT, optionally with views created before it and dropped after it (TPC-H Q15 as
// the specification writes it: CREATE VIEW revenue0 ...; SELECT ...; DROP VIEW revenue0;). A view
// is inlined where it is named, exactly like a WITH query of the SELECT (which shadows a view of the
// same name); nothing is stored between queries.
std::shared_ptr<SelectStmt> parse_select(const SqlSource& source) {
  // libpg_query copies such bytes into its JSON parse tree, which is then not JSON.
  if (const size_t bad = first_malformed_utf8(source.text); bad != std::string_view::npos)
    source.fail(static_cast<int>(bad), "the query text is not valid UTF-8 (byte " +
                                           quote_field(std::string_view(source.text).substr(bad, 1)) + ")");
  const std::string text = strip_interval_precision(source);
  PgQueryParseResult result = pg_query_parse(text.c_str());
  if (result.error) {
    std::string message = result.error->message ? result.error->message : "syntax error";
    int cursor = result.error->cursorpos > 0 ? result.error->cursorpos - 1 : -1;
    pg_query_free_parse_result(result);
    source.fail(cursor, message);
  }
  json tree = json::parse(result.parse_tree, nullptr, false);
  pg_query_free_parse_result(result);
  if (tree.is_discarded()) throw Error(ErrorKind::Internal, source.name + ": libpg_query returned a parse tree that is not JSON");
  const json& stmts = tree.contains("stmts") ? tree.at("stmts") : json::array();
  if (stmts.empty()) source.fail(-1, "expected a SELECT statement, found none");
  Walker walker(source);
  std::vector<CommonTable> views;  // live views, in creation order
  std::shared_ptr<SelectStmt> select;
  for (const json& st : stmts) {
    const int location = st.value("stmt_location", 0);
    const json& stmt = st.at("stmt");
    if (stmt.contains("ViewStmt")) {
      const json& v = stmt.at("ViewStmt");
      CommonTable view;
      view.name = v.at("view").at("relname").get<std::string>();
      view.location = location;
      if (v.contains("aliases")) {
        for (const json& n : v.at("aliases")) view.column_names.push_back(n.at("String").value("sval", std::string()));
      }
      if (select) source.unsupported(location, "CREATE VIEW after the SELECT: a script creates its views, runs one SELECT, then drops them");
      auto same = std::find_if(views.begin(), views.end(), [&](const CommonTable& c) { return c.name == view.name; });
      if (same != views.end() && !v.value("replace", false)) source.fail(location, "view \"" + view.name + "\" already exists");
      view.query = walker.statement(v.at("query"), location);
      if (same != views.end()) *same = std::move(view);
      else views.push_back(std::move(view));
      continue;
    }
    if (stmt.contains("DropStmt")) {
      const json& d = stmt.at("DropStmt");
      if (d.value("removeType", std::string()) != "OBJECT_VIEW") source.unsupported(location, "only DROP VIEW is supported in a query script");
      for (const json& obj : d.at("objects")) {
        const json& items = obj.contains("List") ? obj.at("List").at("items") : json::array({obj});
        const std::string name = items.back().at("String").value("sval", std::string());
        auto it = std::find_if(views.begin(), views.end(), [&](const CommonTable& c) { return c.name == name; });
        if (it == views.end()) {
          if (!d.value("missing_ok", false)) source.fail(location, "view \"" + name + "\" does not exist");
          continue;
        }
        if (!select) source.unsupported(location, "DROP VIEW before the SELECT: a script creates its views, runs one SELECT, then drops them");
      }
      continue;
    }
    if (select) source.fail(location, "expected exactly one SELECT statement in a query script, found a second one");
    select = walker.statement(stmt, location);
    // The script's views are visible to the SELECT and its WITH queries; its own WITH names shadow them.
    for (const CommonTable& view : views) select->with.push_back(view);
  }
  if (!select) source.fail(-1, "expected a SELECT statement, found only view definitions");
  return select;
}

}  // namespace hqc::sql

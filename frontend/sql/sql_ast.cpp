// Text form of SQL AST expressions (frontend/sql/sql_ast.h). The text names unaliased select
// items and aggregates, so it must be stable: the same expression always prints the same way.
#include "frontend/sql/sql_ast.h"

namespace hqc::sql {

namespace {

bool needs_parens(const SqlExpr& e) {
  switch (e.kind) {
    case SqlExprKind::Binary:
    case SqlExprKind::And:
    case SqlExprKind::Or:
    case SqlExprKind::Between:
    case SqlExprKind::InList:
    case SqlExprKind::Like:
    case SqlExprKind::IsNull:
    case SqlExprKind::Not:
      return true;
    default:
      return false;
  }
}

std::string operand(const SqlExpr& e) { return needs_parens(e) ? "(" + e.to_sql() + ")" : e.to_sql(); }

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

std::string joined(const std::vector<SqlExprPtr>& args, size_t from, const char* sep) {
  std::string s;
  for (size_t i = from; i < args.size(); ++i) s += (i > from ? sep : "") + operand(*args[i]);
  return s;
}

}  // namespace

std::string SqlExpr::to_sql() const {
  const char* no = negated ? "not " : "";
  switch (kind) {
    case SqlExprKind::Column: {
      std::string s;
      for (size_t i = 0; i < qualifiers.size(); ++i) s += (i ? "." : "") + qualifiers[i];
      return s;
    }
    case SqlExprKind::IntLiteral: return std::to_string(int_value);
    case SqlExprKind::DecimalLiteral: return text;
    case SqlExprKind::StringLiteral: return quoted(text);
    case SqlExprKind::DateLiteral: return "date " + quoted(text);
    case SqlExprKind::IntervalLiteral: {
      static const char* units[] = {"day", "month", "year"};
      return "interval " + quoted(std::to_string(int_value)) + " " + units[static_cast<int>(interval_unit)];
    }
    case SqlExprKind::NullLiteral: return "null";
    case SqlExprKind::Binary: return operand(*args[0]) + " " + text + " " + operand(*args[1]);
    case SqlExprKind::Negate: return "-" + operand(*args[0]);
    case SqlExprKind::And: return joined(args, 0, " and ");
    case SqlExprKind::Or: return joined(args, 0, " or ");
    case SqlExprKind::Not: return "not " + operand(*args[0]);
    case SqlExprKind::Between:
      return operand(*args[0]) + " " + no + "between " + operand(*args[1]) + " and " + operand(*args[2]);
    case SqlExprKind::InList: return operand(*args[0]) + " " + no + "in (" + joined(args, 1, ", ") + ")";
    case SqlExprKind::Like: return operand(*args[0]) + " " + no + (text == "ilike" ? "ilike " : "like ") + operand(*args[1]);
    case SqlExprKind::IsNull: return operand(*args[0]) + (negated ? " is not null" : " is null");
    case SqlExprKind::Case: {
      std::string s = "case";
      for (size_t i = 0; i + 1 < args.size(); i += 2) s += " when " + args[i]->to_sql() + " then " + args[i + 1]->to_sql();
      return s + " else " + args.back()->to_sql() + " end";
    }
    case SqlExprKind::Function:
      return text + "(" + (star ? "*" : (distinct ? "distinct " : "") + joined(args, 0, ", ")) + ")" +
             (filter ? " filter (where " + filter->to_sql() + ")" : "") + (over ? " over (" + over->to_sql() + ")" : "");
    case SqlExprKind::Extract: return "extract(" + text + " from " + args[0]->to_sql() + ")";
    case SqlExprKind::Substring:
      return "substring(" + args[0]->to_sql() + " from " + args[1]->to_sql() +
             (args.size() > 2 ? " for " + args[2]->to_sql() : "") + ")";
    case SqlExprKind::Cast: return "cast(" + args[0]->to_sql() + " as " + text + ")";
    case SqlExprKind::Exists: return std::string(no) + "exists (subquery)";
    case SqlExprKind::InSubquery: return operand(*args[0]) + " " + no + "in (subquery)";
    case SqlExprKind::ScalarSubquery: return "(subquery)";
    case SqlExprKind::Attribute: return text;
  }
  return "?";
}

std::string SelectItem::output_name() const {
  if (!alias.empty()) return alias;
  return expr->kind == SqlExprKind::Column ? expr->qualifiers.back() : expr->to_sql();
}

const char* kind_name(SqlExprKind k) {
  switch (k) {
    case SqlExprKind::Column: return "column reference";
    case SqlExprKind::IntLiteral: return "integer literal";
    case SqlExprKind::DecimalLiteral: return "decimal literal";
    case SqlExprKind::StringLiteral: return "string literal";
    case SqlExprKind::DateLiteral: return "date literal";
    case SqlExprKind::IntervalLiteral: return "interval literal";
    case SqlExprKind::NullLiteral: return "NULL";
    case SqlExprKind::Binary: return "binary operator";
    case SqlExprKind::Negate: return "unary minus";
    case SqlExprKind::And: return "AND";
    case SqlExprKind::Or: return "OR";
    case SqlExprKind::Not: return "NOT";
    case SqlExprKind::Between: return "BETWEEN";
    case SqlExprKind::InList: return "IN list";
    case SqlExprKind::Like: return "LIKE";
    case SqlExprKind::IsNull: return "IS NULL";
    case SqlExprKind::Case: return "CASE";
    case SqlExprKind::Function: return "function call";
    case SqlExprKind::Extract: return "EXTRACT";
    case SqlExprKind::Substring: return "SUBSTRING";
    case SqlExprKind::Cast: return "CAST";
    case SqlExprKind::Exists: return "EXISTS subquery";
    case SqlExprKind::InSubquery: return "IN subquery";
    case SqlExprKind::ScalarSubquery: return "scalar subquery";
    case SqlExprKind::Attribute: return "attribute";
  }
  return "?";
}

std::string WindowOver::to_sql() const {
  std::string s;
  if (!partition_by.empty()) s = "partition by " + joined(partition_by, 0, ", ");
  if (!order_by.empty()) {
    s += s.empty() ? "order by " : " order by ";
    for (size_t i = 0; i < order_by.size(); ++i)
      s += (i ? ", " : "") + order_by[i].expr->to_sql() + (order_by[i].descending ? " desc" : "");
  }
  if (frame == WindowFrame::RowsToCurrentRow) s += " rows between unbounded preceding and current row";
  if (frame == WindowFrame::WholePartition && !order_by.empty()) s += " rows between unbounded preceding and unbounded following";
  return s;
}

const SqlExpr* find_window_call(const SqlExpr& e) {
  if (e.over) return &e;
  for (const SqlExprPtr& a : e.args)
    if (const SqlExpr* w = find_window_call(*a)) return w;
  if (e.filter)
    if (const SqlExpr* w = find_window_call(*e.filter)) return w;
  return nullptr;
}

bool contains_scalar_subquery(const SqlExpr& e) {
  if (e.kind == SqlExprKind::ScalarSubquery) return true;
  for (const SqlExprPtr& a : e.args)
    if (contains_scalar_subquery(*a)) return true;
  return false;
}

}  // namespace hqc::sql

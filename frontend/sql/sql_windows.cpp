// Window functions → a Window operator over the inner query's result (frontend/sql/sql_windows.h).
#include "frontend/sql/sql_windows.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "storage/error.h"

namespace hqc::sql {

namespace {

const SqlExpr* first_in(const SqlExprPtr& e) { return e ? find_window_call(*e) : nullptr; }

// A window call nested in `e` below its top (an argument, a key, an expression around it).
const SqlExpr* nested_window_call(const SqlExpr& e) {
  for (const SqlExprPtr& a : e.args)
    if (const SqlExpr* w = find_window_call(*a)) return w;
  if (e.filter) return find_window_call(*e.filter);
  if (e.over) {
    for (const SqlExprPtr& p : e.over->partition_by)
      if (const SqlExpr* w = find_window_call(*p)) return w;
    for (const OrderItem& o : e.over->order_by)
      if (const SqlExpr* w = find_window_call(*o.expr)) return w;
  }
  return nullptr;
}

plan::WindowFunc window_func(const SqlExpr& call, const SqlSource& src) {
  const std::string& f = call.text;
  if (call.distinct) src.unsupported(call.location, "DISTINCT in a window aggregate (" + f + "(DISTINCT ...) OVER) is not supported");
  if (call.filter) src.unsupported(call.location, "FILTER in a window aggregate is not supported");
  if (f == "row_number" || f == "rank" || f == "dense_rank") {
    if (!call.args.empty() || call.star) src.fail(call.location, f + "() takes no arguments");
    return f == "row_number" ? plan::WindowFunc::RowNumber : f == "rank" ? plan::WindowFunc::Rank : plan::WindowFunc::DenseRank;
  }
  if (f == "lag" || f == "lead") {
    if (call.args.empty() || call.args.size() > 2 || call.star)
      src.unsupported(call.location, f + "() takes a value and an optional offset (a default value is not supported)");
    if (call.args.size() == 2 && (call.args[1]->kind != SqlExprKind::IntLiteral || call.args[1]->int_value < 0))
      src.unsupported(call.args[1]->location, f + "()'s offset must be a non-negative integer literal");
    return f == "lag" ? plan::WindowFunc::Lag : plan::WindowFunc::Lead;
  }
  if (f == "count" && call.star) return plan::WindowFunc::CountStar;
  if (f == "sum" || f == "count" || f == "min" || f == "max" || f == "avg") {
    if (call.args.size() != 1) src.fail(call.location, f + "() OVER takes one argument");
    return f == "sum" ? plan::WindowFunc::Sum : f == "count" ? plan::WindowFunc::Count : f == "min" ? plan::WindowFunc::Min
           : f == "max" ? plan::WindowFunc::Max : plan::WindowFunc::Avg;
  }
  src.unsupported(call.location, "window function " + f + "() is not supported (supported: row_number, rank, dense_rank, lag, lead, "
                                 "sum, count, min, max, avg)");
}

DataType window_type(plan::WindowFunc f, const DataType& arg, int location, const SqlSource& src) {
  switch (f) {
    case plan::WindowFunc::RowNumber:
    case plan::WindowFunc::Rank:
    case plan::WindowFunc::DenseRank:
    case plan::WindowFunc::Count:
    case plan::WindowFunc::CountStar:
      return DataType::int64();
    case plan::WindowFunc::Sum:
    case plan::WindowFunc::Avg:
      if (arg.id == TypeId::Int32 || arg.id == TypeId::Int64)
        return f == plan::WindowFunc::Sum ? DataType::int64() : DataType::float64();
      if (arg.id == TypeId::Decimal)
        return f == plan::WindowFunc::Sum ? DataType::decimal(18, arg.scale) : DataType::float64();
      src.unsupported(location, std::string(f == plan::WindowFunc::Sum ? "SUM" : "AVG") + " OVER a " + arg.to_string() +
                                    " value is not supported (integers and decimals are)");
    case plan::WindowFunc::Lag:
    case plan::WindowFunc::Lead:
      if (arg.id == TypeId::Bool) src.unsupported(location, "LAG/LEAD of a boolean value is not supported");
      return arg;
    case plan::WindowFunc::Min:
    case plan::WindowFunc::Max:
      if (arg.id == TypeId::Float64 || arg.id == TypeId::Bool)
        src.unsupported(location, "MIN/MAX OVER a " + arg.to_string() + " value is not supported");
      return arg;
  }
  return arg;
}

SelectItem hidden_item(const SqlExprPtr& e, const std::string& name) {
  SelectItem s;
  s.expr = e;
  s.alias = name;
  s.location = e->location;
  return s;
}

// The output name of the (non-window) select item whose expression is `e` (by its text; an alias is
// not a column of the window's input, so `e` naming one means a FROM column) when exactly one item
// has that name; else nothing.
std::optional<std::string> select_item_named(const SelectStmt& stmt, const SqlExpr& e) {
  if (std::any_of(stmt.items.begin(), stmt.items.end(), [](const SelectItem& s) { return !s.expr; })) return std::nullopt;
  std::optional<std::string> found;
  for (const SelectItem& s : stmt.items) {
    if (s.expr->over) continue;
    if (s.expr->to_sql() == e.to_sql()) {
      found = s.output_name();
      break;
    }
  }
  if (!found) return std::nullopt;
  const size_t same = static_cast<size_t>(std::count_if(stmt.items.begin(), stmt.items.end(), [&](const SelectItem& s) { return s.output_name() == *found; }));
  return same == 1 ? found : std::nullopt;
}

}  // namespace

const SqlExpr* first_window_call(const SelectStmt& stmt) {
  for (const SelectItem& s : stmt.items)
    if (const SqlExpr* w = first_in(s.expr)) return w;
  if (const SqlExpr* w = first_in(stmt.where)) return w;
  for (const SqlExprPtr& g : stmt.group_by)
    if (const SqlExpr* w = first_in(g)) return w;
  if (const SqlExpr* w = first_in(stmt.having)) return w;
  for (const OrderItem& o : stmt.order_by)
    if (const SqlExpr* w = first_in(o.expr)) return w;
  return nullptr;
}

std::unique_ptr<plan::LogicalOp> bind_windowed_select(const SelectStmt& stmt, const SqlSource& src,
                                                      const std::function<std::unique_ptr<plan::LogicalOp>(const SelectStmt&)>& bind_inner) {
  for (const SqlExprPtr& e : {stmt.where, stmt.having})
    if (const SqlExpr* w = first_in(e)) src.fail(w->location, "window functions are not allowed in WHERE or HAVING (they are computed after them)");
  for (const SqlExprPtr& g : stmt.group_by)
    if (const SqlExpr* w = first_in(g)) src.fail(w->location, "window functions are not allowed in GROUP BY");
  if (stmt.distinct) src.unsupported(stmt.location, "SELECT DISTINCT with window functions is not supported");

  // ---- the inner statement: placeholders for the windows, their operands as hidden items ----
  SelectStmt inner = stmt;
  inner.items.clear();
  inner.order_by.clear();
  inner.limit.reset();
  inner.offset = 0;
  inner.limit_location = -1;
  std::vector<SelectItem> hidden_items;
  std::vector<std::string> hidden;
  struct Pending {
    plan::WindowExpr expr;
    int location;
  };
  std::vector<Pending> windows;
  for (const SelectItem& item : stmt.items) {
    if (!item.expr || !item.expr->over) {
      if (item.expr)
        if (const SqlExpr* w = find_window_call(*item.expr))
          src.unsupported(w->location, "window function " + w->text + "() OVER (...) is only supported as a whole select item (optionally "
                                       "aliased), not inside an expression");
      inner.items.push_back(item);
      continue;
    }
    const SqlExpr& call = *item.expr;
    if (const SqlExpr* w = nested_window_call(call)) src.fail(w->location, "window functions cannot be nested");
    Pending p{{}, call.location};
    plan::WindowExpr& w = p.expr;
    w.name = item.output_name();
    w.func = window_func(call, src);
    switch (call.over->frame) {
      case WindowFrame::RangeToCurrentRow: w.frame = plan::WindowFrame::RangeToCurrentRow; break;
      case WindowFrame::RowsToCurrentRow: w.frame = plan::WindowFrame::RowsToCurrentRow; break;
      case WindowFrame::WholePartition: w.frame = plan::WindowFrame::WholePartition; break;
      case WindowFrame::Rows:
        w.frame = plan::WindowFrame::Rows;
        w.frame_start = call.over->frame_start;
        w.frame_end = call.over->frame_end;
        w.start_unbounded = call.over->start_unbounded;
        w.end_unbounded = call.over->end_unbounded;
        break;
    }
    const std::string prefix = "__w" + std::to_string(windows.size() + 1) + "_";
    auto add_hidden = [&](const SqlExprPtr& e, const std::string& name) {
      // An operand the select list computes already is read from there: no second column (and a
      // plain reordering projection stays one).
      if (std::optional<std::string> existing = select_item_named(stmt, *e)) return *existing;
      hidden_items.push_back(hidden_item(e, name));
      hidden.push_back(name);
      return name;
    };
    if (!call.args.empty()) w.arg = add_hidden(call.args[0], prefix + "arg");
    if ((w.func == plan::WindowFunc::Lag || w.func == plan::WindowFunc::Lead) && call.args.size() == 2) w.offset = call.args[1]->int_value;
    for (size_t i = 0; i < call.over->partition_by.size(); ++i)
      w.partition_by.push_back(add_hidden(call.over->partition_by[i], prefix + "p" + std::to_string(i + 1)));
    for (size_t i = 0; i < call.over->order_by.size(); ++i) {
      const OrderItem& o = call.over->order_by[i];
      w.order_by.push_back({add_hidden(o.expr, prefix + "o" + std::to_string(i + 1)), o.descending});
    }
    auto placeholder = std::make_shared<SqlExpr>();
    placeholder->kind = SqlExprKind::IntLiteral;
    placeholder->int_value = 0;
    placeholder->location = call.location;
    SelectItem s;
    s.expr = placeholder;
    s.alias = w.name;
    s.location = item.location;
    inner.items.push_back(s);
    windows.push_back(std::move(p));
  }

  // ---- ORDER BY after the windows: output columns, else hidden items of the inner query ----
  const bool star = std::any_of(stmt.items.begin(), stmt.items.end(), [](const SelectItem& s) { return !s.expr; });
  struct Key {
    size_t position = 0;  // 1-based output position, or 0
    std::string name;     // an output name or a hidden item
    bool descending = false;
  };
  std::vector<Key> keys;
  for (size_t k = 0; k < stmt.order_by.size(); ++k) {
    const OrderItem& o = stmt.order_by[k];
    const SqlExpr& e = *o.expr;
    Key key;
    key.descending = o.descending;
    if (e.kind == SqlExprKind::IntLiteral) {
      if (e.int_value < 1) src.fail(e.location, "ORDER BY position " + std::to_string(e.int_value) + " is not in the select list");
      key.position = static_cast<size_t>(e.int_value);
    } else if (e.kind == SqlExprKind::Column && e.qualifiers.size() == 1 &&
               std::any_of(stmt.items.begin(), stmt.items.end(), [&](const SelectItem& s) { return s.expr && s.output_name() == e.qualifiers[0]; })) {
      key.name = e.qualifiers[0];
    } else {
      for (size_t i = 0; i < stmt.items.size() && key.name.empty() && !star; ++i)
        if (stmt.items[i].expr && stmt.items[i].expr->to_sql() == e.to_sql()) key.position = i + 1;
      if (key.position == 0) {
        if (const SqlExpr* w = find_window_call(e))
          src.unsupported(w->location, "ORDER BY a window function that is not a select item is not supported");
        key.name = "__o" + std::to_string(k + 1);
        hidden_items.push_back(hidden_item(o.expr, key.name));
        hidden.push_back(key.name);
      }
    }
    keys.push_back(key);
  }
  for (SelectItem& s : hidden_items) inner.items.push_back(std::move(s));

  std::unique_ptr<plan::LogicalOp> tree = bind_inner(inner);
  auto window = std::make_unique<plan::LogicalOp>();
  window->kind = plan::OpKind::Window;
  window->json_path = src.position(windows.front().location);
  window->schema = tree->schema;
  auto attribute = [&](const std::string& name) -> plan::Attribute& {
    auto it = std::find_if(window->schema.begin(), window->schema.end(), [&](const plan::Attribute& a) { return a.name == name; });
    if (it == window->schema.end()) throw Error(ErrorKind::Internal, "bind_windowed_select: the inner query has no output " + name);
    return *it;
  };
  for (Pending& p : windows) {
    plan::WindowExpr& w = p.expr;
    const DataType arg = w.arg.empty() ? DataType::int64() : attribute(w.arg).type;
    w.type = window_type(w.func, arg, p.location, src);
    plan::Attribute& out = attribute(w.name);
    out.type = w.type;
    out.dict_table.clear();
    out.dict_column.clear();
    window->windows.push_back(std::move(w));
  }
  window->hidden = hidden;
  const size_t visible = window->schema.size() - hidden.size();
  window->children.push_back(std::move(tree));
  if (keys.empty()) return window;

  auto order = std::make_unique<plan::LogicalOp>();
  order->kind = plan::OpKind::OrderBy;
  order->json_path = src.position(stmt.order_by.front().location);
  order->schema = window->schema;
  for (size_t k = 0; k < keys.size(); ++k) {
    if (keys[k].position > visible)
      src.fail(stmt.order_by[k].location, "ORDER BY position " + std::to_string(keys[k].position) + " is not in the select list (1.." +
                                              std::to_string(visible) + ")");
    const std::string name = keys[k].position ? order->schema[keys[k].position - 1].name : keys[k].name;
    order->sort_keys.push_back({name, keys[k].descending});
  }
  order->children.push_back(std::move(window));
  return order;
}

}  // namespace hqc::sql

// Names of logical operators and the stable EXPLAIN LOGICAL text (frontend/logical_plan.h).
#include "frontend/logical_plan.h"

#include <cmath>

namespace hqc::plan {

const char* op_kind_name(OpKind k) {
  switch (k) {
    case OpKind::Scan: return "scan";
    case OpKind::Filter: return "filter";
    case OpKind::Map: return "map";
    case OpKind::Project: return "project";
    case OpKind::Join: return "join";
    case OpKind::Aggregate: return "aggregate";
    case OpKind::Union: return "union_all";
    case OpKind::Window: return "window";
    case OpKind::OrderBy: return "order_by";
    case OpKind::Limit: return "limit";
  }
  return "?";
}

const char* join_type_name(JoinType t) {
  switch (t) {
    case JoinType::Inner: return "inner";
    case JoinType::Semi: return "semi";
    case JoinType::Anti: return "anti";
    case JoinType::LeftOuter: return "left_outer";
  }
  return "?";
}

const char* window_func_name(WindowFunc f) {
  switch (f) {
    case WindowFunc::RowNumber: return "row_number";
    case WindowFunc::Rank: return "rank";
    case WindowFunc::DenseRank: return "dense_rank";
    case WindowFunc::Sum: return "sum";
    case WindowFunc::Count: return "count";
    case WindowFunc::CountStar: return "count_star";
    case WindowFunc::Min: return "min";
    case WindowFunc::Max: return "max";
    case WindowFunc::Avg: return "avg";
    case WindowFunc::Lag: return "lag";
    case WindowFunc::Lead: return "lead";
  }
  return "?";
}

std::vector<std::string> window_attributes(const WindowExpr& w) {
  std::vector<std::string> names = w.partition_by;
  names.push_back(w.name);
  if (!w.arg.empty()) names.push_back(w.arg);
  for (const SortKey& k : w.order_by) names.push_back(k.name);
  return names;
}

std::string explain_window(const WindowExpr& w) {
  const bool shift = w.func == WindowFunc::Lag || w.func == WindowFunc::Lead;
  std::string s = w.name + " := " + window_func_name(w.func) + "(" + w.arg + (shift ? ", " + std::to_string(w.offset) : "") + ") over (";
  std::string inside;
  if (!w.partition_by.empty()) {
    inside = "partition by";
    for (size_t i = 0; i < w.partition_by.size(); ++i) inside += (i ? ", " : " ") + w.partition_by[i];
  }
  if (!w.order_by.empty()) {
    inside += inside.empty() ? "order by" : " order by";
    for (size_t i = 0; i < w.order_by.size(); ++i) inside += (i ? ", " : " ") + w.order_by[i].name + (w.order_by[i].descending ? " desc" : " asc");
  }
  auto bound = [](int64_t offset, bool unbounded, const char* beyond) {
    if (unbounded) return std::string("unbounded ") + beyond;
    if (offset == 0) return std::string("current row");
    return std::to_string(offset < 0 ? -offset : offset) + (offset < 0 ? " preceding" : " following");
  };
  const std::string frame = shift ? "rows of the partition"
                            : w.frame == WindowFrame::RangeToCurrentRow ? "range to current row"
                            : w.frame == WindowFrame::RowsToCurrentRow  ? "rows to current row"
                            : w.frame == WindowFrame::Rows ? "rows between " + bound(w.frame_start, w.start_unbounded, "preceding") + " and " +
                                                                 bound(w.frame_end, w.end_unbounded, "following")
                                                           : "whole partition";
  inside += std::string(inside.empty() ? "" : ", ") + frame;
  return s + inside + "): " + w.type.to_string();
}

const char* agg_func_name(AggFunc f) {
  switch (f) {
    case AggFunc::Sum: return "sum";
    case AggFunc::Count: return "count";
    case AggFunc::CountStar: return "count_star";
    case AggFunc::Min: return "min";
    case AggFunc::Max: return "max";
    case AggFunc::Avg: return "avg";
  }
  return "?";
}

namespace {

std::string named_list(const std::vector<NamedExpr>& list) {
  std::string s;
  for (size_t i = 0; i < list.size(); ++i) {
    if (i) s += ", ";
    s += list[i].name + " := " + list[i].expr->to_string();
    if (!list[i].validity_for.empty()) s += " (validity of " + list[i].validity_for + ")";
  }
  return s;
}

std::string expr_list(const std::vector<ExprPtr>& list) {
  std::string s;
  for (size_t i = 0; i < list.size(); ++i) {
    if (i) s += ", ";
    s += list[i]->to_string();
  }
  return s;
}

void explain_node(const LogicalOp& op, int depth, bool estimates, std::string& out) {
  out += std::string(static_cast<size_t>(depth) * 2, ' ');
  out += op_kind_name(op.kind);
  switch (op.kind) {
    case OpKind::Scan:
      out += " " + op.table;
      if (op.alias != op.table) out += " as " + op.alias;
      break;
    case OpKind::Filter:
      out += " " + op.predicate->to_string();
      break;
    case OpKind::Map:
    case OpKind::Project:
      out += " [" + named_list(op.exprs) + "]";
      break;
    case OpKind::Join:
      out += std::string(" ") + join_type_name(op.join_type) + " probe [" + expr_list(op.probe_keys) + "] = build [" +
             expr_list(op.build_keys) + "]";
      if (op.residual) out += " residual " + op.residual->to_string();
      if (op.explicit_nulls) out += " explicit_nulls";
      break;
    case OpKind::Aggregate: {
      out += " group [" + named_list(op.group_by) + "] aggregates [";
      for (size_t i = 0; i < op.aggregates.size(); ++i) {
        const AggregateExpr& a = op.aggregates[i];
        if (i) out += ", ";
        out += a.name + " := " + agg_func_name(a.func) + "(" + (a.arg ? a.arg->to_string() : "*") +
               (a.count_arg ? " over counts " + a.count_arg->to_string() : "") + ")" +
               (a.filter ? " filter " + a.filter->to_string() : "") + ": " + a.type.to_string();
      }
      out += "]";
      break;
    }
    case OpKind::Union: {
      out += " [";
      for (size_t i = 0; i < op.schema.size(); ++i) out += (i ? ", " : "") + op.schema[i].name + ": " + op.schema[i].type.to_string();
      out += "]";
      break;
    }
    case OpKind::Window:
      out += " [";
      for (size_t i = 0; i < op.windows.size(); ++i) out += (i ? "; " : "") + explain_window(op.windows[i]);
      out += "]";
      break;
    case OpKind::OrderBy:
      out += " [";
      for (size_t i = 0; i < op.sort_keys.size(); ++i) {
        if (i) out += ", ";
        out += op.sort_keys[i].name + (op.sort_keys[i].descending ? " desc" : " asc");
      }
      out += "]";
      break;
    case OpKind::Limit:
      out += op.limit >= 0 ? " " + std::to_string(op.limit) : std::string(" all");
      if (op.offset > 0) out += " offset " + std::to_string(op.offset);
      break;
  }
  if (!op.hidden.empty()) {
    out += " hidden [";
    for (size_t i = 0; i < op.hidden.size(); ++i) out += (i ? ", " : "") + op.hidden[i];
    out += "]";
  }
  if (op.pipeline_break) out += " [pipeline_break]";
  if (estimates && op.estimated_rows >= 0) out += " ~" + std::to_string(std::llround(op.estimated_rows)) + " rows";
  out += "\n";
  for (const auto& c : op.children) explain_node(*c, depth + 1, estimates, out);
}

}  // namespace

ExprPtr make_column(const Attribute& a) {
  ExprPtr e = make_column(a.source, a.name, a.type);
  e->dict_table = a.dict_table;
  e->dict_column = a.dict_column;
  return e;
}

std::string explain_logical(const LogicalPlan& plan, bool estimates) {
  std::string out = "logical plan " + plan.name + "\n";
  if (plan.root) explain_node(*plan.root, 1, estimates, out);
  return out;
}

}  // namespace hqc::plan

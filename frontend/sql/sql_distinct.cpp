// DISTINCT aggregates → two aggregations; see sql_distinct.h.
#include "frontend/sql/sql_distinct.h"

#include "frontend/bind_expr.h"
#include "storage/error.h"

namespace hqc::sql {

namespace {

DataType result_type(plan::AggFunc f, const plan::ExprPtr& arg, const SqlSource& src, int location) {
  DataType t;
  std::string why;
  if (!plan::aggregate_type(f, arg ? &arg->type : nullptr, t, why)) src.fail(location, why);
  return t;
}

}  // namespace

std::unique_ptr<plan::LogicalOp> split_distinct_aggregate(std::unique_ptr<plan::LogicalOp> agg, const std::vector<bool>& distinct,
                                                          const SqlSource& src, int location) {
  const plan::Expr* x = nullptr;
  plan::ExprPtr filter;  // of the distinct calls (one for all of them), or none
  for (size_t i = 0; i < agg->aggregates.size(); ++i) {
    const plan::AggregateExpr& a = agg->aggregates[i];
    if (distinct[i]) {
      if (x != nullptr && x->to_string() != a.arg->to_string())
        src.unsupported(location, "DISTINCT aggregates over different arguments (" + x->to_string() + ", " + a.arg->to_string() +
                                      ") are not supported yet");
      const std::string f = a.filter ? a.filter->to_string() : "", seen = filter ? filter->to_string() : "";
      if (x != nullptr && f != seen)
        src.unsupported(location, "DISTINCT aggregates with different filters (" + (f.empty() ? "none" : f) + ", " +
                                      (seen.empty() ? "none" : seen) + ") are not supported yet");
      x = a.arg.get();
      filter = a.filter;
    }
  }
  if (x == nullptr) return agg;

  auto inner = std::make_unique<plan::LogicalOp>();
  inner->kind = plan::OpKind::Aggregate;
  inner->json_path = agg->json_path;
  for (size_t i = 0; i < agg->group_by.size(); ++i) {
    inner->group_by.push_back({agg->group_by[i].name, plan::clone(*agg->group_by[i].expr)});
    inner->schema.push_back(agg->schema[i]);
  }
  // The distinct argument as one more key; its name cannot clash with a SQL name (it starts "__").
  const std::string distinct_name = "__distinct";
  inner->group_by.push_back({distinct_name, plan::clone(*x)});
  plan::Attribute xa{"", distinct_name, x->type, "", ""};
  if (x->kind == plan::ExprKind::Column) {
    xa.dict_table = x->dict_table;
    xa.dict_column = x->dict_column;
  }
  inner->schema.push_back(xa);
  // Whether the pair passed the distinct calls' filter (a NULL value does not): 1 or 0, one more key.
  const std::string valid_name = "__distinct_valid";
  plan::Attribute va{"", valid_name, DataType::int32(), "", ""};
  if (filter) {
    auto valid = std::make_shared<plan::Expr>();
    valid->kind = plan::ExprKind::Case;
    valid->type = DataType::int32();
    valid->args = {plan::clone(*filter), plan::make_int_literal(1, DataType::int32()), plan::make_int_literal(0, DataType::int32())};
    inner->group_by.push_back({valid_name, valid});
    inner->schema.push_back(va);
  }

  auto outer = std::make_unique<plan::LogicalOp>();
  outer->kind = plan::OpKind::Aggregate;
  outer->json_path = agg->json_path;
  outer->schema = agg->schema;
  for (size_t i = 0; i < agg->group_by.size(); ++i) outer->group_by.push_back({agg->group_by[i].name, plan::make_column(agg->schema[i])});
  for (size_t i = 0; i < agg->aggregates.size(); ++i) {
    const plan::AggregateExpr& a = agg->aggregates[i];
    plan::AggregateExpr o;
    o.name = a.name;
    o.type = a.type;
    if (distinct[i]) {
      o.func = a.func;
      o.arg = plan::make_column(xa);
      if (filter) o.filter = plan::make_compare(plan::CompareOp::Eq, plan::make_column(va), plan::make_int_literal(1, DataType::int32()));
    } else {
      plan::AggregateExpr partial;
      partial.name = "__partial" + std::to_string(i);
      partial.func = a.func == plan::AggFunc::Avg ? plan::AggFunc::Sum : a.func;  // AVG: a SUM and a COUNT
      partial.arg = a.arg ? plan::clone(*a.arg) : nullptr;
      partial.filter = a.filter ? plan::clone(*a.filter) : nullptr;  // NULLs skipped below, once
      partial.type = a.func == plan::AggFunc::Avg ? result_type(plan::AggFunc::Sum, partial.arg, src, location) : a.type;
      plan::Attribute pa{"", partial.name, partial.type, "", ""};
      if (a.func == plan::AggFunc::Min || a.func == plan::AggFunc::Max) {
        pa.dict_table = a.arg->dict_table;
        pa.dict_column = a.arg->dict_column;
      }
      inner->schema.push_back(pa);
      if (a.func == plan::AggFunc::Avg) {
        // AVG: the partial SUMs over the partial COUNTs, divided once (the IR's AVG, exact).
        plan::AggregateExpr count;
        count.name = partial.name + "_count";
        count.func = plan::AggFunc::Count;
        count.arg = plan::clone(*a.arg);
        count.filter = partial.filter ? plan::clone(*partial.filter) : nullptr;
        count.type = DataType::int64();
        plan::Attribute ca{"", count.name, count.type, "", ""};
        inner->schema.push_back(ca);
        inner->aggregates.push_back(std::move(partial));
        inner->aggregates.push_back(std::move(count));
        o.func = plan::AggFunc::Avg;
        o.arg = plan::make_column(pa);
        o.count_arg = plan::make_column(ca);
      } else {
        inner->aggregates.push_back(std::move(partial));
        // COUNTs of the pairs add up; SUM/MIN/MAX combine with themselves.
        o.func = a.func == plan::AggFunc::Count || a.func == plan::AggFunc::CountStar ? plan::AggFunc::Sum : a.func;
        o.zero_without_input = o.func != a.func;
        o.arg = plan::make_column(pa);
      }
    }
    if (result_type(o.func, o.arg, src, location) != o.type)
      throw Error(ErrorKind::Internal, "DISTINCT rewrite: " + o.name + " changes type");
    outer->aggregates.push_back(std::move(o));
  }
  inner->children = std::move(agg->children);
  outer->children.push_back(std::move(inner));
  return outer;
}

}  // namespace hqc::sql

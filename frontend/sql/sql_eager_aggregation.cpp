// Eager aggregation below a LEFT JOIN; see sql_eager_aggregation.h.
#include "frontend/sql/sql_eager_aggregation.h"

#include <algorithm>
#include <string>
#include <vector>

#include "frontend/cardinality.h"
#include "frontend/sql/sql_nulls.h"

namespace hqc::sql {

namespace {

bool has_attribute(const std::vector<plan::Attribute>& schema, const plan::Expr& column) {
  return std::any_of(schema.begin(), schema.end(),
                     [&](const plan::Attribute& a) { return a.source == column.source && a.name == column.column; });
}

// Whether every column `e` reads is an attribute of `schema`.
bool reads_only(const plan::Expr& e, const std::vector<plan::Attribute>& schema) {
  bool only = true;
  plan::visit(e, [&](const plan::Expr& x) {
    if (x.kind == plan::ExprKind::Column && !has_attribute(schema, x)) only = false;
  });
  return only;
}

// The match indicator the binder's left outer join puts on its build side (a Map of `__matched_<b>
// := 1` and nothing else): its name, or "" when `build` is not that Map.
std::string match_indicator_of(const plan::LogicalOp& build) {
  if (build.kind != plan::OpKind::Map || build.exprs.size() != 1) return "";
  const plan::NamedExpr& m = build.exprs[0];
  if (m.expr->kind != plan::ExprKind::Literal || m.expr->int_value != 1 || !is_match_indicator(m.name)) return "";
  return m.name;
}

// `filter` is `indicator <> 0`, exactly.
bool matched_only(const plan::ExprPtr& filter, const std::string& indicator) {
  if (!filter || filter->kind != plan::ExprKind::Compare || filter->compare != plan::CompareOp::Ne) return false;
  const plan::Expr& l = *filter->args[0];
  const plan::Expr& r = *filter->args[1];
  return l.kind == plan::ExprKind::Column && l.source.empty() && l.column == indicator && r.kind == plan::ExprKind::Literal &&
         r.int_value == 0;
}

// The group keys that are plain columns of `probe` cover one of its unique column sets.
bool groups_are_probe_rows(const plan::LogicalOp& agg, const plan::LogicalOp& probe, const Catalog& catalog) {
  for (const std::vector<std::string>& set : plan::unique_column_sets(probe, catalog)) {
    const bool covered = !set.empty() && std::all_of(set.begin(), set.end(), [&](const std::string& name) {
      return std::any_of(agg.group_by.begin(), agg.group_by.end(), [&](const plan::NamedExpr& g) {
        const plan::Expr& e = *g.expr;
        return e.kind == plan::ExprKind::Column && e.column == name && has_attribute(probe.schema, e);
      });
    });
    if (covered) return true;
  }
  return false;
}

bool rewritable(const plan::LogicalOp& agg, const Catalog& catalog) {
  if (agg.kind != plan::OpKind::Aggregate || agg.group_by.empty() || agg.children.size() != 1) return false;
  const plan::LogicalOp& join = agg.child(0);
  if (join.kind != plan::OpKind::Join || join.join_type != plan::JoinType::LeftOuter || !join.explicit_nulls ||
      join.probe_keys.empty() || join.residual)
    return false;
  const plan::LogicalOp& probe = join.child(0);
  const plan::LogicalOp& build = join.child(1);
  const std::string indicator = match_indicator_of(build);
  if (indicator.empty()) return false;
  const std::vector<plan::Attribute>& b = build.child(0).schema;
  for (const plan::NamedExpr& g : agg.group_by)
    if (!reads_only(*g.expr, probe.schema)) return false;
  for (const plan::ExprPtr& k : join.build_keys)
    if (!reads_only(*k, b)) return false;
  for (const plan::AggregateExpr& a : agg.aggregates) {
    const bool partial_is_total = a.func == plan::AggFunc::Count || a.func == plan::AggFunc::CountStar ||
                                  a.func == plan::AggFunc::Sum || a.func == plan::AggFunc::Min || a.func == plan::AggFunc::Max;
    if (!partial_is_total || a.count_arg) return false;
    // COUNT(*) of every joined row (an unmatched one counts once): the matched rows' count, or 1.
    if (!matched_only(a.filter, indicator) && !(a.func == plan::AggFunc::CountStar && !a.filter)) return false;
    if (a.arg && !reads_only(*a.arg, b)) return false;
  }
  return groups_are_probe_rows(agg, probe, catalog);
}

}  // namespace

std::unique_ptr<plan::LogicalOp> aggregate_before_outer_join(std::unique_ptr<plan::LogicalOp> agg, const Catalog& catalog) {
  if (!rewritable(*agg, catalog)) return agg;
  std::unique_ptr<plan::LogicalOp> join = std::move(agg->children[0]);
  std::unique_ptr<plan::LogicalOp> b = std::move(join->children[1]->children[0]);

  // B aggregated by the join's build keys; names starting "__" never clash with SQL names.
  auto partial = std::make_unique<plan::LogicalOp>();
  partial->kind = plan::OpKind::Aggregate;
  partial->json_path = agg->json_path;
  std::vector<plan::ExprPtr> build_keys;
  for (size_t i = 0; i < join->build_keys.size(); ++i) {
    const plan::ExprPtr& k = join->build_keys[i];
    const std::string name = "__eager_key" + std::to_string(i + 1);
    plan::Attribute a{"", name, k->type, k->kind == plan::ExprKind::Column ? k->dict_table : "",
                      k->kind == plan::ExprKind::Column ? k->dict_column : ""};
    partial->group_by.push_back({name, k});
    partial->schema.push_back(a);
    build_keys.push_back(plan::make_column(a));
  }
  std::vector<plan::ExprPtr> partials;  // parallel to agg->aggregates
  for (const plan::AggregateExpr& a : agg->aggregates) {
    plan::AggregateExpr p = a;
    p.name = "__eager_agg_" + a.name;
    const bool every_row = !a.filter;  // COUNT(*) of the joined rows, the unmatched one included
    p.filter = nullptr;  // every row of B is a matched one
    const auto out = std::find_if(agg->schema.begin(), agg->schema.end(), [&](const plan::Attribute& x) { return x.name == a.name; });
    plan::Attribute attr{"", p.name, a.type, out->dict_table, out->dict_column};
    partial->schema.push_back(attr);
    partial->aggregates.push_back(std::move(p));
    plan::ExprPtr value = plan::make_column(attr);
    if (every_row) {  // CASE WHEN count = 0 THEN 1 ELSE count END: a row without a match reads 0
      auto one_if_none = std::make_shared<plan::Expr>();
      one_if_none->kind = plan::ExprKind::Case;
      one_if_none->type = a.type;
      one_if_none->args = {plan::make_compare(plan::CompareOp::Eq, value, plan::make_int_literal(0, a.type)),
                           plan::make_int_literal(1, a.type), value};
      value = one_if_none;
    }
    partials.push_back(value);
  }
  partial->children.push_back(std::move(b));

  auto outer = std::make_unique<plan::LogicalOp>();
  outer->kind = plan::OpKind::Join;
  outer->json_path = join->json_path;
  outer->join_type = plan::JoinType::LeftOuter;
  outer->explicit_nulls = true;
  outer->probe_keys = std::move(join->probe_keys);
  outer->build_keys = std::move(build_keys);
  outer->estimated_rows = join->children[0]->estimated_rows;  // one row per probe row now
  outer->schema = join->children[0]->schema;
  outer->schema.insert(outer->schema.end(), partial->schema.begin(), partial->schema.end());
  outer->children.push_back(std::move(join->children[0]));
  outer->children.push_back(std::move(partial));

  auto project = std::make_unique<plan::LogicalOp>();
  project->kind = plan::OpKind::Project;
  project->json_path = agg->json_path;
  project->schema = agg->schema;
  project->estimated_rows = outer->estimated_rows;
  for (const plan::NamedExpr& g : agg->group_by) project->exprs.push_back({g.name, g.expr});
  for (size_t i = 0; i < agg->aggregates.size(); ++i) project->exprs.push_back({agg->aggregates[i].name, partials[i]});
  project->children.push_back(std::move(outer));
  return project;
}

}  // namespace hqc::sql

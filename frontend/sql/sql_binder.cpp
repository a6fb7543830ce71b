// SELECT → logical plan above the join tree: aggregation, HAVING, projection, ORDER BY, LIMIT
// (frontend/sql/sql_binder.h).
#include "frontend/sql/sql_binder.h"

#include <algorithm>
#include <set>

#include "frontend/bind_expr.h"
#include "frontend/sql/sql_distinct.h"
#include "frontend/sql/sql_eager_aggregation.h"
#include "frontend/sql/sql_expr.h"
#include "frontend/sql/sql_join_tree.h"
#include "frontend/sql/sql_nulls.h"
#include "frontend/sql/sql_scope.h"
#include "frontend/sql/sql_set_operations.h"
#include "frontend/sql/sql_windows.h"
#include "frontend/sql/sql_unnest.h"
#include "storage/error.h"

namespace hqc::sql {

namespace {

struct OutputItem {
  SqlExprPtr expr;
  std::string name;
  std::string alias;  // as written, "" when none
  int location = -1;
};

struct GroupKey {
  SqlExprPtr expr;
  std::string canonical;
  std::string name;
  std::string null_key;  // the hidden key that is 1 for the NULL group, "" when never NULL
};

struct AggregateCall {
  const SqlExpr* call;
  std::string canonical;
  std::string name;
  std::string non_null;  // the hidden count of non-NULL inputs (0: the aggregate is NULL), or ""
};

void collect_aggregates(const SqlExpr& e, std::vector<const SqlExpr*>& out) {
  if (is_aggregate_call(e)) {
    out.push_back(&e);
    return;  // an aggregate inside an aggregate is rejected when the argument is bound
  }
  for (const SqlExprPtr& a : e.args) collect_aggregates(*a, out);
}

SqlExprPtr column_expr(const std::string& alias, const std::string& column, int location) {
  auto e = std::make_shared<SqlExpr>();
  e->kind = SqlExprKind::Column;
  e->qualifiers = {alias, column};
  e->location = location;
  return e;
}

// The statement's LIMIT and OFFSET (if any) on top of `tree`.
std::unique_ptr<plan::LogicalOp> with_limit(std::unique_ptr<plan::LogicalOp> tree, const SelectStmt& stmt, const SqlSource& src) {
  if (!stmt.limits()) return tree;
  auto l = std::make_unique<plan::LogicalOp>();
  l->kind = plan::OpKind::Limit;
  l->json_path = src.position(stmt.limit_location);
  l->limit = stmt.limit.value_or(-1);
  l->offset = stmt.offset;
  l->schema = tree->schema;
  l->children.push_back(std::move(tree));
  return l;
}

class SelectBinder {
 public:
  SelectBinder(const SelectStmt& stmt, const SqlSource& source, const Catalog& catalog, const plan::Statistics& stats,
               NullableOutput nullable)
      : stmt_(stmt), src_(source), scope_(catalog, stats, source), nullable_(nullable) {}

  std::unique_ptr<plan::LogicalOp> bind() {
    // Scalar subqueries of the select list join the FROM tables (build_join_tree), unless the query
    // aggregates: then they join the aggregate's output, as in HAVING (project()).
    bool aggregates = !stmt_.group_by.empty();
    for (const SelectItem& s : stmt_.items) {
      std::vector<const SqlExpr*> calls;
      if (s.expr) collect_aggregates(*s.expr, calls);
      aggregates = aggregates || !calls.empty();
    }
    for (const OrderItem& o : stmt_.order_by) {
      std::vector<const SqlExpr*> calls;
      collect_aggregates(*o.expr, calls);
      aggregates = aggregates || !calls.empty();
    }
    if (stmt_.having) aggregates = true;
    SelectValues select_values;
    std::unique_ptr<plan::LogicalOp> tree = build_join_tree(stmt_, scope_, src_, aggregates ? nullptr : &select_values);
    expand_select_list(select_values);

    std::vector<const SqlExpr*> aggregate_calls;
    for (const OutputItem& i : items_) collect_aggregates(*i.expr, aggregate_calls);
    if (stmt_.having) collect_aggregates(*stmt_.having, aggregate_calls);
    for (const OrderItem& o : stmt_.order_by) collect_aggregates(*o.expr, aggregate_calls);
    group_by_ = stmt_.group_by;
    if (stmt_.distinct) {
      // SELECT DISTINCT a, b ... is GROUP BY a, b (each select item, by position) with no aggregate.
      if (!group_by_.empty() || !aggregate_calls.empty())
        src_.unsupported(stmt_.location, "SELECT DISTINCT over aggregates or with GROUP BY is not supported yet (a second "
                                         "aggregation over the groups); SELECT DISTINCT over plain columns and expressions is");
      for (size_t i = 0; i < items_.size(); ++i) {
        auto position = std::make_shared<SqlExpr>();
        position->kind = SqlExprKind::IntLiteral;
        position->int_value = static_cast<int64_t>(i + 1);
        position->location = items_[i].location;
        group_by_.push_back(position);
      }
    }
    aggregating_ = !group_by_.empty() || !aggregate_calls.empty();

    if (aggregating_) {
      tree = aggregate(std::move(tree), aggregate_calls);
    } else if (stmt_.having) {
      src_.fail(stmt_.having->location, "HAVING needs GROUP BY or an aggregate function");
    }
    if (stmt_.having) {
      // Uncorrelated scalar subqueries in HAVING (TPC-H Q11) join the aggregate's output as
      // single-row relations without keys, as they do in WHERE (frontend/sql/sql_join_tree.cpp).
      SqlExprPtr having = join_having_subqueries(*stmt_.having, tree, "HAVING");
      auto f = std::make_unique<plan::LogicalOp>();
      f->kind = plan::OpKind::Filter;
      f->json_path = src_.position(stmt_.having->location);
      f->schema = tree->schema;
      AttributeLookup aggregates = output_lookup();
      NullRewriter nulls(output_null_leaves(), src_);
      if (nulls.needed(*having)) having = nulls.truth(*having);  // the groups where it is TRUE
      f->predicate = bind_sql_predicate(*having, f->schema, aggregates, src_);
      f->children.push_back(std::move(tree));
      tree = std::move(f);
    }
    add_hidden_sort_items();
    tree = project(std::move(tree));
    if (!stmt_.order_by.empty()) tree = order_by(std::move(tree));
    return with_limit(std::move(tree), stmt_, src_);
  }

 private:
  // `*` expands to every column of every FROM table, in FROM order.
  // A select item with scalar subqueries reads their derived tables' values instead (select_values).
  void expand_select_list(const SelectValues& select_values) {
    for (const SelectItem& s : stmt_.items) {
      if (!s.expr) {
        for (const auto& [alias, column] : scope_.star_columns()) items_.push_back({column_expr(alias, column, s.location), column, "", s.location});
        continue;
      }
      const std::string name = s.output_name();
      auto value = select_values.find(s.expr.get());
      items_.push_back({value == select_values.end() ? s.expr : value->second, name, s.alias, s.location});
    }
    // Columns are named throughout a plan (validity columns, ORDER BY, the result), so two of one
    // name would be ambiguous there.
    for (size_t i = 1; i < items_.size(); ++i)
      for (size_t j = 0; j < i; ++j)
        if (items_[i].name == items_[j].name)
          src_.unsupported(items_[i].location, "select items " + std::to_string(j + 1) + " and " + std::to_string(i + 1) +
                                                   " are both named \"" + items_[i].name + "\"; give one of them another name (AS ...)");
  }

  // GROUP BY 2 and GROUP BY <select alias> (PostgreSQL extensions) name a select item.
  SqlExprPtr group_expression(const SqlExprPtr& g) {
    if (g->kind == SqlExprKind::IntLiteral) {
      if (g->int_value < 1 || static_cast<size_t>(g->int_value) > items_.size()) {
        src_.fail(g->location, "GROUP BY position " + std::to_string(g->int_value) + " is not in the select list (1.." +
                                   std::to_string(items_.size()) + ")");
      }
      return items_[static_cast<size_t>(g->int_value - 1)].expr;
    }
    if (g->kind == SqlExprKind::Column && g->qualifiers.size() == 1 && !scope_.try_resolve(*g)) {
      for (const OutputItem& i : items_) {
        if (i.alias == g->qualifiers[0]) return i.expr;
      }
    }
    return g;
  }

  bool name_taken(const std::string& name) const {
    auto same = [&](const auto& x) { return x.name == name; };
    return std::any_of(keys_.begin(), keys_.end(), same) || std::any_of(aggs_.begin(), aggs_.end(), same);
  }

  // An attribute name bind_expr can reference ({"column": name} splits at the first '.'), unique
  // in the aggregate's output; the final projection restores the name users see.
  std::string attribute_name(const std::string& preferred, const std::string& fallback) {
    if (preferred.find('.') == std::string::npos && !name_taken(preferred)) return preferred;
    std::string n = fallback;
    for (int i = 2; name_taken(n); ++i) n = fallback + "_" + std::to_string(i);
    return n;
  }

  // What aggregate() builds up while it adds the calls.
  struct AggregateBuild {
    plan::LogicalOp& agg;
    const std::vector<plan::Attribute>& in;
    AttributeLookup base;
    NullRewriter nulls;
    std::vector<bool> distinct;  // parallel to agg.aggregates
    int distinct_location = -1;  // the first DISTINCT call
    // Without GROUP BY, SUM/MIN/MAX/AVG are NULL over no rows: where the query asks (COALESCE, IS
    // NULL, ...), a hidden count of the rows (rows_name, once made) tells.
    bool rows_count = false;
    std::string rows_name;
  };

  std::unique_ptr<plan::LogicalOp> aggregate(std::unique_ptr<plan::LogicalOp> input, const std::vector<const SqlExpr*>& calls) {
    auto agg = std::make_unique<plan::LogicalOp>();
    agg->kind = plan::OpKind::Aggregate;
    agg->json_path = src_.position(group_by_.empty() ? calls.front()->location : group_by_.front()->location);
    AggregateBuild b{*agg, input->schema, [this](const SqlExpr& e) { return column_attribute(e, scope_); },
                     NullRewriter(column_null_leaves(scope_), src_)};
    // A subquery in FROM, a WITH query or a set operand hands its NULLs on (validity columns), and a
    // WHERE subquery refuses them: both need the count. (The outermost query's result makes a scalar
    // aggregate NULL over no rows by itself, ResultColumn::null_without_input; so does the executor
    // for a scalar subquery's parameter.)
    const bool handed_on = nullable_ == NullableOutput::Columns || nullable_ == NullableOutput::Refused;
    b.rows_count = group_by_.empty() && (handed_on || std::any_of(items_.begin(), items_.end(), [](const OutputItem& i) {
                                            return mentions_null_construct(*i.expr);
                                          }));
    agg->explicit_nulls = b.rows_count;
    for (const SqlExprPtr& written : group_by_) add_group_key(b, group_expression(written));
    for (const SqlExpr* call : calls) add_aggregate(b, *call);
    agg->children.push_back(std::move(input));
    if (b.distinct_location >= 0) return split_distinct_aggregate(std::move(agg), b.distinct, src_, b.distinct_location);
    return aggregate_before_outer_join(std::move(agg), scope_.catalog());
  }

  // The alias of the select item that is `canonical`, else `fallback`.
  std::string preferred_name(const std::string& canonical, std::string fallback) const {
    for (const OutputItem& i : items_) {
      if (!i.alias.empty() && scope_.canonical(*i.expr) == canonical) return i.alias;
    }
    return fallback;
  }

  // One GROUP BY key (once per distinct expression). A NULL-able key groups by its value and a
  // hidden key that is 1 for its NULL group.
  void add_group_key(AggregateBuild& b, const SqlExprPtr& g) {
    std::string canonical = scope_.canonical(*g);
    if (std::any_of(keys_.begin(), keys_.end(), [&](const GroupKey& k) { return k.canonical == canonical; })) return;
    std::vector<const SqlExpr*> nested;
    collect_aggregates(*g, nested);
    if (!nested.empty()) src_.fail(nested[0]->location, "aggregate functions are not allowed in GROUP BY");
    const std::string preferred = preferred_name(canonical, g->kind == SqlExprKind::Column ? g->qualifiers.back() : g->to_sql());
    NullableValue key{g, nullptr};
    if (b.nulls.needed(*g)) key = b.nulls.value(*g);
    if (!key.value) src_.unsupported(g->location, "GROUP BY NULL is not supported");
    plan::ExprPtr bound = bind_sql_expression(*key.value, b.in, b.base, src_);
    if (key.null && (g->kind != SqlExprKind::Column || scope_.varying_null_string(*g))) {
      // A computed key reads 0 only for its NULL-able operands: one NULL group needs one value.
      if (bound->type.is_string())
        src_.unsupported(g->location, "GROUP BY a computed string that may be NULL (" + g->to_sql() + ") is not supported yet");
      bound = bind_sql_expression(*zero_where_null(key, bound->type, g->location), b.in, b.base, src_);
    }
    std::string name = attribute_name(preferred, "group" + std::to_string(keys_.size() + 1));
    keys_.push_back({g, canonical, name, ""});
    plan::Attribute a{"", name, bound->type, "", ""};
    if (bound->kind == plan::ExprKind::Column) {
      a.dict_table = bound->dict_table;
      a.dict_column = bound->dict_column;
    }
    b.agg.schema.push_back(a);
    b.agg.group_by.push_back({name, bound});
    if (key.null) {
      keys_.back().null_key = attribute_name(name + "__null", name + "__null");
      plan::ExprPtr flag = bind_sql_expression(*one_where(key.null, g->location), b.in, b.base, src_);
      b.agg.schema.push_back(plan::Attribute{"", keys_.back().null_key, flag->type, "", ""});
      b.agg.group_by.push_back({keys_.back().null_key, flag});
    }
  }

  // One aggregate call (once per distinct call). NULL arguments are skipped (a filter), as are the
  // rows a FILTER (WHERE ...) clause drops; SUM/MIN/MAX/AVG get a hidden count of what they add up.
  void add_aggregate(AggregateBuild& b, const SqlExpr& call) {
    std::string canonical = scope_.canonical(call);
    if (std::any_of(aggs_.begin(), aggs_.end(), [&](const AggregateCall& a) { return a.canonical == canonical; })) return;
    plan::AggregateExpr a;
    a.name = attribute_name(preferred_name(canonical, call.to_sql()), "agg" + std::to_string(aggs_.size() + 1));
    if (call.distinct) {
      if (call.star) src_.fail(call.location, call.text + "(DISTINCT *) is not valid");
      if (b.distinct_location < 0) b.distinct_location = call.location;
    }
    b.distinct.push_back(call.distinct);
    if (call.text == "count" && call.star) {
      a.func = plan::AggFunc::CountStar;
    } else {
      if (call.star) src_.fail(call.location, call.text + "(*) is not valid; only count(*)");
      if (call.args.size() != 1) src_.fail(call.location, call.text + " takes exactly one argument");
      static const std::pair<const char*, plan::AggFunc> funcs[] = {{"sum", plan::AggFunc::Sum},
                                                                     {"count", plan::AggFunc::Count},
                                                                     {"min", plan::AggFunc::Min},
                                                                     {"max", plan::AggFunc::Max},
                                                                     {"avg", plan::AggFunc::Avg}};
      for (const auto& [n, f] : funcs) {
        if (call.text == n) a.func = f;
      }
    }
    SqlExprPtr only;
    if (a.func != plan::AggFunc::CountStar) {
      NullableValue arg{call.args[0], nullptr};
      if (b.nulls.needed(*arg.value)) arg = b.nulls.value(*arg.value);
      if (!arg.value) src_.unsupported(call.location, call.text + "(NULL) is not supported");
      a.arg = bind_sql_expression(*arg.value, b.in, b.base, src_);
      if (arg.null) only = not_of(arg.null);
    }
    if (call.filter) {
      SqlExprPtr where = b.nulls.needed(*call.filter) ? b.nulls.truth(*call.filter) : call.filter;
      only = only ? and_of(only, where) : where;
    }
    if (only) a.filter = bind_sql_predicate(*only, b.in, b.base, src_);  // (a DISTINCT one: split_distinct_aggregate)
    std::string why;
    if (!plan::aggregate_type(a.func, a.arg ? &a.arg->type : nullptr, a.type, why)) src_.fail(call.location, why);
    plan::Attribute attr{"", a.name, a.type, "", ""};
    if (a.func == plan::AggFunc::Min || a.func == plan::AggFunc::Max) {
      attr.dict_table = a.arg->dict_table;
      attr.dict_column = a.arg->dict_column;
    }
    b.agg.schema.push_back(attr);
    const bool counts = a.func == plan::AggFunc::Count || a.func == plan::AggFunc::CountStar;
    aggs_.push_back({&call, canonical, a.name, ""});
    const plan::ExprPtr filter = a.filter;
    b.agg.aggregates.push_back(std::move(a));
    if (counts || (!filter && !b.rows_count)) return;
    // SUM/MIN/MAX/AVG over no non-NULL input is NULL: a hidden count of the rows it adds up says.
    if (!filter && !b.rows_name.empty()) {
      aggs_.back().non_null = b.rows_name;
      return;
    }
    plan::AggregateExpr n;
    n.name = attribute_name(aggs_.back().name + "__nonnull", aggs_.back().name + "__nonnull");
    n.func = plan::AggFunc::CountStar;
    n.type = DataType::int64();
    n.filter = filter;
    aggs_.back().non_null = n.name;
    if (!filter) b.rows_name = n.name;
    b.agg.schema.push_back(plan::Attribute{"", n.name, n.type, "", ""});
    b.agg.aggregates.push_back(std::move(n));
    b.distinct.push_back(false);
  }

  // Copy of `e` with each scalar subquery replaced by the column "<alias>.<alias>_value" of a relation
  // that `tree` (the aggregate's output) is joined with: an uncorrelated one is a single-row relation
  // joined without keys (the value reaches the kernel as a run-time parameter,
  // ir/build_pipelines.cpp); a correlated one, grouped by its keys, is the build side of a left outer
  // join on the group keys its correlation names (NULL where it has no group: `__matched_<alias>`).
  SqlExprPtr join_having_subqueries(const SqlExpr& e, std::unique_ptr<plan::LogicalOp>& tree, const char* where) {
    if (e.kind == SqlExprKind::ScalarSubquery) {
      ScalarSubqueryPlan sq = plan_scalar_subquery(e, scope_, stmt_.with, src_);
      // Its outputs renamed after the subquery, so an unqualified reference to an output named
      // "value" (Q11's alias) stays unambiguous: <alias>_value, <alias>_k<i>, and an uncorrelated
      // one's validity (NULL over no rows) as the hidden __valid_<alias>.
      const std::string name = sq.alias + "_value";
      std::unique_ptr<plan::LogicalOp> project = std::move(sq.plan);
      if (project->kind != plan::OpKind::Project) {
        auto p = std::make_unique<plan::LogicalOp>();
        p->kind = plan::OpKind::Project;
        p->json_path = src_.position(e.location);
        p->schema = project->schema;
        for (const plan::Attribute& a : project->schema) {
          plan::ExprPtr column = plan::make_column(a.source, a.name, a.type);
          column->dict_table = a.dict_table;
          column->dict_column = a.dict_column;
          p->exprs.push_back({a.name, column});
        }
        p->children.push_back(std::move(project));
        project = std::move(p);
      }
      for (size_t i = 0, key = 1; i < project->exprs.size(); ++i) {
        plan::NamedExpr& x = project->exprs[i];
        const bool validity = !x.validity_for.empty();
        x.name = i == 0 ? name : validity ? valid_attribute(sq.alias) : sq.alias + "_" + sq.column_names.at(key++);
        x.validity_for.clear();
        project->schema[i].source = validity ? "" : sq.alias;
        project->schema[i].name = x.name;
        if (validity) uncorrelated_valid_.insert(sq.alias);
      }
      auto join = std::make_unique<plan::LogicalOp>();
      join->kind = plan::OpKind::Join;
      join->join_type = plan::JoinType::Inner;
      join->json_path = src_.position(e.location);
      AttributeLookup groups = output_lookup();
      for (size_t i = 0; i < sq.outer_keys.size(); ++i) {
        const SqlExpr& outer = *sq.outer_keys[i];
        const plan::Attribute& key = project->schema.at(i + 1);
        // The outer side is a group key (or the lookup says it must be), never NULL: a NULL group's
        // key reads 0, which a group of the subquery could have.
        const std::string canonical = scope_.canonical(outer);
        for (const GroupKey& k : keys_)
          if (k.canonical == canonical && !k.null_key.empty())
            src_.unsupported(outer.location, "a correlated subquery's key " + outer.to_sql() + " that may be NULL is not supported");
        plan::ExprPtr pk = bind_sql_expression(outer, tree->schema, groups, src_);
        plan::ExprPtr bk = plan::make_column(sq.alias, key.name, key.type);
        if (!join_keys_comparable(pk->type, bk->type)) src_.unsupported(outer.location, join_key_refusal(outer, *bk, outer, *pk));
        join->probe_keys.push_back(pk);
        join->build_keys.push_back(bk);
      }
      std::unique_ptr<plan::LogicalOp> build = std::move(project);
      if (!sq.outer_keys.empty()) {
        join->join_type = plan::JoinType::LeftOuter;
        join->explicit_nulls = true;
        build = with_match_indicator(std::move(build), sq.alias);
        correlated_subqueries_.insert(sq.alias);
      }
      join->schema = tree->schema;
      join->schema.insert(join->schema.end(), build->schema.begin(), build->schema.end());
      join->children.push_back(std::move(tree));
      join->children.push_back(std::move(build));
      tree = std::move(join);
      having_subqueries_.insert(sq.alias);
      auto c = std::make_shared<SqlExpr>();
      c->kind = SqlExprKind::Column;
      c->qualifiers = {sq.alias, name};
      c->location = e.location;
      return sq.count_zero ? zero_if_null(c) : c;
    }
    auto copy = std::make_shared<SqlExpr>(e);
    for (SqlExprPtr& a : copy->args) a = join_having_subqueries(*a, tree, where);
    return copy;
  }

  bool mentions_having_subquery(const SqlExpr& e) const {
    if (e.kind == SqlExprKind::Column && e.qualifiers.size() == 2 && having_subqueries_.count(e.qualifiers[0])) return true;
    return std::any_of(e.args.begin(), e.args.end(), [&](const SqlExprPtr& a) { return mentions_having_subquery(*a); });
  }

  // Names what the select list, HAVING and ORDER BY may reference: before aggregation the base
  // columns; after it the group keys and aggregates, and nothing else.
  AttributeLookup output_lookup() const {
    if (!aggregating_) return [this](const SqlExpr& e) { return column_attribute(e, scope_); };
    return [this](const SqlExpr& e) -> std::optional<std::string> {
      if (e.kind == SqlExprKind::IntLiteral || e.kind == SqlExprKind::StringLiteral || e.kind == SqlExprKind::DecimalLiteral) {
        return std::nullopt;
      }
      // The value of a scalar subquery joined to the aggregate's output (join_having_subqueries).
      if (e.kind == SqlExprKind::Column && e.qualifiers.size() == 2 && having_subqueries_.count(e.qualifiers[0]))
        return e.qualifiers[0] + "." + e.qualifiers[1];
      if (mentions_having_subquery(e)) return std::nullopt;  // no group key or aggregate holds a subquery's value
      std::string canonical = scope_.canonical(e);
      for (const GroupKey& k : keys_) {
        if (k.canonical == canonical) return k.name;
      }
      for (const AggregateCall& a : aggs_) {
        if (a.canonical == canonical) return a.name;
      }
      if (e.kind == SqlExprKind::Column) {
        scope_.resolve(e);  // unknown / ambiguous columns first
        src_.fail(e.location, "column \"" + e.to_sql() + "\" must appear in the GROUP BY clause or be used in an aggregate function");
      }
      return std::nullopt;
    };
  }

  // NULL predicates of what the select list, HAVING and ORDER BY read (sql_nulls.h): before
  // aggregation the columns; after it the group keys (their hidden NULL key) and the aggregates
  // (their hidden count of non-NULL inputs).
  NullLeaves output_null_leaves() const {
    if (!aggregating_) return column_null_leaves(scope_);
    return [this](const SqlExpr& e) -> std::optional<SqlExprPtr> {
      if (e.kind == SqlExprKind::IntLiteral || e.kind == SqlExprKind::StringLiteral || e.kind == SqlExprKind::DecimalLiteral ||
          e.kind == SqlExprKind::Attribute || e.kind == SqlExprKind::NullLiteral)
        return std::nullopt;
      // A correlated subquery's value: NULL where its left outer join found no group; an
      // uncorrelated one's where its aggregate saw no rows.
      if (e.kind == SqlExprKind::Column && e.qualifiers.size() == 2 && having_subqueries_.count(e.qualifiers[0])) {
        const std::string& alias = e.qualifiers[0];
        if (correlated_subqueries_.count(alias))
          return equals(attribute_ref(match_indicator(alias), e.location), int_literal(0, e.location), e.location);
        if (uncorrelated_valid_.count(alias))
          return equals(attribute_ref(valid_attribute(alias), e.location), int_literal(0, e.location), e.location);
        return SqlExprPtr();
      }
      const std::string canonical = scope_.canonical(e);
      for (const GroupKey& k : keys_) {
        if (k.canonical == canonical)
          return k.null_key.empty() ? SqlExprPtr() : equals(attribute_ref(k.null_key, e.location), int_literal(1, e.location), e.location);
      }
      for (const AggregateCall& a : aggs_) {
        if (a.canonical == canonical)
          return a.non_null.empty() ? SqlExprPtr() : equals(attribute_ref(a.non_null, e.location), int_literal(0, e.location), e.location);
      }
      if (e.kind == SqlExprKind::Column || is_aggregate_call(e)) return SqlExprPtr();  // binding reports it
      return std::nullopt;
    };
  }

  std::unique_ptr<plan::LogicalOp> project(std::unique_ptr<plan::LogicalOp> input) {
    AttributeLookup lookup = output_lookup();
    NullRewriter nulls(output_null_leaves(), src_);
    std::vector<plan::NamedExpr> exprs;
    std::vector<plan::NamedExpr> validity;  // after the items, so ORDER BY positions keep theirs
    bool identity = items_.size() == input->schema.size();
    for (size_t i = 0; i < items_.size(); ++i) {
      SqlExprPtr item = items_[i].expr;
      if (aggregating_ && contains_scalar_subquery(*item)) item = join_having_subqueries(*item, input, "the select list of a query that aggregates");
      if (nulls.needed(*item)) {
        // Its value, and where it is NULL: the result's NULLs (a validity column).
        NullableValue v = nulls.value(*item);
        if (!v.value && nullable_ == NullableOutput::Columns) {
          // A bare NULL (`SELECT k, NULL FROM ...` as a set operation's operand): an integer 0 whose
          // validity is the literal 0 — what marks it untyped for a set operation, which gives it
          // the other operand's type (sql_set_operations.cpp).
          exprs.push_back({items_[i].name, plan::make_int_literal(0, DataType::int32())});
          validity.push_back({"__valid" + std::to_string(i + 1), plan::make_int_literal(0, DataType::int32()), items_[i].name});
          identity = false;
          continue;
        }
        if (!v.value) src_.unsupported(items_[i].location, "a NULL select item has no type; write CAST(NULL AS type)");
        if (v.null && nullable_ == NullableOutput::Refused)
          src_.unsupported(items_[i].location, "column \"" + items_[i].name + "\" may be NULL: a column that may be NULL in a "
                                               "WHERE subquery is not supported yet");
        item = v.value;
        if (v.null && nullable_ == NullableOutput::Columns) {
          // An enclosing query groups, DISTINCTs or unites this column: every NULL row reads one
          // value, 0 (a string cannot be zeroed: a column of a NULL-supplying side reads 0 and an
          // aggregate over no value its identity, but a computed one stays marked,
          // FromScope::varying_null_string).
          plan::ExprPtr bound = bind_sql_expression(*item, input->schema, lookup, src_);
          if (SqlExprPtr zeroed = zero_where_null(v, bound->type, items_[i].location)) item = zeroed;
        }
        // (A scalar aggregate's result item states its validity even when never NULL: the result
        // would otherwise make it NULL over no rows, ResultColumn::null_without_input.)
        const bool result = nullable_ == NullableOutput::Result;
        if (v.null || (result && aggregating_ && group_by_.empty())) {
          SqlExprPtr valid = v.null ? one_where(not_of(v.null), items_[i].location) : int_literal(1, items_[i].location);
          validity.push_back({"__valid" + std::to_string(i + 1), bind_sql_expression(*valid, input->schema, lookup, src_),
                              items_[i].name});
        }
      }
      plan::ExprPtr e = bind_sql_expression(*item, input->schema, lookup, src_);
      if (e->kind == plan::ExprKind::Literal && e->type.is_string() && e->string_value.size() <= kMaxPackedStringBytes &&
          e->string_value.find('\0') == std::string::npos) {
        // A short string literal selected as a value ('total' AS kind) is a packed string.
        e = plan::clone(*e);
        e->type = DataType::packed_string(std::max<uint32_t>(1, static_cast<uint32_t>(e->string_value.size())));
      }
      if (identity) {
        const plan::Attribute& a = input->schema[i];
        identity = e->kind == plan::ExprKind::Column && e->source == a.source && e->column == a.name && items_[i].name == a.name;
      }
      exprs.push_back({items_[i].name, e});
    }
    identity = identity && validity.empty();
    for (plan::NamedExpr& v : validity) exprs.push_back(std::move(v));
    if (identity) return input;
    auto p = std::make_unique<plan::LogicalOp>();
    p->kind = plan::OpKind::Project;
    p->json_path = src_.position(stmt_.items.empty() ? stmt_.location : stmt_.items.front().location);
    for (const plan::NamedExpr& ne : exprs) {
      plan::Attribute a{"", ne.name, ne.expr->type, "", ""};
      if (ne.expr->kind == plan::ExprKind::Column) {
        a.dict_table = ne.expr->dict_table;
        a.dict_column = ne.expr->dict_column;
      }
      p->schema.push_back(a);
    }
    p->exprs = std::move(exprs);
    p->children.push_back(std::move(input));
    return p;
  }

  // The select item an ORDER BY key names: a position (of the visible items), an output name, or
  // an expression that is (textually, after qualification) a select item; none: nullopt.
  std::optional<size_t> sort_item(const OrderItem& o) const {
    const SqlExpr& e = *o.expr;
    const size_t visible = items_.size() - hidden_sort_items_;
    if (e.kind == SqlExprKind::IntLiteral) {
      if (e.int_value < 1 || static_cast<size_t>(e.int_value) > visible) {
        src_.fail(e.location, "ORDER BY position " + std::to_string(e.int_value) + " is not in the select list (1.." +
                                  std::to_string(visible) + ")");
      }
      return static_cast<size_t>(e.int_value - 1);
    }
    std::vector<size_t> matches;
    if (e.kind == SqlExprKind::Column && e.qualifiers.size() == 1) {
      for (size_t i = 0; i < visible; ++i) {
        if (items_[i].name == e.qualifiers[0]) matches.push_back(i);
      }
    }
    if (matches.empty()) {
      std::string canonical = scope_.canonical(e);
      for (size_t i = 0; i < items_.size(); ++i) {
        if (scope_.canonical(*items_[i].expr) == canonical) matches.push_back(i);
      }
    }
    if (matches.size() > 1) src_.fail(e.location, "ORDER BY \"" + e.to_sql() + "\" is ambiguous: several output columns have that name");
    if (matches.empty()) return std::nullopt;
    return matches[0];
  }

  // An ORDER BY key that is no select item becomes a hidden one (`__o<k>`): computed with the
  // others (after aggregation, it must be a group key or aggregate, as in the select list), sorted
  // by, and dropped from the result (ResultDesc::hidden).
  void add_hidden_sort_items() {
    for (size_t k = 0; k < stmt_.order_by.size(); ++k) {
      const OrderItem& o = stmt_.order_by[k];
      if (sort_item(o)) continue;
      const SqlExpr& e = *o.expr;
      if (stmt_.distinct) {
        if (e.kind == SqlExprKind::Column) scope_.resolve(e);  // an unknown column first
        src_.fail(e.location, "ORDER BY \"" + e.to_sql() + "\" of a SELECT DISTINCT must be one of its select items");
      }
      if (e.kind == SqlExprKind::Column) output_lookup()(e);  // reports unknown / non-grouped columns precisely
      if (nullable_ != NullableOutput::Result)
        src_.unsupported(e.location, "ORDER BY \"" + e.to_sql() + "\": sorting a subquery by an expression that is not in its select list is not supported");
      items_.push_back({o.expr, "__o" + std::to_string(k + 1), "", e.location});
      ++hidden_sort_items_;
    }
  }

  std::unique_ptr<plan::LogicalOp> order_by(std::unique_ptr<plan::LogicalOp> input) {
    auto o = std::make_unique<plan::LogicalOp>();
    o->kind = plan::OpKind::OrderBy;
    o->json_path = src_.position(stmt_.order_by.front().location);
    o->schema = input->schema;
    for (const OrderItem& item : stmt_.order_by) {
      std::optional<size_t> i = sort_item(item);
      if (!i) throw Error(ErrorKind::Internal, "ORDER BY " + item.expr->to_sql() + " names no select item");
      o->sort_keys.push_back({items_[*i].name, item.descending});
    }
    for (size_t i = items_.size() - hidden_sort_items_; i < items_.size(); ++i) o->hidden.push_back(items_[i].name);
    o->children.push_back(std::move(input));
    return o;
  }

  const SelectStmt& stmt_;
  const SqlSource& src_;
  FromScope scope_;
  std::vector<OutputItem> items_;  // the select list, then hidden_sort_items_ ORDER BY keys (add_hidden_sort_items)
  size_t hidden_sort_items_ = 0;
  std::vector<SqlExprPtr> group_by_;  // GROUP BY as written, or each select item (by position) for SELECT DISTINCT
  std::vector<GroupKey> keys_;
  std::vector<AggregateCall> aggs_;
  bool aggregating_ = false;
  NullableOutput nullable_ = NullableOutput::Refused;  // bind_select
  std::set<std::string> having_subqueries_;  // aliases of the scalar subqueries joined for HAVING
  std::set<std::string> correlated_subqueries_;  // those of them joined on group keys (left outer joins)
  std::set<std::string> uncorrelated_valid_;     // those of them whose one row has a validity (valid_attribute)
  static std::string valid_attribute(const std::string& alias) { return "__valid_" + alias; }
};

}  // namespace

plan::LogicalPlan bind_select(const SelectStmt& stmt, const SqlSource& source, const Catalog& catalog, const plan::Statistics& stats,
                              const std::string& plan_name, NullableOutput nullable) {
  plan::LogicalPlan plan;
  plan.name = plan_name;
  if (stmt.set_op == SetOperation::None) {
    if (const SqlExpr* w = first_window_call(stmt)) {
      if (nullable != NullableOutput::Result)
        source.unsupported(w->location, "window functions are only supported in the outermost SELECT (not in a subquery, a WITH query, a view "
                                        "or an operand of UNION/INTERSECT/EXCEPT)");
      plan.root = bind_windowed_select(stmt, source, [&](const SelectStmt& inner) {
        return SelectBinder(inner, source, catalog, stats, nullable).bind();
      });
      plan.root = with_limit(std::move(plan.root), stmt, source);
      return plan;
    }
    plan.root = SelectBinder(stmt, source, catalog, stats, nullable).bind();
    return plan;
  }
  plan.root = bind_set_operation(
      stmt, source, [&](const SelectStmt& operand) { return bind_select(operand, source, catalog, stats, plan_name, NullableOutput::Columns).root; },
      nullable == NullableOutput::Result || nullable == NullableOutput::Columns);
  // ORDER BY and LIMIT of the combined result: output names or positions.
  if (!stmt.order_by.empty()) {
    const std::vector<plan::Attribute>& out = plan.root->schema;
    auto o = std::make_unique<plan::LogicalOp>();
    o->kind = plan::OpKind::OrderBy;
    o->json_path = source.position(stmt.order_by.front().location);
    o->schema = out;
    for (const OrderItem& item : stmt.order_by) {
      const SqlExpr& e = *item.expr;
      std::vector<size_t> matches;
      if (e.kind == SqlExprKind::IntLiteral) {
        if (e.int_value < 1 || static_cast<size_t>(e.int_value) > out.size())
          source.fail(e.location, "ORDER BY position " + std::to_string(e.int_value) + " is not in the select list (1.." +
                                      std::to_string(out.size()) + ")");
        matches.push_back(static_cast<size_t>(e.int_value - 1));
      } else if (e.kind == SqlExprKind::Column && e.qualifiers.size() == 1) {
        for (size_t i = 0; i < out.size(); ++i)
          if (out[i].name == e.qualifiers[0]) matches.push_back(i);
      }
      if (matches.size() > 1) source.fail(e.location, "ORDER BY \"" + e.to_sql() + "\" is ambiguous: several output columns have that name");
      if (matches.empty())
        source.fail(e.location, "ORDER BY \"" + e.to_sql() + "\" after a set operation must name an output column (" +
                                    [&] {
                                      std::string names;
                                      for (const plan::Attribute& a : out) names += (names.empty() ? "" : ", ") + a.name;
                                      return names;
                                    }() + ") or its position");
      o->sort_keys.push_back({out[matches[0]].name, item.descending});
    }
    o->children.push_back(std::move(plan.root));
    plan.root = std::move(o);
  }
  plan.root = with_limit(std::move(plan.root), stmt, source);
  return plan;
}

}  // namespace hqc::sql

// Unnesting of [NOT] EXISTS / [NOT] IN subqueries into semi / anti joins (frontend/sql/sql_unnest.h).
#include "frontend/sql/sql_unnest.h"

#include <algorithm>
#include <map>
#include <set>

#include "frontend/sql/sql_binder.h"
#include "frontend/sql/sql_expr.h"
#include "frontend/sql/sql_join_tree.h"
#include "frontend/sql/sql_nulls.h"
#include "storage/error.h"

namespace hqc::sql {

namespace {

using AliasMap = std::map<std::string, std::string>;

// Deep copy of an expression with qualified references to renamed aliases rewritten. Nested
// subqueries are shared, not copied: they are planned from their own text later.
SqlExprPtr renamed(const SqlExprPtr& e, const AliasMap& aliases) {
  if (!e) return e;
  auto copy = std::make_shared<SqlExpr>(*e);
  if (copy->kind == SqlExprKind::Column && copy->qualifiers.size() == 2) {
    if (auto it = aliases.find(copy->qualifiers[0]); it != aliases.end()) copy->qualifiers[0] = it->second;
  }
  for (SqlExprPtr& a : copy->args) a = renamed(a, aliases);
  return copy;
}

std::shared_ptr<TableRef> renamed_ref(const std::shared_ptr<TableRef>& ref, const std::set<std::string>& taken,
                                      const std::string& suffix, AliasMap& aliases, const SqlSource& src) {
  auto copy = std::make_shared<TableRef>(*ref);
  switch (ref->kind) {
    case TableRefKind::Table: {
      std::string alias = ref->alias.empty() ? ref->name : ref->alias;
      if (taken.count(alias)) {
        copy->alias = alias + suffix;
        aliases[alias] = copy->alias;
      }
      return copy;
    }
    case TableRefKind::Join:
      copy->left = renamed_ref(ref->left, taken, suffix, aliases, src);
      copy->right = renamed_ref(ref->right, taken, suffix, aliases, src);
      return copy;
    case TableRefKind::Subquery:
      // A derived table is planned from its own text: only its alias can clash with the outer query.
      if (taken.count(ref->alias)) {
        copy->alias = ref->alias + suffix;
        aliases[ref->alias] = copy->alias;
      }
      return copy;
  }
  return copy;
}

// The tables of `stmt`'s FROM whose alias is in `taken` renamed with `suffix` (recorded in `aliases`),
// and the qualified references of its select items, GROUP BY and HAVING with them.
void rename_tables(SelectStmt& stmt, const std::set<std::string>& taken, const std::string& suffix, AliasMap& aliases,
                   const SqlSource& src) {
  for (auto& ref : stmt.from) ref = renamed_ref(ref, taken, suffix, aliases, src);
  for (SelectItem& i : stmt.items) i.expr = renamed(i.expr, aliases);
  for (SqlExprPtr& g : stmt.group_by) g = renamed(g, aliases);
  stmt.having = renamed(stmt.having, aliases);
}

// A planned subquery's final projection (its validity columns: FromScope::add_derived), if it ends in one.
const std::vector<plan::NamedExpr>* projection(const plan::LogicalOp& root) {
  return root.kind == plan::OpKind::Project ? &root.exprs : nullptr;
}

void add_tables(const TableRef& ref, FromScope& scope, const std::vector<CommonTable>& ctes, const SqlSource& src) {
  if (ref.kind == TableRefKind::Table) {
    if (const CommonTable* c = find_common_table(ref, ctes, src)) {
      auto q = std::make_shared<SelectStmt>(*c->query);
      q->with = visible_ctes(*q, inside_common_table(*c, ctes));
      plan::LogicalPlan p = bind_select(*q, src, scope.catalog(), scope.stats(), c->name, NullableOutput::Columns);
      scope.add_derived(ref.alias.empty() ? ref.name : ref.alias, ref.location, p.root->schema, c->column_names, 0, projection(*p.root));
      return;
    }
    scope.add_table(ref);
  } else if (ref.kind == TableRefKind::Join) {
    add_tables(*ref.left, scope, ctes, src);
    add_tables(*ref.right, scope, ctes, src);
  } else {
    auto q = std::make_shared<SelectStmt>(*ref.subquery);
    q->with = visible_ctes(*q, ctes);
    plan::LogicalPlan p = bind_select(*q, src, scope.catalog(), scope.stats(), ref.alias, NullableOutput::Columns);
    scope.add_derived(ref.alias, ref.location, p.root->schema, ref.column_names, 0, projection(*p.root));
  }
}

void split_and(const SqlExprPtr& e, std::vector<SqlExprPtr>& out) {
  if (e->kind == SqlExprKind::And) {
    for (const SqlExprPtr& a : e->args) split_and(a, out);
  } else {
    out.push_back(e);
  }
}

// Which side of the query the columns of `e` belong to (nested subqueries are not entered).
struct Sides {
  bool inner = false;
  bool outer = false;
};

void sides_of(const SqlExpr& e, const FromScope& inner, const FromScope& outer, Sides& s) {
  if (e.kind == SqlExprKind::Column) {
    if (!inner.try_resolve(e) && outer.try_resolve(e)) s.outer = true;
    else s.inner = true;
    return;
  }
  for (const SqlExprPtr& a : e.args) sides_of(*a, inner, outer, s);
}

bool find_subquery_node(const SqlExpr& e) {
  if (e.subquery) return true;
  for (const SqlExprPtr& a : e.args)
    if (find_subquery_node(*a)) return true;
  return false;
}

bool contains_count(const SqlExpr& e) {
  if (e.kind == SqlExprKind::Function && e.text == "count") return true;
  return std::any_of(e.args.begin(), e.args.end(), [](const SqlExprPtr& a) { return contains_count(*a); });
}

bool contains_aggregate(const SqlExpr& e) {
  if (is_aggregate_call(e)) return true;
  for (const SqlExprPtr& a : e.args) {
    if (contains_aggregate(*a)) return true;
  }
  return false;
}

struct KeyPair {
  SqlExprPtr outer;  // bound against the outer input
  SqlExprPtr inner;  // becomes a select item of the subquery
};

// A subquery with its correlated equalities taken out: `stmt` is the subquery with renamed
// aliases, the visible WITH entries and its WHERE reduced to the local conjuncts; `keys` the
// correlated equalities.
struct Decorrelated {
  std::shared_ptr<SelectStmt> stmt;
  std::vector<KeyPair> keys;
  std::string tag;
  // Correlated conjuncts that are not key equalities (`l2.l_suppkey <> l1.l_suppkey`): the residual
  // of a semi / anti join. `residual_columns` are the subquery's columns they read (distinct by
  // text); `residual_column_of` maps each such Column node of `residuals` to its index there.
  std::vector<SqlExprPtr> residuals;
  std::vector<SqlExprPtr> residual_columns;
  std::map<const SqlExpr*, size_t> residual_column_of;
};

// Collects the subquery-side columns of a residual conjunct.
void residual_columns(const SqlExprPtr& e, const FromScope& inner, Decorrelated& d) {
  if (e->kind == SqlExprKind::Column) {
    if (!inner.try_resolve(*e)) return;
    std::string text = e->to_sql();
    size_t index = d.residual_columns.size();
    for (size_t i = 0; i < d.residual_columns.size(); ++i)
      if (d.residual_columns[i]->to_sql() == text) index = i;
    if (index == d.residual_columns.size()) d.residual_columns.push_back(e);
    d.residual_column_of[e.get()] = index;
    return;
  }
  for (const SqlExprPtr& a : e->args) residual_columns(a, inner, d);
}

Decorrelated decorrelate(const SelectStmt& sub, int location, const FromScope& outer_scope, const std::vector<CommonTable>& ctes,
                         const SqlSource& src) {
  Decorrelated d;
  d.tag = "sq" + std::to_string(location);
  if (sub.limits()) src.unsupported(sub.limit_location, "LIMIT / OFFSET in a subquery in WHERE is not supported");

  // Rename subquery tables that share an alias with the outer query.
  std::set<std::string> taken;
  for (const Relation& r : outer_scope.relations()) taken.insert(r.alias);
  AliasMap aliases;
  d.stmt = std::make_shared<SelectStmt>(sub);
  SelectStmt& stmt = *d.stmt;
  stmt.with = visible_ctes(sub, ctes);
  rename_tables(stmt, taken, "_" + d.tag, aliases, src);
  stmt.order_by.clear();  // order does not matter to a join

  FromScope inner(outer_scope.catalog(), outer_scope.stats(), src);
  for (const auto& ref : stmt.from) add_tables(*ref, inner, stmt.with, src);

  // Correlated equalities leave the subquery as key pairs; the rest stays its WHERE.
  std::vector<SqlExprPtr> local;
  if (sub.where) {
    std::vector<SqlExprPtr> conjuncts;
    split_and(renamed(sub.where, aliases), conjuncts);
    for (const SqlExprPtr& x : conjuncts) {
      Sides s;
      sides_of(*x, inner, outer_scope, s);
      if (!s.outer) {
        local.push_back(x);
        continue;
      }
      if (x->kind == SqlExprKind::Binary && x->text == "=") {
        Sides l, r;
        sides_of(*x->args[0], inner, outer_scope, l);
        sides_of(*x->args[1], inner, outer_scope, r);
        if (l.inner && !l.outer && r.outer && !r.inner) {
          d.keys.push_back({x->args[1], x->args[0]});
          continue;
        }
        if (r.inner && !r.outer && l.outer && !l.inner) {
          d.keys.push_back({x->args[0], x->args[1]});
          continue;
        }
      }
      // Any other correlated condition is checked per match of the semi / anti join.
      if (find_subquery_node(*x)) src.unsupported(x->location, "a subquery inside the correlated condition " + x->to_sql() + " is not supported");
      d.residuals.push_back(x);
      residual_columns(x, inner, d);
    }
  }
  stmt.where = nullptr;
  if (local.size() == 1) {
    stmt.where = local[0];
  } else if (local.size() > 1) {
    auto conj = std::make_shared<SqlExpr>();
    conj->kind = SqlExprKind::And;
    conj->location = local[0]->location;
    conj->args = local;
    stmt.where = conj;
  }
  return d;
}

}  // namespace

bool is_unnestable_subquery(const SqlExpr& c) {
  const SqlExpr& e = c.kind == SqlExprKind::Not ? *c.args[0] : c;
  return e.kind == SqlExprKind::Exists || e.kind == SqlExprKind::InSubquery;
}

namespace {

// Outer relations of the columns of `e` that the subquery's own tables do not resolve.
void outer_columns(const SqlExpr& e, const FromScope& inner, const FromScope& outer, std::set<size_t>& out) {
  if (e.kind == SqlExprKind::Column) {
    if (inner.try_resolve(e)) return;
    if (auto r = outer.try_resolve(e)) out.insert(r->relation);
    return;
  }
  for (const SqlExprPtr& a : e.args) outer_columns(*a, inner, outer, out);
}

// The build side of a semi / anti join without its rows whose keys are NULL (bound with
// NullableOutput::Columns, `build` ends in a projection of the `keys` key items and the residual
// columns, then the validity columns of those that may be NULL). A NULL key equals nothing, so such a row matches no outer
// row under IN, EXISTS and NOT EXISTS. Refused (Unsupported, at the item): NOT IN's own column (one
// NULL there makes `x NOT IN (...)` NULL for every x it does not hold) and a residual column (the
// residual would have to see its NULL).
std::unique_ptr<plan::LogicalOp> without_null_keys(std::unique_ptr<plan::LogicalOp> build, const SelectStmt& stmt, size_t keys,
                                                   bool not_in, const SqlSource& src) {
  if (build->kind != plan::OpKind::Project) return build;
  std::vector<plan::ExprPtr> valid;
  size_t width = 0;  // the items; their validity columns follow them
  for (size_t i = 0; i < build->exprs.size(); ++i) {
    plan::NamedExpr& x = build->exprs[i];
    if (x.validity_for.empty()) {
      ++width;
      continue;
    }
    const auto item = static_cast<size_t>(std::find_if(build->exprs.begin(), build->exprs.end(), [&](const plan::NamedExpr& c) {
                                            return c.name == x.validity_for;
                                          }) - build->exprs.begin());
    if (item >= keys || (not_in && item == 0)) {
      const bool written = item < stmt.items.size() && stmt.items[item].expr;
      src.unsupported(written ? stmt.items[item].location : stmt.location,
                      "column \"" + (written ? stmt.items[item].expr->to_sql() : x.validity_for) +
                          "\" may be NULL: a column that may be NULL in a WHERE subquery is "
                          "not supported yet" + std::string(item >= keys ? " (in a correlated condition)" : " (under NOT IN)"));
    }
    x.validity_for.clear();  // a plain column of this projection now
    valid.push_back(plan::make_compare(plan::CompareOp::Ne, plan::make_column(build->schema[i]),
                                       plan::make_int_literal(0, build->schema[i].type)));
  }
  if (valid.empty()) return build;
  // Its items take other names: an aggregate is named after the item that selects it, which, read
  // where it is not NULL (zero_where_null), would otherwise shadow it. The join reads the build
  // side's columns by position; the validity columns after them are read by the filter alone.
  for (size_t i = 0; i < width; ++i) {
    build->schema[i].name += "__in";
    build->exprs[i].name = build->schema[i].name;
  }
  auto f = std::make_unique<plan::LogicalOp>();
  f->kind = plan::OpKind::Filter;
  f->json_path = build->json_path;
  f->schema = build->schema;
  f->predicate = valid.size() == 1 ? valid[0] : plan::make_logical(plan::ExprKind::And, valid);
  f->children.push_back(std::move(build));
  return f;
}

}  // namespace

std::set<size_t> outer_relations(const SqlExpr& c, const FromScope& outer_scope, const std::vector<CommonTable>& ctes) {
  const SqlExpr& e = c.kind == SqlExprKind::Not ? *c.args[0] : c;
  std::set<size_t> out;
  if (e.kind == SqlExprKind::InSubquery) out = outer_scope.relations_of(*e.args[0]);
  FromScope inner(outer_scope.catalog(), outer_scope.stats(), outer_scope.source());
  std::vector<CommonTable> visible = visible_ctes(*e.subquery, ctes);
  for (const auto& ref : e.subquery->from) add_tables(*ref, inner, visible, outer_scope.source());
  if (e.subquery->where) outer_columns(*e.subquery->where, inner, outer_scope, out);
  return out;
}

std::unique_ptr<plan::LogicalOp> unnest_subquery(std::unique_ptr<plan::LogicalOp> outer, const SqlExpr& c,
                                                 const FromScope& outer_scope, const std::vector<CommonTable>& ctes,
                                                 const SqlSource& src) {
  bool negated = c.kind == SqlExprKind::Not;
  const SqlExpr& e = negated ? *c.args[0] : c;
  negated = negated != e.negated;
  const SelectStmt& sub = *e.subquery;
  Decorrelated d = decorrelate(sub, e.location, outer_scope, ctes, src);
  const std::string& tag = d.tag;
  const bool correlated = !d.keys.empty();
  std::vector<KeyPair> keys;
  if (e.kind == SqlExprKind::InSubquery) {
    if (d.stmt->items.size() != 1 || !d.stmt->items[0].expr) {
      src.fail(sub.location, "a subquery used with IN must select exactly one column");
    }
    keys.push_back({e.args[0], d.stmt->items[0].expr});
  }
  for (const KeyPair& k : d.keys) keys.push_back(k);
  auto stmt = d.stmt;
  if (keys.empty()) src.unsupported(e.location, "an EXISTS subquery that does not reference the outer query is not supported yet");
  bool aggregating = !stmt->group_by.empty() || (stmt->having != nullptr);
  for (const SelectItem& i : sub.items) aggregating = aggregating || (i.expr && contains_aggregate(*i.expr));
  if (correlated && aggregating) {
    src.unsupported(e.location, "a correlated subquery with aggregation under EXISTS / IN is not supported yet");
  }

  if (!d.residuals.empty() && aggregating) {
    src.unsupported(d.residuals[0]->location, "a correlated condition other than an equality in an aggregating subquery is not supported");
  }

  // The subquery selects exactly its build keys, then the columns the residual reads.
  stmt->items.clear();
  for (size_t i = 0; i < keys.size(); ++i) {
    stmt->items.push_back(SelectItem{keys[i].inner, tag + "_" + std::to_string(i + 1), keys[i].inner->location});
  }
  for (size_t i = 0; i < d.residual_columns.size(); ++i) {
    const SqlExprPtr& c = d.residual_columns[i];
    stmt->items.push_back(SelectItem{c, tag + "_r" + std::to_string(i + 1), c->location});
  }
  plan::LogicalPlan planned = bind_select(*stmt, src, outer_scope.catalog(), outer_scope.stats(), tag, NullableOutput::Columns);
  std::unique_ptr<plan::LogicalOp> build =
      without_null_keys(std::move(planned.root), *stmt, keys.size(), negated && e.kind == SqlExprKind::InSubquery, src);

  auto j = std::make_unique<plan::LogicalOp>();
  j->kind = plan::OpKind::Join;
  j->join_type = negated ? plan::JoinType::Anti : plan::JoinType::Semi;
  j->json_path = src.position(e.location);
  AttributeLookup lookup = [&outer_scope](const SqlExpr& x) { return column_attribute(x, outer_scope); };
  for (size_t i = 0; i < keys.size(); ++i) {
    plan::ExprPtr pk = bind_sql_expression(*keys[i].outer, outer->schema, lookup, src);
    plan::ExprPtr bk = plan::make_column(build->schema.at(i));
    if (!join_keys_comparable(pk->type, bk->type))
      src.unsupported(keys[i].outer->location, join_key_refusal(*keys[i].inner, *bk, *keys[i].outer, *pk));
    j->probe_keys.push_back(pk);
    j->build_keys.push_back(bk);
  }
  if (!d.residuals.empty()) {
    // The residual sees the outer columns and the subquery's residual columns (build attributes).
    std::vector<plan::Attribute> both = outer->schema;
    for (const plan::Attribute& a : build->schema) both.push_back(a);
    AttributeLookup residual_lookup = [&](const SqlExpr& x) -> std::optional<std::string> {
      auto it = d.residual_column_of.find(&x);
      if (it == d.residual_column_of.end()) return column_attribute(x, outer_scope);
      const plan::Attribute& a = build->schema.at(keys.size() + it->second);
      return a.source.empty() ? a.name : a.source + "." + a.name;
    };
    std::vector<plan::ExprPtr> parts;
    for (const SqlExprPtr& r : d.residuals) parts.push_back(bind_sql_predicate(*r, both, residual_lookup, src));
    j->residual = parts.size() == 1 ? parts[0] : plan::make_logical(plan::ExprKind::And, std::move(parts));
  }
  j->schema = outer->schema;  // semi / anti joins output the probe side only
  j->children.push_back(std::move(outer));
  j->children.push_back(std::move(build));
  return j;
}

namespace {

// Whether every column of `e` is one of `scope`'s tables' and `e` holds no subquery.
bool resolved_within(const SqlExpr& e, const FromScope& scope) {
  if (e.subquery) return false;
  if (e.kind == SqlExprKind::Column && !scope.try_resolve(e)) return false;
  return std::all_of(e.args.begin(), e.args.end(), [&](const SqlExprPtr& a) { return resolved_within(*a, scope); });
}

// A conjunct `x [NOT] IN (SELECT ...)` whose x reads `rel` alone and whose subquery is flat and
// uncorrelated (base tables, no WITH / set operation / HAVING / LIMIT, no nested subquery, every
// column its own): its truth is a property of rel's row, as a plain conjunct's. Returns a copy with
// x's references to rel's alias renamed by `aliases` and every table of the subquery under an alias
// of its own (`suffix`), or nullptr for any other conjunct.
SqlExprPtr copied_in(const SqlExprPtr& c, size_t rel, const AliasMap& aliases, const std::string& suffix,
                     const FromScope& outer_scope, const std::vector<CommonTable>& ctes) {
  const bool not_in = c->kind == SqlExprKind::Not;
  const SqlExpr& e = not_in ? *c->args[0] : *c;
  if (e.kind != SqlExprKind::InSubquery || e.args.size() != 1 || !e.subquery) return nullptr;
  if (find_subquery_node(*e.args[0]) || outer_scope.relations_of(*e.args[0]) != std::set<size_t>{rel}) return nullptr;
  const SelectStmt& s = *e.subquery;
  if (s.set_op != SetOperation::None || !s.with.empty() || s.having || s.limits() || s.items.size() != 1 || !s.items[0].expr) return nullptr;
  FromScope inner(outer_scope.catalog(), outer_scope.stats(), outer_scope.source());
  std::set<std::string> taken;
  for (const auto& ref : s.from) {
    if (ref->kind != TableRefKind::Table) return nullptr;
    if (std::any_of(ctes.begin(), ctes.end(), [&](const CommonTable& t) { return t.name == ref->name; })) return nullptr;
    inner.add_table(*ref);
    taken.insert(ref->alias.empty() ? ref->name : ref->alias);
  }
  if (!resolved_within(*s.items[0].expr, inner) || (s.where && !resolved_within(*s.where, inner))) return nullptr;
  for (const SqlExprPtr& g : s.group_by)
    if (!resolved_within(*g, inner)) return nullptr;
  AliasMap own;
  auto sub = std::make_shared<SelectStmt>(s);
  rename_tables(*sub, taken, suffix, own, outer_scope.source());
  sub->where = renamed(sub->where, own);
  auto in = std::make_shared<SqlExpr>(e);
  in->args = {renamed(e.args[0], aliases)};
  in->subquery = sub;
  if (!not_in) return in;
  auto negated = std::make_shared<SqlExpr>(*c);
  negated->args = {in};
  return negated;
}

// The filter plan_scalar_subquery adds for correlation key `key` (see sql_unnest.h), or nullptr.
SqlExprPtr sideways_filter(const KeyPair& key, const SqlExpr* outer_where, const FromScope& outer_scope,
                           const std::vector<CommonTable>& ctes, int location) {
  if (outer_where == nullptr || key.outer->kind != SqlExprKind::Column) return nullptr;
  const std::optional<ResolvedColumn> column = outer_scope.try_resolve(*key.outer);
  if (!column) return nullptr;
  const Relation& rel = outer_scope.relation(column->relation);
  if (rel.derived() || rel.null_supplying || rel.table == nullptr) return nullptr;
  std::vector<SqlExprPtr> conjuncts;
  split_and(std::make_shared<SqlExpr>(*outer_where), conjuncts);
  // The table under an alias of its own: the conjuncts' qualified references follow it.
  const std::string alias = rel.alias + "_sw" + std::to_string(location);
  const AliasMap aliases{{rel.alias, alias}};
  SqlExprPtr own;  // the conjuncts copied, ANDed
  for (const SqlExprPtr& c : conjuncts) {
    SqlExprPtr copy;
    if (!find_subquery_node(*c)) {
      if (outer_scope.relations_of(*c) == std::set<size_t>{column->relation}) copy = renamed(c, aliases);
    } else {
      copy = copied_in(c, column->relation, aliases, "_sw" + std::to_string(location), outer_scope, ctes);
    }
    if (copy) own = own ? and_of(own, copy) : copy;
  }
  if (!own) return nullptr;
  auto sub = std::make_shared<SelectStmt>();
  sub->location = location;
  auto from = std::make_shared<TableRef>();
  from->kind = TableRefKind::Table;
  from->name = rel.table->name;
  from->alias = alias;
  from->location = location;
  sub->from.push_back(from);
  auto selected = std::make_shared<SqlExpr>();
  selected->kind = SqlExprKind::Column;
  selected->qualifiers = {alias, column->column};
  selected->location = location;
  sub->items.push_back(SelectItem{selected, "", location});
  sub->where = own;
  auto in = std::make_shared<SqlExpr>();
  in->kind = SqlExprKind::InSubquery;
  in->location = location;
  in->args = {key.inner};
  in->subquery = sub;
  return in;
}

}  // namespace

ScalarSubqueryPlan plan_scalar_subquery(const SqlExpr& s, const FromScope& outer_scope, const std::vector<CommonTable>& ctes,
                                        const SqlSource& src, const SqlExpr* outer_where) {
  const SelectStmt& sub = *s.subquery;
  Decorrelated d = decorrelate(sub, s.location, outer_scope, ctes, src);
  SelectStmt& stmt = *d.stmt;
  // One filter, for the first key that has one (TPC-H Q20's pair (l_partkey, l_suppkey): the part
  // key, which its outer query filters; the supplier key would only add a semi join).
  for (const KeyPair& k : d.keys) {
    SqlExprPtr filter = sideways_filter(k, outer_where, outer_scope, ctes, s.location);
    if (!filter) continue;
    stmt.where = stmt.where ? and_of(stmt.where, filter) : filter;
    break;
  }
  if (!d.residuals.empty()) {
    src.unsupported(d.residuals[0]->location, "correlated condition " + d.residuals[0]->to_sql() +
                                                  " in a scalar subquery is not an equality between a subquery column and an outer column: not supported yet");
  }
  if (stmt.items.size() != 1 || !stmt.items[0].expr) src.fail(s.location, "a scalar subquery must select exactly one value");
  const SqlExprPtr value = stmt.items[0].expr;
  // One row (per correlation key) is guaranteed only by an aggregate without GROUP BY.
  if (!stmt.group_by.empty() || stmt.having || !contains_aggregate(*value)) {
    src.unsupported(s.location, "a scalar subquery that is not a single aggregate (" + value->to_sql() +
                                    ") is not supported: its row count is not known to be one");
  }
  // A key without rows has no group, and so no value: NULL, except for a COUNT, which is 0 there
  // (count_zero: the caller reads COALESCE(value, 0) over its left outer join).
  ScalarSubqueryPlan out;
  if (!d.keys.empty() && contains_count(*value)) {
    if (!(value->kind == SqlExprKind::Function && value->text == "count"))
      src.unsupported(s.location, "a correlated subquery whose value computes with a COUNT (" + value->to_sql() +
                                      ") is not supported yet (a key without rows would need it evaluated over no rows); a COUNT alone is");
    out.count_zero = true;
  }
  out.alias = d.tag;
  out.column_names.push_back("value");
  stmt.items = {SelectItem{value, "value", stmt.items[0].location}};
  for (size_t i = 0; i < d.keys.size(); ++i) {
    std::string name = "k" + std::to_string(i + 1);
    stmt.items.push_back(SelectItem{d.keys[i].inner, name, d.keys[i].inner->location});
    stmt.group_by.push_back(d.keys[i].inner);
    out.column_names.push_back(name);
    out.outer_keys.push_back(d.keys[i].outer);
  }
  out.plan = std::move(bind_select(stmt, src, outer_scope.catalog(), outer_scope.stats(), d.tag,
                                   d.keys.empty() ? NullableOutput::Columns : NullableOutput::Refused).root);
  return out;
}

}  // namespace hqc::sql

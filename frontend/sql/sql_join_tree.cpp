// Join-tree construction for one SELECT (frontend/sql/sql_join_tree.h).
#include "frontend/sql/sql_join_tree.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "frontend/cardinality.h"
#include "frontend/join_order.h"
#include "frontend/sql/sql_binder.h"
#include "frontend/sql/sql_expr.h"
#include "frontend/sql/sql_nulls.h"
#include "frontend/sql/sql_unnest.h"
#include "storage/error.h"

namespace hqc::sql {

namespace {

struct EquiJoin {
  size_t left_rel, right_rel;
  const SqlExpr* left;
  const SqlExpr* right;
  int location;
  size_t order;  // position among the conjuncts (text order)
  // `f(a) = g(b)` with an expression on either side: a key pair when the bound types can be
  // matched in a hash table, else a filter right above the join (the conjunct it was).
  const SqlExpr* conjunct = nullptr;
  // The NULL-supplying relation whose LEFT JOIN ON (or select-list subquery) the edge belongs to;
  // SIZE_MAX for an inner join's.
  size_t owner = SIZE_MAX;
};

struct Residual {
  const SqlExpr* expr;
  std::set<size_t> relations;
  bool placed = false;
  bool subquery = false;  // [NOT] EXISTS / IN (subquery): a semi / anti join, not a filter
};

const SqlExpr* find_subquery(const SqlExpr& e) {
  if (e.kind == SqlExprKind::Exists || e.kind == SqlExprKind::InSubquery || e.kind == SqlExprKind::ScalarSubquery) return &e;
  for (const SqlExprPtr& a : e.args) {
    if (const SqlExpr* s = find_subquery(*a)) return s;
  }
  return nullptr;
}

// The scalar subqueries of WHERE conjunct `c` whose NULL value makes `c` not TRUE (NULL or FALSE),
// whatever the rest is: `x < (select ...)`, `(select ...) * 2 = y AND z`, `NOT (select ...) > 1`.
// Only for these may an outer row whose keys the subquery has no group for be dropped by an inner
// join; any other (`(select ...) IS NULL`, `coalesce((select ...), 0) = 0`, `(select ...) > 1 OR
// x`) joins as the NULL-supplying side of a left outer join, so that row is still tested.
// Conservative: a construct not listed below does not count as rejecting NULL.
void collect_null_rejected(const SqlExpr& e, bool strict_enough, bool false_enough, std::set<const SqlExpr*>& out) {
  // strict_enough: `e` being NULL is enough to make the conjunct not TRUE; false_enough: so is
  // `e` being FALSE.
  if (e.kind == SqlExprKind::ScalarSubquery) {
    if (strict_enough) out.insert(&e);
    return;
  }
  auto propagate = [&](size_t from, size_t to) {  // NULL in args [from, to) makes `e` NULL
    for (size_t i = 0; i < e.args.size(); ++i) collect_null_rejected(*e.args[i], strict_enough && i >= from && i < to, false, out);
  };
  static const std::set<std::string> strict_functions = {"abs",   "upper", "lower",   "length",  "trim",
                                                         "ltrim", "rtrim", "round", "replace", "position"};
  switch (e.kind) {
    case SqlExprKind::And:
      for (const SqlExprPtr& a : e.args) collect_null_rejected(*a, false_enough, false_enough, out);
      return;
    case SqlExprKind::Binary:
      propagate(0, e.text == "is distinct from" || e.text == "is not distinct from" ? 0 : e.args.size());
      return;
    case SqlExprKind::Not:
    case SqlExprKind::Negate:
    case SqlExprKind::Like:
    case SqlExprKind::Cast:
    case SqlExprKind::Extract:
    case SqlExprKind::Substring:
      propagate(0, e.args.size());
      return;
    case SqlExprKind::Between:
    case SqlExprKind::InList:
      propagate(0, 1);  // (a NULL bound or list item need not make the test NULL: `5 IN (NULL, 5)`)
      return;
    case SqlExprKind::Function:
      propagate(0, strict_functions.count(e.text) && !e.over ? e.args.size() : 0);
      return;
    default:
      propagate(0, 0);
      return;
  }
}

void split_conjuncts(const SqlExprPtr& e, std::vector<const SqlExpr*>& out) {
  if (e->kind == SqlExprKind::And) {
    for (const SqlExprPtr& a : e->args) split_conjuncts(a, out);
    return;
  }
  out.push_back(e.get());
}

// The names of the columns `e` (or statement `s`, its FROM's ON conditions and subqueries included)
// references, by their last qualifier: what a FULL OUTER JOIN's derived table must carry.
void collect_column_names(const SelectStmt& s, std::set<std::string>& out);

void collect_column_names(const SqlExpr& e, std::set<std::string>& out) {
  if (e.kind == SqlExprKind::Column) out.insert(e.qualifiers.back());
  for (const SqlExprPtr& a : e.args) collect_column_names(*a, out);
  if (e.filter) collect_column_names(*e.filter, out);
  if (e.subquery) collect_column_names(*e.subquery, out);
  if (e.over) {
    for (const SqlExprPtr& p : e.over->partition_by) collect_column_names(*p, out);
    for (const OrderItem& o : e.over->order_by) collect_column_names(*o.expr, out);
  }
}

void collect_column_names(const TableRef& r, std::set<std::string>& out) {
  if (r.on) collect_column_names(*r.on, out);
  if (r.subquery) collect_column_names(*r.subquery, out);
  for (const auto& side : {r.left, r.right})
    if (side) collect_column_names(*side, out);
}

void collect_column_names(const SelectStmt& s, std::set<std::string>& out) {
  for (const auto& side : {s.left, s.right})
    if (side) collect_column_names(*side, out);
  for (const CommonTable& c : s.with)
    if (c.query) collect_column_names(*c.query, out);
  for (const SelectItem& i : s.items)
    if (i.expr) collect_column_names(*i.expr, out);
  for (const auto& f : s.from) collect_column_names(*f, out);
  for (const SqlExprPtr& e : {s.where, s.having})
    if (e) collect_column_names(*e, out);
  for (const SqlExprPtr& g : s.group_by) collect_column_names(*g, out);
  for (const OrderItem& o : s.order_by) collect_column_names(*o.expr, out);
}

class JoinTreeBuilder {
 public:
  JoinTreeBuilder(FromScope& scope, const SqlSource& source) : scope_(scope), src_(source) {}

  void add_from(const TableRef& ref) {
    switch (ref.kind) {
      case TableRefKind::Table:
        if (const CommonTable* cte = find_common_table(ref, ctes_, src_)) {
          add_derived(*cte->query, ref.alias.empty() ? ref.name : ref.alias, ref.location,
                      ref.column_names.empty() ? cte->column_names : ref.column_names, inside_common_table(*cte, ctes_));
          return;
        }
        if (!ref.column_names.empty())
          src_.unsupported(ref.location, "column aliases on a table (" + ref.name + " as " + ref.alias +
                                             " (...)) are not supported; they are on a subquery, a WITH query or a view");
        scope_.add_table(ref);
        return;
      case TableRefKind::Subquery:
        if (ref.alias.empty()) src_.fail(ref.location, "a subquery in FROM must have an alias: (select ...) as name");
        add_derived(*ref.subquery, ref.alias, ref.location, ref.column_names, ctes_);
        return;
      case TableRefKind::Join:
        if (ref.join_type == SqlJoinType::Left) {
          // The right side supplies NULLs: one table (or derived table) joined last, as the build
          // side of a left outer join, on the equalities of its ON condition.
          add_from(*ref.left);
          if (ref.right->kind == TableRefKind::Join)
            src_.unsupported(ref.right->location, "a join as the right side of a LEFT OUTER JOIN is not supported");
          add_from(*ref.right);
          size_t rel = scope_.relations().size() - 1;
          if (!ref.on) src_.unsupported(ref.location, "LEFT OUTER JOIN without ON is not supported");
          outer_on_[rel] = ref.on;
          return;
        }
        if (ref.join_type == SqlJoinType::Right) {
          // `a RIGHT JOIN b ON ...` is `b LEFT JOIN a ON ...`: a (one table or derived table)
          // supplies the NULLs. (SELECT * would list b's columns first: refused in the binder.)
          if (ref.left->kind == TableRefKind::Join)
            src_.unsupported(ref.left->location, "a join as the left side of a RIGHT OUTER JOIN is not supported");
          if (!ref.on) src_.unsupported(ref.location, "RIGHT OUTER JOIN without ON is not supported");
          add_from(*ref.right);
          add_from(*ref.left);
          outer_on_[scope_.relations().size() - 1] = ref.on;
          right_join_ = true;
          return;
        }
        if (ref.join_type == SqlJoinType::Full) {
          add_full_join(ref);
          return;
        }
        add_from(*ref.left);
        add_from(*ref.right);
        if (ref.on) on_conditions_.push_back(ref.on);
        return;
    }
  }

  // `x FULL [OUTER] JOIN y ON <equalities>` (x, y: a table, a subquery or a WITH query each) is one
  // derived table, the UNION ALL of
  //     SELECT x.*, y.* FROM x LEFT JOIN y ON ...                              (every x row)
  //     SELECT x.*, y.* FROM y LEFT JOIN x ON ... WHERE NOT (x.k IS NOT NULL)  (y rows x has no match for)
  // where k is a column of x that is never NULL of its own: the second operand keeps exactly the y
  // rows that no x row matches. Both operands are ordinary LEFT JOINs (their ON rules apply), and
  // the set operation passes their NULLs on; the scope names its columns x.c and y.d as written
  // (Relation::members).
  void add_full_join(const TableRef& ref) {
    for (const TableRef* side : {ref.left.get(), ref.right.get()})
      if (side->kind == TableRefKind::Join)
        src_.unsupported(side->location, "a join as a side of a FULL OUTER JOIN is not supported yet; write it as a subquery");
    if (!ref.on) src_.unsupported(ref.location, "FULL OUTER JOIN without ON is not supported");
    // Each side's columns, as `*` would list them (bound on their own, in a scope of their own).
    FromScope x_scope(scope_.catalog(), scope_.stats(), src_), y_scope(scope_.catalog(), scope_.stats(), src_);
    auto columns_of = [&](const TableRef& side, std::string& alias, std::string& never_null) {
      FromScope& alone = &side == ref.left.get() ? x_scope : y_scope;
      JoinTreeBuilder b(alone, src_);
      b.ctes_ = ctes_;
      b.add_from(side);
      const Relation& r = alone.relation(0);
      alias = r.alias;
      std::vector<std::string> out;
      for (const auto& c : alone.star_columns()) {
        out.push_back(c.second);
        if (never_null.empty() && !r.null_flags.count(c.second)) never_null = c.second;
      }
      return out;
    };
    std::string x_alias, y_alias, x_key, unused;
    const std::vector<std::string> x_columns = columns_of(*ref.left, x_alias, x_key);
    const std::vector<std::string> y_columns = columns_of(*ref.right, y_alias, unused);
    if (x_alias == y_alias)
      src_.fail(ref.right->location, "table name \"" + y_alias + "\" is specified more than once in FROM; give one of them an alias");
    if (x_key.empty())
      src_.unsupported(ref.left->location, "a FULL OUTER JOIN side whose every column may be NULL is not supported yet");
    // ON: equalities between the two sides (a condition on one side would keep that side's rows
    // unmatched, which the LEFT JOIN operands cannot say).
    std::vector<const SqlExpr*> on;
    split_conjuncts(ref.on, on);
    for (const SqlExpr* c : on) {
      auto side_of = [&](const SqlExpr& e) {
        int side = -1;  // 0: x, 1: y, 2: neither or both
        std::function<void(const SqlExpr&)> visit = [&](const SqlExpr& n) {
          if (n.kind == SqlExprKind::Column) {
            const int s = x_scope.try_resolve(n) ? 0 : y_scope.try_resolve(n) ? 1 : 2;
            side = side < 0 || side == s ? s : 2;
          }
          for (const SqlExprPtr& a : n.args) visit(*a);
        };
        visit(e);
        return side;
      };
      const bool equality = c->kind == SqlExprKind::Binary && c->text == "=" && c->args[0]->kind == SqlExprKind::Column &&
                            c->args[1]->kind == SqlExprKind::Column;
      const int a = equality ? side_of(*c->args[0]) : 2, b = equality ? side_of(*c->args[1]) : 2;
      if (a < 0 || b < 0 || a == 2 || b == 2 || a == b)
        src_.unsupported(c->location, "condition " + c->to_sql() + " in the ON of a FULL OUTER JOIN: only equalities of a column of "
                                      "each side are supported (filter or compute a side in a subquery)");
    }
    // Only the columns the statement names travel (all of them under SELECT *).
    std::set<std::string> named;
    collect_column_names(*stmt_, named);
    const bool star = std::any_of(stmt_->items.begin(), stmt_->items.end(), [](const SelectItem& i) { return !i.expr; });
    auto carried = [&](const std::vector<std::string>& all, bool keep_first) {
      std::vector<std::string> out;
      for (const std::string& c : all)
        if (star || named.count(c)) out.push_back(c);
      if (out.empty() && keep_first) out.push_back(all.front());  // a derived table has a column
      return out;
    };
    const std::vector<std::string> x_carried = carried(x_columns, true), y_carried = carried(y_columns, false);
    const int at = ref.location;
    auto column = [&](const std::string& alias, const std::string& name) {
      auto c = std::make_shared<SqlExpr>();
      c->kind = SqlExprKind::Column;
      c->qualifiers = {alias, name};
      c->location = at;
      return c;
    };
    std::vector<Relation::Member> members{{x_alias, {}}, {y_alias, {}}};
    auto operand = [&](std::shared_ptr<TableRef> preserved, std::shared_ptr<TableRef> nulls) {
      auto q = std::make_shared<SelectStmt>();
      q->location = at;
      for (size_t m = 0; m < 2; ++m) {
        const std::string& alias = m == 0 ? x_alias : y_alias;
        const std::vector<std::string>& carry = m == 0 ? x_carried : y_carried;
        for (const std::string& c : carry) {
          const std::string name = alias + "__" + c;
          q->items.push_back({column(alias, c), name, at});
          if (members[m].columns.size() < carry.size()) members[m].columns.emplace_back(c, name);
        }
      }
      auto join = std::make_shared<TableRef>();
      join->kind = TableRefKind::Join;
      join->join_type = SqlJoinType::Left;
      join->location = at;
      join->left = std::move(preserved);
      join->right = std::move(nulls);
      join->on = ref.on;
      q->from.push_back(join);
      return q;
    };
    SelectStmt full;
    full.location = at;
    full.set_op = SetOperation::Union;
    full.set_all = true;
    full.left = operand(ref.left, ref.right);
    full.right = operand(ref.right, ref.left);
    auto is_not_null = std::make_shared<SqlExpr>();
    is_not_null->kind = SqlExprKind::IsNull;
    is_not_null->negated = true;
    is_not_null->location = at;
    is_not_null->args = {column(x_alias, x_key)};
    auto unmatched = std::make_shared<SqlExpr>();
    unmatched->kind = SqlExprKind::Not;
    unmatched->location = at;
    unmatched->args = {is_not_null};
    full.right->where = unmatched;
    add_derived(full, "__full" + std::to_string(at), at, {}, ctes_);
    scope_.set_members(scope_.relations().size() - 1, std::move(members));
  }

  std::unique_ptr<plan::LogicalOp> build(const SelectStmt& stmt, SelectValues* select_values) {
    ctes_ = stmt.with;
    stmt_ = &stmt;
    for (const auto& f : stmt.from) add_from(*f);
    if (scope_.relations().empty()) src_.unsupported(stmt.location, "a SELECT without FROM is not supported");
    if (right_join_) {
      for (const SelectItem& item : stmt.items)
        if (!item.expr) src_.unsupported(item.location, "SELECT * with a RIGHT JOIN is not supported yet; list the columns");
    }
    std::vector<const SqlExpr*> conjuncts;
    for (const SqlExprPtr& on : on_conditions_) split_conjuncts(on, conjuncts);
    if (stmt.where) split_conjuncts(stmt.where, conjuncts);
    filters_.resize(scope_.relations().size());
    conjuncts = factor_disjunctions(conjuncts);
    for (const SqlExpr* c : conjuncts) note_match_test(*c);
    for (const auto& entry : outer_on_) {
      if (!matched_only_.count(entry.first) && !unmatched_only_.count(entry.first)) scope_.mark_null_supplying(entry.first);
    }
    for (size_t i = 0; i < conjuncts.size(); ++i) classify(*conjuncts[i], i);
    for (const auto& [rel, on] : outer_on_) classify_outer_on(rel, on, conjuncts.size());
    if (select_values != nullptr) {
      // Scalar subqueries of the select list: derived tables as in WHERE, but a correlated one joins
      // as the NULL-supplying side of a left outer join, since an outer row whose keys the
      // subquery has no group for must still come out, with a NULL value.
      in_select_list_ = true;
      for (const SelectItem& item : stmt.items) {
        if (!item.expr || !contains_scalar_subquery(*item.expr)) continue;
        (*select_values)[item.expr.get()] = replace_scalar_subqueries(*item.expr, conjuncts.size());
      }
      in_select_list_ = false;
    }

    // The inner joins in the order of least estimated cost (frontend/join_order.h), then the
    // NULL-supplying and single-row relations.
    const plan::JoinGraph graph = join_graph();
    reject_cross_products(graph);
    const plan::JoinOrder order = plan::order_joins(graph);
    std::vector<bool> joined(scope_.relations().size(), false);
    const size_t start = order.steps[0].relation;
    joined[start] = true;
    std::unique_ptr<plan::LogicalOp> tree = std::move(bases_[start]);
    tree = place_residuals(std::move(tree), joined);
    double rows = order.steps[0].rows;
    for (size_t step = 1; step < scope_.relations().size(); ++step) {
      size_t next = 0;
      if (step < order.steps.size()) {
        next = order.steps[step].relation;
        rows = order.steps[step].rows;
      } else {
        next = pick_remaining(joined);
        // A left outer join keeps every probe row; a single-row side adds no rows.
        const plan::JoinRelation& r = graph.relations[next];
        rows = std::max(rows, rows * r.rows * plan::join_selectivity(graph, joined, next));
      }
      tree = join(std::move(tree), next, joined, rows);
      joined[next] = true;
      tree = place_residuals(std::move(tree), joined);
    }
    return tree;
  }

 private:
  // A subquery in FROM (or a WITH entry) is planned on its own; a projection on top renames its
  // output to "<alias>.<column>" so the outer query sees it like a scan.
  // `visible`: the WITH entries the query sees besides its own (those of this statement, or for a
  // WITH query being inlined, inside_common_table's).
  void add_derived(const SelectStmt& query, const std::string& alias, int location, const std::vector<std::string>& column_names,
                   const std::vector<CommonTable>& visible) {
    if (!query.order_by.empty() || query.limits()) {
      src_.unsupported(query.order_by.empty() ? query.limit_location : query.order_by.front().location,
                       "ORDER BY / LIMIT / OFFSET inside a subquery in FROM is not supported");
    }
    auto q = std::make_shared<SelectStmt>(query);
    q->with = visible_ctes(query, visible);
    plan::LogicalPlan sub = bind_select(*q, src_, scope_.catalog(), scope_.stats(), alias, NullableOutput::Columns);
    register_derived(std::move(sub.root), alias, location, column_names, false);
  }

  // Adds a planned subquery as relation `alias` (rows: its estimate, frontend/cardinality.h).
  size_t register_derived(std::unique_ptr<plan::LogicalOp> root, const std::string& alias, int location,
                          const std::vector<std::string>& column_names, bool single_row) {
    const auto rows = static_cast<uint64_t>(std::llround(plan::estimate_rows(*root, scope_.stats())));
    const bool project = root->kind == plan::OpKind::Project;
    size_t rel = scope_.add_derived(alias, location, root->schema, column_names, single_row ? 1 : rows, project ? &root->exprs : nullptr);
    filters_.resize(scope_.relations().size());
    if (single_row) single_row_.insert(rel);
    derived_.resize(rel + 1);
    if (project) {
      // The subquery already ends in a projection: it takes the derived table's names itself. Its
      // validity columns are plain columns here, read through the relation's null_flags.
      root->schema = scope_.scan_schema(rel);
      for (size_t i = 0; i < root->exprs.size(); ++i) {
        root->exprs[i].name = root->schema[i].name;
        root->exprs[i].validity_for.clear();
      }
      derived_[rel] = std::move(root);
      return rel;
    }
    auto p = std::make_unique<plan::LogicalOp>();
    p->kind = plan::OpKind::Project;
    p->json_path = src_.position(location);
    p->schema = scope_.scan_schema(rel);
    for (size_t i = 0; i < p->schema.size(); ++i) {
      const plan::Attribute& in = root->schema[i];
      plan::ExprPtr col = plan::make_column(in.source, in.name, in.type);
      col->dict_table = in.dict_table;
      col->dict_column = in.dict_column;
      p->exprs.push_back({p->schema[i].name, col});
    }
    p->children.push_back(std::move(root));
    derived_[rel] = std::move(p);
    return rel;
  }

  // True when `e` holds scalar subqueries and no EXISTS / IN (subquery).
  static bool has_only_scalar_subqueries(const SqlExpr& e) {
    bool scalar = false, other = false;
    std::vector<const SqlExpr*> stack = {&e};
    while (!stack.empty()) {
      const SqlExpr* x = stack.back();
      stack.pop_back();
      scalar = scalar || x->kind == SqlExprKind::ScalarSubquery;
      other = other || x->kind == SqlExprKind::Exists || x->kind == SqlExprKind::InSubquery;
      for (const SqlExprPtr& a : x->args) stack.push_back(a.get());
    }
    return scalar && !other;
  }

  // Copy of `e` where every scalar subquery is a column of a derived table (frontend/sql/sql_unnest.h)
  // joined on its correlation keys: `x < (select avg(y) from t where t.k = o.k)` → `x < sq.value`
  // with an equi-join o.k = sq.k1.
  SqlExprPtr replace_scalar_subqueries(const SqlExpr& e, size_t order) {
    auto column = [&](const std::string& alias, const std::string& name, int location) {
      auto c = std::make_shared<SqlExpr>();
      c->kind = SqlExprKind::Column;
      c->qualifiers = {alias, name};
      c->location = location;
      owned_.push_back(c);
      return c;
    };
    if (e.kind == SqlExprKind::ScalarSubquery) {
      ScalarSubqueryPlan sq = plan_scalar_subquery(e, scope_, ctes_, src_, stmt_ != nullptr ? stmt_->where.get() : nullptr);
      size_t rel = register_derived(std::move(sq.plan), sq.alias, e.location, sq.column_names, sq.outer_keys.empty());
      // An outer row whose keys have no group keeps a NULL value (a COUNT's 0) unless the WHERE
      // conjunct drops it anyway for a NULL value (collect_null_rejected): a left outer join.
      const bool keep_unmatched = in_select_list_ || sq.count_zero || !null_rejected_.count(&e);
      if (keep_unmatched && !sq.outer_keys.empty()) {
        null_supplying_.insert(rel);
        scope_.mark_null_supplying(rel);
      }
      for (size_t i = 0; i < sq.outer_keys.size(); ++i) {
        const SqlExprPtr& outer = sq.outer_keys[i];
        if (outer->kind != SqlExprKind::Column) {
          src_.unsupported(outer->location, "a correlation key must be a column of the outer query, found " + outer->to_sql());
        }
        owned_.push_back(outer);
        size_t outer_rel = scope_.resolve(*outer).relation;
        reject_null_supplying_key(*outer, "a correlated subquery's key");
        edges_.push_back(EquiJoin{outer_rel, rel, outer.get(), column(sq.alias, sq.column_names[i + 1], outer->location).get(),
                                  outer->location, order, nullptr, rel});
      }
      SqlExprPtr value = column(sq.alias, "value", e.location);
      if (!sq.count_zero) return value;
      owned_.push_back(zero_if_null(value));
      return owned_.back();
    }
    auto copy = std::make_shared<SqlExpr>(e);
    for (SqlExprPtr& a : copy->args) a = replace_scalar_subqueries(*a, order);
    return copy;
  }

  // (a AND b AND x) OR (a AND b AND y) → a, b, (x OR y): conjuncts common to every disjunct are
  // pulled out, so a join condition repeated in each branch (TPC-H Q19) becomes a join key and
  // single-table parts can still be pushed down.
  std::vector<const SqlExpr*> factor_disjunctions(const std::vector<const SqlExpr*>& conjuncts) {
    std::vector<const SqlExpr*> out;
    for (const SqlExpr* c : conjuncts) {
      if (c->kind != SqlExprKind::Or) {
        out.push_back(c);
        continue;
      }
      std::vector<std::vector<const SqlExpr*>> branches;
      for (const SqlExprPtr& d : c->args) {
        branches.emplace_back();
        split_conjuncts(d, branches.back());
      }
      std::vector<const SqlExpr*> common;
      for (const SqlExpr* candidate : branches[0]) {
        std::string text = scope_.canonical(*candidate);
        bool everywhere = std::all_of(branches.begin() + 1, branches.end(), [&](const std::vector<const SqlExpr*>& b) {
          return std::any_of(b.begin(), b.end(), [&](const SqlExpr* x) { return scope_.canonical(*x) == text; });
        });
        if (everywhere) common.push_back(candidate);
      }
      if (common.empty()) {
        out.push_back(c);
        continue;
      }
      std::set<std::string> common_text;
      for (const SqlExpr* x : common) common_text.insert(scope_.canonical(*x));
      auto rest = std::make_shared<SqlExpr>(*c);
      rest->args.clear();
      bool always_true = false;
      for (const auto& b : branches) {
        auto branch = std::make_shared<SqlExpr>();
        branch->kind = SqlExprKind::And;
        for (const SqlExpr* x : b) {
          if (!common_text.count(scope_.canonical(*x))) branch->args.push_back(std::make_shared<SqlExpr>(*x));
        }
        if (branch->args.empty()) always_true = true;
        if (!branch->args.empty()) branch->location = branch->args[0]->location;
        rest->args.push_back(branch->args.size() == 1 ? branch->args[0] : branch);
      }
      for (const SqlExpr* x : common) out.push_back(x);
      if (!always_true) {
        owned_.push_back(rest);
        out.push_back(rest.get());
      }
    }
    return out;
  }

  // The ON condition of `rel`'s LEFT OUTER JOIN: equalities with the other relations become the
  // join's keys, conditions on `rel` alone filter it before the join (a row they drop is simply
  // not a match); anything else would need a residual on the join and is rejected.
  void classify_outer_on(size_t rel, const SqlExprPtr& on, size_t order) {
    std::vector<const SqlExpr*> parts;
    split_conjuncts(on, parts);
    for (const SqlExpr* c : parts) {
      if (find_subquery(*c)) src_.unsupported(c->location, "a subquery in the ON condition of a LEFT OUTER JOIN is not supported");
      std::set<size_t> rels = scope_.relations_of(*c);
      if (rels.size() == 1 && *rels.begin() == rel) {
        // Below the join: the derived table's own NULLs only (its rows exist there).
        NullRewriter own(column_null_leaves(scope_, false), src_);
        if (own.needed(*c)) {
          SqlExprPtr rewritten = own.truth(*c);
          owned_.push_back(rewritten);
          c = rewritten.get();
        }
        filters_[rel].push_back(c);
        continue;
      }
      if (rels.size() == 2 && rels.count(rel) && c->kind == SqlExprKind::Binary && c->text == "=" &&
          c->args[0]->kind == SqlExprKind::Column && c->args[1]->kind == SqlExprKind::Column) {
        size_t a = scope_.resolve(*c->args[0]).relation, b = scope_.resolve(*c->args[1]).relation;
        edges_.push_back(EquiJoin{a, b, c->args[0].get(), c->args[1].get(), c->location, order, nullptr, rel});
        continue;
      }
      src_.unsupported(c->location, "condition " + c->to_sql() +
                                        " in the ON of a LEFT OUTER JOIN: only equalities with the NULL-supplying table and "
                                        "conditions on that table alone are supported");
    }
  }

  // `t.c IS NULL` on the NULL-supplying side t of a LEFT JOIN, as a top-level WHERE conjunct: t's
  // columns are never NULL themselves (a subquery's NULL-able output is refused), so it holds
  // exactly for the probe rows t did not match — an anti join; `IS NOT NULL` keeps exactly the
  // matched ones — an inner join.
  const Relation* match_test(const SqlExpr& c) const {
    if (c.kind != SqlExprKind::IsNull || c.args.at(0)->kind != SqlExprKind::Column) return nullptr;
    std::optional<ResolvedColumn> col = scope_.try_resolve(*c.args[0]);
    if (!col || !outer_on_.count(col->relation) || scope_.relation(col->relation).null_flags.count(col->column)) return nullptr;
    return &scope_.relation(col->relation);
  }

  void note_match_test(const SqlExpr& c) {
    if (match_test(c) == nullptr) return;
    const size_t rel = scope_.resolve(*c.args[0]).relation;
    (c.negated ? matched_only_ : unmatched_only_).insert(rel);
    if (matched_only_.count(rel) && unmatched_only_.count(rel))
      src_.unsupported(c.location, "both IS NULL and IS NOT NULL on \"" + scope_.relation(rel).alias + "\": no row can pass");
  }

  // A join key (or a subquery's correlation) on a column that may be NULL would match where the
  // column reads 0: refused.
  void reject_null_supplying_key(const SqlExpr& key, const std::string& what) const {
    for (size_t r : scope_.relations_of(key)) {
      if (scope_.relation(r).null_supplying)
        src_.unsupported(key.location, what + " " + key.to_sql() + " reads \"" + scope_.relation(r).alias +
                                           "\", the NULL-supplying side of a LEFT OUTER JOIN: not supported yet");
    }
    reject_nullable_columns(key, what);
  }

  // A key on a derived table's column that may be NULL (its own NULLs, not a join's) is refused.
  void reject_nullable_columns(const SqlExpr& key, const std::string& what) const {
    if (key.kind == SqlExprKind::Column) {
      if (std::optional<ResolvedColumn> c = scope_.try_resolve(key); c && scope_.relation(c->relation).null_flags.count(c->column))
        src_.unsupported(key.location, what + " " + key.to_sql() + " may be NULL (a column of \"" + scope_.relation(c->relation).alias +
                                           "\" that may be NULL): not supported yet");
    }
    for (const SqlExprPtr& a : key.args) reject_nullable_columns(*a, what);
  }

  // Whether any of `rels` has columns that may be NULL (a NULL-supplying side, or a derived table
  // with NULL-able columns).
  bool reads_null_supplying(const std::set<size_t>& rels) const {
    return std::any_of(rels.begin(), rels.end(), [&](size_t r) {
      return scope_.relation(r).null_supplying || !scope_.relation(r).null_flags.empty();
    });
  }

  void classify(const SqlExpr& c, size_t order) {
    if (is_unnestable_subquery(c)) {
      std::set<size_t> outer = outer_relations(c, scope_, ctes_);
      if (reads_null_supplying(outer))
        src_.unsupported(c.location, "a subquery condition that reads the NULL-supplying side of a LEFT OUTER JOIN is not supported yet");
      residuals_.push_back(Residual{&c, outer, false, true});
      return;
    }
    if (has_only_scalar_subqueries(c)) {
      null_rejected_.clear();
      collect_null_rejected(c, true, true, null_rejected_);
      SqlExprPtr rewritten = replace_scalar_subqueries(c, order);
      owned_.push_back(rewritten);
      classify(*rewritten, order);
      return;
    }
    if (const SqlExpr* sub = find_subquery(c)) {
      src_.unsupported(sub->location, std::string(kind_name(sub->kind)) + " (" + sub->to_sql() + ") is not supported yet (no decorrelation or unnesting of subqueries)");
    }
    if (match_test(c) != nullptr) return;  // the join's type (note_match_test)
    std::set<size_t> rels = scope_.relations_of(c);
    for (size_t r : rels) {
      if (unmatched_only_.count(r))
        src_.unsupported(c.location, "WHERE condition " + c.to_sql() + " reads \"" + scope_.relation(r).alias +
                                         "\", which IS NULL keeps only where it did not match (all its columns are NULL)");
    }
    NullRewriter nulls(column_null_leaves(scope_), src_);
    const bool nullable_key = rels.size() == 2 && c.kind == SqlExprKind::Binary && c.text == "=" &&
                              c.args[0]->kind == SqlExprKind::Column && c.args[1]->kind == SqlExprKind::Column &&
                              nulls.needed(c) && std::none_of(rels.begin(), rels.end(), [&](size_t r) {
                                return scope_.relation(r).null_supplying || single_row_.count(r) != 0;
                              });
    if (nullable_key) {
      // An inner equi-join on derived columns that may be NULL: a NULL key matches nothing, so each
      // such side drops its NULL rows before the join, and the equality stays a key pair.
      for (const SqlExprPtr& side : c.args) {
        std::optional<SqlExprPtr> null = column_null_leaves(scope_)(*side);
        if (!null || !*null) continue;
        SqlExprPtr keep = not_of(*null);
        owned_.push_back(keep);
        filters_[scope_.resolve(*side).relation].push_back(keep.get());
      }
      size_t a = scope_.resolve(*c.args[0]).relation, b = scope_.resolve(*c.args[1]).relation;
      edges_.push_back(EquiJoin{a, b, c.args[0].get(), c.args[1].get(), c.location, order});
      return;
    }
    if (nulls.needed(c)) {
      // Rows where the condition is TRUE (sql_nulls.h). Over the NULL-supplying side of a left
      // outer join it filters the join's output, never that side's rows before the join.
      SqlExprPtr rewritten = nulls.truth(c);
      owned_.push_back(rewritten);
      if (reads_null_supplying(rels)) {
        residuals_.push_back(Residual{rewritten.get(), rels});
        return;
      }
      classify(*rewritten, order);
      return;
    }
    if (rels.size() == 1) {
      filters_[*rels.begin()].push_back(&c);
      return;
    }
    // An equality with an uncorrelated scalar subquery's value (TPC-H Q15) stays a filter: the
    // single-row relation joins without keys and its value reaches the kernels as a parameter.
    if (std::any_of(rels.begin(), rels.end(), [&](size_t r) { return single_row_.count(r) != 0; })) {
      residuals_.push_back(Residual{&c, rels});
      return;
    }
    if (rels.size() == 2 && c.kind == SqlExprKind::Binary && c.text == "=" && c.args[0]->kind == SqlExprKind::Column &&
        c.args[1]->kind == SqlExprKind::Column) {
      size_t a = scope_.resolve(*c.args[0]).relation, b = scope_.resolve(*c.args[1]).relation;
      edges_.push_back(EquiJoin{a, b, c.args[0].get(), c.args[1].get(), c.location, order});
      return;
    }
    if (rels.size() == 2 && c.kind == SqlExprKind::Binary && c.text == "=") {
      std::set<size_t> l = scope_.relations_of(*c.args[0]), r = scope_.relations_of(*c.args[1]);
      if (l.size() == 1 && r.size() == 1 && *l.begin() != *r.begin()) {
        edges_.push_back(EquiJoin{*l.begin(), *r.begin(), c.args[0].get(), c.args[1].get(), c.location, order, &c});
        return;
      }
    }
    residuals_.push_back(Residual{&c, rels});
  }

  AttributeLookup lookup() const {
    return [this](const SqlExpr& e) { return column_attribute(e, scope_); };
  }

  plan::ExprPtr conjunction(const std::vector<const SqlExpr*>& parts, const std::vector<plan::Attribute>& schema) {
    std::vector<plan::ExprPtr> bound;
    for (const SqlExpr* p : parts) bound.push_back(bind_sql_predicate(*p, schema, lookup(), src_));
    return bound.size() == 1 ? bound[0] : plan::make_logical(plan::ExprKind::And, std::move(bound));
  }

  std::unique_ptr<plan::LogicalOp> filter(std::unique_ptr<plan::LogicalOp> input, const std::vector<const SqlExpr*>& parts) {
    auto f = std::make_unique<plan::LogicalOp>();
    f->kind = plan::OpKind::Filter;
    f->json_path = src_.position(parts[0]->location);
    f->schema = input->schema;
    f->predicate = conjunction(parts, f->schema);
    f->children.push_back(std::move(input));
    return f;
  }

  std::unique_ptr<plan::LogicalOp> base(size_t rel) {
    const Relation& r = scope_.relation(rel);
    if (r.derived()) {
      std::unique_ptr<plan::LogicalOp> d = std::move(derived_.at(rel));
      return filters_[rel].empty() ? std::move(d) : filter(std::move(d), filters_[rel]);
    }
    auto scan = std::make_unique<plan::LogicalOp>();
    scan->kind = plan::OpKind::Scan;
    scan->json_path = src_.position(r.location);
    scan->table = r.table->name;
    scan->alias = r.alias;
    scan->schema = scope_.scan_schema(rel);
    if (filters_[rel].empty()) return scan;
    return filter(std::move(scan), filters_[rel]);
  }

  // Every relation's input (its scan or derived plan under its pushed-down filters, in bases_) and
  // what the join orderer needs to know about it: rows before and after the filters (statistics,
  // or catalog estimates), unique keys, and the equi-join edges with the distinct counts of their
  // columns.
  plan::JoinGraph join_graph() {
    const plan::Statistics& stats = scope_.stats();
    plan::JoinGraph g;
    bases_.resize(scope_.relations().size());
    for (size_t rel = 0; rel < scope_.relations().size(); ++rel) {
      const Relation& r = scope_.relation(rel);
      plan::JoinRelation jr;
      jr.name = r.alias;
      jr.ordered = !outer_on_.count(rel) && !null_supplying_.count(rel) && !single_row_.count(rel);
      if (r.derived()) {
        jr.base_rows = plan::estimate_rows(*derived_.at(rel), stats);
        jr.unique_keys = plan::unique_column_sets(*derived_.at(rel), scope_.catalog());
      } else {
        jr.base_rows = static_cast<double>(table_rows(*r.table));
        if (!r.table->primary_key.empty()) jr.unique_keys = {r.table->primary_key};
      }
      bases_[rel] = base(rel);
      jr.rows = std::min(jr.base_rows, plan::estimate_rows(*bases_[rel], stats));
      bases_[rel]->estimated_rows = jr.rows;
      g.relations.push_back(std::move(jr));
    }
    for (auto& r : g.relations) r.preference = SIZE_MAX;
    for (const EquiJoin& e : edges_) {
      for (size_t rel : {e.left_rel, e.right_rel}) g.relations[rel].preference = std::min(g.relations[rel].preference, e.order);
      plan::JoinEdge edge{e.left_rel, e.right_rel, "", "", 0, 0};
      edge_side(*e.left, edge.left_column, edge.left_distinct);
      edge_side(*e.right, edge.right_column, edge.right_distinct);
      g.edges.push_back(std::move(edge));
    }
    return g;
  }

  uint64_t table_rows(const TableDef& t) const {
    try {
      return scope_.stats().rows(t.name);
    } catch (const Error&) {
      return t.rows_at_sf1;  // statistics of a database without this table
    }
  }

  // The column an edge side names in its relation, and its distinct count (0: unknown or computed).
  void edge_side(const SqlExpr& side, std::string& column, double& distinct) const {
    if (side.kind != SqlExprKind::Column) return;
    const ResolvedColumn c = scope_.resolve(side);
    column = c.column;
    const Relation& r = scope_.relation(c.relation);
    if (r.derived()) return;
    try {
      distinct = static_cast<double>(scope_.stats().column(r.table->name, c.column).distinct);
    } catch (const Error&) {
      distinct = 0;
    }
  }

  // Relations that take part in the inner joins must all be connected by equi-joins to the one
  // with the most rows (the first in FROM order on ties): no cross products.
  void reject_cross_products(const plan::JoinGraph& g) const {
    size_t start = SIZE_MAX;
    for (size_t i = 0; i < g.relations.size(); ++i) {
      if (g.relations[i].ordered && (start == SIZE_MAX || g.relations[i].base_rows > g.relations[start].base_rows)) start = i;
    }
    const std::vector<bool> reached = plan::connected_to(g, start);
    for (size_t i = 0; i < g.relations.size(); ++i) {
      if (g.relations[i].ordered && !reached[i]) {
        src_.unsupported(scope_.relation(i).location, "no equi-join condition connects \"" + scope_.relation(i).alias +
                                                          "\" to the other tables: cross products are not supported");
      }
    }
  }

  // After the inner joins: NULL-supplying relations once their ON partners are joined, then
  // single-row relations (uncorrelated scalar subqueries, joined without keys).
  size_t pick_remaining(const std::vector<bool>& joined) const {
    std::set<size_t> outer = null_supplying_;
    for (const auto& entry : outer_on_) outer.insert(entry.first);
    // Ready once the relations its own ON names are joined (a chained LEFT JOIN waits for the one
    // it reads).
    for (size_t rel : outer) {
      if (joined[rel]) continue;
      bool ready = std::any_of(edges_.begin(), edges_.end(), [&](const EquiJoin& e) { return e.owner == rel; });
      for (const EquiJoin& e : edges_) {
        if (e.owner != rel) continue;
        if (e.left_rel == rel && !joined[e.right_rel]) ready = false;
        if (e.right_rel == rel && !joined[e.left_rel]) ready = false;
      }
      if (ready) return rel;
    }
    for (size_t i : single_row_) {
      if (!joined[i]) return i;
    }
    for (size_t i = 0; i < joined.size(); ++i) {
      if (!joined[i]) {
        src_.unsupported(scope_.relation(i).location, "no equi-join condition connects \"" + scope_.relation(i).alias +
                                                          "\" to the other tables: cross products are not supported");
      }
    }
    throw Error(ErrorKind::Internal, "join tree: no relation left to join");
  }

  std::unique_ptr<plan::LogicalOp> join(std::unique_ptr<plan::LogicalOp> probe, size_t rel, const std::vector<bool>& joined, double rows) {
    auto j = std::make_unique<plan::LogicalOp>();
    j->kind = plan::OpKind::Join;
    j->join_type = unmatched_only_.count(rel) ? plan::JoinType::Anti
                   : matched_only_.count(rel) || !(outer_on_.count(rel) || null_supplying_.count(rel)) ? plan::JoinType::Inner
                                                                                                        : plan::JoinType::LeftOuter;
    j->estimated_rows = rows;
    std::unique_ptr<plan::LogicalOp> build = std::move(bases_.at(rel));
    if (j->join_type == plan::JoinType::LeftOuter) {
      j->explicit_nulls = true;
      build = with_match_indicator(std::move(build), scope_.relation(rel).alias);
    }
    std::set<size_t> chained;  // NULL-supplying relations a LEFT JOIN's keys read
    int location = -1;
    std::vector<const SqlExpr*> unmatched;  // computed equalities whose types no hash table matches
    for (const EquiJoin& e : edges_) {
      const SqlExpr* probe_side = nullptr;
      const SqlExpr* build_side = nullptr;
      if (e.right_rel == rel && joined[e.left_rel]) probe_side = e.left, build_side = e.right;
      else if (e.left_rel == rel && joined[e.right_rel]) probe_side = e.right, build_side = e.left;
      else continue;
      if (location < 0) location = e.location;
      if (j->join_type == plan::JoinType::LeftOuter && e.owner == rel) {
        for (size_t r : scope_.relations_of(*probe_side))
          if (scope_.relation(r).null_supplying) chained.insert(r);
        reject_nullable_columns(*probe_side, "join key");
        reject_nullable_columns(*build_side, "join key");
      } else if (e.owner != SIZE_MAX) {  // a correlated scalar subquery's keys
        reject_nullable_columns(*build_side, "join key");
        reject_null_supplying_key(*probe_side, "join key");
      }
      plan::ExprPtr pk = bind_sql_expression(*probe_side, probe->schema, lookup(), src_);
      plan::ExprPtr bk = bind_sql_expression(*build_side, build->schema, lookup(), src_);
      if (e.conjunct != nullptr && !join_keys_comparable(pk->type, bk->type)) {
        unmatched.push_back(e.conjunct);
        continue;
      }
      if (!join_keys_comparable(pk->type, bk->type))
        src_.unsupported(e.location, join_key_refusal(*build_side, *bk, *probe_side, *pk));
      j->probe_keys.push_back(pk);
      j->build_keys.push_back(bk);
    }
    // A LEFT JOIN whose keys read another's NULL-supplying side (`a LEFT JOIN b ON ... LEFT JOIN c
    // ON c.k = b.k`) matches nothing where that side is NULL: one more key pair, that side's
    // indicator = this side's (1 on every build row), fails there.
    for (size_t r : chained) {
      j->probe_keys.push_back(plan::make_column("", match_indicator(scope_.relation(r).alias), DataType::int32()));
      j->build_keys.push_back(plan::make_column("", match_indicator(scope_.relation(rel).alias), DataType::int32()));
    }
    j->json_path = src_.position(location >= 0 ? location : scope_.relation(rel).location);
    j->schema = probe->schema;
    if (j->join_type != plan::JoinType::Anti) {  // an anti join's rows have no build columns (all NULL)
      for (const plan::Attribute& a : build->schema) j->schema.push_back(a);
    }
    j->children.push_back(std::move(probe));
    j->children.push_back(std::move(build));
    if (!unmatched.empty()) return filter(std::move(j), unmatched);
    return j;
  }

  std::unique_ptr<plan::LogicalOp> place_residuals(std::unique_ptr<plan::LogicalOp> tree, const std::vector<bool>& joined) {
    std::vector<const SqlExpr*> ready;
    std::vector<const SqlExpr*> subqueries;
    for (Residual& r : residuals_) {
      if (r.placed) continue;
      if (std::all_of(r.relations.begin(), r.relations.end(), [&](size_t i) { return joined[i]; })) {
        (r.subquery ? subqueries : ready).push_back(r.expr);
        r.placed = true;
      }
    }
    if (!ready.empty()) tree = filter(std::move(tree), ready);
    // Semi / anti joins after the filters: they only shrink the stream, and filtering first
    // leaves fewer probes.
    for (const SqlExpr* s : subqueries) tree = unnest_subquery(std::move(tree), *s, scope_, ctes_, src_);
    return tree;
  }

  FromScope& scope_;
  const SqlSource& src_;
  std::vector<SqlExprPtr> on_conditions_;
  std::map<size_t, SqlExprPtr> outer_on_;  // NULL-supplying relation of a LEFT OUTER JOIN -> its ON
  std::set<size_t> unmatched_only_;  // ... tested `IS NULL` in WHERE: an anti join
  std::set<size_t> matched_only_;    // ... tested `IS NOT NULL` in WHERE: an inner join
  std::vector<std::vector<const SqlExpr*>> filters_;
  std::vector<EquiJoin> edges_;
  std::vector<Residual> residuals_;
  std::vector<SqlExprPtr> owned_;  // expressions rewritten by factor_disjunctions
  std::vector<CommonTable> ctes_;  // the statement's WITH entries, visible in its FROM
  const SelectStmt* stmt_ = nullptr;  // the statement being built
  std::vector<std::unique_ptr<plan::LogicalOp>> derived_;  // by relation index: derived table plans
  std::set<size_t> single_row_;  // derived relations with exactly one row (joined without keys)
  std::set<size_t> null_supplying_;  // correlated scalar subqueries joined as left outer joins
  bool in_select_list_ = false;      // replace_scalar_subqueries is rewriting a select item
  std::set<const SqlExpr*> null_rejected_;  // scalar subqueries whose NULL value the conjunct being classified rejects
  bool right_join_ = false;          // a RIGHT JOIN swapped its sides: FROM order is not relation order
  std::vector<std::unique_ptr<plan::LogicalOp>> bases_;  // by relation index: its input, until joined
};

}  // namespace

bool join_keys_comparable(const DataType& a, const DataType& b) {
  if (a.is_string() && b.is_string() && a.packed && b.packed) return true;  // computed strings: packed values
  if (a.is_string() || b.is_string()) return false;
  auto integral = [](const DataType& t) { return t.id == TypeId::Int32 || t.id == TypeId::Int64; };
  if (integral(a) && integral(b)) return true;
  return a == b && (a.id == TypeId::Date || a.id == TypeId::Decimal);
}

std::string join_key_refusal(const SqlExpr& build, const plan::Expr& bk, const SqlExpr& probe, const plan::Expr& pk) {
  const std::string pair = build.to_sql() + " (" + bk.type.to_string() + ") = " + probe.to_sql() + " (" + pk.type.to_string() + ")";
  if (bk.type.is_string() && pk.type.is_string())
    return "joining on stored string columns is not supported yet: " + pair +
           "; join keys may be integers, dates, decimals, or strings computed to at most 7 bytes";
  if (bk.type.is_string() || pk.type.is_string())
    return "a join key compares a string with a non-string value: " + pair;
  if (bk.type.id == TypeId::Decimal && pk.type.id == TypeId::Decimal)
    return "join keys are decimals of different scales: " + pair + "; cast one to the other's scale";
  return "join keys of different kinds cannot be matched: " + pair +
         "; join keys may be integers, dates, decimals of the same scale, or strings computed to at most 7 bytes";
}

NullLeaves column_null_leaves(const FromScope& scope, bool joins) {
  return [&scope, joins](const SqlExpr& e) -> std::optional<SqlExprPtr> {
    if (e.kind != SqlExprKind::Column) return std::nullopt;
    std::optional<ResolvedColumn> c = scope.try_resolve(e);
    if (!c) return SqlExprPtr();
    const Relation& r = scope.relation(c->relation);
    SqlExprPtr null;
    if (joins && r.null_supplying) null = equals(attribute_ref(match_indicator(r.alias), e.location), int_literal(0, e.location), e.location);
    if (auto flag = r.null_flags.find(c->column); flag != r.null_flags.end()) {
      // A derived table's own NULLs: its validity column, read through the relation.
      SqlExprPtr own = equals(attribute_ref(r.alias + "." + flag->second, e.location), int_literal(0, e.location), e.location);
      null = null ? or_of(null, own) : own;
    }
    return null;
  };
}

std::optional<std::string> column_attribute(const SqlExpr& e, const FromScope& scope) {
  if (e.kind != SqlExprKind::Column) return std::nullopt;
  return scope.attribute_name(scope.resolve(e));
}

std::unique_ptr<plan::LogicalOp> with_match_indicator(std::unique_ptr<plan::LogicalOp> build, const std::string& alias) {
  auto m = std::make_unique<plan::LogicalOp>();
  m->kind = plan::OpKind::Map;
  m->json_path = build->json_path;
  m->estimated_rows = build->estimated_rows;
  m->schema = build->schema;
  m->exprs.push_back({match_indicator(alias), plan::make_int_literal(1, DataType::int32())});
  m->schema.push_back(plan::Attribute{"", match_indicator(alias), DataType::int32(), "", ""});
  m->children.push_back(std::move(build));
  return m;
}

std::unique_ptr<plan::LogicalOp> build_join_tree(const SelectStmt& stmt, FromScope& scope, const SqlSource& source,
                                                 SelectValues* select_values) {
  return JoinTreeBuilder(scope, source).build(stmt, select_values);
}

}  // namespace hqc::sql

// The FROM clause of one SELECT as the binder sees it: the base tables with their aliases, and
// column-name resolution against them.
//
// Contract:
//   - a relation's alias is the written alias, else the table name; aliases are unique (Error
//     otherwise, as in PostgreSQL);
//   - resolve() finds the one relation owning a column (unqualified names search every relation;
//     qualified names their alias) or raises Error(Input) at the column's position: unknown table
//     alias, unknown column (with the closest name as a suggestion), or ambiguous column (naming
//     the candidates);
//   - canonical() is the expression's text with every resolvable column qualified by its alias,
//     so `d_year` and `date.d_year` compare equal when matching GROUP BY keys and select items.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "frontend/logical_plan.h"
#include "frontend/statistics.h"
#include "frontend/sql/sql_ast.h"
#include "frontend/sql/sql_source.h"
#include "storage/catalog.h"

namespace hqc::sql {

struct Relation {
  std::string alias;
  const TableDef* table = nullptr;  // for a derived table: a definition synthesized from its output
  int location = -1;
  // Derived table (subquery in FROM, or a WITH entry): its output attributes as the subquery plan
  // names them; empty for base tables. `table` is owned by `derived_def`.
  std::vector<plan::Attribute> derived_output;
  std::shared_ptr<const TableDef> derived_def;
  bool derived() const { return derived_def != nullptr; }
  // The NULL-supplying side of a left outer join: its columns are NULL where the join found no
  // match, which `__matched_<alias> = 0` tells (frontend/sql/sql_nulls.h).
  bool null_supplying = false;
  // A derived table's columns that may be NULL → the hidden column of its output that is 0 where
  // they are (its query's validity columns, plan::NamedExpr::validity_for). Hidden columns are not
  // selected by `*` and cannot be named.
  std::map<std::string, std::string> null_flags;
  // Of those, the computed strings: their NULL rows may read different values (no zero string to
  // put there), so they cannot be grouped by.
  std::set<std::string> varying_nulls;
  // A FULL OUTER JOIN of two relations is one derived table (frontend/sql/sql_join_tree.cpp); its
  // two sides keep their aliases and column names: each member maps its columns, in order, to the
  // derived table's. Empty for any other relation.
  struct Member {
    std::string alias;
    std::vector<std::pair<std::string, std::string>> columns;  // (as written, the derived table's)
  };
  std::vector<Member> members;
  bool hidden(const std::string& column) const {
    for (const auto& entry : null_flags)
      if (entry.second == column) return true;
    return false;
  }
};

struct ResolvedColumn {
  size_t relation = 0;
  std::string column;
};

class FromScope {
 public:
  FromScope(const Catalog& catalog, const plan::Statistics& stats, const SqlSource& source)
      : catalog_(catalog), stats_(stats), src_(source) {}

  // Adds a base table (TableRef of kind Table). Errors: unknown table (with a suggestion),
  // duplicate alias.
  size_t add_table(const TableRef& ref);
  // Adds a derived table named `alias` whose columns are `output` (the subquery plan's schema,
  // renamed to `column_names` when given) and whose size estimate is `rows_at_sf1`. Errors:
  // duplicate alias, duplicate column names, a column list of the wrong length.
  // `exprs`: the subquery's final projection, whose validity columns become null_flags.
  size_t add_derived(const std::string& alias, int location, const std::vector<plan::Attribute>& output,
                     const std::vector<std::string>& column_names, uint64_t rows_at_sf1,
                     const std::vector<plan::NamedExpr>* exprs = nullptr);

  const std::vector<Relation>& relations() const { return relations_; }
  const Catalog& catalog() const { return catalog_; }
  // Row counts and column statistics the join orderer estimates from (frontend/statistics.h).
  const plan::Statistics& stats() const { return stats_; }
  const SqlSource& source() const { return src_; }
  const Relation& relation(size_t i) const { return relations_.at(i); }
  void mark_null_supplying(size_t i) { relations_.at(i).null_supplying = true; }
  // Makes derived relation `i` a FULL OUTER JOIN's: `members` name its columns (Relation::members).
  // Errors: a member alias that another relation has.
  void set_members(size_t i, std::vector<Relation::Member> members);
  // What `*` lists: (qualifier, column) of every visible column, in FROM order.
  std::vector<std::pair<std::string, std::string>> star_columns() const;

  ResolvedColumn resolve(const SqlExpr& column) const;
  // Whether `column` is a derived table's computed string that may be NULL (Relation::varying_nulls).
  bool varying_null_string(const SqlExpr& column) const;
  std::optional<ResolvedColumn> try_resolve(const SqlExpr& column) const;
  // "alias.column": how a resolved column is named in the scan's schema.
  std::string attribute_name(const ResolvedColumn& c) const;

  // Relations whose columns `e` references (subqueries are not entered).
  std::set<size_t> relations_of(const SqlExpr& e) const;
  std::string canonical(const SqlExpr& e) const;

  // The scan's output attributes, as the JSON plan binder builds them (dictionary columns carry
  // their table/column for decoding). For a derived table: its columns with source = its alias,
  // keeping the dictionary of the column they came from.
  std::vector<plan::Attribute> scan_schema(size_t relation) const;

 private:
  void check_alias(const std::string& alias, int location) const;

  const Catalog& catalog_;
  const plan::Statistics& stats_;
  const SqlSource& src_;
  std::vector<Relation> relations_;
};

// WITH queries and views are inlined where a FROM item names them. `find_common_table` is the entry
// of `ctes` (the first: a query's own WITH entries come before the enclosing ones and the views,
// and shadow them) named as the table `ref` names, or nullptr. `inside_common_table` is what the
// body of `cte` sees: `ctes` with `cte` marked as being defined (CommonTable::query null), so a
// query that names itself, directly or through another (`with a as (select * from a)`), is an
// Unsupported error at that name rather than an expansion without end.
const CommonTable* find_common_table(const TableRef& ref, const std::vector<CommonTable>& ctes, const SqlSource& source);
// The WITH entries visible inside `sub` (a subquery, a set operation's operand, an inlined WITH
// query): its own, then those of `outer` it does not shadow.
std::vector<CommonTable> visible_ctes(const SelectStmt& sub, const std::vector<CommonTable>& outer);
std::vector<CommonTable> inside_common_table(const CommonTable& cte, const std::vector<CommonTable>& ctes);

}  // namespace hqc::sql

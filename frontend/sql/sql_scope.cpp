// FROM-clause relations and column resolution (frontend/sql/sql_scope.h).
#include "frontend/sql/sql_scope.h"

#include "frontend/json_reader.h"

namespace hqc::sql {

size_t FromScope::add_table(const TableRef& ref) {
  const TableDef* def = catalog_.find(ref.name);
  if (!def) {
    std::vector<std::string> names;
    for (const TableDef& t : catalog_.tables) names.push_back(t.name);
    src_.fail(ref.location, "table \"" + ref.name + "\" does not exist in catalog " + catalog_.name + plan::did_you_mean(ref.name, names));
  }
  std::string alias = ref.alias.empty() ? ref.name : ref.alias;
  check_alias(alias, ref.location);
  relations_.push_back(Relation{alias, def, ref.location, {}, nullptr});
  return relations_.size() - 1;
}

void FromScope::check_alias(const std::string& alias, int location) const {
  for (const Relation& r : relations_) {
    bool taken = r.alias == alias;
    for (const Relation::Member& m : r.members) taken = taken || m.alias == alias;
    if (taken) src_.fail(location, "table name \"" + alias + "\" is specified more than once in FROM; give one of them an alias");
  }
}

void FromScope::set_members(size_t i, std::vector<Relation::Member> members) {
  Relation& r = relations_.at(i);
  for (const Relation::Member& m : members) check_alias(m.alias, r.location);
  r.members = std::move(members);
}

std::vector<std::pair<std::string, std::string>> FromScope::star_columns() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const Relation& r : relations_) {
    for (const Relation::Member& m : r.members)
      for (const auto& c : m.columns) out.emplace_back(m.alias, c.first);
    if (!r.members.empty()) continue;
    for (const ColumnDef& c : r.table->columns)
      if (!r.hidden(c.name)) out.emplace_back(r.alias, c.name);
  }
  return out;
}

size_t FromScope::add_derived(const std::string& alias, int location, const std::vector<plan::Attribute>& output,
                              const std::vector<std::string>& column_names, uint64_t rows_at_sf1,
                              const std::vector<plan::NamedExpr>* exprs) {
  check_alias(alias, location);
  // As in PostgreSQL, fewer names than columns rename the first ones; more is an error.
  if (column_names.size() > output.size()) {
    src_.fail(location, "\"" + alias + "\" names " + std::to_string(column_names.size()) + " columns but its query has " +
                            std::to_string(output.size()));
  }
  auto def = std::make_shared<TableDef>();
  def->name = alias;
  def->rows_at_sf1 = rows_at_sf1;
  Relation r{alias, def.get(), location, output, def};
  for (size_t i = 0; i < output.size(); ++i) {
    std::string name = i < column_names.size() ? column_names[i] : output[i].name;
    if (def->find(name)) src_.fail(location, "column \"" + name + "\" appears twice in the output of \"" + alias + "\"");
    // Dictionary codes stay codes: the encoding only tells resolution it is a string.
    def->columns.push_back(ColumnDef{name, output[i].type, output[i].dict_table.empty() ? Encoding::Plain : Encoding::Dictionary, ""});
  }
  for (size_t i = 0; exprs != nullptr && i < exprs->size() && i < output.size(); ++i) {
    const std::string& of = (*exprs)[i].validity_for;
    for (size_t j = 0; !of.empty() && j < exprs->size(); ++j)
      if ((*exprs)[j].name == of) {
        r.null_flags[def->columns.at(j).name] = def->columns[i].name;
        const plan::Expr& value = *(*exprs)[j].expr;
        if (value.type.is_string() && value.kind != plan::ExprKind::Column) r.varying_nulls.insert(def->columns[j].name);
      }
  }
  relations_.push_back(std::move(r));
  return relations_.size() - 1;
}

std::optional<ResolvedColumn> FromScope::try_resolve(const SqlExpr& column) const {
  if (column.kind != SqlExprKind::Column) return std::nullopt;
  const std::string& name = column.qualifiers.back();
  std::optional<ResolvedColumn> found;
  for (size_t i = 0; i < relations_.size(); ++i) {
    for (const Relation::Member& m : relations_[i].members) {
      if (column.qualifiers.size() == 2 && m.alias != column.qualifiers[0]) continue;
      for (const auto& [written, derived] : m.columns) {
        if (written != name) continue;
        if (found) return std::nullopt;  // ambiguous
        found = ResolvedColumn{i, derived};
      }
    }
    if (!relations_[i].members.empty()) continue;
    if (column.qualifiers.size() == 2 && relations_[i].alias != column.qualifiers[0]) continue;
    if (relations_[i].table->find(name) && !relations_[i].hidden(name)) {
      if (found) return std::nullopt;  // ambiguous
      found = ResolvedColumn{i, name};
    }
  }
  return found;
}

bool FromScope::varying_null_string(const SqlExpr& column) const {
  std::optional<ResolvedColumn> c = try_resolve(column);
  return c && relations_[c->relation].varying_nulls.count(c->column) > 0;
}

ResolvedColumn FromScope::resolve(const SqlExpr& column) const {
  if (auto r = try_resolve(column)) return *r;
  const std::string& name = column.qualifiers.back();
  if (column.qualifiers.size() == 2) {
    const std::string& alias = column.qualifiers[0];
    std::vector<std::string> aliases;
    const Relation* rel = nullptr;
    const Relation::Member* member = nullptr;
    for (const Relation& r : relations_) {
      for (const Relation::Member& m : r.members) {
        aliases.push_back(m.alias);
        if (m.alias == alias) member = &m;
      }
      if (!r.members.empty()) continue;
      aliases.push_back(r.alias);
      if (r.alias == alias) rel = &r;
    }
    if (!rel && !member)
      src_.fail(column.location, "missing FROM-clause entry for table \"" + alias + "\"" + plan::did_you_mean(alias, aliases));
    std::vector<std::string> names;
    if (member) {
      for (const auto& c : member->columns) names.push_back(c.first);
      src_.fail(column.location, "column \"" + name + "\" does not exist in " + alias + plan::did_you_mean(name, names));
    }
    for (const ColumnDef& c : rel->table->columns) names.push_back(c.name);
    src_.fail(column.location, "column \"" + name + "\" does not exist in table " + rel->table->name +
                                   (rel->alias != rel->table->name ? " (alias " + rel->alias + ")" : "") +
                                   plan::did_you_mean(name, names));
  }
  std::vector<std::string> owners, names;
  for (const auto& [alias, c] : star_columns()) {
    if (c == name) owners.push_back(alias + "." + name);
    names.push_back(c);
  }
  if (owners.size() > 1) {
    std::string list;
    for (const std::string& o : owners) list += (list.empty() ? "" : ", ") + o;
    src_.fail(column.location, "column reference \"" + name + "\" is ambiguous: qualify it with a table alias (" + list + ")");
  }
  src_.fail(column.location, "column \"" + name + "\" does not exist" + plan::did_you_mean(name, names));
}

std::string FromScope::attribute_name(const ResolvedColumn& c) const { return relations_.at(c.relation).alias + "." + c.column; }

std::set<size_t> FromScope::relations_of(const SqlExpr& e) const {
  std::set<size_t> out;
  if (e.kind == SqlExprKind::Column) {
    out.insert(resolve(e).relation);
    return out;
  }
  for (const SqlExprPtr& a : e.args) {
    for (size_t r : relations_of(*a)) out.insert(r);
  }
  return out;
}

namespace {

SqlExprPtr qualified_copy(const SqlExpr& e, const FromScope& scope) {
  auto copy = std::make_shared<SqlExpr>(e);
  if (e.kind == SqlExprKind::Column) {
    if (auto r = scope.try_resolve(e)) copy->qualifiers = {scope.relation(r->relation).alias, r->column};
    return copy;
  }
  for (SqlExprPtr& a : copy->args) a = qualified_copy(*a, scope);
  if (copy->filter) copy->filter = qualified_copy(*copy->filter, scope);
  return copy;
}

}  // namespace

std::string FromScope::canonical(const SqlExpr& e) const { return qualified_copy(e, *this)->to_sql(); }

std::vector<plan::Attribute> FromScope::scan_schema(size_t relation) const {
  const Relation& r = relations_.at(relation);
  std::vector<plan::Attribute> schema;
  if (r.derived()) {
    for (size_t i = 0; i < r.derived_output.size(); ++i) {
      const plan::Attribute& o = r.derived_output[i];
      schema.push_back(plan::Attribute{r.alias, r.table->columns[i].name, o.type, o.dict_table, o.dict_column});
    }
    return schema;
  }
  for (const ColumnDef& c : r.table->columns) {
    plan::Attribute a{r.alias, c.name, c.type, "", ""};
    if (c.type.is_string() && c.encoding == Encoding::Dictionary) {
      a.dict_table = r.table->name;
      a.dict_column = c.name;
    }
    schema.push_back(a);
  }
  return schema;
}

const CommonTable* find_common_table(const TableRef& ref, const std::vector<CommonTable>& ctes, const SqlSource& source) {
  for (const CommonTable& c : ctes) {
    if (c.name != ref.name) continue;
    if (!c.query)
      source.unsupported(ref.location, "\"" + ref.name + "\" names the WITH query or view being defined: recursive queries "
                                                         "(WITH RECURSIVE) are not supported");
    return &c;
  }
  return nullptr;
}

std::vector<CommonTable> visible_ctes(const SelectStmt& sub, const std::vector<CommonTable>& outer) {
  std::vector<CommonTable> out = sub.with;
  for (const CommonTable& c : outer) {
    bool shadowed = false;
    for (const CommonTable& own : sub.with) shadowed = shadowed || own.name == c.name;
    if (!shadowed) out.push_back(c);
  }
  return out;
}

std::vector<CommonTable> inside_common_table(const CommonTable& cte, const std::vector<CommonTable>& ctes) {
  std::vector<CommonTable> out = ctes;
  for (CommonTable& c : out)
    if (c.name == cte.name) c.query = nullptr;
  return out;
}

}  // namespace hqc::sql

// UNION / INTERSECT / EXCEPT → Union (+ Aggregate); see sql_set_operations.h.
#include "frontend/sql/sql_set_operations.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "frontend/bind_expr.h"
#include "frontend/sql/sql_scope.h"
#include "storage/error.h"

namespace hqc::sql {

namespace {

const char* set_op_name(const SelectStmt& s) {
  switch (s.set_op) {
    case SetOperation::Union: return s.set_all ? "UNION ALL" : "UNION";
    case SetOperation::Intersect: return s.set_all ? "INTERSECT ALL" : "INTERSECT";
    case SetOperation::Except: return s.set_all ? "EXCEPT ALL" : "EXCEPT";
    case SetOperation::None: break;
  }
  return "?";
}

int integer_digits(const DataType& t) {
  switch (t.id) {
    case TypeId::Int32: return 10;
    case TypeId::Int64: return 19;
    case TypeId::Decimal: return t.precision - t.scale;
    default: return 0;
  }
}

bool numeric(const DataType& t) {
  return t.id == TypeId::Int32 || t.id == TypeId::Int64 || t.id == TypeId::Decimal || t.id == TypeId::Float64;
}

// The type both operands' column i become; `l` and `r` are their attributes.
plan::Attribute common_attribute(const plan::Attribute& l, const plan::Attribute& r, const SelectStmt& stmt, size_t i,
                                 const SqlSource& src) {
  plan::Attribute out = l;
  const DataType& a = l.type;
  const DataType& b = r.type;
  const std::string which = std::string(set_op_name(stmt)) + " column " + std::to_string(i + 1) + " (" + l.name + ")";
  if (a == b && l.dict_table == r.dict_table && l.dict_column == r.dict_column) return out;
  if (numeric(a) && numeric(b)) {
    if (a.id == TypeId::Float64 || b.id == TypeId::Float64) {
      out.type = DataType::float64();
    } else if (a.id == TypeId::Decimal || b.id == TypeId::Decimal) {
      // Exact: the larger scale; values that leave 64 bits on the way are caught where the cast
      // raises a scale (the IR's overflow flags), never wrapped.
      const int scale = std::max(a.id == TypeId::Decimal ? a.scale : 0, b.id == TypeId::Decimal ? b.scale : 0);
      const int digits = std::max(integer_digits(a), integer_digits(b)) + scale;
      out.type = DataType::decimal(static_cast<uint8_t>(std::min(digits, 18)), static_cast<uint8_t>(scale));
    } else {
      out.type = DataType::int64();
    }
    return out;
  }
  if (a.is_string() && b.is_string()) {
    const bool dict_a = !l.dict_table.empty();
    const bool dict_b = !r.dict_table.empty();
    if (dict_a || dict_b) {
      if (l.dict_table != r.dict_table || l.dict_column != r.dict_column) {
        src.unsupported(stmt.right->location,
                        which + ": strings of different dictionaries (" + (dict_a ? l.dict_table + "." + l.dict_column : "free text") +
                            ", " + (dict_b ? r.dict_table + "." + r.dict_column : "free text") + ") cannot be combined yet");
      }
    } else if (a.packed != b.packed) {
      src.unsupported(stmt.right->location, which + ": a computed short string (" + (a.packed ? a : b).to_string() +
                                                ") and a stored one cannot be combined yet");
    }
    out.type = a;
    out.type.length = std::max(a.length, b.length);
    out.type.fixed_length = a.fixed_length && b.fixed_length && a.length == b.length;
    return out;
  }
  if (a.id == b.id && a.id != TypeId::String) return out;  // date/bool
  src.fail(stmt.right->location, which + ": types " + a.to_string() + " and " + b.to_string() + " cannot be matched");
}

// An operand's columns that may be NULL: it was bound with NullableOutput::Columns, so its final
// projection ends in validity columns (plan::NamedExpr::validity_for) after its `width` columns.
struct OperandNulls {
  size_t width = 0;
  std::vector<int> validity;  // per column: the index of its validity column in the schema, or -1
  std::vector<bool> varying;  // per column: a computed string whose NULL rows read different values
  std::vector<bool> untyped;  // per column: a bare NULL (0 with the literal validity 0, sql_binder.cpp)
};

bool literal_zero(const plan::Expr& e) { return e.kind == plan::ExprKind::Literal && e.type.id == TypeId::Int32 && e.int_value == 0; }

OperandNulls operand_nulls(const plan::LogicalOp& op) {
  OperandNulls n;
  n.width = op.schema.size();
  n.validity.assign(op.schema.size(), -1);
  n.varying.assign(op.schema.size(), false);
  n.untyped.assign(op.schema.size(), false);
  if (op.kind != plan::OpKind::Project) return n;
  for (size_t v = 0; v < op.exprs.size(); ++v) {
    if (op.exprs[v].validity_for.empty()) continue;
    n.width = std::min(n.width, v);
    for (size_t j = 0; j < op.exprs.size(); ++j) {
      if (op.exprs[j].name != op.exprs[v].validity_for) continue;
      n.validity[j] = static_cast<int>(v);
      n.varying[j] = op.exprs[j].expr->type.is_string() && op.exprs[j].expr->kind != plan::ExprKind::Column;
      n.untyped[j] = literal_zero(*op.exprs[j].expr) && literal_zero(*op.exprs[v].expr);
    }
  }
  n.validity.resize(n.width);
  n.varying.resize(n.width);
  n.untyped.resize(n.width);
  return n;
}

// The validity column of result column i ("__set<tag>_<i>__valid", Int32: 1 = a value).
std::string validity_name(const std::string& tag, size_t i) { return "__set" + tag + "_" + std::to_string(i) + "__valid"; }

// Projects an operand onto the result's types (casts where they differ), then the validity of each
// result column that may be NULL (`nullable`: the operand's own, or 1), then `extra` columns
// (INTERSECT / EXCEPT's side markers).
std::unique_ptr<plan::LogicalOp> conform(std::unique_ptr<plan::LogicalOp> operand, const std::vector<plan::Attribute>& target,
                                         const std::vector<bool>& nullable, const std::vector<plan::NamedExpr>& extra,
                                         const std::string& tag, const std::string& json_path) {
  const OperandNulls own = operand_nulls(*operand);
  if (operand->kind == plan::OpKind::Project) {
    // No longer the query's last projection: its names become the set operation's own, so that an
    // item never shadows the attribute it reads (`m := case when m__nonnull = 0 then 0 else m end`
    // over an aggregate m) inside the operand's pipeline.
    for (size_t i = 0; i < operand->exprs.size(); ++i) {
      plan::NamedExpr& e = operand->exprs[i];
      e.validity_for.clear();
      e.name = operand->schema[i].name = "__set" + tag + "_in" + std::to_string(i);
      operand->schema[i].source = "";
    }
  }
  bool identity = extra.empty() && operand->schema.size() == target.size() &&
                  std::none_of(nullable.begin(), nullable.end(), [](bool b) { return b; });
  std::vector<plan::NamedExpr> exprs;
  for (size_t i = 0; i < target.size(); ++i) {
    const plan::Attribute& in = operand->schema[i];
    plan::ExprPtr e = plan::make_column(in);
    if (own.untyped[i] && !(in.type == target[i].type)) {
      // A bare NULL takes the other operand's type: its zero (NULL by its validity).
      e = target[i].type.id == TypeId::Float64 ? plan::make_float_literal(0) : plan::make_int_literal(0, target[i].type);
      identity = false;
    } else if (!(in.type == target[i].type)) {
      e = plan::make_cast(e, target[i].type);
      identity = false;
    }
    exprs.push_back({target[i].name, e});
  }
  if (identity) return operand;
  std::vector<plan::NamedExpr> validity;
  for (size_t i = 0; i < target.size(); ++i) {
    if (!nullable[i]) continue;
    plan::ExprPtr v = own.validity[i] >= 0 ? plan::make_column(operand->schema[static_cast<size_t>(own.validity[i])])
                                           : plan::make_int_literal(1, DataType::int32());
    validity.push_back({validity_name(tag, i), v});
  }
  auto p = std::make_unique<plan::LogicalOp>();
  p->kind = plan::OpKind::Project;
  p->json_path = json_path;
  for (size_t i = 0; i < target.size(); ++i) {
    plan::Attribute a = operand->schema[i];
    a.source = "";
    a.name = "__set" + tag + "_" + std::to_string(i);  // distinct from every SQL name and every other set operation's
    a.type = target[i].type;
    exprs[i].name = a.name;
    p->schema.push_back(a);
  }
  for (const std::vector<plan::NamedExpr>* more : {&std::as_const(validity), &extra}) {
    for (const plan::NamedExpr& x : *more) {
      p->schema.push_back({"", x.name, x.expr->type, "", ""});
      exprs.push_back(x);
    }
  }
  p->exprs = std::move(exprs);
  p->children.push_back(std::move(operand));
  return p;
}

// Scans by alias below `op`, to refuse one alias for two different tables in two operands: the IR
// names a pipeline's attributes and hash tables by alias.
void collect_scans(const plan::LogicalOp& op, std::map<std::string, std::string>& out, bool& clash) {
  if (op.kind == plan::OpKind::Scan) {
    auto [it, fresh] = out.emplace(op.alias, op.table);
    if (!fresh && it->second != op.table) clash = true;
  }
  for (const auto& c : op.children) collect_scans(*c, out, clash);
}

}  // namespace

std::unique_ptr<plan::LogicalOp> bind_set_operation(const SelectStmt& stmt, const SqlSource& src, const BindOperand& bind_operand,
                                                    bool nulls_allowed) {
  const std::string what = set_op_name(stmt);
  if (stmt.set_all && stmt.set_op != SetOperation::Union)
    src.unsupported(stmt.right->location, what + " is not supported yet (" + what.substr(0, what.size() - 4) + " without ALL is)");
  for (const SelectStmt* operand : {stmt.left.get(), stmt.right.get()}) {
    if (!operand->order_by.empty() || operand->limits()) {
      src.unsupported(operand->order_by.empty() ? operand->limit_location : operand->order_by.front().location,
                      "ORDER BY / LIMIT / OFFSET on an operand of " + what + " is not supported; write them after the last operand");
    }
  }
  // The statement's WITH entries are visible in both operands (their own entries shadow them).
  auto with_ctes = [&](const SelectStmt& operand) {
    auto q = std::make_shared<SelectStmt>(operand);
    q->with = visible_ctes(operand, stmt.with);
    return q;
  };
  std::unique_ptr<plan::LogicalOp> left = bind_operand(*with_ctes(*stmt.left));
  std::unique_ptr<plan::LogicalOp> right = bind_operand(*with_ctes(*stmt.right));
  const OperandNulls left_nulls = operand_nulls(*left), right_nulls = operand_nulls(*right);
  if (left_nulls.width != right_nulls.width) {
    src.fail(stmt.right->location, "each " + what + " operand must have the same number of columns: " + std::to_string(left_nulls.width) +
                                       " and " + std::to_string(right_nulls.width));
  }
  std::map<std::string, std::string> scans;
  bool clash = false;
  collect_scans(*left, scans, clash);
  collect_scans(*right, scans, clash);
  if (clash) src.unsupported(stmt.right->location, "the operands of " + what + " use one alias for different tables; rename one");

  // The result's columns: named after the left operand, typed for both, owned by the Union (its
  // source), so they are never confused with an operand's own attributes.
  // Unique per set operation: no two share their right operand's first select item.
  // Its side markers (INTERSECT / EXCEPT) and conformed columns are named with the same tag: a set
  // operation nested in another's operand runs in the same pipeline as the outer one's markers.
  const std::string tag = std::to_string(std::max(0, stmt.right->location));
  const std::string union_source = "union" + tag;
  const std::string left_marker = "__left" + tag, right_marker = "__right" + tag;
  std::vector<plan::Attribute> columns;
  std::vector<bool> nullable;
  const bool grouped = !(stmt.set_op == SetOperation::Union && stmt.set_all);
  for (size_t i = 0; i < left_nulls.width; ++i) {
    const bool left_untyped = left_nulls.untyped[i], right_untyped = right_nulls.untyped[i];
    if ((left_untyped && !right_untyped && right->schema[i].type.is_string()) ||
        (right_untyped && !left_untyped && left->schema[i].type.is_string())) {
      src.unsupported(stmt.right->location, what + " column " + std::to_string(i + 1) + " (" + left->schema[i].name +
                                                "): a NULL in a column of strings is not supported yet");
    }
    nullable.push_back(left_nulls.validity[i] >= 0 || right_nulls.validity[i] >= 0);
    if (nullable.back() && !nulls_allowed) {
      src.unsupported(stmt.right->location, what + " column " + std::to_string(i + 1) + " (" + left->schema[i].name +
                                                ") may be NULL: a column that may be NULL in a WHERE subquery is not supported yet");
    }
    if (grouped && (left_nulls.varying[i] || right_nulls.varying[i])) {
      src.unsupported(stmt.right->location, what + " column " + std::to_string(i + 1) + " (" + left->schema[i].name +
                                                ") is a computed string that may be NULL: grouping by one is not supported yet");
    }
    // A bare NULL has the other operand's type.
    plan::Attribute a = left_nulls.untyped[i] && !right_nulls.untyped[i]   ? right->schema[i]
                        : right_nulls.untyped[i] && !left_nulls.untyped[i] ? left->schema[i]
                                                                           : common_attribute(left->schema[i], right->schema[i], stmt, i, src);
    a.name = left->schema[i].name;
    a.source = union_source;
    // One attribute per name (the IR binds attributes by name): a repeated name gets a suffix.
    for (int n = 2; std::any_of(columns.begin(), columns.end(), [&](const plan::Attribute& c) { return c.name == a.name; }); ++n)
      a.name = left->schema[i].name + "_" + std::to_string(n);
    columns.push_back(a);
  }
  const bool sides = stmt.set_op != SetOperation::Union;
  auto marker = [](const std::string& name, int64_t v) { return plan::NamedExpr{name, plan::make_int_literal(v, DataType::int64())}; };
  auto u = std::make_unique<plan::LogicalOp>();
  u->kind = plan::OpKind::Union;
  u->json_path = src.position(stmt.right->location);
  u->schema = columns;
  auto markers = [&](int64_t left_side) {
    return sides ? std::vector{marker(left_marker, left_side), marker(right_marker, 1 - left_side)} : std::vector<plan::NamedExpr>{};
  };
  u->children.push_back(conform(std::move(left), columns, nullable, markers(1), tag, src.position(stmt.left->location)));
  u->children.push_back(conform(std::move(right), columns, nullable, markers(0), tag, src.position(stmt.right->location)));
  std::vector<plan::Attribute> validity;  // of the columns that may be NULL, as the Union outputs them
  for (size_t i = 0; i < columns.size(); ++i) {
    if (nullable[i]) validity.push_back({union_source, validity_name(tag, i), DataType::int32(), "", ""});
  }
  u->schema.insert(u->schema.end(), validity.begin(), validity.end());
  if (sides) {
    u->schema.push_back({union_source, left_marker, DataType::int64(), "", ""});
    u->schema.push_back({union_source, right_marker, DataType::int64(), "", ""});
  }
  std::unique_ptr<plan::LogicalOp> tree = std::move(u);
  // The result: the columns, then (for those that may be NULL) their validity, which the result
  // folds into its NULLs or an enclosing query reads as the columns' NULL tests.
  auto result = [&](std::unique_ptr<plan::LogicalOp> in) {
    if (validity.empty() && !sides) return in;
    auto p = std::make_unique<plan::LogicalOp>();
    p->kind = plan::OpKind::Project;
    p->json_path = in->json_path;
    auto pass = [&](const plan::Attribute& a, const std::string& validity_for) {
      plan::Attribute out = in->schema[static_cast<size_t>(
          std::find_if(in->schema.begin(), in->schema.end(), [&](const plan::Attribute& x) { return x.name == a.name; }) - in->schema.begin())];
      p->schema.push_back(out);
      p->exprs.push_back({out.name, plan::make_column(out), validity_for});
    };
    for (const plan::Attribute& c : columns) pass(c, "");
    size_t v = 0;
    for (size_t i = 0; i < columns.size(); ++i) {
      if (nullable[i]) pass(validity[v++], columns[i].name);
    }
    p->children.push_back(std::move(in));
    return p;
  };

  if (stmt.set_op == SetOperation::Union && stmt.set_all) return result(std::move(tree));
  // UNION, INTERSECT, EXCEPT: one group per distinct row.
  auto agg = std::make_unique<plan::LogicalOp>();
  agg->kind = plan::OpKind::Aggregate;
  agg->json_path = tree->json_path;
  // NULLs are not distinct from each other here: a NULL-able column groups by its value (one value
  // in every NULL row: zero_where_null, sql_nulls.h) and its validity.
  for (const std::vector<plan::Attribute>* keys : {&columns, &validity}) {
    for (const plan::Attribute& c : *keys) {
      agg->group_by.push_back({c.name, plan::make_column(c)});
      plan::Attribute key = c;
      key.source = "";
      agg->schema.push_back(key);
    }
  }
  if (sides) {
    for (const std::string& side : {left_marker, right_marker}) {
      plan::AggregateExpr a;
      a.name = side;
      a.func = plan::AggFunc::Sum;
      a.arg = plan::make_column(union_source, side, DataType::int64());
      a.type = DataType::int64();
      agg->aggregates.push_back(a);
      agg->schema.push_back({"", side, DataType::int64(), "", ""});
    }
  }
  agg->children.push_back(std::move(tree));
  tree = std::move(agg);
  for (plan::Attribute& v : validity) v.source = "";  // the Aggregate's keys from here on
  for (plan::Attribute& c : columns) c.source = "";
  if (!sides) return result(std::move(tree));

  // INTERSECT: rows of both sides; EXCEPT: rows of the left side only.
  auto side_count = [](const std::string& side) { return plan::make_column("", side, DataType::int64()); };
  auto zero = [] { return plan::make_int_literal(0, DataType::int64()); };
  auto f = std::make_unique<plan::LogicalOp>();
  f->kind = plan::OpKind::Filter;
  f->json_path = tree->json_path;
  f->schema = tree->schema;
  f->predicate = plan::make_logical(
      plan::ExprKind::And, {plan::make_compare(plan::CompareOp::Gt, side_count(left_marker), zero()),
                            plan::make_compare(stmt.set_op == SetOperation::Intersect ? plan::CompareOp::Gt : plan::CompareOp::Eq,
                                               side_count(right_marker), zero())});
  f->children.push_back(std::move(tree));
  return result(std::move(f));
}

}  // namespace hqc::sql

// JSON plan → bound logical plan (frontend/json_plan.h): the operator half. Expressions are bound
// by frontend/bind_expr.cpp; JSON access and error formatting by frontend/json_reader.cpp.
//
// Rules enforced here (documented in docs/plan-format.md):
//   - every node is an object with a known "op" and only that op's fields (typos are reported with
//     a suggestion, never ignored);
//   - order_by and limit only at the top (limit above order_by), so the host applies them last;
//   - names a node outputs are unique within its schema (for map/project/aggregate);
//   - join keys pair up by position and have comparable types.
#include "frontend/json_plan.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "frontend/bind_expr.h"
#include "frontend/json_reader.h"
#include "storage/error.h"

namespace hqc::plan {

namespace {

const std::vector<std::string> kOps = {"scan", "filter", "map", "project", "join", "aggregate", "order_by", "limit"};

class PlanBinder {
 public:
  explicit PlanBinder(const Catalog& catalog) : catalog_(catalog) {}

  // `position`: 0 = root (limit or order_by allowed), 1 = below a limit (order_by allowed), 2 = elsewhere.
  std::unique_ptr<LogicalOp> bind(const JsonNode& node, int position) {
    if (!node.value().is_object()) node.fail("expected an operator object with an \"op\" field, found " + json_kind(node.value()));
    std::string op = node.at("op").as_string();
    auto out = std::make_unique<LogicalOp>();
    out->json_path = node.path();
    if (auto b = node.find("pipeline_break")) out->pipeline_break = b->as_bool();
    if (op == "scan") bind_scan(node, *out);
    else if (op == "filter") bind_filter(node, *out);
    else if (op == "map" || op == "project") bind_map(node, *out, op == "project");
    else if (op == "join") bind_join(node, *out);
    else if (op == "aggregate") bind_aggregate(node, *out);
    else if (op == "order_by") {
      if (position == 2) node.fail("order_by is only allowed at the top of the plan (or directly below a limit)");
      bind_order_by(node, *out);
    } else if (op == "limit") {
      if (position != 0) node.fail("limit is only allowed at the top of the plan");
      bind_limit(node, *out);
    } else {
      node.at("op").fail("unknown operator \"" + op + "\"" + did_you_mean(op, kOps) +
                         "; expected one of scan, filter, map, project, join, aggregate, order_by, limit");
    }
    if (out->pipeline_break && (out->kind == OpKind::OrderBy || out->kind == OpKind::Limit)) {
      node.at("pipeline_break").fail("pipeline_break is meaningless on " + op + " (it runs on the host)");
    }
    return out;
  }

 private:
  void bind_scan(const JsonNode& node, LogicalOp& out) {
    node.expect_object({"op", "table", "alias", "pipeline_break"});
    out.kind = OpKind::Scan;
    JsonNode tn = node.at("table");
    out.table = tn.as_string();
    const TableDef* def = catalog_.find(out.table);
    if (!def) {
      std::vector<std::string> names;
      for (const TableDef& t : catalog_.tables) names.push_back(t.name);
      tn.fail("unknown table \"" + out.table + "\" in catalog " + catalog_.name + did_you_mean(out.table, names));
    }
    out.alias = out.table;
    if (auto a = node.find("alias")) {
      out.alias = a->as_string();
      if (out.alias.empty() || out.alias.find('.') != std::string::npos) a->fail("an alias must be non-empty and contain no '.'");
    }
    if (!aliases_.insert(out.alias).second) {
      node.fail("scan alias \"" + out.alias + "\" is used twice; give one of the scans of " + out.table + " another \"alias\"");
    }
    for (const ColumnDef& c : def->columns) {
      Attribute a{out.alias, c.name, c.type, "", ""};
      if (c.type.is_string() && c.encoding == Encoding::Dictionary) {
        a.dict_table = def->name;
        a.dict_column = c.name;
      }
      out.schema.push_back(a);
    }
  }

  void bind_filter(const JsonNode& node, LogicalOp& out) {
    node.expect_object({"op", "input", "predicate", "pipeline_break"});
    out.kind = OpKind::Filter;
    out.children.push_back(bind(node.at("input"), 2));
    out.schema = out.children[0]->schema;
    out.predicate = bind_predicate(node.at("predicate"), out.schema);
  }

  static Attribute attribute_of(const std::string& name, const Expr& e) {
    Attribute a{"", name, e.type, "", ""};
    if (e.kind == ExprKind::Column) {
      a.dict_table = e.dict_table;
      a.dict_column = e.dict_column;
    }
    return a;
  }

  // {"name": n, "expr": e}, or a bare column expression named after the column.
  NamedExpr named_expression(const JsonNode& item, const std::vector<Attribute>& scope) {
    if (item.has("expr") || item.has("name")) {
      item.expect_object({"name", "expr"});
      std::string name = item.at("name").as_string();
      if (name.empty() || name.find('.') != std::string::npos) item.at("name").fail("an output name must be non-empty and contain no '.'");
      return {name, bind_expression(item.at("expr"), scope)};
    }
    ExprPtr e = bind_expression(item, scope);
    if (e->kind != ExprKind::Column) item.fail("a computed expression needs a name: {\"name\": ..., \"expr\": ...}");
    return {e->column, e};
  }

  static void check_unique(const std::vector<Attribute>& schema, const JsonNode& at) {
    std::set<std::pair<std::string, std::string>> seen;
    for (const Attribute& a : schema) {
      if (!seen.insert({a.source, a.name}).second) at.fail("output name \"" + a.name + "\" appears twice");
    }
  }

  void bind_map(const JsonNode& node, LogicalOp& out, bool project) {
    const char* list = project ? "columns" : "exprs";
    node.expect_object({"op", "input", list, "pipeline_break"});
    out.kind = project ? OpKind::Project : OpKind::Map;
    out.children.push_back(bind(node.at("input"), 2));
    const std::vector<Attribute>& in = out.children[0]->schema;
    if (!project) out.schema = in;
    std::vector<JsonNode> items = node.array(list);
    if (items.empty()) node.at(list).fail("expected at least one expression");
    for (const JsonNode& item : items) {
      NamedExpr ne = named_expression(item, in);
      out.schema.push_back(attribute_of(ne.name, *ne.expr));
      out.exprs.push_back(std::move(ne));
    }
    check_unique(out.schema, node.at(list));
  }

  static bool keys_comparable(const DataType& a, const DataType& b) {
    if (a.is_string() && b.is_string() && a.packed && b.packed) return true;  // computed strings: packed values
    if (a.is_string() || b.is_string()) return false;  // string keys: join on codes is not meaningful across dictionaries
    auto integral = [](const DataType& t) { return t.id == TypeId::Int32 || t.id == TypeId::Int64; };
    if (integral(a) && integral(b)) return true;
    return a == b && (a.id == TypeId::Date || a.id == TypeId::Decimal);
  }

  void bind_join(const JsonNode& node, LogicalOp& out) {
    node.expect_object({"op", "type", "probe", "build", "probe_keys", "build_keys", "residual", "pipeline_break"});
    out.kind = OpKind::Join;
    if (auto t = node.find("type")) {
      std::string type = t->as_string();
      if (type == "inner") out.join_type = JoinType::Inner;
      else if (type == "semi") out.join_type = JoinType::Semi;
      else if (type == "anti") out.join_type = JoinType::Anti;
      else if (type == "left_outer") out.join_type = JoinType::LeftOuter;
      else t->fail("unknown join type \"" + type + "\"" + did_you_mean(type, {"inner", "semi", "anti", "left_outer"}) +
                   "; expected inner, semi, anti or left_outer");
    }
    out.children.push_back(bind(node.at("probe"), 2));
    out.children.push_back(bind(node.at("build"), 2));
    std::vector<JsonNode> pk = node.array("probe_keys");
    std::vector<JsonNode> bk = node.array("build_keys");
    // No keys: a cross product, which the compiler runs only against a single-row build side
    // (an uncorrelated scalar subquery); an existence test without keys means nothing.
    if (pk.empty() && out.join_type != JoinType::Inner) node.at("probe_keys").fail("expected at least one key (only inner joins may have none)");
    if (pk.size() != bk.size()) {
      node.at("build_keys").fail("expected " + std::to_string(pk.size()) + " keys to pair with probe_keys, found " + std::to_string(bk.size()));
    }
    for (size_t i = 0; i < pk.size(); ++i) {
      out.probe_keys.push_back(bind_expression(pk[i], out.children[0]->schema));
      out.build_keys.push_back(bind_expression(bk[i], out.children[1]->schema));
      const DataType& a = out.probe_keys.back()->type;
      const DataType& b = out.build_keys.back()->type;
      if (!keys_comparable(a, b)) {
        bk[i].fail("join key of type " + b.to_string() + " cannot be matched with probe key of type " + a.to_string() +
                   " (keys must be integers, dates or decimals of the same scale)");
      }
    }
    if (auto r = node.find("residual")) {
      if (out.join_type != JoinType::Semi && out.join_type != JoinType::Anti)
        r->fail("a residual predicate is only supported on semi and anti joins (filter above an inner join instead)");
      std::vector<Attribute> both = out.children[0]->schema;
      for (const Attribute& a : out.children[1]->schema) both.push_back(a);
      out.residual = bind_expression(*r, both);
      if (out.residual->type.id != TypeId::Bool) r->fail("the residual must be a boolean predicate, found " + out.residual->type.to_string());
    }
    out.schema = out.children[0]->schema;
    if (out.join_type == JoinType::Inner || out.join_type == JoinType::LeftOuter) {
      for (const Attribute& a : out.children[1]->schema) out.schema.push_back(a);
    }
  }

  void bind_aggregate(const JsonNode& node, LogicalOp& out) {
    node.expect_object({"op", "input", "group_by", "aggregates", "pipeline_break"});
    out.kind = OpKind::Aggregate;
    out.children.push_back(bind(node.at("input"), 2));
    const std::vector<Attribute>& in = out.children[0]->schema;
    if (auto g = node.find("group_by")) {
      for (const JsonNode& item : g->elements()) {
        NamedExpr ne = named_expression(item, in);
        out.schema.push_back(attribute_of(ne.name, *ne.expr));
        out.group_by.push_back(std::move(ne));
      }
    }
    std::vector<JsonNode> aggs = node.array("aggregates");
    if (aggs.empty() && out.group_by.empty()) node.at("aggregates").fail("expected at least one aggregate or group key");
    for (const JsonNode& item : aggs) {
      item.expect_object({"name", "func", "arg"});
      AggregateExpr a;
      a.name = item.at("name").as_string();
      JsonNode fn = item.at("func");
      std::string f = fn.as_string();
      static const std::vector<std::string> funcs = {"sum", "count", "count_star", "min", "max", "avg"};
      auto it = std::find(funcs.begin(), funcs.end(), f);
      if (it == funcs.end()) fn.fail("unknown aggregate function \"" + f + "\"" + did_you_mean(f, funcs) + "; expected sum, count, count_star, min, max or avg");
      a.func = static_cast<AggFunc>(it - funcs.begin());
      if (a.func == AggFunc::Count && !item.has("arg")) a.func = AggFunc::CountStar;
      if (a.func == AggFunc::CountStar) {
        if (item.has("arg")) item.at("arg").fail("count_star takes no \"arg\"");
      } else {
        a.arg = bind_expression(item.at("arg"), in);
      }
      std::string why;
      if (!aggregate_type(a.func, a.arg ? &a.arg->type : nullptr, a.type, why)) item.at("arg").fail(why);
      out.schema.push_back(Attribute{"", a.name, a.type, "", ""});
      if (a.func == AggFunc::Min || a.func == AggFunc::Max) {
        out.schema.back().dict_table = a.arg->dict_table;
        out.schema.back().dict_column = a.arg->dict_column;
      }
      out.aggregates.push_back(std::move(a));
    }
    check_unique(out.schema, node);
  }

  void bind_order_by(const JsonNode& node, LogicalOp& out) {
    node.expect_object({"op", "input", "keys"});
    out.kind = OpKind::OrderBy;
    out.children.push_back(bind(node.at("input"), 2));
    out.schema = out.children[0]->schema;
    std::vector<JsonNode> keys = node.array("keys");
    if (keys.empty()) node.at("keys").fail("expected at least one sort key");
    for (const JsonNode& k : keys) {
      k.expect_object({"column", "desc"});
      JsonNode cn = k.at("column");
      std::string name = cn.as_string();
      std::vector<std::string> names;
      int matches = 0;
      for (const Attribute& a : out.schema) {
        names.push_back(a.name);
        if (a.name == name) ++matches;
      }
      if (matches == 0) cn.fail("unknown column \"" + name + "\" to sort by" + did_you_mean(name, names));
      if (matches > 1) cn.fail("ambiguous sort column \"" + name + "\": project distinct names first");
      SortKey key{name, false};
      if (auto d = k.find("desc")) key.descending = d->as_bool();
      out.sort_keys.push_back(key);
    }
  }

  void bind_limit(const JsonNode& node, LogicalOp& out) {
    node.expect_object({"op", "input", "count", "offset"});
    out.kind = OpKind::Limit;
    out.children.push_back(bind(node.at("input"), 1));
    out.schema = out.children[0]->schema;
    out.limit = node.at("count").as_int();
    if (out.limit < 0) node.at("count").fail("expected a non-negative row count, found " + std::to_string(out.limit));
    if (node.has("offset")) {
      out.offset = node.at("offset").as_int();
      if (out.offset < 0) node.at("offset").fail("expected a non-negative row count, found " + std::to_string(out.offset));
    }
  }

  const Catalog& catalog_;
  std::set<std::string> aliases_;
};

}  // namespace

LogicalPlan parse_json_plan(const std::string& json_text, const std::string& source_name, const Catalog& catalog) {
  nlohmann::json doc = parse_json_document(json_text, source_name);
  JsonNode root(doc, "$", source_name);
  root.expect_object({"name", "description", "plan"});
  LogicalPlan plan;
  if (auto n = root.find("name")) plan.name = n->as_string();
  if (auto d = root.find("description")) (void)d->as_string();
  PlanBinder binder(catalog);
  plan.root = binder.bind(root.at("plan"), 0);
  if (plan.name.empty()) {
    std::string stem = source_name;
    if (auto slash = stem.find_last_of('/'); slash != std::string::npos) stem = stem.substr(slash + 1);
    if (stem.size() > 5 && stem.ends_with(".json")) stem.resize(stem.size() - 5);
    plan.name = stem;
  }
  return plan;
}

LogicalPlan load_json_plan(const std::string& path, const Catalog& catalog) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::Input, path + ": cannot read the plan file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_json_plan(text.str(), path, catalog);
}

}  // namespace hqc::plan

// The cost-based join orderer (frontend/join_order.h) on synthetic graphs with exact expected
// orders, and the estimates it is fed from (frontend/cardinality.h, frontend/statistics.h): predicate
// selectivities, semi and anti joins.
#include <doctest/doctest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "frontend/cardinality.h"
#include "frontend/join_order.h"
#include "frontend/statistics.h"
#include "storage/catalog.h"
#include "storage/error.h"

using namespace hqc;
using namespace hqc::plan;

namespace {

JoinRelation relation(const std::string& name, double base_rows, double rows, std::vector<std::string> key) {
  JoinRelation r;
  r.name = name;
  r.base_rows = base_rows;
  r.rows = rows;
  if (!key.empty()) r.unique_keys = {key};
  return r;
}

// fact.fk = dim.pk: a foreign-key edge (the fact column's distinct count is the dimension's rows).
JoinEdge fk(const JoinGraph& g, size_t fact, const std::string& fact_column, size_t dim) {
  const JoinRelation& d = g.relations[dim];
  return JoinEdge{fact, dim, fact_column, d.unique_keys.at(0).at(0), d.base_rows, d.base_rows};
}

std::vector<std::string> names(const JoinGraph& g, const JoinOrder& o) {
  std::vector<std::string> out;
  for (const JoinStep& s : o.steps) out.push_back(g.relations[s.relation].name);
  return out;
}

// Every step after the first shares an edge with a relation before it.
bool no_cross_products(const JoinGraph& g, const JoinOrder& o) {
  std::vector<bool> in(g.relations.size(), false);
  in[o.steps[0].relation] = true;
  for (size_t i = 1; i < o.steps.size(); ++i) {
    const size_t s = o.steps[i].relation;
    bool linked = false;
    for (const JoinEdge& e : g.edges) linked = linked || (e.left == s && in[e.right]) || (e.right == s && in[e.left]);
    if (!linked) return false;
    in[s] = true;
  }
  return true;
}

}  // namespace

TEST_CASE("star join: the fact table probes, the most selective dimensions build first") {
  JoinGraph g;
  g.relations = {relation("part", 200000, 200000, {"p_partkey"}),      // unfiltered
                 relation("customer", 30000, 6000, {"c_custkey"}),     // 1/5
                 relation("lineorder", 6000000, 6000000, {"lo_id"}),
                 relation("date", 2557, 365, {"d_datekey"})};          // 1/7
  g.edges = {fk(g, 2, "lo_partkey", 0), fk(g, 2, "lo_custkey", 1), fk(g, 2, "lo_orderdate", 3)};
  const JoinOrder o = order_joins(g);
  CHECK(names(g, o) == std::vector<std::string>{"lineorder", "date", "customer", "part"});
  // n:1 joins keep the probe side's rows times the build side's filter selectivity.
  CHECK(o.steps[0].rows == doctest::Approx(6000000));
  CHECK(o.steps[1].rows == doctest::Approx(6000000.0 * 365 / 2557));
  CHECK(o.steps[2].rows == doctest::Approx(6000000.0 * 365 / 2557 / 5));
  CHECK(o.steps[3].rows == doctest::Approx(6000000.0 * 365 / 2557 / 5));
  for (const JoinStep& s : o.steps) CHECK(s.unique_build);
}

TEST_CASE("snowflake: an unfiltered dimension joins first when its own dimension is very selective") {
  // lineitem -> orders -> customer (0.1% after its filter); lineitem -> part (90%). Joining the
  // filtered relation first (part) looks cheaper one step ahead but costs more in total; starting
  // the probe at orders would build lineitem, the larger side, into a multi-match hash table.
  JoinGraph g;
  g.relations = {relation("lineitem", 6000000, 6000000, {}), relation("part", 200000, 180000, {"p_partkey"}),
                 relation("orders", 1500000, 1500000, {"o_orderkey"}), relation("customer", 150000, 150, {"c_custkey"})};
  g.edges = {fk(g, 0, "l_partkey", 1), fk(g, 0, "l_orderkey", 2), fk(g, 2, "o_custkey", 3)};
  const JoinOrder o = order_joins(g);
  CHECK(names(g, o) == std::vector<std::string>{"lineitem", "orders", "customer", "part"});
  CHECK(o.steps[2].rows == doctest::Approx(6000.0));
  CHECK(no_cross_products(g, o));
}

TEST_CASE("the probe side: the larger relation probes, the build is the smaller side") {
  JoinGraph g;
  g.relations = {relation("r", 1000, 1000, {"r_id"}), relation("s", 1000000, 1000000, {"s_id"})};
  g.edges = {JoinEdge{1, 0, "s_r", "r_id", 1000, 1000}};
  JoinOrder o = order_joins(g);
  CHECK(names(g, o) == std::vector<std::string>{"s", "r"});
  CHECK(o.steps[1].unique_build);

  // A 1:1 join (both join columns are keys): filtered down to 10 rows, s is the smaller side and
  // builds.
  JoinGraph one_to_one = g;
  one_to_one.edges = {JoinEdge{1, 0, "s_id", "r_id", 1000000, 1000}};
  one_to_one.relations[1].rows = 10;
  o = order_joins(one_to_one);
  CHECK(names(one_to_one, o) == std::vector<std::string>{"r", "s"});
  CHECK(o.steps[1].unique_build);
  CHECK(o.steps[1].rows == doctest::Approx(1.0));  // 1000 x 10 / 1,000,000, at least one row

  // n:1 with the n side filtered to 10 rows: s still probes, into r's unique table, rather than
  // r probing a multi-match table of s (no 64-bit sum bound, a match loop per probe).
  g.relations[1].rows = 10;
  o = order_joins(g);
  CHECK(names(g, o) == std::vector<std::string>{"s", "r"});
  CHECK(o.steps[1].unique_build);
}

TEST_CASE("n:1 builds are preferred over multi-match builds of equal size") {
  // a and b have the same rows; only b's join column is its key. a probes into b.
  JoinGraph g;
  g.relations = {relation("a", 50000, 50000, {"a_id"}), relation("b", 50000, 50000, {"b_id"})};
  g.edges = {JoinEdge{0, 1, "a_b", "b_id", 50000, 50000}};
  const JoinOrder o = order_joins(g);
  CHECK(names(g, o) == std::vector<std::string>{"a", "b"});
  CHECK(o.steps[1].unique_build);
}

TEST_CASE("no cross product where a join predicate connects the tables") {
  // Two tiny relations hang off a huge one: a cross product of the tiny ones would be cheaper
  // than anything through the huge one, but they are only connected through it.
  JoinGraph g;
  g.relations = {relation("tiny1", 10, 10, {"t1"}), relation("huge", 10000000, 10000000, {}), relation("tiny2", 10, 10, {"t2"})};
  g.edges = {fk(g, 1, "h1", 0), fk(g, 1, "h2", 2)};
  const JoinOrder o = order_joins(g);
  CHECK(names(g, o) == std::vector<std::string>{"huge", "tiny1", "tiny2"});
  CHECK(no_cross_products(g, o));

  // Beyond kExhaustiveRelations the greedy search keeps the same rules: a 15-way chain.
  JoinGraph chain;
  for (size_t i = 0; i < 15; ++i) chain.relations.push_back(relation("r" + std::to_string(i), 1000.0 * static_cast<double>(i + 1), 1000.0 * static_cast<double>(i + 1), {"id"}));
  for (size_t i = 0; i + 1 < 15; ++i) chain.edges.push_back(JoinEdge{i + 1, i, "fk", "id", 1000.0 * static_cast<double>(i + 1), 1000.0 * static_cast<double>(i + 1)});
  const JoinOrder c = order_joins(chain);
  REQUIRE(c.steps.size() == 15);
  CHECK(no_cross_products(chain, c));
  CHECK(chain.relations[c.steps[0].relation].name == "r14");  // the largest probes; each step is n:1

  // A relation no edge reaches is reported by connected_to (the SQL frontend rejects it).
  JoinGraph apart = g;
  apart.edges.pop_back();
  const std::vector<bool> reached = connected_to(apart, 1);
  CHECK(reached == std::vector<bool>{true, true, false});
}

TEST_CASE("relations joined outside the order are never the probe start") {
  JoinGraph g;
  g.relations = {relation("customer", 150000, 150000, {"c_custkey"}), relation("orders", 1500000, 1500000, {"o_orderkey"})};
  g.relations[1].ordered = false;  // the NULL-supplying side of customer LEFT JOIN orders
  g.edges = {JoinEdge{0, 1, "c_custkey", "o_custkey", 150000, 100000}};
  const JoinOrder o = order_joins(g);
  CHECK(names(g, o) == std::vector<std::string>{"customer"});
  // Its join estimate from the selectivity: customer's key is unique (1:n): 1 / rows(customer).
  CHECK(join_selectivity(g, {true, false}, 1) == doctest::Approx(1.0 / 150000));
  CHECK_FALSE(unique_build(g, {true, false}, 1));
}

TEST_CASE("without data: catalog estimates from rows_at_sf1 and the key declarations") {
  const Catalog tpch = Catalog::tpch();
  const CatalogStatistics sf1(tpch), sf10(tpch, 10);
  CHECK(sf1.rows("lineitem") == 6001215);
  CHECK(sf10.rows("orders") == 15000000);
  CHECK(sf10.rows("nation") == 25);  // does not scale
  CHECK(sf1.column("orders", "o_orderkey").distinct == 1500000);      // primary key
  CHECK(sf1.column("lineitem", "l_orderkey").distinct == 1500000);    // foreign key to orders
  CHECK(sf1.column("customer", "c_nationkey").distinct == 25);
  CHECK(sf1.column("lineitem", "l_quantity").distinct == 0);          // unknown
  CHECK_FALSE(sf1.column("orders", "o_orderdate").valid);
  CHECK_THROWS_AS(sf1.dictionary_code("region", "r_name", "ASIA", DictMatch::Equal), Error);
  CHECK_THROWS_AS(sf1.rows("lineorder"), Error);

  // Predicates fall back to the defaults.
  auto col = [](const std::string& table, const std::string& c, DataType t) { return make_column(table, c, t); };
  ExprPtr eq = make_compare(CompareOp::Eq, col("region", "r_name", DataType::fixed_char(25)),
                            make_dict_code("region", "r_name", "ASIA", DictMatch::Equal));
  CHECK(filter_selectivity(*eq, "region", sf1) == doctest::Approx(kDefaultFilter));
  ExprPtr range = make_logical(ExprKind::And, {make_compare(CompareOp::Ge, col("orders", "o_orderdate", DataType::date()), make_int_literal(9000, DataType::date())),
                                               make_compare(CompareOp::Lt, col("orders", "o_orderdate", DataType::date()), make_int_literal(9100, DataType::date()))});
  CHECK(filter_selectivity(*range, "orders", sf1) == doctest::Approx(kDefaultFilter));
  ExprPtr key = make_compare(CompareOp::Eq, col("orders", "o_orderkey", DataType::int32()), make_int_literal(7, DataType::int32()));
  CHECK(filter_selectivity(*key, "orders", sf1) == doctest::Approx(1.0 / 1500000));
}

namespace {

// Column statistics of a few columns, as a load would compute them.
class FixedStats final : public Statistics {
 public:
  uint64_t rows(const std::string&) const override { return 1000; }
  ColumnStats column(const std::string&, const std::string& column) const override {
    ColumnStats s;
    if (column == "d") {  // days 0..999
      s.valid = true;
      s.min = 0;
      s.max = 999;
      s.distinct = 1000;
    } else if (column == "name") {  // dictionary codes 0..4
      s.valid = true;
      s.min = 0;
      s.max = 4;
      s.distinct = 5;
    } else {
      throw Error(ErrorKind::Input, "no column " + column);
    }
    return s;
  }
  int64_t dictionary_code(const std::string&, const std::string&, const std::string& literal, DictMatch match) const override {
    static const std::map<std::string, int64_t> codes = {{"a", 0}, {"b", 1}, {"c", 2}, {"d", 3}, {"e", 4}};
    auto it = codes.find(literal);
    if (match == DictMatch::Equal) return it == codes.end() ? -1 : it->second;
    return it->second + (match == DictMatch::UpperBound ? 1 : 0);
  }
  std::vector<int64_t> dictionary_values(const std::string&, const std::string&, const Expr&) const override {
    return {1, 0, 0, 1, 0};
  }
};

}  // namespace

TEST_CASE("predicate selectivities from column statistics") {
  const FixedStats stats;
  const DataType str = DataType::fixed_char(10);
  auto d = [] { return make_column("t", "d", DataType::date()); };
  auto name = [&] {
    ExprPtr c = make_column("t", "name", str);
    c->dict_table = "t";
    c->dict_column = "name";
    return c;
  };
  auto lit = [](int64_t v) { return make_int_literal(v, DataType::date()); };
  // A range written as two conjuncts is one interval: 100 of 1000 days.
  ExprPtr range = make_logical(ExprKind::And, {make_compare(CompareOp::Ge, d(), lit(100)), make_compare(CompareOp::Lt, d(), lit(200))});
  CHECK(filter_selectivity(*range, "t", stats) == doctest::Approx(0.1));
  ExprPtr eq = make_compare(CompareOp::Eq, name(), make_dict_code("t", "name", "b", DictMatch::Equal));
  CHECK(filter_selectivity(*eq, "t", stats) == doctest::Approx(0.2));
  ExprPtr absent = make_compare(CompareOp::Eq, name(), make_dict_code("t", "name", "zz", DictMatch::Equal));
  CHECK(filter_selectivity(*absent, "t", stats) == doctest::Approx(kMinSelectivity));
  // name >= 'b' and name <= 'c': codes [1, 3) of [0, 4].
  ExprPtr codes = make_logical(ExprKind::And, {make_compare(CompareOp::Ge, name(), make_dict_code("t", "name", "b", DictMatch::LowerBound)),
                                               make_compare(CompareOp::Lt, name(), make_dict_code("t", "name", "c", DictMatch::UpperBound))});
  CHECK(filter_selectivity(*codes, "t", stats) == doctest::Approx(0.4));
  CHECK(filter_selectivity(*make_like(name(), "%x%"), "t", stats) == doctest::Approx(0.4));
  CHECK(filter_selectivity(*make_logical(ExprKind::Or, {eq, range}), "t", stats) == doctest::Approx(1 - 0.8 * 0.9));
  CHECK(filter_selectivity(*make_not(eq), "t", stats) == doctest::Approx(0.8));
}

TEST_CASE("semi and anti joins keep the fraction of probe keys the build side has") {
  const FixedStats stats;  // every table 1000 rows; d: 1000 distinct values, name: 5
  auto scan = [](const std::string& alias) {
    auto s = std::make_unique<LogicalOp>();
    s->kind = OpKind::Scan;
    s->table = alias;
    s->alias = alias;
    return s;
  };
  // probe t (1000 rows, 1000 distinct t.d) joined on t.d = u.d with u filtered to name = 'b' (1 of 5).
  auto join = [&](JoinType type, bool filtered, bool keys) {
    auto j = std::make_unique<LogicalOp>();
    j->kind = OpKind::Join;
    j->join_type = type;
    j->children.push_back(scan("t"));
    std::unique_ptr<LogicalOp> build = scan("u");
    if (filtered) {
      auto f = std::make_unique<LogicalOp>();
      f->kind = OpKind::Filter;
      ExprPtr name = make_column("u", "name", DataType::fixed_char(10));
      name->dict_table = "u";
      name->dict_column = "name";
      f->predicate = make_compare(CompareOp::Eq, name, make_dict_code("u", "name", "b", DictMatch::Equal));
      f->children.push_back(std::move(build));
      build = std::move(f);
    }
    j->children.push_back(std::move(build));
    if (keys) {
      j->probe_keys.push_back(make_column("t", "d", DataType::date()));
      j->build_keys.push_back(make_column("u", "d", DataType::date()));
    }
    return j;
  };
  // 200 of u's rows survive: at most 200 distinct keys of t's 1000 find a match.
  CHECK(estimate_rows(*join(JoinType::Semi, true, true), stats) == doctest::Approx(200));
  CHECK(estimate_rows(*join(JoinType::Anti, true, true), stats) == doctest::Approx(800));
  // Unfiltered: every key of t is in u (1000 of 1000): the semi join keeps all, the anti join none (1).
  CHECK(estimate_rows(*join(JoinType::Semi, false, true), stats) == doctest::Approx(1000));
  CHECK(estimate_rows(*join(JoinType::Anti, false, true), stats) == doctest::Approx(1));
  // Without keys: the default fraction.
  CHECK(estimate_rows(*join(JoinType::Semi, true, false), stats) == doctest::Approx(1000 * kDefaultSemi));
  CHECK(estimate_rows(*join(JoinType::Anti, true, false), stats) == doctest::Approx(1000 * kDefaultSemi));
}

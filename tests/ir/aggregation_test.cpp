// Aggregation tables beyond the SSB shapes: hashed GROUP BY on several keys (lanes of one key
// buffer), heap strings as row references (outputs, payloads, group keys next to the primary key),
// and 128-bit decimal sums chosen from the statistics' bound.
#include <doctest/doctest.h>

#include <map>

#include "frontend/json_plan.h"
#include "frontend/sql/sql_frontend.h"
#include "ir/build_pipelines.h"
#include "ir/explain.h"
#include "ir/passes.h"
#include "ir/resolve_parameters.h"
#include "planner/statistics.h"
#include "storage/catalog.h"
#include "storage/error.h"

using namespace hqc;

namespace {

// Statistics of a TPC-H database of `scale` x SF 1 rows, with the value ranges of dbgen.
class TpchStats final : public planner::Statistics {
 public:
  explicit TpchStats(double scale) : scale_(scale) {}
  uint64_t rows(const std::string& table) const override {
    static const std::map<std::string, double> sf1 = {{"lineitem", 6001215}, {"orders", 1500000}, {"customer", 150000},
                                                      {"nation", 25}, {"part", 200000}, {"supplier", 10000}};
    double r = sf1.at(table);
    return static_cast<uint64_t>(table == "nation" ? r : r * scale_);
  }
  ColumnStats column(const std::string& table, const std::string& column) const override {
    static const std::map<std::string, std::pair<int64_t, int64_t>> ranges = {
        {"l_extendedprice", {90000, 10494950}}, {"l_discount", {0, 10}},   {"l_tax", {0, 8}},
        {"l_quantity", {100, 5000}},            {"c_custkey", {1, 150000}}, {"l_orderkey", {1, 6000000}},
        {"l_shipdate", {8036, 10561}},  // 1992-01-02 .. 1998-12-01
        {"o_orderdate", {8035, 10440}},  // 1992-01-01 .. 1998-08-02
        {"o_orderkey", {1, 6000000}},           {"l_linestatus", {0, 1}}, {"o_custkey", {1, 150000}}};
    ColumnStats s;
    auto it = ranges.find(column);
    if (it == ranges.end()) return s;
    s.valid = true;
    s.min = it->second.first;
    s.max = it->second.second;
    s.distinct = static_cast<uint64_t>(s.max - s.min + 1);
    (void)table;
    return s;
  }
  int64_t dictionary_code(const std::string&, const std::string&, const std::string&, plan::DictMatch) const override {
    return 0;
  }

 private:
  double scale_;
};

ir::Program build(const std::string& json, const planner::Statistics* stats = nullptr,
                  uint64_t scratchpad_budget = planner::kScratchpadBudgetBytes) {
  Catalog catalog = Catalog::tpch();
  auto plan = std::make_shared<plan::LogicalPlan>(plan::parse_json_plan(json, "test.json", catalog));
  ir::BuildOptions options;
  options.stats = stats;
  options.scratchpad_budget_bytes = scratchpad_budget;
  ir::Program p = ir::build_program(plan, catalog, options);
  ir::run_passes(p, ir::default_passes());
  return p;
}

std::string unsupported(const std::string& json) {
  try {
    build(json);
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Unsupported);
    return e.what();
  }
  return "";
}

const char* kCustomerJoin = R"("input": {"op": "join", "probe": {"op": "scan", "table": "orders"},
      "build": {"op": "scan", "table": "customer"}, "probe_keys": [{"column": "o_custkey"}], "build_keys": [{"column": "c_custkey"}]})";

}  // namespace

TEST_CASE("hashed GROUP BY on several keys: one key buffer, one lane per key, read back per lane") {
  ir::Program p = build(std::string(R"({"plan": {"op": "aggregate", "group_by": [{"column": "o_orderkey"}, {"column": "o_orderdate"},
      {"column": "o_shippriority"}], "aggregates": [{"name": "n", "func": "count_star"}],
      "input": {"op": "scan", "table": "orders"}}})"));
  REQUIRE(p.aggregations.size() == 1);
  const ir::AggregationTable& agg = p.aggregations[0];
  CHECK(agg.layout == ir::AggLayout::GlobalHash);
  CHECK(agg.key_lanes == 3);
  const ir::Buffer* keys = p.find_buffer("agg0_keys");
  REQUIRE(keys);
  CHECK(keys->multiplier == 3);
  CHECK(keys->elements_param == agg.slots_param);
  CHECK(keys->pattern == ir::kEmptyKeyI64);
  for (uint32_t i = 0; i < 3; ++i) {
    CHECK(agg.keys[i].key_buffer == "agg0_keys");
    CHECK(agg.keys[i].key_lane == i);
  }
  CHECK(ir::explain(p).find("agg0_o_orderdate_domain -> agg0_keys lane 1") != std::string::npos);
  // Without statistics the resolution model privatises the table per CTA as a hashed table that
  // the budget holds: 3 key lanes + the count + COUNT(*) = 40 B per slot -> 1024 slots.
  CHECK(agg.scratchpad);
  CHECK(agg.scratchpad_bytes_per_slot == 40);
  CHECK(agg.max_scratchpad_slots == 1024);
  CHECK(p.find_param(agg.local_slots_param)->value == 1024);
  CHECK(p.kernels[0].launch.scratch_slots_param == agg.local_slots_param);
  CHECK(p.kernels[0].reductions[0].technique == ir::Technique::C3);
  CHECK(p.kernels[0].reductions[0].note.empty());
}

TEST_CASE("the privatised table follows the target's scratchpad budget; a C2 under resolution says why") {
  const std::string q = R"({"plan": {"op": "aggregate", "group_by": [{"column": "o_orderkey"}, {"column": "o_orderdate"},
      {"column": "o_shippriority"}], "aggregates": [{"name": "n", "func": "count_star"}],
      "input": {"op": "scan", "table": "orders"}}})";
  // Half the budget: 512 slots of 40 B.
  const ir::Program half = build(q, nullptr, planner::kScratchpadBudgetBytes / 2);
  CHECK(half.aggregations[0].max_scratchpad_slots == 512);
  CHECK(half.find_param(half.aggregations[0].local_slots_param)->value == 512);
  // With statistics of SF 1 (1.5M orders) no per-CTA table of either size is worth it.
  TpchStats sf1(1);
  const ir::Program seen = build(q, &sf1);
  CHECK_FALSE(seen.aggregations[0].scratchpad);
  CHECK(seen.aggregations[0].local_slots_param.empty());
  CHECK(seen.kernels[0].reductions[0].technique == ir::Technique::C2);
  CHECK(seen.kernels[0].reductions[0].note.find("groups, many more than a per-CTA hashed table of 1024 slots") != std::string::npos);
}

TEST_CASE("heap strings are row references: outputs and payloads carry them, the host decodes them") {
  ir::Program out = build(R"({"plan": {"op": "project", "columns": [{"column": "c_name"}, {"column": "c_custkey"}],
      "input": {"op": "scan", "table": "customer"}}})");
  REQUIRE(out.outputs.size() == 1);
  CHECK(out.outputs[0].columns[0].heap_table == "customer");
  CHECK(out.outputs[0].columns[0].heap_column == "c_name");
  CHECK(out.find_buffer(out.outputs[0].columns[0].buffer)->element == ir::ScalarType::I32);
  CHECK(out.result.columns[0].heap_table == "customer");
  CHECK(out.result.columns[1].heap_table.empty());

  // Through a hash table: c_name is a payload of the customer table, probed by orders.
  ir::Program grouped = build(std::string(R"({"plan": {"op": "aggregate", "group_by": [{"column": "c_custkey"}, {"column": "c_name"},
      {"column": "c_phone"}], "aggregates": [{"name": "n", "func": "count_star"}], )") + kCustomerJoin + "}}");
  REQUIRE(grouped.hash_tables.size() == 1);
  CHECK(grouped.hash_tables[0].payload.size() == 3);
  const ir::AggregationTable& agg = grouped.aggregations[0];
  CHECK(agg.layout == ir::AggLayout::GlobalHash);
  CHECK(agg.keys[0].heap_table.empty());
  CHECK(agg.keys[1].heap_table == "customer");
  CHECK(agg.keys[2].heap_column == "c_phone");
  CHECK(grouped.result.columns[1].heap_column == "c_name");
  CHECK(ir::explain(grouped).find("row of customer.c_name") != std::string::npos);
}

TEST_CASE("a heap-string key without its table's primary key: groups per row, merged on the host; MIN/MAX of one stays Unsupported") {
  ir::Program alone = build(R"({"plan": {"op": "aggregate", "group_by": [{"column": "c_phone"}],
      "aggregates": [{"name": "n", "func": "count_star"}], "input": {"op": "scan", "table": "customer"}}})");
  CHECK(alone.aggregations[0].merge_on_host);
  CHECK(alone.aggregations[0].keys[0].merge_on_host);
  // o_custkey is not customer's primary key: two customers could share a name within a group.
  ir::Program other = build(std::string(R"({"plan": {"op": "aggregate", "group_by": [{"column": "o_custkey"}, {"column": "c_name"}],
      "aggregates": [{"name": "n", "func": "count_star"}], )") + kCustomerJoin + "}}");
  CHECK(other.aggregations[0].merge_on_host);
  ir::Program fixed = build(std::string(R"({"plan": {"op": "aggregate", "group_by": [{"column": "c_custkey"}, {"column": "c_name"}],
      "aggregates": [{"name": "n", "func": "count_star"}], )") + kCustomerJoin + "}}");
  CHECK_FALSE(fixed.aggregations[0].merge_on_host);
  CHECK(unsupported(R"({"plan": {"op": "aggregate", "aggregates": [{"name": "m", "func": "max", "arg": {"column": "c_name"}}],
      "input": {"op": "scan", "table": "customer"}}})") ==
        "$.plan: max(customer.c_name) of a heap string (not dictionary-encoded) is not supported yet");
}

TEST_CASE("decimal sums are 128-bit where rows x max |value| can leave int64, 64-bit where statistics bound them") {
  // TPC-H Q1's charge: scale 6, up to 1.13e11 per row; 6e6 rows per SF.
  std::string json = R"({"plan": {"op": "aggregate", "aggregates": [
      {"name": "charge", "func": "sum", "arg": {"op": "*", "left": {"op": "*", "left": {"column": "l_extendedprice"},
         "right": {"op": "-", "left": {"decimal": "1"}, "right": {"column": "l_discount"}}},
         "right": {"op": "+", "left": {"decimal": "1"}, "right": {"column": "l_tax"}}}},
      {"name": "qty", "func": "sum", "arg": {"column": "l_quantity"}},
      {"name": "avg_qty", "func": "avg", "arg": {"column": "l_quantity"}},
      {"name": "n", "func": "count_star"}],
    "input": {"op": "scan", "table": "lineitem"}}})";
  auto wide_of = [](const ir::Program& p) {
    std::map<std::string, bool> out;
    for (const ir::Accumulator& a : p.aggregations[0].accumulators) out[a.name] = a.wide;
    return out;
  };
  ir::Program blind = build(json);
  CHECK(wide_of(blind) == std::map<std::string, bool>{{"charge", true}, {"qty", true}, {"avg_qty__sum", true},
                                                      {"avg_qty__count", false}, {"n", false}});
  const ir::Buffer* charge = blind.find_buffer(blind.aggregations[0].accumulators[0].buffer);
  CHECK(charge->fixed_elements == 2);
  CHECK(ir::explain(blind).find("charge := sum(") != std::string::npos);
  CHECK(ir::explain(blind).find("128-bit -> agg0_charge") != std::string::npos);
  TpchStats sf10(10), sf100(100);
  CHECK(wide_of(build(json, &sf10)) == std::map<std::string, bool>{{"charge", false}, {"qty", false}, {"avg_qty__sum", false},
                                                                   {"avg_qty__count", false}, {"n", false}});
  CHECK(wide_of(build(json, &sf100))["charge"]);
  CHECK(!wide_of(build(json, &sf100))["qty"]);
  // The largest |input| of each SUM (Accumulator::input_bound): from the statistics' column bounds,
  // 0 without them and for COUNTs. l_quantity is at most 50.00 (5000 at scale 2).
  auto bound_of = [](const ir::Program& p) {
    std::map<std::string, uint64_t> out;
    for (const ir::Accumulator& a : p.aggregations[0].accumulators) out[a.name] = a.input_bound;
    return out;
  };
  for (const auto& entry : bound_of(blind)) CHECK_MESSAGE(entry.second == 0, entry.first);  // (no binding: clang 14)
  const std::map<std::string, uint64_t> bounds = bound_of(build(json, &sf10));
  CHECK(bounds.at("qty") == 5000);
  CHECK(bounds.at("avg_qty__sum") == 5000);
  CHECK(bounds.at("charge") > uint64_t{100000000000});  // ~1.1e11 at scale 6
  CHECK(bounds.at("avg_qty__count") == 0);
  CHECK(bounds.at("n") == 0);
}

TEST_CASE("a sum of a derived table's computed column is bounded through the expression it stands for (TPC-H Q8)") {
  // all_nations.volume := l_extendedprice * (1 - l_discount), summed per year above the projection.
  std::string json = R"({"plan": {"op": "aggregate", "group_by": [{"name": "o_year", "expr": {"column": "o_year"}}],
    "aggregates": [{"name": "total", "func": "sum", "arg": {"column": "volume"}},
                   {"name": "big", "func": "sum", "arg": {"op": "case", "when": [{"if": {"op": ">", "left": {"column": "volume"},
                      "right": {"decimal": "100.0000"}}, "then": {"column": "volume"}}], "else": {"decimal": "0.0000"}}}],
    "input": {"op": "project", "columns": [
      {"name": "o_year", "expr": {"op": "extract", "field": "year", "arg": {"column": "o_orderdate"}}},
      {"name": "volume", "expr": {"op": "*", "left": {"column": "l_extendedprice"},
                                  "right": {"op": "-", "left": {"decimal": "1"}, "right": {"column": "l_discount"}}}}],
      "input": {"op": "join", "probe": {"op": "scan", "table": "lineitem"}, "build": {"op": "scan", "table": "orders"},
                "probe_keys": [{"column": "l_orderkey"}], "build_keys": [{"column": "o_orderkey"}]}}}})";
  auto wide = [](const ir::Program& p) {
    std::map<std::string, bool> out;
    for (const ir::Accumulator& a : p.aggregations.back().accumulators) out[a.name] = a.wide;
    return out;
  };
  TpchStats sf10(10), sf10000(10000);
  CHECK(wide(build(json)) == std::map<std::string, bool>{{"total", true}, {"big", true}});      // no statistics
  CHECK(wide(build(json, &sf10)) == std::map<std::string, bool>{{"total", false}, {"big", false}});  // 6e7 x 1.15e9 fits
  CHECK(wide(build(json, &sf10000)) == std::map<std::string, bool>{{"total", true}, {"big", true}});  // 6e10 x 1.15e9 does not
}

TEST_CASE("a 128-bit sum read by a later stage is typed decimal(38,s), and so is what is computed from it") {
  // HAVING over a wide sum, an expression over it, a result column of it: no statistics, so wide.
  std::string json = R"({"plan": {"op": "project", "columns": [{"column": "l_orderkey"},
      {"name": "twice", "expr": {"op": "+", "left": {"column": "qty"}, "right": {"column": "qty"}}},
      {"name": "share", "expr": {"op": "/", "left": {"column": "qty"}, "right": {"column": "n"}}}],
    "input": {"op": "filter", "predicate": {"op": ">", "left": {"column": "qty"}, "right": {"decimal": "300.00"}},
      "input": {"op": "aggregate", "group_by": [{"column": "l_orderkey"}],
        "aggregates": [{"name": "qty", "func": "sum", "arg": {"column": "l_quantity"}}, {"name": "n", "func": "count_star"}],
        "input": {"op": "scan", "table": "lineitem"}}}}})";
  ir::Program p = build(json);
  const std::string text = ir::explain(p);
  CAPTURE(text);
  const ir::Pipeline& last = p.pipelines.back();
  REQUIRE(last.find_attribute("", "qty") != nullptr);
  CHECK(last.find_attribute("", "qty")->attr.type == ir::decimal128(2));
  const ir::OutputTable& out = p.outputs.back();
  REQUIRE(out.columns.size() == 3);
  CHECK(out.columns[1].type == ir::decimal128(2));  // twice: two words per row
  CHECK(p.find_buffer(out.columns[1].buffer)->multiplier == 2);
  CHECK(out.columns[2].type == DataType::float64());
  CHECK(p.result.columns[1].type == DataType::decimal(18, 2));  // shown as the user's type
  TpchStats sf1(1);
  ir::Program bounded = build(json, &sf1);
  CHECK(bounded.outputs.back().columns[1].type == DataType::decimal(18, 2));
  // What has no device form yet says so.
  std::string sum_of_sum = R"({"plan": {"op": "aggregate", "aggregates": [{"name": "t", "func": "sum", "arg": {"column": "qty"}}],
      "input": {"op": "aggregate", "group_by": [{"column": "l_orderkey"}],
        "aggregates": [{"name": "qty", "func": "sum", "arg": {"column": "l_quantity"}}], "input": {"op": "scan", "table": "lineitem"}}}})";
  CHECK(unsupported(sum_of_sum).find("128-bit decimal sum") != std::string::npos);
  std::string key = R"({"plan": {"op": "aggregate", "group_by": [{"column": "qty"}], "aggregates": [{"name": "n", "func": "count_star"}],
      "input": {"op": "aggregate", "group_by": [{"column": "l_orderkey"}],
        "aggregates": [{"name": "qty", "func": "sum", "arg": {"column": "l_quantity"}}], "input": {"op": "scan", "table": "lineitem"}}}})";
  CHECK(unsupported(key).find("as a group key") != std::string::npos);
}

TEST_CASE("hashed group tables are sized from the keys no other key determines") {
  // Q3's shape: l_orderkey probes orders' primary key, so orders' columns add no groups.
  std::string q3 = R"({"plan": {"op": "aggregate", "group_by": [{"column": "l_orderkey"}, {"column": "o_orderdate"},
      {"column": "o_shippriority"}], "aggregates": [{"name": "n", "func": "count_star"}],
    "input": {"op": "join", "probe": {"op": "scan", "table": "lineitem"}, "build": {"op": "scan", "table": "orders"},
      "probe_keys": [{"column": "l_orderkey"}], "build_keys": [{"column": "o_orderkey"}]}}})";
  ir::Program blind = build(q3);
  const ir::Param* cap = blind.find_param(blind.aggregations[0].slots_param);
  REQUIRE(cap);
  CHECK(cap->distinct_columns == std::vector<std::string>{"lineitem.l_orderkey"});
  // Q10's shape: c_custkey is customer's primary key and determines its heap strings.
  ir::Program q10 = build(std::string(R"({"plan": {"op": "aggregate", "group_by": [{"column": "c_custkey"}, {"column": "c_name"},
      {"column": "c_phone"}], "aggregates": [{"name": "n", "func": "count_star"}], )") + kCustomerJoin + "}}");
  CHECK(q10.find_param(q10.aggregations[0].slots_param)->distinct_columns == std::vector<std::string>{"customer.c_custkey"});
  // With statistics: 6M orders at SF 1 are far more groups than a CTA's table holds -> C2.
  TpchStats sf1(1);
  ir::Program seen = build(q3, &sf1);
  CHECK_FALSE(seen.aggregations[0].scratchpad);
  CHECK(seen.kernels[seen.pipelines.size() - 1].reductions[0].technique == ir::Technique::C2);
}

namespace {

// lineitem at SF 10 as dbgen writes it, for one group key: l_orderkey in row order (`sorted`), 60 M
// values of which `distinct` occur (dbgen: 15 M, 4 slots per group).
class OrderKeyStats final : public planner::Statistics {
 public:
  OrderKeyStats(bool sorted, uint64_t distinct) : sorted_(sorted), distinct_(distinct) {}
  uint64_t rows(const std::string&) const override { return 59986052; }
  ColumnStats column(const std::string&, const std::string& column) const override {
    ColumnStats s;
    s.valid = true;
    s.min = column == "l_orderkey" ? 1 : 100;
    s.max = column == "l_orderkey" ? 60000000 : 5000;
    s.distinct = column == "l_orderkey" ? distinct_ : 50;
    s.sorted = column == "l_orderkey" && sorted_;
    return s;
  }
  int64_t dictionary_code(const std::string&, const std::string&, const std::string&, plan::DictMatch) const override {
    return 0;
  }

 private:
  bool sorted_;
  uint64_t distinct_;
};

}  // namespace

TEST_CASE("a sorted group key whose domain is at most 8x its groups is direct-indexed beyond kMaxDirectSlots") {
  // TPC-H Q18's subquery: GROUP BY l_orderkey over lineitem.
  const std::string q = R"({"plan": {"op": "aggregate", "group_by": [{"column": "l_orderkey"}],
      "aggregates": [{"name": "qty", "func": "sum", "arg": {"column": "l_quantity"}}], "input": {"op": "scan", "table": "lineitem"}}})";
  REQUIRE(60000000 > planner::kMaxDirectSlots);
  struct Case {
    bool sorted;
    uint64_t distinct;
    ir::AggLayout layout;
  };
  for (const Case& c : {Case{true, 15000000, ir::AggLayout::DirectIndexed},  // 4 slots per group
                        Case{true, 7500000, ir::AggLayout::DirectIndexed},   // 8: the limit
                        Case{true, 7000000, ir::AggLayout::GlobalHash},      // sparser
                        Case{false, 15000000, ir::AggLayout::GlobalHash}}) { // not sorted: updates at random
    CAPTURE(c.sorted);
    CAPTURE(c.distinct);
    const OrderKeyStats stats(c.sorted, c.distinct);
    const ir::Program p = build(q, &stats);
    REQUIRE(p.aggregations.size() == 1);
    const ir::AggregationTable& agg = p.aggregations[0];
    CHECK(agg.layout == c.layout);
    CHECK(agg.sorted_key == c.sorted);
    if (c.layout == ir::AggLayout::DirectIndexed) {
      // Slots = the key's domain, resolved at run time; no key buffer, no scratchpad copy: C2.
      CHECK(p.find_param(agg.slots_param)->source == ir::Param::Source::Product);
      CHECK(agg.keys[0].key_buffer.empty());
      CHECK(p.kernels[0].reductions[0].technique == ir::Technique::C2);
    }
  }
}

TEST_CASE("hashed group tables: a key modulo a literal has at most that many groups (HorseQC Experiment 2)") {
  // l_orderkey % 16 as the SQL binder writes it: l_orderkey - (l_orderkey / 16) * 16 (integer division).
  TpchStats sf1(1);
  Catalog catalog = Catalog::tpch();
  auto plan = std::make_shared<plan::LogicalPlan>(
      parse_sql("SELECT l_orderkey % 16 AS g, SUM(l_quantity) AS s FROM lineitem GROUP BY l_orderkey % 16", "mod", catalog, &sf1));
  ir::BuildOptions options;
  options.stats = &sf1;
  ir::Program p = ir::build_program(plan, catalog, options);
  ir::run_passes(p, ir::default_passes());
  const ir::AggregationTable& agg = p.aggregations[0];
  REQUIRE(agg.layout == ir::AggLayout::GlobalHash);
  CHECK(p.find_param(agg.slots_param)->distinct_columns == std::vector<std::string>{"mod16(lineitem.l_orderkey)"});
  CHECK(planner::distinct_of_term("mod16(lineitem.l_orderkey)", sf1) == 16);       // keys are positive
  CHECK(planner::distinct_of_term("mod100000000(lineitem.l_orderkey)", sf1) ==      // no more than the keys
        planner::distinct_of_term("lineitem.l_orderkey", sf1));
  CHECK(agg.expected_slots == 16);
  CHECK(agg.scratchpad);  // few groups: a hashed table per CTA (C3) instead of per-tuple atomics
}

TEST_CASE("hashed group tables: keys through renames and EXTRACT of a date are capped by their distinct counts") {
  // Q9's shape: the keys are a derived table's renames, one of them the year of a date column.
  std::string json = R"({"plan": {"op": "aggregate", "group_by": [{"column": "y"}, {"column": "st"}],
    "aggregates": [{"name": "n", "func": "count_star"}],
    "input": {"op": "project", "columns": [{"name": "y", "expr": {"op": "extract", "field": "year", "arg": {"column": "l_shipdate"}}},
      {"name": "st", "expr": {"column": "l_linestatus"}}], "input": {"op": "scan", "table": "lineitem"}}}})";
  TpchStats sf1(1);
  ir::Program p = build(json, &sf1);
  const ir::AggregationTable& agg = p.aggregations[0];
  REQUIRE(agg.layout == ir::AggLayout::GlobalHash);
  const ir::Param* cap = p.find_param(agg.slots_param);
  REQUIRE(cap);
  CHECK(cap->distinct_columns == std::vector<std::string>{"year(lineitem.l_shipdate)", "lineitem.l_linestatus"});
  // 1992..1998 = 7 years x 2 statuses = 14 groups, / load 0.5 -> 28 -> 32 slots (not 6M rows' 2^24).
  CHECK(planner::distinct_of_term("year(lineitem.l_shipdate)", sf1) == 7);
  CHECK(planner::distinct_of_term("month(lineitem.l_shipdate)", sf1) == 12);
  CHECK(ir::resolve_parameters(p, sf1).at(agg.slots_param) == 32);
}

TEST_CASE("hashed group tables: a unique join into a filtered build side reduces the estimated rows") {
  // Q3's shape: lineitem (l_shipdate > 1995-03-15) probes orders (o_orderdate < 1995-03-15).
  std::string json = R"({"plan": {"op": "aggregate", "group_by": [{"column": "l_orderkey"}, {"column": "o_orderdate"}],
    "aggregates": [{"name": "n", "func": "count_star"}],
    "input": {"op": "join", "probe": {"op": "filter", "input": {"op": "scan", "table": "lineitem"},
        "predicate": {"op": ">", "left": {"column": "l_shipdate"}, "right": {"date": "1995-03-15"}}},
      "build": {"op": "filter", "input": {"op": "scan", "table": "orders"},
        "predicate": {"op": "<", "left": {"column": "o_orderdate"}, "right": {"date": "1995-03-15"}}},
      "probe_keys": [{"column": "l_orderkey"}], "build_keys": [{"column": "o_orderkey"}]}}})";
  TpchStats sf1(1);
  ir::Program p = build(json, &sf1);
  const ir::AggregationTable& agg = p.aggregations[0];
  const ir::Param* cap = p.find_param(agg.slots_param);
  REQUIRE(cap);
  REQUIRE(cap->join_filters.size() == 1);
  CHECK(cap->join_filters[0].first == "orders");
  // 6001215 rows x (10561 - 9205 + 1) / 2526 (l_shipdate > 9204) x (9203 - 8035 + 1) / 2406
  // (o_orderdate < 9204) = 1564190 rows, under distinct(l_orderkey) = 6M; / load 0.5 -> 2^22.
  // Without the join's selectivity it would be 3223836 / 0.5 -> 2^23.
  const double expected = 6001215.0 * 1357.0 / 2526.0 * 1169.0 / 2406.0;
  CHECK(ir::capacity_estimate(*cap, sf1, 0) == doctest::Approx(expected));
  CHECK(ir::resolve_parameters(p, sf1).at(agg.slots_param) == (int64_t{1} << 22));
}

TEST_CASE("hashed group tables: a later stage over an earlier group table (COUNT(DISTINCT)) takes its estimate") {
  // Q16's shape: COUNT(DISTINCT l_orderkey) per (year, status) = a first stage grouped by all three,
  // a second grouped by the first two over the first's slots.
  std::string json = R"({"plan": {"op": "aggregate", "group_by": [{"column": "y"}, {"column": "st"}],
    "aggregates": [{"name": "n", "func": "count", "arg": {"column": "k"}}],
    "input": {"op": "aggregate", "group_by": [{"name": "y", "expr": {"op": "extract", "field": "year", "arg": {"column": "l_shipdate"}}},
        {"name": "st", "expr": {"column": "l_linestatus"}}, {"name": "k", "expr": {"column": "l_orderkey"}}],
      "aggregates": [], "input": {"op": "scan", "table": "lineitem"}}}})";
  TpchStats sf1(1);
  ir::Program p = build(json, &sf1);
  REQUIRE(p.aggregations.size() == 2);
  const ir::AggregationTable& first = p.aggregations[0];
  const ir::AggregationTable& second = p.aggregations[1];
  REQUIRE(first.layout == ir::AggLayout::GlobalHash);
  REQUIRE(second.layout == ir::AggLayout::GlobalHash);
  const ir::Param* cap = p.find_param(second.slots_param);
  REQUIRE(cap);
  CHECK(cap->table == "lineitem");
  CHECK(cap->factors.empty());
  CHECK(cap->distinct_columns == std::vector<std::string>{"year(lineitem.l_shipdate)", "lineitem.l_linestatus"});
  const ir::ParamValues v = ir::resolve_parameters(p, sf1);
  // First stage: min(6001215 rows, 7 x 2 x 6000000 groups) / load 0.5 -> 2^24 slots. The second:
  // 7 years x 2 statuses = 14 groups / 0.5 -> 32 slots, not its source's 2^24 slots / 0.5 = 2^25.
  CHECK(v.at(first.slots_param) == (int64_t{1} << 24));
  CHECK(v.at(second.slots_param) == 32);
}

TEST_CASE("hashed group tables: a key that is an earlier stage's COUNT expects few groups, so the CTA keeps it in scratchpad") {
  // TPC-H Q13's shape: orders counted per customer, then customers counted per count — directly
  // over the first stage's slots, and through a join built from it (the eager aggregation's).
  TpchStats sf1(1);
  const Catalog catalog = Catalog::tpch();
  auto compile = [&](const std::string& sql) {
    auto plan = std::make_shared<plan::LogicalPlan>(parse_sql(sql, "q13.sql", catalog, &sf1));
    ir::BuildOptions options;
    options.stats = &sf1;
    ir::Program p = ir::build_program(plan, catalog, options);
    ir::run_passes(p, ir::default_passes());
    return p;
  };
  for (const std::string& sql :
       {std::string("SELECT c_count, count(*) AS custdist FROM (SELECT o_custkey, count(*) AS c_count FROM orders "
                    "GROUP BY o_custkey) AS t GROUP BY c_count"),
        std::string("SELECT c_count, count(*) AS custdist FROM (SELECT c_custkey, count(o_orderkey) AS c_count FROM customer "
                    "LEFT OUTER JOIN orders ON c_custkey = o_custkey GROUP BY c_custkey) AS t GROUP BY c_count")}) {
    CAPTURE(sql);
    const ir::Program p = compile(sql);
    const ir::AggregationTable& counts = p.aggregations.back();
    REQUIRE(counts.keys.size() == 1);
    CHECK(counts.keys[0].name == "c_count");
    REQUIRE(counts.layout == ir::AggLayout::GlobalHash);
    // 1.5 M orders over 150 k customers: lambda = 10, 2 lambda + 16 = 36 groups expected (the bound
    // k (k - 1) / 2 <= 1.5 M allows 1,733), where the capacity's estimate was every customer.
    CHECK(counts.expected_slots == 36);
    CHECK(counts.scratchpad);
    CHECK_FALSE(counts.local_slots_param.empty());
  }
  // A SUM is no count: its groups keep the capacity's estimate (none for a computed key here).
  const ir::Program sums = compile(
      "SELECT s, count(*) AS n FROM (SELECT o_custkey, sum(o_shippriority) AS s FROM orders GROUP BY o_custkey) AS t GROUP BY s");
  CHECK(sums.aggregations.back().expected_slots == 0);
}

TEST_CASE("the result's aggregation table is compacted on the device; tables later stages read are not") {
  std::string json = R"({"plan": {"op": "aggregate", "group_by": [{"column": "l_orderkey"}, {"column": "l_linestatus"}],
    "aggregates": [{"name": "s", "func": "sum", "arg": {"column": "l_extendedprice"}}, {"name": "a", "func": "avg", "arg": {"column": "l_quantity"}}],
    "input": {"op": "scan", "table": "lineitem"}}})";
  ir::Program p = build(json);
  const ir::AggregationTable& agg = p.aggregations[0];
  REQUIRE(agg.compaction);
  const ir::Compaction& c = *agg.compaction;
  // Key lanes (2 per slot), the 128-bit sum (2 words), AVG's sum and count.
  REQUIRE(c.columns.size() == 4);
  CHECK(c.columns[0].from == "agg0_keys");
  CHECK(c.columns[0].words == 2);
  CHECK(c.columns[1].words == (agg.accumulators[0].wide ? 2u : 1u));
  CHECK(agg.accumulators[0].wide);
  CHECK(c.slot_buffer.empty());
  REQUIRE(p.kernels.size() == p.pipelines.size() + 2);
  CHECK(p.kernels[p.pipelines.size()].kind == ir::KernelKind::CompactCount);
  CHECK(p.kernels[p.pipelines.size() + 1].kind == ir::KernelKind::CompactGather);
  CHECK(p.kernels.back().pipeline == p.pipelines.back().id);
  CHECK(p.find_buffer(c.counts_buffer)->fixed_elements == ir::kCompactChunks);
  // Skipping the pass leaves the table sparse (the host then reads its occupied slots).
  Catalog catalog = Catalog::tpch();
  auto plan = std::make_shared<plan::LogicalPlan>(plan::parse_json_plan(json, "test.json", catalog));
  ir::Program sparse = ir::build_program(plan, catalog, {});
  ir::PassOptions skip;
  skip.skip = {"compact_result"};
  ir::run_passes(sparse, ir::default_passes(), skip);
  CHECK_FALSE(sparse.aggregations[0].compaction);
  CHECK(sparse.kernels.size() == sparse.pipelines.size());
}

TEST_CASE("MIN/MAX of a 128-bit sum: a 128-bit accumulator with a zero-filled state word per slot, never in scratchpad") {
  // Per (l_linestatus, l_returnflag) the sum of l_extendedprice * (1 - l_discount): 128-bit at SF
  // 10000 (6e10 rows x 1.05e9); per l_returnflag its MAX and MIN.
  auto json = [](const std::string& aggregates) {
    return R"({"plan": {"op": "aggregate", "group_by": [{"column": "l_returnflag"}], "aggregates": [)" + aggregates + R"(],
      "input": {"op": "aggregate", "group_by": [{"column": "l_linestatus"}, {"column": "l_returnflag"}],
        "aggregates": [{"name": "price", "func": "sum", "arg": {"op": "*", "left": {"column": "l_extendedprice"},
                         "right": {"op": "-", "left": {"decimal": "1"}, "right": {"column": "l_discount"}}}}],
        "input": {"op": "scan", "table": "lineitem"}}}})";
  };
  TpchStats sf10000(10000);
  const ir::Program p = build(json(R"({"name": "hi", "func": "max", "arg": {"column": "price"}},
                                      {"name": "lo", "func": "min", "arg": {"column": "price"}})"),
                              &sf10000);
  const ir::AggregationTable& outer = p.aggregations.back();
  REQUIRE(outer.accumulators.size() == 2);
  for (const ir::Accumulator& a : outer.accumulators) {
    CAPTURE(a.name);
    CHECK(a.wide);
    const ir::Buffer* words = p.find_buffer(a.buffer);
    REQUIRE(words != nullptr);
    CHECK(words->multiplier == 2);
    CHECK(words->fill == ir::Buffer::Fill::Zero);  // the state word, not a fill pattern, says "no value yet"
    const ir::Buffer* state = p.find_buffer(a.state_buffer);
    REQUIRE(state != nullptr);
    CHECK(state->element == ir::ScalarType::U32);
    CHECK(state->fill == ir::Buffer::Fill::Zero);
    CHECK(state->elements_param == outer.slots_param);
  }
  CHECK_FALSE(outer.scratchpad);  // locked updates live in global memory only
  CHECK(ir::explain(p).find("128-bit -> agg1_hi state agg1_hi_state") != std::string::npos);
  // The same table without them is privatised: the 128-bit MIN/MAX is what keeps it in global memory.
  const ir::Program counted = build(json(R"({"name": "n", "func": "count_star"})"), &sf10000);
  CHECK(counted.aggregations.back().scratchpad);
}

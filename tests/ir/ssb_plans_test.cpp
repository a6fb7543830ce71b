// Every SSB plan in ssb/plans/ parses, binds, lowers into the expected pipelines and passes the
// verifier after every pass; its parameters resolve against a small database.
#include <doctest/doctest.h>

#include <memory>

#include "frontend/json_plan.h"
#include "ir/build_pipelines.h"
#include "ir/explain.h"
#include "ir/passes.h"
#include "ir/resolve_parameters.h"
#include "planner/statistics.h"
#include "storage/catalog.h"
#include "tests/ir/ssb_fixture.h"

using namespace hqc;

namespace {

struct Expected {
  const char* name;
  size_t dimension_joins;  // hash builds = pipelines - 1
  size_t group_keys;
};

const Expected kSsb[] = {
    {"q1.1", 1, 0}, {"q1.2", 1, 0}, {"q1.3", 1, 0}, {"q2.1", 3, 2}, {"q2.2", 3, 2}, {"q2.3", 3, 2}, {"q3.1", 3, 3},
    {"q3.2", 3, 3}, {"q3.3", 3, 3}, {"q3.4", 3, 3}, {"q4.1", 4, 2}, {"q4.2", 4, 3}, {"q4.3", 4, 3},
};

ir::Program compile(const std::string& name, const planner::Statistics* stats, ir::ExecutionModel model = ir::ExecutionModel::Resolution) {
  Catalog catalog = Catalog::ssb();
  auto plan = std::make_shared<plan::LogicalPlan>(plan::load_json_plan(test::source_dir() + "/ssb/plans/" + name + ".json", catalog));
  ir::BuildOptions options;
  options.stats = stats;
  options.model = model;
  ir::Program program = ir::build_program(plan, catalog, options);
  ir::run_passes(program, ir::default_passes());
  return program;
}

}  // namespace

TEST_CASE("every SSB plan breaks into one build pipeline per dimension and one probe pipeline") {
  Database db = test::ssb_database();
  planner::DatabaseStatistics stats(db);
  for (const Expected& e : kSsb) {
    std::string query = e.name;
    CAPTURE(query);
    ir::Program p = compile(e.name, &stats);
    REQUIRE(p.pipelines.size() == e.dimension_joins + 1);
    for (size_t i = 0; i + 1 < p.pipelines.size(); ++i) {
      CHECK(p.pipelines[i].sink.kind == ir::SinkKind::HashBuild);
      CHECK(p.pipelines[i].ops.size() <= 1);  // at most the dimension's filter
    }
    const ir::Pipeline& last = p.pipelines.back();
    CHECK(last.source.table == "lineorder");
    CHECK(last.sink.kind == ir::SinkKind::Aggregate);
    CHECK(last.depends_on.size() == e.dimension_joins);
    size_t probes = 0;
    for (const ir::PipelineOp& op : last.ops) probes += op.kind == ir::PipelineOpKind::Probe;
    CHECK(probes == e.dimension_joins);
    REQUIRE(p.aggregations.size() == 1);
    CHECK(p.aggregations[0].keys.size() == e.group_keys);
    CHECK(p.aggregations[0].layout == (e.group_keys ? ir::AggLayout::DirectIndexed : ir::AggLayout::Scalar));
    // SSB dimension keys are dense: every join uses a perfect hash.
    for (const ir::HashTable& ht : p.hash_tables) CHECK(ht.layout == ir::HashLayout::PerfectHash);
    // One compound kernel per pipeline; a grouped result is compacted by two more.
    CHECK(p.kernels.size() == p.pipelines.size() + (e.group_keys ? 2 : 0));
    ir::ParamValues values = ir::resolve_parameters(p, db);
    CHECK(values.values.size() == p.params.size());
  }
}

TEST_CASE("Q1.1 reads only referenced columns and aggregates with B3 under resolution, B2 when pipelined") {
  Database db = test::ssb_database();
  planner::DatabaseStatistics stats(db);
  ir::Program p = compile("q1.1", &stats);
  const ir::Pipeline& build = p.pipelines[0];
  CHECK(build.source.table == "date");
  CHECK(build.source.columns == std::vector<std::string>{"d_datekey", "d_year"});
  CHECK(p.hash_tables[0].payload.empty());  // nothing of date is used above the join
  const ir::Pipeline& probe = p.pipelines[1];
  CHECK(probe.source.columns == std::vector<std::string>{"lo_orderdate", "lo_quantity", "lo_extendedprice", "lo_discount"});
  REQUIRE(p.kernels[1].reductions.size() == 1);
  CHECK(p.kernels[1].reductions[0].technique == ir::Technique::B3);
  CHECK(p.kernels[0].reductions.empty());
  ir::Program pipelined = compile("q1.1", &stats, ir::ExecutionModel::Pipelined);
  CHECK(pipelined.kernels[1].reductions[0].technique == ir::Technique::B2);
}

TEST_CASE("Q4.3 group keys use dictionary domains; the grouped reduction is C3 in scratchpad or C2 pipelined") {
  Database db = test::ssb_database();
  planner::DatabaseStatistics stats(db);
  ir::Program p = compile("q4.3", &stats);
  const ir::AggregationTable& agg = p.aggregations[0];
  REQUIRE(agg.keys.size() == 3);
  CHECK(agg.keys[1].dict_column == "s_city");
  ir::ParamValues v = ir::resolve_parameters(p, db);
  CHECK(v.at(agg.keys[0].domain_param) == 7);     // d_year 1992..1998
  CHECK(v.at(agg.keys[1].domain_param) == 20);    // the 20 suppliers live in 20 distinct cities
  CHECK(v.at(agg.slots_param) == v.at(agg.keys[0].domain_param) * v.at(agg.keys[1].domain_param) * v.at(agg.keys[2].domain_param));
  CHECK(p.kernels[p.pipelines.size() - 1].reductions[0].kind == ir::ReductionKind::GroupedAggregate);
  ir::Program pipelined = compile("q4.3", &stats, ir::ExecutionModel::Pipelined);
  CHECK(pipelined.kernels[pipelined.pipelines.size() - 1].reductions[0].technique == ir::Technique::C2);
}

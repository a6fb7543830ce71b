// pipeline_waves() on hand-built plans (no device needed): the exact waves and dependencies of a
// star join (three independent builds, a probe that reads all three and a materialised output's
// row count, a stage over the output, a last stage over the probe's table), a parameter used before
// a later pipeline sets it, columns that never order pipelines, and a chain.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "runtime/execution/pipeline_waves.h"

using namespace hqc::runtime;

namespace {

LaunchSpec launch(std::vector<ArgSpec> args, std::string tuples = "") {
  LaunchSpec l;
  l.kernel = "k";
  l.args = std::move(args);
  l.tuples_param = std::move(tuples);
  return l;
}

PipelineSpec pipeline(std::string name, std::vector<LaunchSpec> launches) {
  PipelineSpec p;
  p.name = std::move(name);
  p.launches = std::move(launches);
  return p;
}

}  // namespace

TEST_CASE("pipeline_waves: independent builds share a wave, their probe and later stages follow") {
  ExecutablePlan plan;
  // 0, 1: hash builds of two dimension tables (same column read: columns never order pipelines).
  plan.pipelines.push_back(pipeline("build a", {launch({ArgSpec::col("nation", "n_key"), ArgSpec::buf("ht_a"),
                                                        ArgSpec::buf("ovf_a"), ArgSpec::param("cap_a", ScalarKind::I64)},
                                                       "rows_nation")}));
  plan.pipelines.back().checks.push_back({"ovf_a", CheckSpec::Action::Grow, {"cap_a"}, "ht a", {}});
  plan.pipelines.push_back(pipeline("build b", {launch({ArgSpec::col("nation", "n_key"), ArgSpec::buf("ht_b"),
                                                        ArgSpec::param("cap_b", ScalarKind::I64)},
                                                       "rows_nation")}));
  // 2: materialises an output (its counter is the row count of a later stage).
  plan.pipelines.push_back(pipeline("materialise c", {launch({ArgSpec::col("orders", "o_key"), ArgSpec::buf("out_c"),
                                                              ArgSpec::buf("out_c_rows")},
                                                             "rows_orders")}));
  // 3: probes a and b, reads the output's rows through a parameter, aggregates into agg.
  plan.pipelines.push_back(pipeline("probe", {launch({ArgSpec::col("lineitem", "l_key"), ArgSpec::buf("ht_a"),
                                                      ArgSpec::buf("ht_b"), ArgSpec::buf("agg"),
                                                      ArgSpec::param("c_rows", ScalarKind::I64)},
                                                     "rows_lineitem")}));
  plan.pipelines.back().params_from_buffers.push_back({"c_rows", "out_c_rows", "", "", 0});
  // 4: scans the output over c_rows (set by 3) into its own table: the same wave as 3 at the earliest.
  plan.pipelines.push_back(pipeline("scan c", {launch({ArgSpec::buf("out_c"), ArgSpec::buf("agg2")}, "c_rows")}));
  // 5: reads agg (written by 3) and agg2 (written by 4).
  plan.pipelines.push_back(
      pipeline("final", {launch({ArgSpec::buf("agg"), ArgSpec::buf("agg2"), ArgSpec::buf("out_final")})}));

  const PipelineWaves w = pipeline_waves(plan);
  CHECK(w.wave == std::vector<size_t>{0, 0, 0, 1, 1, 2});
  CHECK(w.waves == 3);
  CHECK(w.after[0].empty());
  CHECK(w.after[1].empty());
  CHECK(w.after[2].empty());
  CHECK(w.after[3] == std::vector<size_t>{0, 1, 2});
  CHECK(w.after[4] == std::vector<size_t>{2, 3});
  CHECK(w.after[5] == std::vector<size_t>{3, 4});
}

TEST_CASE("pipeline_waves: a parameter used before a later pipeline sets it keeps the later one in its wave or after") {
  ExecutablePlan plan;
  // 0 writes x; 1 writes y, reads x: wave 1. 2 uses p (its old value): independent of 0 and 1 by
  // buffers. 3 sets p from y: after 1 (wave 2) and not before 2 (which uses p).
  plan.pipelines.push_back(pipeline("write x", {launch({ArgSpec::buf("x")})}));
  plan.pipelines.push_back(pipeline("x to y", {launch({ArgSpec::buf("x"), ArgSpec::buf("y")})}));
  plan.pipelines.push_back(pipeline("use p", {launch({ArgSpec::buf("z"), ArgSpec::param("p", ScalarKind::I32)})}));
  plan.pipelines.push_back(pipeline("set p", {launch({ArgSpec::buf("w")})}));
  plan.pipelines.back().params_from_buffers.push_back({"p", "y", "", "", 0});
  const PipelineWaves w = pipeline_waves(plan);
  CHECK(w.wave == std::vector<size_t>{0, 1, 0, 2});
  CHECK(w.after[3] == std::vector<size_t>{1, 2});

  // When 2 itself depends on a later wave, 3 moves with it: a chain through z.
  plan.pipelines.insert(plan.pipelines.begin() + 2, pipeline("y to z", {launch({ArgSpec::buf("y"), ArgSpec::buf("z")})}));
  plan.pipelines.push_back(pipeline("read w", {launch({ArgSpec::buf("w"), ArgSpec::buf("z")})}));
  const PipelineWaves v = pipeline_waves(plan);
  // 0 x; 1 x,y; 2 y,z; 3 z, uses p; 4 sets p from y, w; 5 w,z.
  CHECK(v.wave == std::vector<size_t>{0, 1, 2, 3, 3, 4});
  CHECK(v.waves == 5);
}

TEST_CASE("pipeline_waves: a nonzero buffer, a flag and a scratchpad parameter are touches too") {
  ExecutablePlan plan;
  plan.pipelines.push_back(pipeline("scalar", {launch({ArgSpec::buf("sum"), ArgSpec::buf("seen")})}));
  plan.pipelines.push_back(pipeline("flagged", {launch({ArgSpec::buf("t")})}));
  plan.pipelines.back().checks.push_back({"seen", CheckSpec::Action::Fail, {}, "x", {}});
  LaunchSpec scratch = launch({ArgSpec::buf("u")});
  scratch.scratch_bytes_per_param.emplace_back("slots", 8);
  plan.pipelines.push_back(pipeline("privatised", {scratch}));
  plan.pipelines.push_back(pipeline("value", {launch({ArgSpec::buf("v")})}));
  plan.pipelines.back().params_from_buffers.push_back({"slots", "sum2", "seen", "", 0});
  const PipelineWaves w = pipeline_waves(plan);
  // 1 shares the flag "seen" with 0; 3 reads "seen" (after 0 and 1) and sets "slots" that 2 used.
  CHECK(w.wave == std::vector<size_t>{0, 1, 0, 2});
  CHECK(w.after[3] == std::vector<size_t>{0, 1, 2});
}

TEST_CASE("pipeline_waves: an empty plan has no waves") {
  const PipelineWaves w = pipeline_waves(ExecutablePlan{});
  CHECK(w.waves == 0);
  CHECK(w.wave.empty());
}

TEST_CASE("pipeline_waves: pipelines that only read a buffer run at once; a writer orders them") {
  ExecutablePlan plan;
  // 0 builds ht; 1 and 2 probe it (read only) while building their own tables: both in wave 1.
  // 3 writes ht again: after both readers. 4 reads ht only, but after the writer 3.
  plan.pipelines.push_back(pipeline("build ht", {launch({ArgSpec::buf("ht")})}));
  plan.pipelines.push_back(pipeline("probe into a", {launch({ArgSpec::buf("ht", false), ArgSpec::buf("a")})}));
  plan.pipelines.push_back(pipeline("probe into b", {launch({ArgSpec::buf("ht", false), ArgSpec::buf("b")})}));
  plan.pipelines.push_back(pipeline("rewrite ht", {launch({ArgSpec::buf("ht")})}));
  plan.pipelines.push_back(pipeline("probe into c", {launch({ArgSpec::buf("ht", false), ArgSpec::buf("c")})}));
  const PipelineWaves w = pipeline_waves(plan);
  CHECK(w.wave == std::vector<size_t>{0, 1, 1, 2, 3});
  CHECK(w.after[2] == std::vector<size_t>{0});
  CHECK(w.after[3] == std::vector<size_t>{0, 1, 2});
  CHECK(w.after[4] == std::vector<size_t>{0, 3});
}

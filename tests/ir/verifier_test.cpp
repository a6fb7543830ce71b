// The verifier catches broken IR (each mutation names what broke), and the pass driver verifies,
// times, skips and dumps.
#include <doctest/doctest.h>

#include <iostream>
#include <sstream>

#include "ir/explain.h"
#include "ir/verifier.h"
#include "storage/error.h"
#include "tests/ir/ir_test_util.h"

using namespace hqc;

namespace {

ir::Program q21() {
  ir::Program p = test::build_ssb("q2.1");
  ir::run_passes(p, ir::default_passes());
  return p;
}

std::string verify_error(const ir::Program& p) {
  try {
    ir::verify(p);
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Internal);
    return e.what();
  }
  return "";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// Redirects std::cerr for the lifetime of the object.
struct CaptureStderr {
  std::stringstream buffer;
  std::streambuf* old = std::cerr.rdbuf(buffer.rdbuf());
  ~CaptureStderr() { std::cerr.rdbuf(old); }
};

}  // namespace

TEST_CASE("a freshly compiled program verifies") { CHECK(verify_error(q21()).empty()); }

TEST_CASE("the verifier catches broken IR") {
  {
    ir::Program p = q21();
    std::swap(p.pipelines[0], p.pipelines[3]);  // the probe pipeline before the builds
    CHECK(contains(verify_error(p), "pipeline p3: id does not match its position 0"));
  }
  {
    ir::Program p = q21();
    p.pipelines[3].depends_on.clear();  // probes without depending on the builds
    CHECK(contains(verify_error(p), "before a pipeline it depends on builds it"));
  }
  {
    ir::Program p = q21();
    p.pipelines[3].ops[0].hash_table = "ht7";
    CHECK(contains(verify_error(p), "pipeline p3 op 2: probe of unknown hash table ht7"));
  }
  {
    ir::Program p = q21();
    // Use a payload attribute before the probe that binds it.
    p.pipelines[3].ops.insert(p.pipelines[3].ops.begin(),
                              ir::PipelineOp{ir::PipelineOpKind::Filter, 99,
                                             plan::make_compare(plan::CompareOp::Eq, plan::make_column("date", "d_year", DataType::int32()),
                                                                plan::make_int_literal(1993, DataType::int32()))});
    CHECK(contains(verify_error(p), "op 99: attribute date.d_year is used before it is bound"));
  }
  {
    ir::Program p = q21();
    p.buffers.pop_back();
    CHECK(contains(verify_error(p), "unknown buffer"));
  }
  {
    ir::Program p = q21();
    p.params.erase(p.params.begin());
    CHECK(contains(verify_error(p), "unknown param \"rows_date\""));
  }
  {
    ir::Program p = q21();
    p.pipelines[0].ops.push_back(ir::PipelineOp{ir::PipelineOpKind::Filter, 77, plan::make_int_literal(1, DataType::int32())});
    CHECK(contains(verify_error(p), "predicate 1 is not boolean"));
  }
  {
    ir::Program p = q21();
    p.pipelines.push_back(p.pipelines[0]);  // two pipelines build one hash table
    p.pipelines.back().id = 4;
    CHECK(contains(verify_error(p), "state object ht0 is the sink of 2 pipelines (expected 1)"));
  }
  {
    ir::Program p = q21();
    p.kernels[p.pipelines.size() - 1].reductions[0].technique = ir::Technique::B2;
    CHECK(contains(verify_error(p), "technique B2 under the resolution model"));
  }
  {
    ir::Program p = q21();  // compaction kernels follow the compound kernels and name a compacted table
    p.aggregations[0].compaction.reset();
    CHECK(contains(verify_error(p), "compacts agg0, which has no compaction"));
  }
  {
    ir::Program p = q21();
    std::swap(p.kernels[p.pipelines.size() - 1], p.kernels.back());
    CHECK(contains(verify_error(p), "expected the kernels of every pipeline"));
  }
  {
    ir::Program p = q21();
    p.result.order_by.push_back({"nope", false});
    CHECK(contains(verify_error(p), "ORDER BY names nope"));
  }
  {
    ir::Program p = q21();
    for (ir::Param& prm : p.params) {
      if (prm.source == ir::Param::Source::DictCode) prm.literal = "OTHER";
    }
    CHECK(contains(verify_error(p), "does not match its param"));
  }
}

TEST_CASE("the pass driver verifies after each pass and names the pass that broke the IR") {
  ir::Program p = test::build_ssb("q1.1");
  std::vector<ir::Pass> passes = ir::default_passes();
  passes.insert(passes.begin() + 1, ir::Pass{"break_things", [](ir::Program& prog) { prog.pipelines[1].depends_on = {}; }});
  try {
    ir::run_passes(p, passes);
    FAIL("expected the verifier to throw");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Internal);
    CHECK(contains(e.what(), "after pass break_things: IR verifier (q1_1): pipeline p1 op 2: probes ht0 before a pipeline it depends on builds it"));
  }
}

TEST_CASE("passes are timed, can be skipped by name, and an unknown name is a usage error") {
  ir::Program p = test::build_ssb("q1.1");
  ir::PassOptions options;
  options.skip = {"launch_constraints"};
  std::vector<ir::PassTiming> t = ir::run_passes(p, ir::default_passes(), options);
  REQUIRE(t.size() == 14);
  CHECK(t[0].name == "shared_aggregations");
  CHECK(t[1].name == "shared_builds");
  CHECK(t[2].name == "reduce_builds");
  CHECK(t[3].name == "order_probes");
  CHECK(t[4].name == "split_combine");
  CHECK(t[5].name == "output_bounds");
  CHECK(t[6].name == "dictionary_tables");
  CHECK(t[7].name == "assign_parameters");
  CHECK(t[8].name == "flag_arithmetic");
  CHECK_FALSE(t[0].skipped);
  CHECK(t[0].milliseconds >= 0.0);
  CHECK(t[11].name == "rank_key_ranges");
  CHECK(t[12].name == "narrow_columns");
  CHECK(t[13].skipped);
  CHECK(p.kernels[1].launch.tuples_param.empty());  // launch_constraints did not run
  ir::Program q = test::build_ssb("q1.1");
  options.skip = {"fuse"};
  try {
    ir::run_passes(q, ir::default_passes(), options);
    FAIL("expected a usage error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Usage);
    CHECK(std::string(e.what()) == "cannot skip unknown pass \"fuse\" (passes: shared_aggregations, shared_builds, reduce_builds, order_probes, split_combine, output_bounds, dictionary_tables, assign_parameters, flag_arithmetic, fuse_pipelines, compact_result, rank_key_ranges, narrow_columns, launch_constraints)");
  }
}

TEST_CASE("HORSEQC_DUMP_IR dumps the IR to stderr after every pass") {
  ir::Program p = test::build_ssb("q1.1");
  std::string dumped;
  {
    CaptureStderr capture;
    setenv("HORSEQC_DUMP_IR", "1", 1);
    ir::run_passes(p, ir::default_passes());
    unsetenv("HORSEQC_DUMP_IR");
    dumped = capture.buffer.str();
  }
  CHECK(contains(dumped, "=== IR after build_program ===\nlogical plan q1.1\n"));
  CHECK(contains(dumped, "=== IR after assign_parameters ("));
  CHECK(contains(dumped, "=== IR after fuse_pipelines ("));
  CHECK(contains(dumped, "=== IR after launch_constraints ("));
  CHECK(contains(dumped, "kernel q1_1_p1_aggregate"));
  ir::Program quiet = test::build_ssb("q1.1");
  CaptureStderr capture;
  ir::run_passes(quiet, ir::default_passes());
  CHECK(capture.buffer.str().empty());
}

// Golden tests of generated source for the hand-built programs (test_programs.h) in both dialects
// and both models: the exact text is the contract with readers of generated kernels, and any change
// to it shows up in review. Regenerate with HORSEQC_UPDATE_GOLDEN=1.
#include <doctest/doctest.h>

#include "codegen/generate.h"
#include "tests/codegen/golden.h"
#include "tests/codegen/test_programs.h"

using hqc::codegen::Dialect;

TEST_CASE("golden: hand-built programs, both dialects, both models") {
  struct Case {
    const char* name;
    hqc::ir::Program (*build)(const hqc::test::ProgramOptions&);
  };
  const Case cases[] = {{"scalar_join", hqc::test::scalar_join_program},
                        {"grouped_join", hqc::test::grouped_join_program},
                        {"materialize", hqc::test::materialize_program},
                        {"hashed_group", hqc::test::hashed_group_program},
                        {"hashed_two_key", hqc::test::hashed_two_key_program}};
  for (const Case& c : cases) {
    for (auto model : {hqc::ir::ExecutionModel::Resolution, hqc::ir::ExecutionModel::Pipelined}) {
      hqc::test::ProgramOptions o;
      o.model = model;
      o.local = model == hqc::ir::ExecutionModel::Resolution ? hqc::ir::LocalResolution::Simd : hqc::ir::LocalResolution::None;
      hqc::ir::Program p = c.build(o);
      for (Dialect d : {Dialect::Cuda, Dialect::OpenCL}) {
        std::string name = std::string(c.name) + "." + hqc::ir::execution_model_name(model);
        CAPTURE(name);
        hqc::test::check_golden(name, hqc::codegen::generate(p, d));
      }
    }
  }
}

TEST_CASE("generation is deterministic and the kernel body is dialect-independent") {
  hqc::ir::Program p = hqc::test::grouped_join_program({});
  auto a = hqc::codegen::generate(p, Dialect::Cuda);
  auto b = hqc::codegen::generate(p, Dialect::Cuda);
  auto c = hqc::codegen::generate(p, Dialect::OpenCL);
  CHECK(a.source == b.source);
  CHECK(a.kernels_source == c.kernels_source);  // every difference lives in the prelude (dialect table)
  CHECK(a.source != c.source);
}

TEST_CASE("manifest: args in kernel order with the scratchpad last, sizes as functions of block and params") {
  hqc::ir::Program p = hqc::test::grouped_join_program({});
  auto gp = hqc::codegen::generate(p, Dialect::OpenCL);
  REQUIRE(gp.kernels.size() == 2);
  const auto& k = gp.kernels[1];
  CHECK(k.work_items_param == "rows_fact");
  CHECK(k.args.back().kind == hqc::ir::KernelArg::Kind::Scratch);
  CHECK(k.reductions.at(0).technique == hqc::ir::Technique::C3);
  // 4 privatised arrays (sum, min, max, count) of agg0_slots int64 each.
  CHECK(k.scratch.bytes(128, [](const std::string& name) { return name == "agg0_slots" ? int64_t{320} : int64_t{0}; }) ==
        4 * 320 * 8);
  auto j = gp.to_json();
  CHECK(j["dialect"] == "opencl");
  CHECK(j["kernels"][1]["reductions"][0]["technique"] == "C3");
  CHECK(j["kernels"][0]["args"][0]["table"] == "dim");
}

TEST_CASE("technique fallbacks are recorded, not silent") {
  hqc::test::ProgramOptions o;
  o.local = hqc::ir::LocalResolution::Simd;
  o.scratchpad = false;
  auto scalar = hqc::codegen::generate(hqc::test::scalar_join_program(o), Dialect::OpenCL);
  CHECK(scalar.kernels[1].reductions[0].technique == hqc::ir::Technique::B3);
  CHECK(scalar.kernels[1].reductions[0].local == hqc::ir::LocalResolution::WorkEfficient);
  CHECK(scalar.kernels[1].reductions[0].note.find("SIMD") != std::string::npos);
  auto cuda = hqc::codegen::generate(hqc::test::scalar_join_program(o), Dialect::Cuda);
  CHECK(cuda.kernels[1].reductions[0].local == hqc::ir::LocalResolution::Simd);
  CHECK(cuda.kernels[1].block_size_multiple == 32);
  auto grouped = hqc::codegen::generate(hqc::test::grouped_join_program(o), Dialect::Cuda);
  CHECK(grouped.kernels[1].reductions[0].technique == hqc::ir::Technique::C2);
  CHECK_FALSE(grouped.kernels[1].reductions[0].note.empty());
}

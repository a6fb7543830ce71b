// The consistency check over every SSB and TPC-H query, both targets and all four models: Clang's
// view of each kernel agrees with the launch manifest and the IR, and the Table 4 signatures are
// there — resolution-model reductions reach global memory only per CTA (or per slot after the tile
// loop, or on C3's spill path), pipelined-model ones per tuple, multi-pass ones (also
// operator_at_a_time's) never but by a C1 slot's CAS.
#include <doctest/doctest.h>

#include <algorithm>

#include <string>
#include <vector>

#include "inspect/inspect.h"
#include "ssb/benchmark_queries.h"
#include "tests/inspect/inspect_queries.h"
#include "tpch/benchmark_queries.h"

namespace {

std::vector<std::string> all_queries() {
  std::vector<std::string> queries;
  for (const std::string& q : hqc::ssb::query_names()) queries.push_back("ssb:" + q);
  for (const std::string& q : hqc::tpch::query_names()) queries.push_back("tpch:" + q);
  return queries;
}

}  // namespace

TEST_CASE("every SSB and TPC-H query x target x model: the AST agrees with the manifest and the IR") {
  using hqc::inspect::Position;
  int reports = 0, checks = 0, per_cta = 0, per_tuple_reduction = 0;
  for (const std::string& query : all_queries())
    for (auto dialect : {hqc::codegen::Dialect::Cuda, hqc::codegen::Dialect::OpenCL})
      for (auto model : {hqc::ir::ExecutionModel::Resolution, hqc::ir::ExecutionModel::Pipelined, hqc::ir::ExecutionModel::MultiPass,
                         hqc::ir::ExecutionModel::OperatorAtATime}) {
        CAPTURE(query);
        const std::string target = hqc::codegen::dialect_name(dialect);
    CAPTURE(target);
        const std::string model_name = hqc::ir::execution_model_name(model);
        CAPTURE(model_name);
        const auto compiled = hqc::test::compile_benchmark_query(query, model, dialect);
        const auto report = hqc::inspect::inspect_query(compiled.program, compiled.generated, hqc::test::benchmark_catalog(query));
        ++reports;
        checks += report.checks;
        for (const auto& e : report.errors) FAIL_CHECK(report.file_name << ":" << e.line << ": " << e.kernel << ": " << e.message);
        // Every kernel of the query's own source is reported (the compaction kernels are the
        // compaction module's, not in it).
        const auto own = std::count_if(compiled.generated.kernels.begin(), compiled.generated.kernels.end(),
                                       [](const hqc::codegen::KernelManifest& m) { return m.module.empty(); });
        REQUIRE(report.kernels.size() == static_cast<size_t>(own));
        for (const auto& k : report.kernels) {
          for (const auto& a : k.ast.atomics) {
            if (a.space != hqc::inspect::Space::Global) continue;
            for (const auto& r : k.manifest.reductions) {
              const bool on_state = a.target.rfind(r.state + "_", 0) == 0;
              if (on_state && a.position == Position::PerCta) ++per_cta;
              if (on_state && a.position == Position::PerTuple && model == hqc::ir::ExecutionModel::Pipelined) ++per_tuple_reduction;
            }
          }
        }
      }
  CHECK(reports == 35 * 2 * 4);
  // The checks ran and the signatures were seen (not a vacuous pass).
  CHECK(checks > 5000);
  CHECK(per_cta > 0);
  CHECK(per_tuple_reduction > 0);
  MESSAGE(reports << " reports, " << checks << " checks");
}

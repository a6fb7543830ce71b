// Hand-modified kernels the consistency check must catch (and one it must let pass): SSB Q1.1
// under the resolution model (B3: one CTA reduction, then one global atomic per CTA), its
// generated module edited as text before Clang parses it.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "inspect/inspect.h"
#include "storage/error.h"
#include "tests/inspect/inspect_queries.h"

namespace {

struct Planted {
  std::string source;
  int line = 0;  // the inserted line
};

// `text` inserted as a new line after the first line containing `anchor`.
Planted plant(const std::string& source, const std::string& anchor, const std::string& text) {
  const size_t at = source.find(anchor);
  REQUIRE_MESSAGE(at != std::string::npos, "the generated kernel no longer contains: " << anchor);
  const size_t end = source.find('\n', at) + 1;
  Planted p{source.substr(0, end) + text + "\n" + source.substr(end), 0};
  p.line = static_cast<int>(std::count(source.begin(), source.begin() + static_cast<long>(end), '\n')) + 1;
  return p;
}

hqc::inspect::QueryReport inspect(const hqc::driver::CompiledQuery& q, const std::string& source) {
  return hqc::inspect::inspect_query(q.program, q.generated, hqc::Catalog::ssb(), 1, &source);
}

bool reports(const hqc::inspect::QueryReport& r, const std::string& kernel, int line, const std::string& words) {
  return std::any_of(r.errors.begin(), r.errors.end(), [&](const hqc::inspect::Finding& f) {
    return f.kernel == kernel && f.line == line && f.message.find(words) != std::string::npos;
  });
}

std::string all_errors(const hqc::inspect::QueryReport& r) {
  std::string s;
  for (const auto& e : r.errors) s += "  " + e.kernel + ":" + std::to_string(e.line) + ": " + e.message + "\n";
  return s;
}

constexpr const char* kAggregate = "q1_1_p1_aggregate";
constexpr const char* kInTileLoop = "acc_agg0_count += flag ? 1 : 0;";
constexpr const char* kAfterTileLoop = "hqc_cta_sum_i64_we_to(agg0_tuples, acc_agg0_count, s_agg0_reduce);";

}  // namespace

TEST_CASE("planted defects in SSB Q1.1 (resolution) are caught") {
  for (auto dialect : {hqc::codegen::Dialect::Cuda, hqc::codegen::Dialect::OpenCL}) {
    const std::string target = hqc::codegen::dialect_name(dialect);
    CAPTURE(target);
    const auto q = hqc::test::compile_benchmark_query("ssb:q1.1", hqc::ir::ExecutionModel::Resolution, dialect);
    const std::string& source = q.generated.source;
    REQUIRE(inspect(q, source).errors.empty());

    SUBCASE("the B3 atomic moved from per CTA to per tuple") {
      const Planted p = plant(source, kInTileLoop, "    if (flag) HQC_ATOMIC_ADD_I64(agg0_tuples, 1);");
      const auto r = inspect(q, p.source);
      CHECK_MESSAGE(reports(r, kAggregate, p.line, "global atomic add on agg0_tuples per tuple"), all_errors(r));
    }
    SUBCASE("a global atomic per warp after the CTA reduction") {
      const Planted p = plant(source, kAfterTileLoop, "  if ((HQC_LID() & 31) == 0) HQC_ATOMIC_ADD_I64(agg0_tuples, 1);");
      const auto r = inspect(q, p.source);
      CHECK_MESSAGE(reports(r, kAggregate, p.line, "agg0_tuples per warp"), all_errors(r));
    }
    SUBCASE("a write to an input column") {
      const Planted p = plant(source, kInTileLoop, "    ((HQC_GLOBAL hqc_i32*)col_lo_quantity)[tile] = 0;");
      const auto r = inspect(q, p.source);
      CHECK_MESSAGE(reports(r, kAggregate, p.line, "writes col_lo_quantity, an input column"), all_errors(r));
    }
    SUBCASE("a write to a buffer the manifest calls input (the probed hash table)") {
      const Planted p = plant(source, kInTileLoop, "    if (flag) ((HQC_GLOBAL hqc_u32*)ht0_key_bits)[0] = 0;");
      const auto r = inspect(q, p.source);
      CHECK_MESSAGE(reports(r, kAggregate, p.line, "writes ht0_key_bits, a buffer the manifest calls input"), all_errors(r));
    }
    SUBCASE("control: one more global atomic per CTA is no error") {
      const Planted p = plant(source, kAfterTileLoop, "  if (HQC_LID() == 0) HQC_ATOMIC_ADD_I64(agg0_tuples, 1);");
      const auto r = inspect(q, p.source);
      CHECK_MESSAGE(r.errors.empty(), all_errors(r));
      const auto& k = r.kernels.at(1);
      REQUIRE(k.ast.name == kAggregate);
      CHECK(std::any_of(k.ast.atomics.begin(), k.ast.atomics.end(), [&](const hqc::inspect::Atomic& a) {
        return a.line == p.line && a.position == hqc::inspect::Position::PerCta && a.target == "agg0_tuples";
      }));
    }
    SUBCASE("source Clang cannot parse is an internal error with Clang's diagnostics and the kernel") {
      const Planted p = plant(source, kInTileLoop, "    this is not a statement;");
      try {
        inspect(q, p.source);
        FAIL("no error");
      } catch (const hqc::Error& e) {
        CHECK(e.kind() == hqc::ErrorKind::Internal);
        const std::string what = e.what();
        CHECK(what.find(":" + std::to_string(p.line) + ":") != std::string::npos);
        CHECK(what.find("error:") != std::string::npos);
        CHECK(what.find(std::string("void ") + kAggregate) != std::string::npos);
      }
    }
  }
}

// The HTML page and the DOT picture of SSB Q3.1: one self-contained page (no script, no external
// resource) with every module line, every kernel and its findings; a graph with every pipeline,
// state object and kernel; the JSON report with the text report's facts.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "inspect/inspect.h"
#include "tests/inspect/inspect_queries.h"

TEST_CASE("HTML, DOT and JSON renderings of SSB Q3.1") {
  const auto q = hqc::test::compile_benchmark_query("ssb:q3.1", hqc::ir::ExecutionModel::Resolution, hqc::codegen::Dialect::OpenCL);
  const auto report = hqc::inspect::inspect_query(q.program, q.generated, hqc::Catalog::ssb());
  REQUIRE(report.errors.empty());

  const std::string html = hqc::inspect::render_html(report, "q3.1.svg");
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("<link") == std::string::npos);
  CHECK(html.find("<img src=\"q3.1.svg\"") != std::string::npos);
  const long lines = std::count(report.source.begin(), report.source.end(), '\n');
  CHECK(html.find("<tr id=\"L" + std::to_string(lines) + "\">") != std::string::npos);
  CHECK(html.find("<tr id=\"L" + std::to_string(lines + 1) + "\">") == std::string::npos);
  for (const auto& k : report.kernels) CHECK(html.find("<a href=\"#L" + std::to_string(k.ast.first_line) + "\">" + k.ast.name) != std::string::npos);
  CHECK(html.find("<td class=tag>probe ht0 (op 5)</td>") != std::string::npos);
  CHECK(html.find("atomic add global agg0_revenue, per tuple") != std::string::npos);
  CHECK(html.find("<span class=kw>const</span>") != std::string::npos);

  const std::string dot = hqc::inspect::render_dot(q.program, q.generated);
  CHECK(dot.rfind("digraph \"q3_1\" {", 0) == 0);
  for (const auto& p : q.program.pipelines) CHECK(dot.find("\"cluster_p" + std::to_string(p.id) + "\"") != std::string::npos);
  for (const auto& k : q.generated.kernels) CHECK(dot.find(k.name) != std::string::npos);
  for (const char* state : {"ht0", "ht1", "ht2", "agg0"}) CHECK(dot.find(std::string("\"state_") + state + "\"") != std::string::npos);

  const auto json = hqc::inspect::render_json(report);
  CHECK(json["consistency"]["errors"].empty());
  CHECK(json["consistency"]["checks"].get<int>() == report.checks);
  REQUIRE(json["kernels"].size() == report.kernels.size());
  CHECK(json["kernels"][3]["name"] == "q3_1_p3_aggregate");
  CHECK(json["kernels"][3]["reductions"][0]["technique"] == "C2");

  // Bytes at SF 1 from the catalog's row counts: the date build reads d_datekey and d_year and stores
  // a key and a payload (4 B each) per row, at most; the aggregation only updates its table by atomics.
  const uint64_t date_rows = hqc::Catalog::ssb().find("date")->rows_at_sf1;
  CHECK(json["kernels"][0]["estimated_bytes"]["rows"] == date_rows);
  CHECK(json["kernels"][0]["estimated_bytes"]["stored_upper_bound"] == date_rows * 8);
  CHECK(json["kernels"][0]["estimated_bytes"]["unconditional_read"].get<uint64_t>() +
            json["kernels"][0]["estimated_bytes"]["conditional_read_upper_bound"].get<uint64_t>() == date_rows * 8);
  CHECK(json["kernels"][3]["estimated_bytes"]["stored_upper_bound"] == 0);
}

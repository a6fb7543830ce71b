// The multi-pass model's split of each pipeline (ir/pass_fuse_multi_pass.cpp): the kernels, library
// calls, buffers and techniques (A1/B1/C1), exactly.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "ir/explain.h"
#include "ir/verifier.h"
#include "storage/error.h"
#include "tests/ir/ir_test_util.h"

using namespace hqc;

namespace {

ir::Program multi_pass(const std::string& json) {
  ir::Program p = test::build_inline(json, nullptr, ir::ExecutionModel::MultiPass);
  ir::run_passes(p, ir::default_passes());
  return p;
}

std::vector<std::string> kernel_names(const ir::Program& p) {
  std::vector<std::string> out;
  for (const ir::Kernel& k : p.kernels) out.push_back(std::string(ir::kernel_kind_name(k.kind)) + " " + k.name);
  return out;
}

std::vector<std::string> calls(const ir::Program& p) {
  std::vector<std::string> out;
  for (const ir::LibraryCall& c : p.library_calls) {
    std::string s = std::string(ir::library_op_name(c.op)) + " after " + c.after + " over " + c.count_param + ":";
    for (const std::string& b : c.buffers) s += " " + b;
    if (c.op == ir::LibraryOp::Reduce || c.op == ir::LibraryOp::ReduceByKey) s += std::string(" ") + ir::reduce_op_name(c.reduce);
    if (!c.result_param.empty()) s += " -> " + c.result_param;
    if (!c.limit_param.empty()) s += " <= " + c.limit_param;
    out.push_back(s);
  }
  return out;
}

const ir::Buffer& buffer(const ir::Program& p, const std::string& name) {
  const ir::Buffer* b = p.find_buffer(name);
  REQUIRE_MESSAGE(b != nullptr, name);
  return *b;
}

const char* kSelect = R"({"name": "sel", "plan": {"op": "project", "columns": [{"column": "lo_orderkey"}],
  "input": {"op": "filter", "predicate": {"op": "<", "left": {"column": "lo_quantity"}, "right": {"int": 10}},
            "input": {"op": "scan", "table": "lineorder"}}}})";

const char* kScalar = R"({"name": "sum", "plan": {"op": "aggregate", "aggregates": [
    {"name": "revenue", "func": "sum", "arg": {"column": "lo_revenue"}}, {"name": "n", "func": "count_star"},
    {"name": "low", "func": "min", "arg": {"column": "lo_quantity"}}],
  "input": {"op": "scan", "table": "lineorder"}}})";

const char* kGrouped = R"({"name": "grp", "plan": {"op": "aggregate", "group_by": [{"column": "lo_orderkey"}],
  "aggregates": [{"name": "q", "func": "sum", "arg": {"column": "lo_quantity"}}],
  "input": {"op": "scan", "table": "lineorder"}}})";

const char* kManyMatches = R"({"name": "many", "plan": {"op": "aggregate", "aggregates": [{"name": "n", "func": "count_star"}],
  "input": {"op": "join", "probe": {"op": "scan", "table": "customer"}, "build": {"op": "scan", "table": "lineorder"},
            "probe_keys": [{"column": "c_custkey"}], "build_keys": [{"column": "lo_custkey"}]}}})";

}  // namespace

TEST_CASE("multi_pass: a selection is count kernel, library prefix sum, write kernel (A1)") {
  ir::Program p = multi_pass(kSelect);
  CHECK(kernel_names(p) == std::vector<std::string>{"pass_count sel_p0_materialize_count", "pass_write sel_p0_materialize_write"});
  CHECK(calls(p) == std::vector<std::string>{"inclusive_scan after sel_p0_materialize_count over rows_lineorder: mp0_offsets"});
  const ir::Kernel& write = p.kernels[1];
  REQUIRE(write.reductions.size() == 1);
  CHECK(write.reductions[0].technique == ir::Technique::A1);
  CHECK(write.reductions[0].local == ir::LocalResolution::None);
  CHECK(buffer(p, "mp0_offsets").elements_param == "rows_lineorder");
  CHECK(buffer(p, "mp0_offsets").fill == ir::Buffer::Fill::None);  // every row's count is written
  // The count kernel writes no output; the write kernel reads the offsets.
  for (const ir::KernelArg& a : p.kernels[0].args) CHECK((a.kind != ir::KernelArg::Kind::Buffer || a.name.rfind("out0", 0) != 0));
  bool reads_offsets = false;
  for (const ir::KernelArg& a : write.args) reads_offsets = reads_offsets || (a.name == "mp0_offsets" && !a.written);
  CHECK(reads_offsets);
  CHECK(ir::explain(p).find("library inclusive_scan(mp0_offsets) over rows_lineorder") != std::string::npos);
}

TEST_CASE("multi_pass: a scalar aggregate reduces one materialized lane per aggregate (B1); a 128-bit SUM is two halves") {
  ir::Program p = multi_pass(kScalar);  // no statistics: the decimal SUM is 128-bit
  CHECK(kernel_names(p) == std::vector<std::string>{"pass_count sum_p0_aggregate_count", "pass_write sum_p0_aggregate_write",
                                                    "pass_finish sum_p0_aggregate_finish"});
  CHECK(calls(p) == std::vector<std::string>{
                        "inclusive_scan after sum_p0_aggregate_count over rows_lineorder: mp0_offsets -> mp0_rows <= rows_lineorder",
                        "reduce after sum_p0_aggregate_write over mp0_rows: mp0_revenue_hi mp0_red_revenue_hi sum",
                        "reduce after sum_p0_aggregate_write over mp0_rows: mp0_revenue_lo mp0_red_revenue_lo sum",
                        "reduce after sum_p0_aggregate_write over mp0_rows: mp0_n mp0_red_n sum",
                        "reduce after sum_p0_aggregate_write over mp0_rows: mp0_low mp0_red_low min"});
  CHECK(p.kernels[1].reductions.at(0).technique == ir::Technique::B1);
  CHECK(p.kernels[2].launch.tuples_param == "mp0_groups");
  CHECK(buffer(p, "mp0_red_low").fixed_elements == 1);
  CHECK(buffer(p, "mp0_revenue_hi").elements_param == "rows_lineorder");
}

TEST_CASE("multi_pass: a grouped aggregate sorts slots, gathers and reduces by key per lane (C1)") {
  ir::Program p = multi_pass(kGrouped);  // no statistics: hashed on lo_orderkey, the SUM 128-bit (two lanes)
  REQUIRE(p.aggregations.size() == 1);
  CHECK(p.aggregations[0].layout == ir::AggLayout::GlobalHash);
  CHECK(kernel_names(p) == std::vector<std::string>{"pass_count grp_p0_aggregate_count", "pass_write grp_p0_aggregate_write",
                                                    "pass_finish grp_p0_aggregate_finish", "compact_count hqc_compact_count",
                                                    "compact_gather hqc_compact_gather"});
  CHECK(calls(p) == std::vector<std::string>{
                        "inclusive_scan after grp_p0_aggregate_count over rows_lineorder: mp0_offsets -> mp0_rows <= rows_lineorder",
                        "sort_by_key after grp_p0_aggregate_write over mp0_rows: mp0_keys mp0_perm",
                        "gather after grp_p0_aggregate_write over mp0_rows: mp0_perm mp0_q_hi mp0_sorted",
                        "reduce_by_key after grp_p0_aggregate_write over mp0_rows: mp0_keys mp0_sorted mp0_red_keys mp0_red_q_hi sum -> mp0_groups",
                        "gather after grp_p0_aggregate_write over mp0_rows: mp0_perm mp0_q_lo mp0_sorted",
                        "reduce_by_key after grp_p0_aggregate_write over mp0_rows: mp0_keys mp0_sorted mp0_red_keys mp0_red_q_lo sum -> mp0_groups",
                        "reduce_by_key after grp_p0_aggregate_write over mp0_rows: mp0_keys mp0_ones mp0_red_keys mp0_red_count sum -> mp0_groups"});
  CHECK(p.kernels[1].reductions.at(0).technique == ir::Technique::C1);
  // The write kernel finds slots (the table's keys and flag) but leaves the values to the finish kernel.
  std::vector<std::string> written;
  for (const ir::KernelArg& a : p.kernels[1].args)
    if (a.written) written.push_back(a.name);
  CHECK(written == std::vector<std::string>{"agg0_key_lo_orderkey", "agg0_overflow", "mp0_keys", "mp0_perm", "mp0_q_hi", "mp0_q_lo",
                                            "mp0_ones"});
  CHECK(buffer(p, "mp0_red_keys").elements_param == "rows_lineorder");  // the library's outputs hold its input's count
}

TEST_CASE("multi_pass: lanes behind a probe with several matches have an estimated capacity, flagged and grown") {
  ir::Program p = multi_pass(kManyMatches);
  const ir::Kernel* write = nullptr;
  for (const ir::Kernel& k : p.kernels)
    if (k.kind == ir::KernelKind::PassWrite) write = &k;
  REQUIRE(write != nullptr);
  CHECK(write->multi_pass.match_loop);
  CHECK(write->multi_pass.capacity_param == "mp1_capacity");
  CHECK(write->multi_pass.overflow_buffer == "mp1_overflow");
  CHECK(write->multi_pass.total_buffer == "mp1_total");
  CHECK(buffer(p, "mp1_offsets").fill == ir::Buffer::Fill::Zero);  // counts accumulate over the matches
  CHECK(buffer(p, "mp1_n").elements_param == "mp1_capacity");
  CHECK(p.find_param("mp1_capacity")->source == ir::Param::Source::Product);
}

TEST_CASE("multi_pass: hash builds stay one kernel; other models have no library calls") {
  ir::Program p = multi_pass(kManyMatches);
  CHECK(p.kernels[0].kind == ir::KernelKind::Compound);  // the build of lineorder's multi-map
  CHECK(p.kernels[0].reductions.empty());
  ir::Program r = test::build_inline(kGrouped);
  ir::run_passes(r, ir::default_passes());
  CHECK(r.library_calls.empty());
  // The verifier keeps the models apart.
  r.library_calls.push_back({});
  CHECK_THROWS_WITH_AS(ir::verify(r), doctest::Contains("library calls under the resolution model"), Error);
}

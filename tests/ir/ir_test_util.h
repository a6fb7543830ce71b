// Helpers shared by the IR tests: compile an SSB plan file, an inline JSON plan or TPC-H SQL; TPC-H's partitioning.
#pragma once

#include <memory>
#include <string>

#include "frontend/json_plan.h"
#include "frontend/sql/sql_frontend.h"
#include "ir/build_pipelines.h"
#include "ir/passes.h"
#include "storage/catalog.h"
#include "tests/ir/ssb_fixture.h"

namespace hqc::test {

inline ir::Program build_inline(const std::string& json, const planner::Statistics* stats = nullptr,
                                ir::ExecutionModel model = ir::ExecutionModel::Resolution) {
  Catalog catalog = Catalog::ssb();
  auto plan = std::make_shared<plan::LogicalPlan>(plan::parse_json_plan(json, "test.json", catalog));
  ir::BuildOptions options;
  options.stats = stats;
  options.model = model;
  return ir::build_program(plan, catalog, options);
}

inline ir::Program build_ssb(const std::string& name, const planner::Statistics* stats = nullptr,
                             ir::ExecutionModel model = ir::ExecutionModel::Resolution) {
  Catalog catalog = Catalog::ssb();
  auto plan = std::make_shared<plan::LogicalPlan>(plan::load_json_plan(source_dir() + "/ssb/plans/" + name + ".json", catalog));
  ir::BuildOptions options;
  options.stats = stats;
  options.model = model;
  return ir::build_program(plan, catalog, options);
}

// A TPC-H query's program as build_program makes it, before any pass.
inline ir::Program build_tpch_sql(const std::string& sql, const ir::BuildOptions& options = {}) {
  const Catalog catalog = Catalog::tpch();
  auto plan = std::make_shared<plan::LogicalPlan>(parse_sql(sql, "test.sql", catalog, nullptr));
  return ir::build_program(plan, catalog, options);
}

// TPC-H as mpirun's ranks compile it (storage/partition.h): orders and lineitem by order key, partsupp
// by part key, the two key ranges separate groups.
inline void partition_tpch_like_ranks(ir::BuildOptions& options) {
  options.partitioned_tables = {"orders", "lineitem", "partsupp"};
  options.partition_keys = {{"orders", "o_orderkey"}, {"lineitem", "l_orderkey"}, {"partsupp", "ps_partkey"}};
  options.partition_groups = {{"orders", "orders"}, {"lineitem", "orders"}, {"partsupp", "partsupp"}};
}

}  // namespace hqc::test

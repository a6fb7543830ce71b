#include "tools/driver/query_driver.h"

#include <chrono>

#include "codegen/generate.h"
#include "ir/compile.h"
#include "ir/resolve_parameters.h"
#include "planner/sizing.h"
#include "runtime/execution/lower_program.h"
#include "storage/partition.h"
#include "storage/tbl_loader.h"

namespace hqc::driver {

namespace {
double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

Database statistics_database(const Catalog& catalog, const std::string& dir) {
  std::set<std::string> every_column;
  for (const TableDef& t : catalog.tables)
    for (const ColumnDef& c : t.columns) every_column.insert(t.name + "." + c.name);
  if (std::optional<Database> headers = load_database_statistics(catalog, dir, every_column)) return std::move(*headers);
  return load_database(catalog, dir);
}

CompiledQuery compile_query(std::shared_ptr<const plan::LogicalPlan> plan, const Catalog& catalog,
                            const CompileOptions& options) {
  CompiledQuery q;
  q.name = plan->name;
  auto t0 = std::chrono::steady_clock::now();
  ir::BuildOptions build;
  build.model = options.model;
  build.local_resolution = options.local_resolution;
  build.stats = options.stats;
  build.partitioned_tables = options.partitioned_tables;
  build.partition_keys = options.partition_keys;
  build.partition_groups = options.partition_groups;
  build.join_exchange = options.join_exchange;
  build.ranks = options.ranks;
  build.multimap = options.multimap;
  build.probe_bitmap_min_slots = options.probe_bitmap_min_slots;
  if (options.device) build.scratchpad_budget_bytes = planner::scratchpad_budget(*options.device);
  q.program = ir::compile_program(std::move(plan), catalog, build, {}, &q.passes);
  q.plan_ms = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  q.generated = codegen::generate(q.program, options.dialect);
  q.codegen_ms = ms_since(t0);
  return q;
}

void partition_like_ranks(const Catalog& catalog, CompileOptions& options) {
  for (const PartitionedTable& t : partition_scheme(catalog)) {
    options.partitioned_tables.insert(t.table);
    if (t.key.empty()) continue;  // split by rows, no key ranges
    options.partition_keys[t.table] = t.key;  // split at the key's boundaries or co-partitioned:
    options.partition_groups[t.table] = t.group();  // one range of the key per rank
    if (t.parent.empty()) continue;
    options.partition_keys[t.parent] = t.parent_key;
    options.partition_groups[t.parent] = t.group();
  }
}

runtime::ExecutablePlan lower_query(const CompiledQuery& query, const Database& db) {
  const ir::ParamValues values = ir::resolve_parameters(query.program, db);
  return runtime::lower_program(query.program, values, query.generated);
}

std::set<std::string> columns_read(const ir::Program& program, const Catalog& catalog) {
  std::set<std::string> columns;
  for (const ir::Pipeline& p : program.pipelines) {
    if (p.source.table.empty()) continue;
    for (const std::string& c : p.source.columns) columns.insert(p.source.table + "." + c);
  }
  for (const ir::Param& p : program.params) {
    if (catalog.find(p.table) == nullptr) continue;  // an output of an earlier pipeline, or none
    if (!p.column.empty()) columns.insert(p.table + "." + p.column);
    for (const std::string& term : p.distinct_columns) {  // "table.column" or "year(table.column)" (planner/statistics.h)
      const size_t open = term.find('(');
      columns.insert(open == std::string::npos ? term : term.substr(open + 1, term.size() - open - 2));
    }
  }
  return columns;
}

std::set<std::string> tables_scanned(const plan::LogicalPlan& plan) {
  std::set<std::string> tables;
  std::vector<const plan::LogicalOp*> todo = {plan.root.get()};
  while (!todo.empty()) {
    const plan::LogicalOp* op = todo.back();
    todo.pop_back();
    if (op == nullptr) continue;
    if (op->kind == plan::OpKind::Scan) tables.insert(op->table);
    for (const auto& child : op->children) todo.push_back(child.get());
  }
  return tables;
}

runtime::Execution run_query(const CompiledQuery& query, const Database& db, runtime::Executor& executor,
                             const runtime::ExecutorOptions& options) {
  return executor.run(lower_query(query, db), db, options);
}

}  // namespace hqc::driver

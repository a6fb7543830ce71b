// Benchmark queries compiled for the inspector's tests; see inspect_queries.h.
#include "tests/inspect/inspect_queries.h"

#include "frontend/sql/sql_frontend.h"
#include "ssb/benchmark_queries.h"
#include "tpch/benchmark_queries.h"

namespace hqc::test {

Catalog benchmark_catalog(const std::string& query) { return query.rfind("tpch:", 0) == 0 ? Catalog::tpch() : Catalog::ssb(); }

driver::CompiledQuery compile_benchmark_query(const std::string& query, ir::ExecutionModel model, codegen::Dialect dialect) {
  const Catalog catalog = benchmark_catalog(query);
  const bool tpch = query.rfind("tpch:", 0) == 0;
  const std::string name = query.substr(tpch ? 5 : 4);
  const std::string sql = tpch ? tpch::query_sql(name) : ssb::query_sql(name);
  const std::string path = tpch ? tpch::query_path(name) : "ssb/queries/" + name + ".sql";
  driver::CompileOptions options;
  options.model = model;
  options.dialect = dialect;
  return driver::compile_query(std::make_shared<const plan::LogicalPlan>(parse_sql(sql, path, catalog)), catalog, options);
}

}  // namespace hqc::test

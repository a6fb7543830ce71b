// Compiling the benchmark queries for the inspector's tests, as horseqc-inspect does.
#pragma once

#include <string>

#include "tools/driver/query_driver.h"

namespace hqc::test {

// "ssb:q3.1" or "tpch:q18" compiled under `model` for `dialect`.
driver::CompiledQuery compile_benchmark_query(const std::string& query, ir::ExecutionModel model, codegen::Dialect dialect);
Catalog benchmark_catalog(const std::string& query);

}  // namespace hqc::test

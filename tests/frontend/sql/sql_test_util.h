// Helpers shared by the SQL frontend tests: repository paths and error capture.
#pragma once

#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "frontend/sql/sql_frontend.h"
#include "ir/build_pipelines.h"
#include "ir/passes.h"
#include "storage/error.h"

namespace hqc::test {

inline std::string repo_dir() {
  const char* env = std::getenv("HORSEQC_SOURCE_DIR");
  return env ? env : ".";
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Failure {
  bool thrown = false;
  ErrorKind kind = ErrorKind::Internal;
  std::string message;
};

// Binds `sql` against `catalog` and returns the Error it raised (thrown = false when none).
inline Failure sql_error(const std::string& sql, const Catalog& catalog) {
  Failure f;
  try {
    (void)parse_sql(sql, "q.sql", catalog);
  } catch (const Error& e) {
    f.thrown = true;
    f.kind = e.kind();
    f.message = e.what();
  }
  return f;
}

// The first Filter on the way down from `op` (through first children); fails the test when none.
inline const plan::LogicalOp& first_filter(const plan::LogicalOp& op) {
  if (op.kind == plan::OpKind::Filter) return op;
  if (op.children.empty()) throw Error(ErrorKind::Internal, "test: the plan has no filter");
  return first_filter(op.child(0));
}

// `sql` bound against TPC-H's catalog, built into a program and through the default passes.
inline ir::Program compile_sql(const std::string& sql, const Catalog& catalog) {
  auto plan = std::make_shared<plan::LogicalPlan>(parse_sql(sql, "q.sql", catalog));
  ir::Program p = ir::build_program(plan, catalog);
  ir::run_passes(p, ir::default_passes());
  return p;
}

inline ir::Program compile_tpch_sql(const std::string& sql) { return compile_sql(sql, Catalog::tpch()); }

}  // namespace hqc::test

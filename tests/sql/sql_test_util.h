// Helpers shared by the SQL frontend tests: repository paths and error capture.
#pragma once

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "frontend/sql/sql_frontend.h"
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

}  // namespace hqc::test

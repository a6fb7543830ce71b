// Golden-file helper; see golden.h.
#include "tests/codegen/golden.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace hqc::test {
namespace {

std::string golden_dir() {
  const char* dir = std::getenv("HORSEQC_SOURCE_DIR");
  return std::string(dir != nullptr ? dir : ".") + "/tests/codegen/golden/";
}

bool updating() {
  const char* v = std::getenv("HORSEQC_UPDATE_GOLDEN");
  return v != nullptr && std::string(v) == "1";
}

void compare_or_write(const std::string& file, const std::string& actual) {
  const std::string path = golden_dir() + file;
  if (updating()) {
    std::ofstream out(path, std::ios::binary);
    REQUIRE_MESSAGE(out.good(), "cannot write " << path);
    out << actual;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "missing golden file " << path << " (regenerate: HORSEQC_UPDATE_GOLDEN=1 ctest -R codegen)");
  std::ostringstream s;
  s << in.rdbuf();
  const std::string expected = s.str();
  if (expected == actual) return;
  std::istringstream e(expected), a(actual);
  std::string el, al;
  int line = 0;
  while (true) {
    ++line;
    bool me = static_cast<bool>(std::getline(e, el));
    bool ma = static_cast<bool>(std::getline(a, al));
    if (!me && !ma) break;
    if (!me || !ma || el != al) {
      FAIL_CHECK(path << ":" << line << " differs\n  golden:    " << (me ? el : "<end of file>") << "\n  generated: "
                      << (ma ? al : "<end of file>") << "\n(regenerate: HORSEQC_UPDATE_GOLDEN=1 ctest -R codegen)");
      return;
    }
  }
  FAIL_CHECK(path << " differs (line endings?)");
}

}  // namespace

void check_golden(const std::string& name, const codegen::GeneratedProgram& program) {
  const bool cuda = program.dialect == codegen::Dialect::Cuda;
  compare_or_write(name + (cuda ? ".cu" : ".cl"), codegen::dialect_prelude(program.dialect) + "\n" + program.kernels_source);
  compare_or_write(name + "." + codegen::dialect_name(program.dialect) + ".manifest.json", program.to_json().dump(2) + "\n");
}

}  // namespace hqc::test

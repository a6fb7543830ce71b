// Build-time tool (runtime/CMakeLists.txt): writes a library module's source in one dialect to a
// file, so that nvcc can compile it ahead of time — the text NVRTC would compile at run time.
//   hqc-library-module-source compaction cuda|opencl OUTPUT
// Exit codes: 0 written, 2 usage, 1 the file could not be written.
#include <cstdio>
#include <fstream>
#include <string>

#include "codegen/generate.h"

int main(int argc, char** argv) {
  if (argc != 4 || std::string(argv[1]) != hqc::codegen::kCompactionModule ||
      (std::string(argv[2]) != "cuda" && std::string(argv[2]) != "opencl")) {
    std::fprintf(stderr, "usage: hqc-library-module-source compaction cuda|opencl OUTPUT\n");
    return 2;
  }
  const hqc::codegen::Dialect dialect = std::string(argv[2]) == "cuda" ? hqc::codegen::Dialect::Cuda : hqc::codegen::Dialect::OpenCL;
  const std::string source = hqc::codegen::compaction_module(dialect).source;
  std::ofstream out(argv[3], std::ios::binary | std::ios::trunc);
  out << source;
  out.close();
  if (!out) {
    std::fprintf(stderr, "hqc-library-module-source: cannot write %s\n", argv[3]);
    return 1;
  }
  return 0;
}

// Table I's kernels as modules, and their host reference. See synthetic_kernels.h.
#include "bench/synthetic_kernels.h"

#include <vector>

#include "templates/template_library.h"

namespace hqc::bench {

const std::array<SyntheticKind, 5>& table_one() {
  static const std::array<SyntheticKind, 5> kinds = {{
      {"I", 8, 24576, false, uint64_t{1} << 22},
      {"II", 16, 12288, true, uint64_t{1} << 18},
      {"III", 24, 6144, false, uint64_t{1} << 22},
      {"IV", 32, 4608, true, uint64_t{1} << 18},
      {"V", 40, 1536, false, uint64_t{1} << 22},
  }};
  return kinds;
}

runtime::ModuleSource synthetic_module(const SyntheticKind& kind, codegen::Dialect dialect) {
  runtime::ModuleSource m;
  m.source = codegen::dialect_prelude(dialect);
  m.source += "#define HQC_SYN_NAME " + kind.kernel_name() + "\n";
  m.source += "#define HQC_SYN_LUT_WORDS " + std::to_string(kind.lut_words()) + "\n";
  m.source += "#define HQC_SYN_ACCUMULATORS " + std::to_string(kind.accumulators()) + "\n";
  m.source += "#define HQC_SYN_ROUNDS " + std::to_string(kind.rounds()) + "\n";
  m.source += templates::template_source("bench/synthetic.h");
  m.options = codegen::compile_options(dialect);
  if (dialect == codegen::Dialect::Cuda) m.options.push_back("--maxrregcount=" + std::to_string(kind.registers));
  m.kernel_names = {kind.kernel_name()};
  m.label = "synthetic kernel " + std::string(kind.name);
  return m;
}

uint32_t synthetic_reference(const SyntheticKind& kind, uint32_t x) {
  const uint32_t words = kind.lut_words();
  std::vector<uint32_t> acc(kind.accumulators());
  for (uint32_t k = 0; k < acc.size(); ++k) acc[k] = x + k * 0x85ebca6bu;
  for (uint32_t r = 0; r < kind.rounds(); ++r) {
    for (uint32_t& a : acc) {
      const uint32_t w = (a >> 7) % words;
      a = a * 1664525u + ((w * 2654435761u) ^ 0x9e3779b9u) + r;
    }
  }
  uint32_t h = 0;
  for (uint32_t a : acc) h = (h ^ a) * 16777619u;
  return h;
}

}  // namespace hqc::bench

// Library modules; contract in library_modules.h.
#include "runtime/execution/library_modules.h"

#include <algorithm>

#include "codegen/generate.h"
#include "storage/error.h"

// The compaction module's CUDA fatbin (runtime/CMakeLists.txt, cmake/embed_binary.cmake).
extern "C" const unsigned char hqc_compaction_fatbin[];
extern "C" const unsigned long long hqc_compaction_fatbin_size;

namespace hqc::runtime {

namespace {
void check_name(const std::string& name) {
  if (name != codegen::kCompactionModule) throw Error(ErrorKind::Internal, "unknown library module \"" + name + "\"");
}
}  // namespace

ModuleSource library_module_source(const std::string& name, const Backend& backend) {
  check_name(name);
  codegen::LibraryModule m = codegen::compaction_module(backend.dialect());
  ModuleSource out;
  out.source = std::move(m.source);
  out.options = std::move(m.compile_options);
  out.kernel_names = std::move(m.kernel_names);
  out.label = std::move(m.label);
  return out;
}

std::vector<char> prebuilt_library_module(const std::string& name, const Backend& backend) {
  check_name(name);
  if (backend.dialect() != codegen::Dialect::Cuda) return {};
  const char* bytes = reinterpret_cast<const char*>(hqc_compaction_fatbin);
  return std::vector<char>(bytes, bytes + hqc_compaction_fatbin_size);
}

bool library_module_has(const std::string& name, const std::string& kernel) {
  if (name != codegen::kCompactionModule) return false;
  // The entry points are the same in both dialects: the module's own list, taken once.
  static const std::vector<std::string> kernels = codegen::compaction_module(codegen::Dialect::OpenCL).kernel_names;
  return std::find(kernels.begin(), kernels.end(), kernel) != kernels.end();
}

std::vector<std::string> library_modules_of(const ExecutablePlan& plan) {
  std::vector<std::string> names;
  for (const PipelineSpec& p : plan.pipelines)
    for (const LaunchSpec& l : p.launches)
      if (!l.module.empty() && std::find(names.begin(), names.end(), l.module) == names.end()) names.push_back(l.module);
  return names;
}

}  // namespace hqc::runtime

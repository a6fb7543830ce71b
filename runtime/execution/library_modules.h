// Library modules: kernels that generated programs launch besides their own (LaunchSpec::module,
// codegen::KernelManifest::module) — today the compaction module (codegen::compaction_module:
// templates/compact/compact.h), the same for every query of a dialect.
//
// Contract:
//   - library_module_source(name, backend): the module's source, options and entry points in the
//     backend's dialect; an unknown name throws Error(Internal).
//   - prebuilt_library_module(name, backend): the binary built ahead at build time for the backend,
//     or an empty vector where there is none. CUDA: the compaction module's fatbin, compiled by nvcc
//     from library_module_source's own text (SASS for sm_90, PTX for newer GPUs;
//     runtime/CMakeLists.txt); Backend::load_binary returns nullptr for a device it cannot serve,
//     and the executor then compiles the source like any module (kernel cache, NVRTC). OpenCL: none
//     (compiled once per kernel cache).
//   - library_module_has(name, kernel): whether `kernel` is one of the module's entry points.
//   - library_modules_of(plan): the library modules a plan's launches name, each once, in first-use
//     order.
#pragma once

#include <string>
#include <vector>

#include "runtime/device/backend.h"
#include "runtime/execution/executable_plan.h"

namespace hqc::runtime {

ModuleSource library_module_source(const std::string& name, const Backend& backend);
std::vector<char> prebuilt_library_module(const std::string& name, const Backend& backend);
bool library_module_has(const std::string& name, const std::string& kernel);
std::vector<std::string> library_modules_of(const ExecutablePlan& plan);

}  // namespace hqc::runtime

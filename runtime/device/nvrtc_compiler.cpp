// NVRTC wrapper: programs compiled straight to SASS (a cubin) for the device's architecture so that
// loading it costs no PTX JIT and the cached binary is what runs.
#include "runtime/device/nvrtc_compiler.h"

#include <memory>

#include <nvrtc.h>

#include "storage/error.h"

namespace hqc::runtime {

namespace {

void check(nvrtcResult status, const char* call, const std::string& label) {
  if (status != NVRTC_SUCCESS) {
    throw Error(ErrorKind::Device, label + ": " + call + " failed: " + nvrtcGetErrorString(status));
  }
}

// NVRTC 12.9 and later have a cache of their own (and the --no-cache option).
bool nvrtc_has_cache() {
  static const bool has = [] {
    int major = 0;
    int minor = 0;
    nvrtcVersion(&major, &minor);
    return major > 12 || (major == 12 && minor >= 9);
  }();
  return has;
}

struct ProgramDeleter {
  void operator()(nvrtcProgram* p) const {
    nvrtcDestroyProgram(p);
    delete p;
  }
};

}  // namespace

std::vector<char> nvrtc_compile_cubin(const std::string& source, const std::vector<std::string>& options,
                                      const std::string& arch, const std::string& label, std::string& log) {
  if (arch.rfind("sm_", 0) != 0) {
    throw Error(ErrorKind::Internal, "NVRTC architecture must be spelled sm_XY, got \"" + arch + "\"");
  }
  std::unique_ptr<nvrtcProgram, ProgramDeleter> program(new nvrtcProgram(nullptr));
  check(nvrtcCreateProgram(program.get(), source.c_str(), (label + ".cu").c_str(), 0, nullptr, nullptr),
        "nvrtcCreateProgram", label);

  // C++17 unless the caller's options choose a standard themselves (NVRTC rejects two).
  std::vector<std::string> all_options = {"--gpu-architecture=" + arch};
  // NVRTC 12.9+ keeps its own cache of results in the driver's compute cache where a driver is
  // installed. horseqc's kernel cache already holds every module: a second cache underneath only
  // duplicates it on disk and makes a "cold" compile depend on what ran before. Off.
  if (nvrtc_has_cache()) all_options.push_back("--no-cache");
  bool has_std = false;
  for (const std::string& o : options) has_std = has_std || o.rfind("--std=", 0) == 0 || o.rfind("-std=", 0) == 0;
  if (!has_std) all_options.push_back("--std=c++17");
  all_options.insert(all_options.end(), options.begin(), options.end());
  std::vector<const char*> option_ptrs;
  for (const std::string& o : all_options) option_ptrs.push_back(o.c_str());

  const nvrtcResult compiled =
      nvrtcCompileProgram(*program, static_cast<int>(option_ptrs.size()), option_ptrs.data());
  size_t log_size = 0;
  nvrtcGetProgramLogSize(*program, &log_size);
  log.assign(log_size, '\0');
  if (log_size > 0) nvrtcGetProgramLog(*program, log.data());
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  if (compiled != NVRTC_SUCCESS) {
    throw Error(ErrorKind::Device, label + ": NVRTC compilation for " + arch + " failed (" +
                                       nvrtcGetErrorString(compiled) + "):\n" + log);
  }

  size_t cubin_size = 0;
  check(nvrtcGetCUBINSize(*program, &cubin_size), "nvrtcGetCUBINSize", label);
  std::vector<char> cubin(cubin_size);
  check(nvrtcGetCUBIN(*program, cubin.data()), "nvrtcGetCUBIN", label);
  if (cubin.empty()) throw Error(ErrorKind::Device, label + ": NVRTC produced an empty cubin for " + arch);
  return cubin;
}

std::vector<char> nvrtc_compile_module(const ModuleSource& source, const std::string& arch, std::string& log) {
  // One whole program, its optimizer and ptxas working on the host's cores at once (NVRTC's
  // --split-compile, 0 = one thread per core): TPC-H Q9 355 -> 276 ms on 2 cores. (Compiling a
  // module's kernels as separate relocatable programs linked by nvJitLink was tried and removed: ptxas
  // gave kernels more registers under the relocatable ABI, TPC-H Q13's aggregate 33 -> 40 and 15 %
  // slower, and the cold compile was no faster: bench/results/2026-11-27-h100-compile,
  // 2026-11-28-h100-warp-runs.)
  std::vector<std::string> options = source.options;
  options.push_back("--split-compile=0");
  return nvrtc_compile_cubin(source.source, options, arch, source.label, log);
}

std::vector<char> compile_cuda_only(const std::string& source, const std::string& arch,
                                    const std::vector<std::string>& extra_options) {
  std::string log;
  return nvrtc_compile_cubin(source, extra_options, arch, "compile_cuda_only", log);
}

std::string nvrtc_version() {
  int major = 0;
  int minor = 0;
  nvrtcVersion(&major, &minor);
  return "NVRTC " + std::to_string(major) + "." + std::to_string(minor);
}

std::string cuda_arch_name(int major, int minor) { return "sm_" + std::to_string(major) + std::to_string(minor); }

}  // namespace hqc::runtime

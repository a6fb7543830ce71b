// NVRTC wrapper: programs compiled straight to SASS (a cubin) for the device's architecture so that
// loading it costs no PTX JIT and the cached binary is what runs; a module's parts compiled on
// several threads and linked with nvJitLink (nvrtc_compile_module).
#include "runtime/device/nvrtc_compiler.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <memory>
#include <numeric>
#include <thread>

#include <nvJitLink.h>
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

namespace {

// nvJitLink: relocatable cubins → one cubin for `arch`. Throws Error(Device) with the linker's log.
std::vector<char> link_cubins(const std::vector<std::vector<char>>& parts, const std::vector<std::string>& names,
                              const std::string& arch, const std::string& label) {
  const std::string arch_option = "-arch=" + arch;
  const char* options[] = {arch_option.c_str()};
  nvJitLinkHandle handle = nullptr;
  if (nvJitLinkCreate(&handle, 1, options) != NVJITLINK_SUCCESS)
    throw Error(ErrorKind::Device, label + ": nvJitLinkCreate failed for " + arch);
  auto fail = [&](const char* call, nvJitLinkResult status) {
    size_t size = 0;
    std::string text;
    if (nvJitLinkGetErrorLogSize(handle, &size) == NVJITLINK_SUCCESS && size > 0) {
      text.assign(size, '\0');
      nvJitLinkGetErrorLog(handle, text.data());
      while (!text.empty() && (text.back() == '\0' || text.back() == '\n')) text.pop_back();
    }
    nvJitLinkDestroy(&handle);
    throw Error(ErrorKind::Device, label + ": " + call + " failed (nvJitLink error " + std::to_string(static_cast<int>(status)) +
                                       ")" + (text.empty() ? "" : ":\n" + text));
  };
  for (size_t i = 0; i < parts.size(); ++i) {
    const nvJitLinkResult status =
        nvJitLinkAddData(handle, NVJITLINK_INPUT_CUBIN, parts[i].data(), parts[i].size(), names[i].c_str());
    if (status != NVJITLINK_SUCCESS) fail("nvJitLinkAddData", status);
  }
  if (const nvJitLinkResult status = nvJitLinkComplete(handle); status != NVJITLINK_SUCCESS) fail("nvJitLinkComplete", status);
  size_t size = 0;
  if (const nvJitLinkResult status = nvJitLinkGetLinkedCubinSize(handle, &size); status != NVJITLINK_SUCCESS)
    fail("nvJitLinkGetLinkedCubinSize", status);
  std::vector<char> cubin(size);
  if (const nvJitLinkResult status = nvJitLinkGetLinkedCubin(handle, cubin.data()); status != NVJITLINK_SUCCESS)
    fail("nvJitLinkGetLinkedCubin", status);
  nvJitLinkDestroy(&handle);
  if (cubin.empty()) throw Error(ErrorKind::Device, label + ": nvJitLink produced an empty cubin for " + arch);
  return cubin;
}

}  // namespace

std::vector<ModuleSource> split_by_kernel(const ModuleSource& source, size_t groups) {
  const std::vector<size_t>& at = source.kernel_offsets;
  if (groups < 2 || at.size() < 2 || at.size() != source.kernel_names.size()) return {};
  const size_t kernels = at.size();
  auto end_of = [&](size_t k) { return k + 1 < kernels ? at[k + 1] : source.source.size(); };
  for (size_t k = 0; k < kernels; ++k) {
    if (at[k] < source.shared_prefix || end_of(k) < at[k] || end_of(k) > source.source.size())
      throw Error(ErrorKind::Internal, source.label + ": kernel offsets out of order or outside the source");
  }
  groups = std::min(groups, kernels);
  std::vector<size_t> by_length(kernels);
  std::iota(by_length.begin(), by_length.end(), size_t{0});
  std::stable_sort(by_length.begin(), by_length.end(),
                   [&](size_t a, size_t b) { return end_of(a) - at[a] > end_of(b) - at[b]; });
  std::vector<std::vector<size_t>> members(groups);
  std::vector<size_t> text(groups, 0);
  for (size_t k : by_length) {
    const size_t g = static_cast<size_t>(std::min_element(text.begin(), text.end()) - text.begin());
    members[g].push_back(k);
    text[g] += end_of(k) - at[k];
  }
  std::vector<ModuleSource> parts;
  for (std::vector<size_t>& group : members) {
    std::sort(group.begin(), group.end());
    ModuleSource part;
    part.source = source.source.substr(0, source.shared_prefix);
    part.options = source.options;
    part.shared_prefix = source.shared_prefix;
    std::string names;
    for (size_t k : group) {
      part.kernel_offsets.push_back(part.source.size());
      part.source.append(source.source, at[k], end_of(k) - at[k]);
      part.kernel_names.push_back(source.kernel_names[k]);
      names += (names.empty() ? "" : ", ") + source.kernel_names[k];
    }
    part.label = source.label + " (kernel" + (group.size() > 1 ? "s " : " ") + names + ")";
    parts.push_back(std::move(part));
  }
  return parts;
}

size_t compile_threads() {
  if (const char* text = std::getenv("HORSEQC_COMPILE_THREADS"); text != nullptr && *text != '\0') {
    char* end = nullptr;
    const long n = std::strtol(text, &end, 10);
    if (*end != '\0' || n < 1 || n > 1024)
      throw Error(ErrorKind::Usage, "HORSEQC_COMPILE_THREADS must be an integer from 1 to 1024, got \"" + std::string(text) + "\"");
    return static_cast<size_t>(n);
  }
  // One program per module unless asked (compiled on all cores by NVRTC itself): linked relocatable
  // parts compile faster but ptxas gives some kernels more registers under the relocatable ABI
  // (64-bit `%` becomes a call), e.g. TPC-H Q13's aggregate 33 -> 40 registers and 15% slower
  // (bench/results/2026-11-27-h100-compile).
  return 1;
}

std::vector<char> nvrtc_compile_module(const ModuleSource& source, const std::string& arch, size_t threads,
                                       std::string& log) {
  const std::vector<ModuleSource> parts = split_by_kernel(source, threads);
  if (parts.empty()) {
    // One whole program, its optimizer and ptxas working on the host's cores at once (NVRTC's
    // --split-compile, 0 = one thread per core): the kernels are the same as from one thread (same
    // registers, deterministic cubin), unlike relocatable parts; TPC-H Q9 355 -> 276 ms on 2 cores.
    std::vector<std::string> options = source.options;
    options.push_back("--split-compile=0");
    return nvrtc_compile_cubin(source.source, options, arch, source.label, log);
  }

  struct Compiled {
    std::vector<char> cubin;
    std::string log;
    std::exception_ptr error;
  };
  std::vector<Compiled> compiled(parts.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next++) < parts.size();) {
      try {
        std::vector<std::string> options = parts[i].options;
        options.push_back("--relocatable-device-code=true");
        compiled[i].cubin = nvrtc_compile_cubin(parts[i].source, options, arch, parts[i].label, compiled[i].log);
      } catch (...) {
        compiled[i].error = std::current_exception();
      }
    }
  };
  {
    std::vector<std::thread> pool;
    for (size_t t = 1; t < parts.size(); ++t) pool.emplace_back(work);
    work();
    for (std::thread& t : pool) t.join();
  }
  std::vector<std::vector<char>> cubins;
  std::vector<std::string> names;
  log.clear();
  for (size_t i = 0; i < parts.size(); ++i) {
    if (compiled[i].error) std::rethrow_exception(compiled[i].error);
    if (!compiled[i].log.empty()) log += (log.empty() ? "" : "\n") + parts[i].label + ":\n" + compiled[i].log;
    cubins.push_back(std::move(compiled[i].cubin));
    names.push_back("part" + std::to_string(i) + ".cubin");
  }
  return link_cubins(cubins, names, arch, source.label);
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

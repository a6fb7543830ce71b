// CUDA source → CUBIN with NVRTC, for one GPU architecture. Needs no GPU and no driver, so tests
// and the template checks compile CUDA on machines without one.
//
// Contract: returns a non-empty cubin for `arch` ("sm_90", "90" or "compute capability 9.0" is
// NOT accepted: give "sm_XY"); a compile error throws hqc::Error(ErrorKind::Device) containing
// `label` and the full NVRTC log. `log` receives warnings of a successful compile.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "runtime/device/backend.h"

namespace hqc::runtime {

// A generated module as one cubin: one NVRTC program whose optimizer and ptxas work on every core
// of the host (--split-compile=0), so the kernels are those of a single-threaded compile (same
// registers, a deterministic cubin). An error names the module (its label) with NVRTC's log.
std::vector<char> nvrtc_compile_module(const ModuleSource& source, const std::string& arch, std::string& log);

std::vector<char> nvrtc_compile_cubin(const std::string& source, const std::vector<std::string>& options,
                                      const std::string& arch, const std::string& label, std::string& log);

// Compile only, for tests and template checks: options are horseqc's defaults for CUDA.
std::vector<char> compile_cuda_only(const std::string& source, const std::string& arch,
                                    const std::vector<std::string>& extra_options = {});

// "NVRTC 13.0"
std::string nvrtc_version();

// "sm_90" for compute capability 9.0.
std::string cuda_arch_name(int major, int minor);

}  // namespace hqc::runtime

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

// The kernels of `source` as at most `groups` modules, each the shared prefix followed by the texts
// of its kernels in source order, labelled "<label> (kernels a, b)". Kernels are dealt longest text
// first, each to the group with the least text so far, so the groups' compile times are close.
// Empty when `source` has no kernel_offsets, a single kernel, or groups < 2.
std::vector<ModuleSource> split_by_kernel(const ModuleSource& source, size_t groups);

// Threads nvrtc_compile_module may use: $HORSEQC_COMPILE_THREADS (an integer from 1 to 1024;
// anything else throws Error(Usage)), else 1 (see nvrtc_compiler.cpp for why).
size_t compile_threads();

// A generated module as one cubin, compiled in parallel: its kernels are split over up to `threads`
// NVRTC programs (split_by_kernel: the device library + some kernels each), compiled at once as
// relocatable code, and linked by nvJitLink into one cubin, so the module loads and caches as one
// binary and the compile takes about as long as its largest part (the optimizer and ptxas dominate,
// and they work per kernel). A module that does not split (one kernel, no kernel_offsets,
// threads < 2) is compiled whole, as one program whose optimizer and ptxas use every core
// (--split-compile). An error names the failing part's kernels (its label).
std::vector<char> nvrtc_compile_module(const ModuleSource& source, const std::string& arch, size_t threads,
                                       std::string& log);

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

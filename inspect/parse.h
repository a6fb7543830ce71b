// Parsing one generated module with Clang libTooling, and the walk of its kernels.
//
// Contract:
//   - analyze_module() parses `source` in-process as Clang would compile it for the device: CUDA as
//     CUDA device code (sm_80 syntax; the toolkit's own headers are not read — clang 14 knows CUDA
//     up to 11.5 — but the CUDA built-ins the dialect prelude names are declared by
//     inspect/cuda_builtins.cpp, as NVRTC declares them), OpenCL C as OpenCL C 1.2 with Clang's
//     opencl-c.h; one parse per module, every kernel of it walked from the same AST;
//   - source that does not parse is a horseqc bug: Error(Internal) carrying Clang's diagnostics and
//     the lines of the kernel they point into;
//   - the result says what the AST says (inspect/findings.h), nothing taken from the manifest.
#pragma once

#include <string>
#include <vector>

#include "codegen/dialect.h"
#include "inspect/findings.h"

namespace hqc::inspect {

// `file_name` names the module in diagnostics ("q3.1.cu"); `options` are the manifest's compile
// options for the dialect (e.g. -cl-std=CL1.2).
ModuleFindings analyze_module(const std::string& source, codegen::Dialect dialect, const std::string& file_name,
                              const std::vector<std::string>& options);

// The declarations of the CUDA built-ins the dialect prelude uses (threadIdx, atomicAdd,
// __syncthreads, ...), force-included before a CUDA module.
const char* cuda_builtin_declarations();

}  // namespace hqc::inspect

// Internal to ir/: the fusion pass (pass_fuse_pipelines.cpp) and its multi-pass split
// (pass_fuse_multi_pass.cpp), which share the compound kernel's argument list.
#pragma once

#include <string>

#include "ir/program.h"

namespace hqc::ir {

// A kernel argument of declared buffer `name` (written or read) / of declared param `name`; the
// passes that make kernels share these (fusion, its multi-pass split, compact_result).
KernelArg buffer_arg(const Program& program, const std::string& name, bool written);
KernelArg param_arg(const Program& program, const std::string& name);

// Pipeline `p`'s compound kernel: its complete, ordered argument list and its reductions with the
// techniques of the program's model (multi-pass: those of the pipelined model, replaced by the split).
Kernel compound_kernel(const Program& program, const Pipeline& p);

// The multi-pass model's kernels and library calls of pipeline `p`, made from its compound kernel,
// appended to Program::kernels and Program::library_calls (contract: pass_fuse_multi_pass.cpp).
void split_multi_pass(Program& program, const Pipeline& p, Kernel compound);

}  // namespace hqc::ir

// The walk of one kernel's AST (internal to inspect/; includes Clang's headers).
//
// Expects: an AST of a whole module that parsed without errors (inspect/parse.cpp), the kernel's
//   definition, and the module's line tags (the operator banners; findings.h LineTag).
// Guarantees: KernelFindings as findings.h defines them. The kernel body is walked statement by
//   statement; a call into a library function defined in the module is followed into its body with
//   its parameters bound to the call's arguments, so an access or an atomic deep in the library is
//   attributed to the kernel array it reaches (provenance through parameters, pointer arithmetic,
//   casts and local pointers) and its position is judged from every condition on the way (local id
//   == 0: per CTA; lane == 0: per warp; else per tuple inside the grid-stride loop, per thread
//   outside it). AST matchers find the kernels and the flag-narrowing assignments.
#pragma once

#include <vector>

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>

#include "inspect/findings.h"

namespace hqc::inspect {

// The kernels (CUDA __global__ / OpenCL __kernel definitions) of the main file, in source order.
std::vector<const clang::FunctionDecl*> find_kernels(clang::ASTContext& ctx);

KernelFindings walk_kernel(clang::ASTContext& ctx, const clang::FunctionDecl& kernel, const std::vector<LineTag>& lines);

}  // namespace hqc::inspect

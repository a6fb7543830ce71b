// The consistency check: what the AST of each kernel says against the launch manifest and the IR.
//
// Expects: KernelReports whose `ast` comes from Clang and whose `manifest` from codegen, for one
//   program. Guarantees: one Finding per disagreement, naming the kernel, the module line and what
//   disagrees; `checks` counts the individual checks made. The rules:
//   - every manifest kernel of the source (KernelManifest::module empty; the compaction kernels are
//     the compaction module's) is in the source and every source kernel in the manifest;
//   - the kernel's parameters are the manifest's arguments, in order (the dynamic scratchpad is a
//     parameter on OpenCL only);
//   - every column argument is read;
//   - nothing writes (stores or atomics) a column or a buffer the manifest calls input (written:
//     false), and every buffer it calls written is written;
//   - the grid-stride loop runs to the manifest's work-items parameter (none for fixed grids);
//   - a kernel with a dynamic scratchpad in the manifest declares one, and the other way round;
//   - reductions, by technique (Table 4): x3 (resolution) issues no global atomic on the state's
//     buffers per tuple or per warp, and at least one per CTA (or per slot after the tile loop, C3's
//     merge); x2 (pipelined) issues them per tuple; x1 (multi-pass, also operator-at-a-time's
//     kernels) issues none — the library reduces — but the CAS that finds a hashed group's slot (C1).
#pragma once

#include <vector>

#include "inspect/inspect.h"

namespace hqc::inspect {

void check_consistency(const ir::Program& program, const codegen::GeneratedProgram& generated,
                       const std::vector<KernelFindings>& parsed, QueryReport& report);

}  // namespace hqc::inspect

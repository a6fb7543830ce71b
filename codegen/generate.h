// Entry point of codegen/: a fused IR program (ir/program.h, after the pass driver has filled
// Program::kernels) → one module of source in one dialect plus its launch manifest.
//
// Contract:
//   - Expects a verified Program whose kernels are compound kernels (resolution or pipelined
//     model); a multi-pass / operator-at-a-time program, or an IR construct without a device form
//     yet, throws hqc::Error(Unsupported) naming the kernel and the construct.
//   - Deterministic: the same Program gives byte-identical source (golden-testable), and since
//     data-dependent values are kernel arguments the source is the same at every scale factor.
//   - The source is self-contained (no #include): prelude from the dialect table, the embedded
//     device library, then one kernel per pipeline in Program::kernels order, each a straight
//     sequence of template calls with a banner comment per operator. The compaction kernels of a
//     compacted result table are the exception: their manifests name the compaction module
//     (KernelManifest::module), whose source compaction_module() gives — the same for every
//     program of a dialect, so it compiles once and no query's module repeats it.
#pragma once

#include "codegen/dialect.h"
#include "codegen/generated_program.h"
#include "ir/program.h"

namespace hqc::codegen {

GeneratedProgram generate(const ir::Program& program, Dialect dialect);

// A module of library kernels that generated programs launch besides their own (named by
// KernelManifest::module): its source, compile options and entry points.
struct LibraryModule {
  std::string name;  // kCompactionModule
  std::string source;
  std::vector<std::string> compile_options;
  std::vector<std::string> kernel_names;
  std::string label;  // for compiler messages
};
// The compaction module: the dialect's device library, then templates/compact/compact.h.
LibraryModule compaction_module(Dialect dialect);

}  // namespace hqc::codegen

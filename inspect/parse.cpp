// Parsing a generated module with libTooling and walking its kernels; contract in parse.h.
#include "inspect/parse.h"

#include <regex>
#include <set>
#include <sstream>

#include <clang/Frontend/ASTUnit.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/raw_ostream.h>

#include "inspect/kernel_walk.h"
#include "storage/error.h"

namespace hqc::inspect {
namespace {

constexpr const char* kCudaBuiltinsPath = "/horseqc-inspect/cuda_builtins.h";

std::vector<std::string> clang_arguments(codegen::Dialect dialect, const std::vector<std::string>& options) {
  std::vector<std::string> args = {"-fsyntax-only", std::string("-resource-dir=") + HQC_CLANG_RESOURCE_DIR};
  if (dialect == codegen::Dialect::Cuda) {
    // Device code only, for the newest architecture clang 14 knows (sm_90's syntax is the same).
    args.insert(args.end(), {"-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_80", "-nocudainc", "-nocudalib",
                             "-Wno-unknown-cuda-version", "-include", kCudaBuiltinsPath});
    for (const std::string& o : options) args.push_back(o.rfind("--std=", 0) == 0 ? "-std=" + o.substr(6) : o);
  } else {
    args.insert(args.end(), {"-x", "cl", "-Xclang", "-finclude-default-header"});
    for (const std::string& o : options)
      if (o != "-w") args.push_back(o);
  }
  args.push_back("-w");  // the generated source's warnings are NVRTC's and the OpenCL compiler's business
  return args;
}

// The source lines around each diagnostic's location in `file_name` (the kernel it points into).
std::string excerpt(const std::string& source, const std::string& file_name, const std::string& diagnostics) {
  std::vector<std::string> lines;
  std::istringstream in(source);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::ostringstream out;
  const std::regex where(std::regex_replace(file_name, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") + R"(:(\d+):)");
  std::set<size_t> shown;
  for (auto it = std::sregex_iterator(diagnostics.begin(), diagnostics.end(), where); it != std::sregex_iterator(); ++it) {
    const size_t line = std::stoul((*it)[1].str());
    // The kernel the line belongs to: from the nearest kernel header above, to the line.
    size_t begin = line;
    while (begin > 1 && lines[begin - 1].rfind("HQC_KERNEL", 0) != 0) --begin;
    if (!shown.insert(begin).second) continue;
    out << "--- " << file_name << " lines " << begin << "-" << std::min(lines.size(), line + 3) << " ---\n";
    for (size_t l = begin; l <= std::min(lines.size(), line + 3); ++l) out << l << ": " << lines[l - 1] << "\n";
  }
  return out.str();
}

// Lines inside kernels, tagged with the banner comment (`// ---- filter (op 1) ----`) above them.
std::vector<LineTag> tag_lines(const std::string& source, const std::vector<KernelFindings>& kernels) {
  std::vector<LineTag> tags;
  std::istringstream in(source);
  for (std::string l; std::getline(in, l);) tags.push_back({});
  static const std::regex banner(R"(^\s*// ---- (.*) ----\s*$)");
  for (const KernelFindings& k : kernels) {
    std::string current;
    std::istringstream again(source);
    std::string l;
    for (int n = 1; std::getline(again, l) && n <= k.last_line; ++n) {
      if (n < k.first_line) continue;
      std::smatch m;
      if (std::regex_match(l, m, banner)) current = m[1].str();
      tags[static_cast<size_t>(n) - 1] = {k.name, current};
    }
  }
  return tags;
}

}  // namespace

ModuleFindings analyze_module(const std::string& source, codegen::Dialect dialect, const std::string& file_name,
                              const std::vector<std::string>& options) {
  std::string diagnostics;
  llvm::raw_string_ostream diag_stream(diagnostics);
  // Reference-counted: the printer owns it.
  clang::TextDiagnosticPrinter printer(diag_stream, new clang::DiagnosticOptions());
  clang::tooling::FileContentMappings virtual_files;
  if (dialect == codegen::Dialect::Cuda) virtual_files.emplace_back(kCudaBuiltinsPath, cuda_builtin_declarations());
  std::unique_ptr<clang::ASTUnit> ast = clang::tooling::buildASTFromCodeWithArgs(
      source, clang_arguments(dialect, options), file_name, "horseqc-inspect",
      std::make_shared<clang::PCHContainerOperations>(), clang::tooling::getClangStripDependencyFileAdjuster(),
      virtual_files, &printer);
  diag_stream.flush();
  if (ast == nullptr || ast->getDiagnostics().hasErrorOccurred())
    throw Error(ErrorKind::Internal, "Clang cannot parse the generated " + std::string(codegen::dialect_name(dialect)) +
                                         " module " + file_name + " (a horseqc bug: please report it)\n" + diagnostics +
                                         excerpt(source, file_name, diagnostics));
  clang::ASTContext& ctx = ast->getASTContext();
  const std::vector<const clang::FunctionDecl*> kernels = find_kernels(ctx);
  // Kernel extents first (banners are per kernel), then the walks, which read the banners.
  ModuleFindings module;
  for (const clang::FunctionDecl* k : kernels) {
    KernelFindings extent;
    extent.name = k->getNameAsString();
    extent.first_line = static_cast<int>(ctx.getSourceManager().getExpansionLineNumber(k->getBeginLoc()));
    extent.last_line = static_cast<int>(ctx.getSourceManager().getExpansionLineNumber(k->getEndLoc()));
    module.kernels.push_back(extent);
  }
  module.lines = tag_lines(source, module.kernels);
  module.kernels.clear();
  for (const clang::FunctionDecl* k : kernels) module.kernels.push_back(walk_kernel(ctx, *k, module.lines));
  return module;
}

}  // namespace hqc::inspect

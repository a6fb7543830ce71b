// horseqc-compile: a query (JSON plan) → kernel source, launch manifest and EXPLAIN text. No GPU needed.
// Options and exit codes: docs/cli.md.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "codegen/dialect.h"
#include "ir/explain.h"
#include "ir/kernel.h"
#include "storage/error.h"
#include "storage/temp_files.h"
#include "tools/cli/args.h"
#include "tools/driver/plan_input.h"
#include "tools/driver/query_driver.h"

namespace {

constexpr const char* kUsage = R"(usage: horseqc-compile PLAN.json|QUERY.sql [options]

Compiles a query (a JSON plan, or SQL text in any other file) into one compound kernel per pipeline. Writes, into the output directory,
<name>.cu or <name>.cl (the kernel module), <name>.manifest.json (kernels, arguments, buffers,
launch configuration) and <name>.explain.txt (logical plan, pipelines, kernels).

options:
  --target cuda|opencl              source dialect (default cuda)
  --model resolution|pipelined      micro execution model (default resolution)
  --schema auto|ssb|tpch|FILE.json  catalog to bind against (default auto: the built-in one that
                                    has every table the query names)
  -o, --output DIR                  output directory (default: the current directory)
  --emit ir|kernels|explain         print one artefact to stdout instead of writing files
  -h, --help                        this text

Environment: HORSEQC_DUMP_IR=1 prints the IR after every pass to stderr.
exit codes: 0 ok, 2 usage, 3 bad plan or query, 4 unsupported construct, 70 internal (docs/cli.md)
)";

// Complete or not at all: written under a temporary name (removed on failure or interrupt), renamed.
void write_file(const std::filesystem::path& path, const std::string& text) {
  const std::filesystem::path tmp = hqc::temp_path_for(path);
  const hqc::TempGuard guard(tmp);
  std::error_code ec;
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    out.flush();
    if (!out) {
      std::filesystem::remove(tmp, ec);
      throw hqc::Error(hqc::ErrorKind::Input, "cannot write " + path.string() + " (--output)");
    }
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw hqc::Error(hqc::ErrorKind::Input, "cannot write " + path.string() + " (--output): " + ec.message());
  }
}

// The output directory, created if absent; an existing non-directory or an uncreatable path is a
// user error (exit 3) naming it.
void ensure_output_dir(const std::filesystem::path& dir) {
  std::error_code ec;
  if (std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec))
    throw hqc::Error(hqc::ErrorKind::Input, "--output " + dir.string() + ": exists and is not a directory");
  std::filesystem::create_directories(dir, ec);
  if (ec) throw hqc::Error(hqc::ErrorKind::Input, "--output " + dir.string() + ": cannot create the directory: " + ec.message());
}

int run(int argc, char** argv) {
  using namespace hqc;
  const cli::Args args = cli::parse(argc, argv, {{"target"}, {"model"}, {"schema"}, {"output"}, {"emit"}});
  if (args.has("help")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (args.positionals.size() != 1)
    throw Error(ErrorKind::Usage, std::string("expected exactly one plan or query file\n") + kUsage);
  const std::string path = args.positionals[0];
  const std::string emit = args.get_choice("emit", {"ir", "kernels", "explain"}, "");

  driver::CompileOptions options;
  options.dialect = codegen::parse_dialect(args.get_choice("target", {"cuda", "opencl"}, "cuda"));
  options.model = ir::parse_execution_model(args.get_choice("model", {"resolution", "pipelined"}, "resolution"));
  const std::string text = driver::read_text_file(path);
  const Catalog catalog = driver::choose_catalog(args.get_or("schema", "auto"), text, !driver::is_json_plan_path(path));
  const auto query = driver::compile_query(driver::load_query(path, catalog), catalog, options);

  if (emit == "ir") std::fputs(ir::explain_pipelines(query.program).c_str(), stdout);
  if (emit == "kernels") std::fputs(query.generated.source.c_str(), stdout);
  if (emit == "explain") std::fputs(ir::explain(query.program).c_str(), stdout);
  if (!emit.empty()) return 0;

  const std::filesystem::path dir = args.get_or("output", ".");
  ensure_output_dir(dir);
  std::string stem = query.name.empty() ? std::filesystem::path(path).stem().string() : query.name;
  const std::string ext = options.dialect == codegen::Dialect::Cuda ? ".cu" : ".cl";
  const auto source = dir / (stem + ext), manifest = dir / (stem + ".manifest.json"),
             explain = dir / (stem + ".explain.txt");
  write_file(source, query.generated.source);
  write_file(manifest, query.generated.to_json().dump(2) + "\n");
  write_file(explain, ir::explain(query.program));
  std::printf("%s: %zu kernel(s), model %s, target %s\n  %s\n  %s\n  %s\n", stem.c_str(),
              query.generated.kernels.size(), ir::execution_model_name(options.model),
              codegen::dialect_name(options.dialect), source.c_str(), manifest.c_str(), explain.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return hqc::cli::run_main("horseqc-compile", run, argc, argv); }

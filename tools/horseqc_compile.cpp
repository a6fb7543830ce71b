// horseqc-compile: a query (JSON plan) → kernel source, launch manifest and EXPLAIN text. No GPU needed.
// Options and exit codes: docs/cli.md.
#include <cstdio>
#include <filesystem>
#include <optional>
#include <set>
#include <string>

#include "codegen/dialect.h"
#include "ir/explain.h"
#include "ir/kernel.h"
#include "planner/statistics.h"
#include "storage/error.h"
#include "storage/tbl_loader.h"
#include "tools/cli/args.h"
#include "tools/cli/output_files.h"
#include "tools/driver/plan_input.h"
#include "tools/driver/query_driver.h"

namespace {

constexpr const char* kUsage = R"(usage: horseqc-compile PLAN.json|QUERY.sql [options]

Compiles a query (a JSON plan, or SQL text in any other file) into one compound kernel per pipeline. Writes, into the output directory,
<name>.cu or <name>.cl (the kernel module), <name>.manifest.json (kernels, arguments, buffers,
launch configuration) and <name>.explain.txt (logical plan, pipelines, kernels).

options:
  --target cuda|opencl              source dialect (default cuda)
  --model resolution|pipelined|multi_pass|operator_at_a_time
                                    micro execution model (default resolution); multi_pass: count
                                    and write kernels with library prefix sums and reductions between;
                                    operator_at_a_time: every operator's result materialized, each
                                    operator multi-pass
  --local-resolution work-efficient|simd
                                    resolution model: A3/B3 by a scratchpad tree (default) or by
                                    warp votes and shuffles (CUDA only; OpenCL: work-efficient)
  --schema auto|ssb|tpch|FILE.json  catalog to bind against (default auto: the built-in one that
                                    has every table the query names)
  --data DIR                        compile with the statistics of the data in DIR (what horseqc-run
                                    --data DIR compiles: SQL's join order, sizes, layouts, dictionary
                                    codes, 64-bit sums where they cannot overflow, columns stored in
                                    the 1, 2 or 4 bytes their values need); read from the columnar
                                    files' headers, or by loading .tbl files. Without it: the
                                    schema's keys alone
  --distributed                     compile as each rank of `mpirun ... horseqc-run` does: the schema's
                                    large tables partitioned across ranks (docs/distributed.md); the
                                    EXPLAIN lists each rank's pipelines and the exchanges between them
  --join-exchange auto|broadcast|shuffle
                                    with --distributed: how a join over a partitioned build side on
                                    another key meets its probe rows (default auto: the fewer bytes
                                    moved by the data's estimates; without data, broadcast)
  --ranks N                         with --distributed: the ranks auto weighs for (default 2)
  -o, --output DIR                  output directory (default: the current directory)
  --emit ir|kernels|explain         print one artefact to stdout instead of writing files
  -h, --help                        this text
  --version                         the version and the git commit it was built from

Environment: HORSEQC_DUMP_IR=1 prints the IR after every pass to stderr.
exit codes: 0 ok, 2 usage, 3 bad plan or query, 4 unsupported construct, 70 internal (docs/cli.md)
)";

int run(int argc, char** argv) {
  using namespace hqc;
  const cli::Args args = cli::parse(argc, argv, {{"target"}, {"model"}, {"local-resolution"}, {"schema"}, {"output"}, {"emit"},
                                                 {"distributed", false}, {"join-exchange"}, {"ranks"}, {"data"}});
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
  options.model = ir::parse_execution_model(args.get_choice("model", {"resolution", "pipelined", "multi_pass", "operator_at_a_time"}, "resolution"));
  options.local_resolution = args.get_choice("local-resolution", {"work-efficient", "simd"}, "work-efficient") == "simd"
                                 ? ir::LocalResolution::Simd
                                 : ir::LocalResolution::WorkEfficient;
  const std::string text = driver::read_text_file(path);
  const Catalog catalog = driver::choose_catalog(args.get_or("schema", "auto"), text, !driver::is_json_plan_path(path));
  if ((args.has("join-exchange") || args.has("ranks")) && !args.has("distributed"))
    throw Error(ErrorKind::Usage, "--join-exchange and --ranks describe a distributed compile: add --distributed");
  if (args.has("distributed")) driver::partition_like_ranks(catalog, options);
  options.join_exchange = ir::parse_join_exchange(args.get_or("join-exchange", "auto"));
  const long ranks = args.get_long("ranks", 2);
  if (ranks < 2) throw Error(ErrorKind::Usage, "--ranks: expected a count of at least 2");
  options.ranks = static_cast<unsigned>(ranks);
  // --data: the statistics horseqc-run compiles with (the headers of columnar files; a .tbl is loaded);
  // as there, they order SQL's joins too (frontend/join_order.h).
  std::optional<driver::DataStatistics> data;
  if (const auto dir = args.get("data")) options.stats = &data.emplace(catalog, *dir).stats;
  const auto query = driver::compile_query(driver::load_query(path, catalog, options.stats), catalog, options);

  if (emit == "ir") std::fputs(ir::explain_pipelines(query.program).c_str(), stdout);
  if (emit == "kernels") std::fputs(query.generated.source.c_str(), stdout);
  if (emit == "explain") std::fputs(ir::explain(query.program).c_str(), stdout);
  if (!emit.empty()) return 0;

  const std::filesystem::path dir = args.get_or("output", ".");
  cli::ensure_output_dir(dir);
  std::string stem = query.name.empty() ? std::filesystem::path(path).stem().string() : query.name;
  const std::string ext = options.dialect == codegen::Dialect::Cuda ? ".cu" : ".cl";
  const auto source = dir / (stem + ext), manifest = dir / (stem + ".manifest.json"),
             explain = dir / (stem + ".explain.txt");
  cli::write_output_file(source, query.generated.source);
  cli::write_output_file(manifest, query.generated.to_json().dump(2) + "\n");
  cli::write_output_file(explain, ir::explain(query.program));
  std::printf("%s: %zu kernel(s), model %s, target %s\n  %s\n  %s\n  %s\n", stem.c_str(),
              query.generated.kernels.size(), ir::execution_model_name(options.model),
              codegen::dialect_name(options.dialect), source.c_str(), manifest.c_str(), explain.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return hqc::cli::run_main("horseqc-compile", run, argc, argv); }

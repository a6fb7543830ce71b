// horseqc-inspect: a static report of every kernel a query becomes, from Clang's AST of the
// generated source, checked against the launch manifest and the IR. No GPU needed.
// Options and exit codes: docs/cli.md, docs/inspect.md.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "codegen/dialect.h"
#include "frontend/sql/sql_frontend.h"
#include "inspect/inspect.h"
#include "ir/kernel.h"
#include "planner/statistics.h"
#include "ssb/benchmark_queries.h"
#include "storage/error.h"
#include "tools/cli/args.h"
#include "tools/cli/output_files.h"
#include "tools/driver/plan_input.h"
#include "tools/driver/query_driver.h"
#include "tpch/benchmark_queries.h"

namespace {

constexpr const char* kUsage = R"(usage: horseqc-inspect QUERY.sql|PLAN.json|ssb:q3.1|tpch:q21 [options]

Compiles a query as horseqc-compile does, parses every generated kernel with Clang (libTooling) and
reports what each kernel does to memory: the global arrays it reads and writes and under which
filters, its atomics (global or shared; per tuple, per warp or per CTA: Table 4's x2 / x3), barriers,
shared memory, loops and library calls; per query the kernels in launch order with their pipelines,
reduction techniques, launch parameters, estimated column bytes read and stored. Then checks the
kernels against the launch manifest and the IR (docs/inspect.md); a disagreement is printed as an
error and makes the exit code 1.

options:
  --model resolution|pipelined|operator_at_a_time|multi_pass   micro execution model (default resolution)
  --target cuda|opencl              source dialect (default cuda)
  --schema auto|ssb|tpch|FILE.json  catalog for a query file (default auto, as horseqc-compile)
  --format text|json|html           report format (default text)
  --sf X                            scale factor of the byte estimates (default 1)
  --data DIR                        compile with the statistics of the data in DIR, as horseqc-run
                                    --data DIR does (SQL's join order, layouts, sizes, columns
                                    narrowed to the bytes their values need; the byte estimates read
                                    narrowed columns at their stored width)
  -o, --output DIR                  write the report (<name>.inspect.txt|.json|.html) into DIR instead
                                    of stdout; html also writes <name>.dot and, when Graphviz's dot is
                                    installed, <name>.svg, linked from the page
  -h, --help                        this text
  --version                         the version and the git commit it was built from

exit codes: 0 ok, 1 the consistency check found errors, 2 usage, 3 bad plan or query,
            4 unsupported construct or model, 70 internal (e.g. generated source Clang cannot parse;
            the message has Clang's diagnostics and the kernel) (docs/cli.md)
)";

bool dot_installed() { return std::system("command -v dot >/dev/null 2>&1") == 0; }

int run(int argc, char** argv) {
  using namespace hqc;
  const cli::Args args = cli::parse(argc, argv, {{"model"}, {"target"}, {"schema"}, {"format"}, {"sf"}, {"data"}, {"output"}});
  if (args.has("help")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (args.positionals.size() != 1)
    throw Error(ErrorKind::Usage, std::string("expected exactly one query: a file, ssb:NAME or tpch:NAME\n") + kUsage);
  const std::string input = args.positionals[0];
  const std::string format = args.get_choice("format", {"text", "json", "html"}, "text");
  const double sf = args.get_double("sf", 1);
  if (!(sf > 0)) throw Error(ErrorKind::Usage, "--sf: expected a positive scale factor");
  driver::CompileOptions options;
  options.dialect = codegen::parse_dialect(args.get_choice("target", {"cuda", "opencl"}, "cuda"));
  options.model = ir::parse_execution_model(
      args.get_choice("model", {"resolution", "pipelined", "operator_at_a_time", "multi_pass"}, "resolution"));

  // The query: a built-in benchmark query by name, or a file as horseqc-compile reads it; with --data
  // its statistics order SQL's joins, as horseqc-run's do.
  Catalog catalog = Catalog::ssb();
  std::string sql, sql_path;
  if (input.rfind("ssb:", 0) == 0) {
    const std::string name = ssb::canonical_query_name(input.substr(4));
    sql = ssb::query_sql(name);
    sql_path = "ssb/queries/" + name + ".sql";
  } else if (input.rfind("tpch:", 0) == 0) {
    const std::string name = tpch::canonical_query_name(input.substr(5));
    catalog = Catalog::tpch();
    sql = tpch::query_sql(name);
    sql_path = tpch::query_path(name);
  } else {
    catalog = driver::choose_catalog(args.get_or("schema", "auto"), driver::read_text_file(input), !driver::is_json_plan_path(input));
  }
  std::optional<driver::DataStatistics> data;
  if (const auto dir = args.get("data")) options.stats = &data.emplace(catalog, *dir).stats;
  const std::shared_ptr<const plan::LogicalPlan> plan =
      sql_path.empty() ? driver::load_query(input, catalog, options.stats)
                       : std::make_shared<const plan::LogicalPlan>(parse_sql(sql, sql_path, catalog, options.stats));
  const driver::CompiledQuery query = driver::compile_query(plan, catalog, options);
  const inspect::QueryReport report = inspect::inspect_query(query.program, query.generated, catalog, sf);

  const std::string stem = query.name.empty() ? std::filesystem::path(input).stem().string() : query.name;
  std::string picture;
  if (args.has("output")) {
    const std::filesystem::path dir = args.get_or("output", ".");
    cli::ensure_output_dir(dir);
    if (format == "html") {
      const std::string dot = inspect::render_dot(query.program, query.generated);
      cli::write_output_file(dir / (stem + ".dot"), dot);
      if (dot_installed()) {
        const std::string cmd = "dot -Tsvg '" + (dir / (stem + ".dot")).string() + "' -o '" + (dir / (stem + ".svg")).string() + "'";
        if (std::system(cmd.c_str()) == 0) picture = stem + ".svg";
        else std::fprintf(stderr, "horseqc-inspect: note: dot could not render %s.dot; the page has no picture\n", stem.c_str());
      } else {
        std::fprintf(stderr, "horseqc-inspect: note: Graphviz's dot is not installed; %s.dot is not rendered\n", stem.c_str());
      }
    }
    const std::string ext = format == "text" ? ".inspect.txt" : format == "json" ? ".inspect.json" : ".inspect.html";
    const std::string body = format == "text" ? inspect::render_text(report)
                             : format == "json" ? inspect::render_json(report).dump(2) + "\n"
                                                : inspect::render_html(report, picture);
    cli::write_output_file(dir / (stem + ext), body);
    std::fprintf(stderr, "%s: %zu kernel(s), %s\n", (dir / (stem + ext)).c_str(), report.kernels.size(),
                 report.errors.empty() ? "consistent" : "consistency errors");
  } else if (format == "text") {
    std::fputs(inspect::render_text(report).c_str(), stdout);
  } else if (format == "json") {
    std::fputs((inspect::render_json(report).dump(2) + "\n").c_str(), stdout);
  } else {
    std::fputs(inspect::render_html(report, "").c_str(), stdout);
  }
  for (const inspect::Finding& f : report.errors)
    std::fprintf(stderr, "horseqc-inspect: error: %s:%d: %s: %s\n", report.file_name.c_str(), f.line, f.kernel.c_str(), f.message.c_str());
  return report.errors.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return hqc::cli::run_main("horseqc-inspect", run, argc, argv); }

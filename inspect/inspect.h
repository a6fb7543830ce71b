// horseqc-inspect's library: a compiled query's kernels as Clang sees them, next to what the
// launch manifest and the IR say, and the check that the two agree.
//
// Entry point: inspect_query(). Contract:
//   - the kernels' facts come from parsing GeneratedProgram::source with Clang (inspect/parse.h);
//     the manifest (codegen::KernelManifest) gives launch order and parameters, the IR the
//     pipelines, state objects and column sizes — never the other way round;
//   - `errors` lists every disagreement (inspect/consistency.h) with the kernel, the module line and
//     the finding; an empty list means every check held (`checks` counts them);
//   - the report is deterministic: the same query, model and target give the same text.
// Renderings: report_text.cpp, report_json.cpp, report_html.cpp (one static page), dot_graph.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "codegen/generated_program.h"
#include "inspect/findings.h"
#include "ir/program.h"
#include "storage/catalog.h"

namespace hqc::inspect {

// Estimated global-memory traffic of one kernel at a scale factor, from the catalog's row counts
// (what the ncu DRAM figures of the execution-model experiments compare with). Reads: the base-table
// columns. Writes: an upper bound for the arrays the kernel stores to (hash-table keys and payloads,
// materialised outputs): every scanned row storing each of them once per store statement; arrays
// only updated by atomics (aggregation tables, counters, flags) are not counted — their traffic is
// their footprint, which depends on the data's groups.
struct ByteEstimate {
  uint64_t unconditional_read = 0;  // columns read for every row
  uint64_t conditional_read = 0;    // columns read only behind a filter or probe: an upper bound
  uint64_t stored_upper = 0;        // stores: rows x bytes stored per row, an upper bound
  uint64_t rows = 0;                // rows of the scanned table (0: not a base table)
};

struct KernelReport {
  KernelFindings ast;
  codegen::KernelManifest manifest;
  std::string pipeline;  // the IR pipeline's name ("p1 aggregate agg0 from lineorder"), or the compaction
  ByteEstimate bytes;
};

// A disagreement between the AST and the manifest / IR.
struct Finding {
  std::string kernel;
  int line = 0;
  std::string message;
};

struct QueryReport {
  std::string query;      // the program's label ("q3_1")
  std::string model;      // "resolution"
  std::string target;     // "cuda" | "opencl"
  std::string file_name;  // the module's name in line references ("q3_1.cu")
  double sf = 1;
  std::string source;     // the module parsed
  std::vector<LineTag> lines;
  std::vector<KernelReport> kernels;  // launch order
  std::vector<Finding> errors;
  int checks = 0;
};

// Parses `generated.source` (or `source_override`, a hand-modified module: the planted-defect
// test) and checks it against `generated`'s manifest and `program`.
QueryReport inspect_query(const ir::Program& program, const codegen::GeneratedProgram& generated, const Catalog& catalog,
                          double sf = 1, const std::string* source_override = nullptr);

std::string render_text(const QueryReport& report);
nlohmann::json render_json(const QueryReport& report);
// One self-contained HTML page; `picture` is the file name of the SVG next to it, or "".
std::string render_html(const QueryReport& report, const std::string& picture);
// Graphviz DOT of the IR's pipelines, operators, state objects and kernels in launch order.
std::string render_dot(const ir::Program& program, const codegen::GeneratedProgram& generated);

}  // namespace hqc::inspect

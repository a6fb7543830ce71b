// inspect_query(): parse, pair every kernel with its manifest entry and pipeline, estimate bytes,
// check; contract in inspect.h.
#include "inspect/inspect.h"

#include <algorithm>
#include <cmath>

#include "inspect/consistency.h"
#include "inspect/parse.h"
#include "ir/state.h"

namespace hqc::inspect {
namespace {

uint64_t table_rows(const Catalog& catalog, const std::string& table, double sf) {
  const TableDef* t = catalog.find(table);
  if (t == nullptr) return 0;
  return t->scales_with_sf ? static_cast<uint64_t>(std::llround(static_cast<double>(t->rows_at_sf1) * sf)) : t->rows_at_sf1;
}

ByteEstimate estimate(const codegen::KernelManifest& m, const KernelFindings& k, const Catalog& catalog, double sf) {
  ByteEstimate b;
  b.rows = m.work_items_table.empty() ? 0 : table_rows(catalog, m.work_items_table, sf);
  for (const ir::KernelArg& a : m.args) {
    if (a.kind != ir::KernelArg::Kind::Column) continue;  // heap bytes depend on the strings
    const ArrayUse* use = k.find_array(a.name);
    if (use == nullptr || use->reads.empty()) continue;
    const uint64_t bytes = table_rows(catalog, a.table, sf) * (a.stored_bytes != 0 ? a.stored_bytes : ir::scalar_bytes(a.type));
    const bool always = std::any_of(use->reads.begin(), use->reads.end(), [](const Access& r) { return r.guard.empty(); });
    (always ? b.unconditional_read : b.conditional_read) += bytes;
  }
  // Stores: each store statement on a global array at most once per scanned row.
  for (const ir::KernelArg& a : m.args) {
    if (a.kind != ir::KernelArg::Kind::Buffer) continue;
    const ArrayUse* use = k.find_array(a.name);
    if (use == nullptr || use->space != Space::Global) continue;
    b.stored_upper += b.rows * ir::scalar_bytes(a.type) * use->writes.size();
  }
  return b;
}

std::string pipeline_name(const ir::Program& program, const codegen::KernelManifest& m) {
  for (const ir::Kernel& k : program.kernels)
    if (k.name == m.name && k.kind != ir::KernelKind::Compound)
      return std::string(ir::kernel_kind_name(k.kind)) + " of " + k.state;
  for (const ir::Pipeline& p : program.pipelines)
    if (p.id == m.pipeline) return p.name;
  return "";
}

}  // namespace

QueryReport inspect_query(const ir::Program& program, const codegen::GeneratedProgram& generated, const Catalog& catalog,
                          double sf, const std::string* source_override) {
  QueryReport report;
  report.query = program.label;
  report.model = ir::execution_model_name(program.model);
  report.target = codegen::dialect_name(generated.dialect);
  report.file_name = program.label + (generated.dialect == codegen::Dialect::Cuda ? ".cu" : ".cl");
  report.sf = sf;
  report.source = source_override != nullptr ? *source_override : generated.source;
  ModuleFindings module = analyze_module(report.source, generated.dialect, report.file_name, generated.compile_options);
  report.lines = std::move(module.lines);
  for (const codegen::KernelManifest& m : generated.kernels) {
    auto it = std::find_if(module.kernels.begin(), module.kernels.end(), [&](const KernelFindings& k) { return k.name == m.name; });
    if (it == module.kernels.end()) continue;  // a consistency error, below
    KernelReport k{*it, m, pipeline_name(program, m), {}};
    k.bytes = estimate(m, k.ast, catalog, sf);
    report.kernels.push_back(std::move(k));
  }
  check_consistency(program, generated, module.kernels, report);
  return report;
}

}  // namespace hqc::inspect

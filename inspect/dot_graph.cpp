// The query as a picture: Graphviz DOT of the IR's pipelines (source scan, operators, sink), the
// state objects between them (hash tables, aggregation tables, outputs) and the kernels in launch
// order. Built from the IR and the manifest's kernel list only; horseqc-inspect renders it with
// `dot -Tsvg` when Graphviz is installed.
#include <map>
#include <sstream>

#include "inspect/inspect.h"

namespace hqc::inspect {
namespace {

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string state_node(const std::string& state) { return quoted("state_" + state); }

}  // namespace

std::string render_dot(const ir::Program& program, const codegen::GeneratedProgram& generated) {
  std::ostringstream out;
  out << "digraph " << quoted(program.label) << " {\n"
      << "  rankdir=LR;\n  node [fontname=\"Helvetica\", fontsize=10];\n  edge [fontname=\"Helvetica\", fontsize=9];\n"
      << "  label=" << quoted(program.label + ": pipelines, state objects and kernels in launch order (" +
                              ir::execution_model_name(program.model) + " model)")
      << "; labelloc=t;\n";

  for (const ir::HashTable& h : program.hash_tables)
    out << "  " << state_node(h.name) << " [shape=cylinder, style=filled, fillcolor=\"#fff3c4\", label="
        << quoted(h.name + "\nhash table (" + ir::hash_layout_name(h.layout) + ")") << "];\n";
  for (const ir::AggregationTable& a : program.aggregations)
    out << "  " << state_node(a.name) << " [shape=cylinder, style=filled, fillcolor=\"#d8ecff\", label="
        << quoted(a.name + "\naggregation table (" + ir::agg_layout_name(a.layout) + ")") << "];\n";
  for (const ir::OutputTable& o : program.outputs)
    out << "  " << state_node(o.name) << " [shape=cylinder, style=filled, fillcolor=\"#dff5d8\", label=" << quoted(o.name + "\noutput")
        << "];\n";

  // Launch order of each kernel, by name.
  std::map<std::string, size_t> order;
  for (size_t i = 0; i < generated.kernels.size(); ++i) order[generated.kernels[i].name] = i + 1;

  for (const ir::Pipeline& p : program.pipelines) {
    const std::string prefix = "p" + std::to_string(p.id) + "_";
    std::string kernel_label;
    for (const ir::Kernel& k : program.kernels)
      if (k.pipeline == p.id && k.kind == ir::KernelKind::Compound) {
        kernel_label = "kernel " + std::to_string(order[k.name]) + ": " + k.name;
        for (const ir::Reduction& r : k.reductions) kernel_label += "\n" + r.state + ": " + ir::technique_name(r.technique);
      }
    out << "  subgraph " << quoted("cluster_p" + std::to_string(p.id)) << " {\n    style=rounded; color=\"#555555\"; label="
        << quoted(p.name + "\n" + kernel_label) << ";\n";
    std::string source = p.source.table.empty() ? (p.source.output.empty() ? p.source.aggregation : p.source.output) : p.source.table;
    out << "    " << quoted(prefix + "scan") << " [shape=box, label=" << quoted("scan " + source) << "];\n";
    std::string previous = prefix + "scan";
    for (const ir::PipelineOp& op : p.ops) {
      std::string label = std::string(ir::pipeline_op_kind_name(op.kind)) + " (op " + std::to_string(op.id) + ")";
      if (op.kind == ir::PipelineOpKind::Probe) label += "\n" + op.hash_table;
      const std::string node = prefix + "op" + std::to_string(op.id);
      out << "    " << quoted(node) << " [shape=box, style=rounded, label=" << quoted(label) << "];\n";
      out << "    " << quoted(previous) << " -> " << quoted(node) << ";\n";
      previous = node;
    }
    const std::string sink = prefix + "sink";
    out << "    " << quoted(sink) << " [shape=box, style=\"rounded,bold\", label="
        << quoted(std::string(ir::sink_kind_name(p.sink.kind)) + "\n" + p.sink.state) << "];\n";
    out << "    " << quoted(previous) << " -> " << quoted(sink) << ";\n  }\n";
    // Pipeline breakers: the sink fills a state object; probes and later scans read it.
    out << "  " << quoted(sink) << " -> " << state_node(p.sink.state) << " [label=\"writes\", penwidth=1.5];\n";
    for (const ir::PipelineOp& op : p.ops)
      if (op.kind == ir::PipelineOpKind::Probe)
        out << "  " << state_node(op.hash_table) << " -> " << quoted(prefix + "op" + std::to_string(op.id))
            << " [label=\"probe\", style=dashed];\n";
    if (!p.source.output.empty() || !p.source.aggregation.empty())
      out << "  " << state_node(source) << " -> " << quoted(prefix + "scan") << " [label=\"scan\", style=dashed];\n";
  }
  // Compaction kernels run after their table's pipeline.
  for (const ir::Kernel& k : program.kernels) {
    if (k.kind == ir::KernelKind::Compound) continue;
    out << "  " << quoted(k.name) << " [shape=component, style=filled, fillcolor=\"#eeeeee\", label="
        << quoted("kernel " + std::to_string(order[k.name]) + ": " + k.name + "\n" + ir::kernel_kind_name(k.kind)) << "];\n";
    out << "  " << state_node(k.state) << " -> " << quoted(k.name) << " [style=dotted];\n";
  }
  out << "}\n";
  return out.str();
}

}  // namespace hqc::inspect

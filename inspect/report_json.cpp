// The JSON report (horseqc-inspect --format json): the text report's facts, machine-readable.
#include "inspect/inspect.h"

namespace hqc::inspect {
namespace {

nlohmann::json access_json(const std::vector<Access>& list) {
  nlohmann::json out = nlohmann::json::array();
  for (const Access& a : list)
    out.push_back({{"line", a.line}, {"via", a.via}, {"after", a.guard}, {"conditional", !a.guard.empty()}, {"per_match", a.in_match_loop}});
  return out;
}

nlohmann::json kernel_json(const KernelReport& k) {
  const KernelFindings& a = k.ast;
  nlohmann::json arrays = nlohmann::json::array();
  for (const ArrayUse& u : a.arrays)
    arrays.push_back({{"name", u.name}, {"space", space_name(u.space)}, {"type", u.type},
                      {"reads", access_json(u.reads)}, {"writes", access_json(u.writes)}});
  nlohmann::json atomics = nlohmann::json::array();
  for (const Atomic& t : a.atomics)
    atomics.push_back({{"line", t.line}, {"via", t.via}, {"op", t.op}, {"target", t.target}, {"space", space_name(t.space)},
                       {"position", position_name(t.position)}, {"spill", t.spill}, {"atomic_line", t.library_line}});
  nlohmann::json barriers = nlohmann::json::array();
  for (const Barrier& b : a.barriers) barriers.push_back({{"line", b.line}, {"via", b.via}, {"barrier_line", b.library_line}});
  nlohmann::json loops = nlohmann::json::array();
  for (const Loop& l : a.loops) loops.push_back({{"line", l.line}, {"kind", l.kind}, {"bound", l.bound}, {"role", l.role}});
  nlohmann::json shared = nlohmann::json::array();
  for (const SharedDecl& s : a.shared)
    shared.push_back({{"name", s.name}, {"type", s.type}, {"dynamic", s.dynamic}, {"bytes", s.bytes}, {"line", s.line}});
  nlohmann::json calls = nlohmann::json::array();
  for (const Call& c : a.calls) calls.push_back({{"function", c.function}, {"lines", c.lines}});
  nlohmann::json reductions = nlohmann::json::array();
  for (const codegen::ManifestReduction& r : k.manifest.reductions)
    reductions.push_back({{"state", r.state}, {"kind", ir::reduction_kind_name(r.kind)}, {"technique", ir::technique_name(r.technique)},
                          {"local_resolution", ir::local_resolution_name(r.local)}, {"note", r.note}});
  return {{"name", a.name},
          {"lines", {a.first_line, a.last_line}},
          {"pipeline", k.pipeline},
          {"work_items", {{"param", k.manifest.work_items_param}, {"table", k.manifest.work_items_table}}},
          {"fixed_grid", k.manifest.fixed_grid},
          {"block", {{"multiple_of", k.manifest.block_size_multiple},
                     {"power_of_two", k.manifest.power_of_two_block}}},
          {"reductions", reductions},
          {"loops", loops},
          {"arrays", arrays},
          {"atomics", atomics},
          {"barriers", barriers},
          {"shared", shared},
          {"calls", calls},
          {"estimated_bytes", {{"rows", k.bytes.rows}, {"unconditional_read", k.bytes.unconditional_read},
                               {"conditional_read_upper_bound", k.bytes.conditional_read},
                               {"stored_upper_bound", k.bytes.stored_upper}}}};
}

}  // namespace

nlohmann::json render_json(const QueryReport& r) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const KernelReport& k : r.kernels) kernels.push_back(kernel_json(k));
  nlohmann::json errors = nlohmann::json::array();
  for (const Finding& f : r.errors) errors.push_back({{"kernel", f.kernel}, {"line", f.line}, {"message", f.message}});
  return {{"query", r.query}, {"model", r.model}, {"target", r.target}, {"module", r.file_name}, {"sf", r.sf},
          {"consistency", {{"checks", r.checks}, {"errors", errors}}}, {"kernels", kernels}};
}

}  // namespace hqc::inspect

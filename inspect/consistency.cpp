// The consistency check of the AST against the manifest and the IR; contract in consistency.h.
#include "inspect/consistency.h"

#include <algorithm>
#include <set>

namespace hqc::inspect {
namespace {

bool any_write(const KernelFindings& k, const std::string& array, int* line) {
  if (const ArrayUse* a = k.find_array(array); a != nullptr && !a->writes.empty()) {
    *line = a->writes.front().line;
    return true;
  }
  for (const Atomic& at : k.atomics)
    if (at.target == array) {
      *line = at.line;
      return true;
    }
  return false;
}

// The buffers a reduction's global atomics go to: the write-position counter of an output; the
// accumulators (and their 128-bit lock words) and occupancy counts of an aggregation table.
std::set<std::string> reduction_targets(const ir::Program& program, const std::string& state) {
  std::set<std::string> targets;
  if (const ir::OutputTable* o = program.find_output(state)) targets.insert(o->counter_buffer);
  if (const ir::AggregationTable* a = program.find_aggregation(state)) {
    targets.insert(a->occupancy_buffer);
    for (const ir::Accumulator& acc : a->accumulators) {
      targets.insert(acc.buffer);
      if (!acc.state_buffer.empty()) targets.insert(acc.state_buffer);
    }
  }
  targets.erase("");
  return targets;
}

class Checker {
 public:
  Checker(QueryReport& report, const KernelFindings& k) : report_(report), k_(k) {}

  // One check: counted; a failure becomes a Finding.
  void expect(bool holds, int line, const std::string& message) {
    ++report_.checks;
    if (!holds) report_.errors.push_back({k_.name, line, message});
  }

 private:
  QueryReport& report_;
  const KernelFindings& k_;
};

void check_reduction(const ir::Program& program, const codegen::ManifestReduction& r, const KernelFindings& k, Checker& check) {
  const std::set<std::string> targets = reduction_targets(program, r.state);
  std::vector<const Atomic*> global;
  for (const Atomic& a : k.atomics)
    if (a.space == Space::Global && targets.count(a.target) != 0) global.push_back(&a);
  const std::string what = std::string("reduction into ") + r.state + " (" + ir::technique_name(r.technique) + ")";
  switch (r.technique) {
    case ir::Technique::A3:
    case ir::Technique::B3:
    case ir::Technique::C3:
      for (const Atomic* a : global)
        check.expect((a->position != Position::PerTuple || (r.technique == ir::Technique::C3 && a->spill)) &&
                         a->position != Position::PerWarp,
                     a->line,
                     what + ": global atomic " + a->op + " on " + a->target + " " + position_name(a->position) +
                         (a->via.empty() ? "" : " (in " + a->via + ")") +
                         "; the resolution model issues at most one global atomic per CTA");
      check.expect(!global.empty(), k.first_line, what + ": no global atomic on its buffers in the kernel");
      break;
    case ir::Technique::A2:
    case ir::Technique::B2:
    case ir::Technique::C2:
      check.expect(std::any_of(global.begin(), global.end(), [](const Atomic* a) { return a->position == Position::PerTuple; }),
                   k.first_line, what + ": no global atomic per tuple on its buffers");
      break;
    case ir::Technique::A1:
    case ir::Technique::B1:
    case ir::Technique::C1:
      // The reduction is the library's (prefix sum; reduce; sort + reduce-by-key): the write kernel
      // only finds a hashed group's slot (a CAS on its keys, C1) and writes at its positions.
      for (const Atomic* a : global)
        check.expect(r.technique == ir::Technique::C1 && a->op == "cas", a->line,
                     what + ": global atomic " + a->op + " on " + a->target + " " + position_name(a->position) +
                         (a->via.empty() ? "" : " (in " + a->via + ")") +
                         "; under the multi-pass model the reduction runs in library calls between the kernels");
      break;
  }
}

}  // namespace

void check_consistency(const ir::Program& program, const codegen::GeneratedProgram& generated,
                       const std::vector<KernelFindings>& parsed, QueryReport& report) {
  for (const KernelFindings& k : parsed) {
    const bool listed = std::any_of(generated.kernels.begin(), generated.kernels.end(),
                                    [&](const codegen::KernelManifest& m) { return m.name == k.name; });
    Checker(report, k).expect(listed, k.first_line, "kernel " + k.name + " is in the source but not in the manifest");
  }
  for (const codegen::KernelManifest& m : generated.kernels) {
    if (!m.module.empty()) continue;  // a library module's kernel (compaction): not in this source
    auto it = std::find_if(parsed.begin(), parsed.end(), [&](const KernelFindings& k) { return k.name == m.name; });
    if (it == parsed.end()) {
      KernelFindings missing;
      missing.name = m.name;
      Checker(report, missing).expect(false, 0, "kernel " + m.name + " is in the manifest but not in the source");
      continue;
    }
    const KernelFindings& k = *it;
    Checker check(report, k);

    std::vector<std::string> expected;
    bool dynamic_scratch = false;
    for (const ir::KernelArg& a : m.args) {
      if (a.kind == ir::KernelArg::Kind::Scratch) {
        dynamic_scratch = true;
        if (generated.dialect == codegen::Dialect::OpenCL) expected.push_back("hqc_scratch");
        continue;
      }
      expected.push_back(a.name);
    }
    std::string declared, listed;
    for (const std::string& p : k.params) declared += (declared.empty() ? "" : ", ") + p;
    for (const std::string& p : expected) listed += (listed.empty() ? "" : ", ") + p;
    check.expect(k.params == expected, k.first_line, "parameters (" + declared + ") differ from the manifest's arguments (" + listed + ")");

    for (const ir::KernelArg& a : m.args) {
      int line = 0;
      switch (a.kind) {
        case ir::KernelArg::Kind::Column:
        case ir::KernelArg::Kind::ColumnHeap: {
          const ArrayUse* use = k.find_array(a.name);
          check.expect(use != nullptr && !use->reads.empty(), k.first_line,
                       "column " + a.table + "." + a.column + " (" + a.name + ") is listed in the manifest but never read");
          const bool written = any_write(k, a.name, &line);
          check.expect(!written, line, "writes " + a.name + ", an input column (" + a.table + "." + a.column + ")");
          break;
        }
        case ir::KernelArg::Kind::Buffer:
        {
          const bool written = any_write(k, a.name, &line);
          if (!a.written) check.expect(!written, line, "writes " + a.name + ", a buffer the manifest calls input (written: false)");
          else check.expect(written, k.first_line, "never writes " + a.name + ", a buffer the manifest calls written");
          break;
        }
        case ir::KernelArg::Kind::Param:
        case ir::KernelArg::Kind::Scratch:
          break;
      }
    }

    check.expect(k.tile_bound == m.work_items_param, k.first_line,
                 "the grid-stride loop runs to \"" + k.tile_bound + "\", the manifest's work-items parameter is \"" +
                     m.work_items_param + "\"");
    const bool declares_dynamic = std::any_of(k.shared.begin(), k.shared.end(), [](const SharedDecl& s) { return s.dynamic; });
    check.expect(declares_dynamic == (dynamic_scratch || !m.scratch.empty()), k.first_line,
                 declares_dynamic ? "declares a dynamic scratchpad the manifest does not size"
                                  : "the manifest sizes a dynamic scratchpad the kernel does not declare");
    for (const codegen::ManifestReduction& r : m.reductions) check_reduction(program, r, k, check);
  }
}

}  // namespace hqc::inspect

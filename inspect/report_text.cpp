// The text report (horseqc-inspect --format text, the golden tests' form); see inspect.h.
#include <cstdio>
#include <sstream>

#include "inspect/inspect.h"

namespace hqc::inspect {
namespace {

std::string guard_label(const std::vector<std::string>& guard) {
  if (guard.empty()) return "unconditional";
  std::string s = "after ";
  for (size_t i = 0; i < guard.size(); ++i) s += (i ? ", " : "") + guard[i];
  return s;
}

std::string site(int line, const std::string& via) { return "line " + std::to_string(line) + (via.empty() ? "" : " " + via); }

std::string bytes_label(uint64_t b) {
  char buf[64];
  if (b >= 1000000) std::snprintf(buf, sizeof buf, "%.1f MB", static_cast<double>(b) / 1e6);
  else if (b >= 1000) std::snprintf(buf, sizeof buf, "%.1f kB", static_cast<double>(b) / 1e3);
  else std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(b));
  return buf;
}

// "every row: line 10 hqc_load_i32; after filter (op 0): line 12 hqc_pred_load_i32"
std::string accesses(const std::vector<Access>& list) {
  std::string s;
  for (const Access& a : list)
    s += (s.empty() ? "" : "; ") + guard_label(a.guard) + (a.in_match_loop ? " (per match)" : "") + ": " + site(a.line, a.via);
  return s;
}

void kernel_text(std::ostringstream& out, const KernelReport& k, size_t index, size_t count, double sf) {
  const KernelFindings& a = k.ast;
  const codegen::KernelManifest& m = k.manifest;
  out << "\nkernel " << index + 1 << "/" << count << ": " << a.name << " (lines " << a.first_line << "-" << a.last_line << ")\n";
  out << "  pipeline: " << k.pipeline << "\n";
  out << "  launch: ";
  if (!m.work_items_param.empty())
    out << "one work-item per row of " << (m.work_items_table.empty() ? "the previous stage" : m.work_items_table) << " ("
        << m.work_items_param << ")";
  else
    out << "a fixed grid of " << m.fixed_grid << " CTAs";
  out << "; block: chosen at run time";
  if (m.power_of_two_block) out << ", a power of two";
  if (m.block_size_multiple > 1) out << ", a multiple of " << m.block_size_multiple;
  out << "; scratchpad: ";
  if (m.scratch.empty()) out << "none";
  else {
    out << m.scratch.fixed_bytes << " B + " << m.scratch.bytes_per_thread << " B/thread";
    for (const auto& [param, per] : m.scratch.bytes_per_param_unit) out << " + " << per << " B x " << param;
  }
  out << "\n";
  for (const codegen::ManifestReduction& r : m.reductions)
    out << "  reduction: " << r.state << " " << ir::reduction_kind_name(r.kind) << " " << ir::technique_name(r.technique) << " ("
        << ir::local_resolution_name(r.local) << ")" << (r.note.empty() ? "" : "; note: " + r.note) << "\n";
  for (const Loop& l : a.loops)
    out << "  loop: line " << l.line << " " << l.kind << " (" << l.bound << ")" << (l.role.empty() ? "" : " " + l.role) << "\n";
  for (Space space : {Space::Global, Space::Shared}) {
    bool header = false;
    for (const ArrayUse& u : a.arrays) {
      if (u.space != space || (u.reads.empty() && u.writes.empty())) continue;
      if (!header) out << "  " << space_name(space) << " arrays:\n";
      header = true;
      if (!u.reads.empty()) out << "    " << u.name << " read: " << accesses(u.reads) << "\n";
      if (!u.writes.empty()) out << "    " << u.name << " written: " << accesses(u.writes) << "\n";
    }
  }
  for (const Atomic& t : a.atomics)
    out << "  atomic: " << space_name(t.space) << " " << t.op << " on " << t.target << " " << position_name(t.position)
        << (t.spill ? " (spill: behind a failed scratchpad-table lookup)" : "") << ", "
        << site(t.line, t.via) << (t.library_line != t.line ? " (atomic at line " + std::to_string(t.library_line) + ")" : "") << "\n";
  if (!a.barriers.empty()) {
    out << "  barriers:";
    for (size_t i = 0; i < a.barriers.size(); ++i)
      out << (i ? "," : "") << " " << site(a.barriers[i].line, a.barriers[i].via) << " (at " << a.barriers[i].library_line << ")";
    out << "\n";
  }
  for (const SharedDecl& s : a.shared)
    out << "  shared memory: " << s.name << " " << s.type << (s.dynamic ? " (dynamic)" : " (" + std::to_string(s.bytes) + " B)")
        << ", line " << s.line << "\n";
  if (!a.calls.empty()) {
    out << "  library calls:";
    for (size_t i = 0; i < a.calls.size(); ++i) {
      out << (i ? "," : "") << " " << a.calls[i].function;
      if (a.calls[i].lines.size() > 1) out << " x" << a.calls[i].lines.size();
    }
    out << "\n";
  }
  if (k.bytes.unconditional_read + k.bytes.conditional_read > 0) {
    char sfbuf[32];
    std::snprintf(sfbuf, sizeof sfbuf, "%g", sf);
    out << "  estimated column reads at SF " << sfbuf << ": " << bytes_label(k.bytes.unconditional_read) << " unconditional, up to "
        << bytes_label(k.bytes.conditional_read) << " behind filters and probes; stores up to "
        << bytes_label(k.bytes.stored_upper) << "\n";
  }
}

}  // namespace

std::string render_text(const QueryReport& r) {
  std::ostringstream out;
  out << "horseqc-inspect: " << r.query << ", model " << r.model << ", target " << r.target << " (module " << r.file_name << ")\n";
  uint64_t always = 0, behind = 0, stored = 0;
  for (const KernelReport& k : r.kernels) always += k.bytes.unconditional_read, behind += k.bytes.conditional_read, stored += k.bytes.stored_upper;
  char sfbuf[32];
  std::snprintf(sfbuf, sizeof sfbuf, "%g", r.sf);
  out << "kernels in launch order: " << r.kernels.size() << "; estimated column reads at SF " << sfbuf << ": "
      << bytes_label(always) << " unconditional, up to " << bytes_label(behind) << " behind filters and probes; stores up to "
      << bytes_label(stored) << " (atomic-only tables not counted)\n";
  if (r.errors.empty()) out << "consistency: ok (" << r.checks << " checks)\n";
  else {
    out << "consistency: " << r.errors.size() << " error(s) in " << r.checks << " checks\n";
    for (const Finding& f : r.errors) out << "  error: " << r.file_name << ":" << f.line << ": " << f.kernel << ": " << f.message << "\n";
  }
  for (size_t i = 0; i < r.kernels.size(); ++i) kernel_text(out, r.kernels[i], i, r.kernels.size(), r.sf);
  return out.str();
}

}  // namespace hqc::inspect

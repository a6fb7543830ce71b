// The annotated source as one static HTML page: the module, syntax-highlighted by Clang's raw
// lexer, each kernel line tagged with the operator banner it came from and the findings on it
// (reads, writes, atomics, barriers, consistency errors); the device library folded away; the
// kernel summary and the query's picture (an SVG next to the page) on top. No script, no external
// style sheet: it opens from the file system in any browser.
#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include <clang/Basic/IdentifierTable.h>
#include <clang/Basic/LangOptions.h>
#include <clang/Lex/Lexer.h>

#include "inspect/inspect.h"

namespace hqc::inspect {
namespace {

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

// The module's lines as HTML, tokens in <span class=...> by Clang's lexer (raw mode: no
// preprocessing, comments kept).
std::vector<std::string> highlight(const std::string& source, bool opencl) {
  clang::LangOptions lang;
  lang.CPlusPlus = !opencl;
  lang.CPlusPlus17 = !opencl;
  lang.OpenCL = opencl;
  lang.LineComment = true;
  clang::IdentifierTable keywords(lang);
  std::vector<std::string> lines(1);
  auto emit = [&](const std::string& text, const char* cls) {
    size_t start = 0;
    while (true) {
      const size_t nl = text.find('\n', start);
      const std::string part = text.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
      if (!part.empty()) lines.back() += cls != nullptr ? std::string("<span class=") + cls + ">" + escape(part) + "</span>" : escape(part);
      if (nl == std::string::npos) break;
      lines.emplace_back();
      start = nl + 1;
    }
  };
  const char* begin = source.data();
  clang::Lexer lexer(clang::SourceLocation(), lang, begin, begin, begin + source.size());
  lexer.SetCommentRetentionState(true);
  size_t pos = 0;
  bool directive = false;
  clang::Token tok;
  while (true) {
    const bool last = lexer.LexFromRawLexer(tok);
    if (tok.is(clang::tok::eof)) break;
    const size_t end = static_cast<size_t>(lexer.getBufferLocation() - begin);
    const size_t start = end - tok.getLength();
    emit(source.substr(pos, start - pos), nullptr);
    const std::string text = source.substr(start, end - start);
    const char* cls = nullptr;
    if (tok.is(clang::tok::comment)) cls = "cm";
    else if (tok.isLiteral()) cls = tok.is(clang::tok::numeric_constant) ? "num" : "str";
    else if (tok.is(clang::tok::hash) && tok.isAtStartOfLine()) cls = "pp", directive = true;
    else if (tok.is(clang::tok::raw_identifier)) {
      if (directive) cls = "pp", directive = false;
      else if (keywords.get(text).getTokenID() != clang::tok::identifier) cls = "kw";
      else if (text.rfind("HQC_", 0) == 0) cls = "mac";
      else if (text.rfind("hqc_", 0) == 0) cls = "lib";
    }
    emit(text, cls);
    pos = end;
    if (last) break;
  }
  emit(source.substr(pos), nullptr);
  if (lines.size() > 1 && lines.back().empty()) lines.pop_back();  // after the final newline
  return lines;
}

std::string guard_text(const std::vector<std::string>& guard) {
  if (guard.empty()) return "";
  std::string s = " after ";
  for (size_t i = 0; i < guard.size(); ++i) s += (i ? ", " : "") + guard[i];
  return s;
}

// Findings by module line.
std::map<int, std::vector<std::pair<std::string, std::string>>> notes_by_line(const QueryReport& r) {
  std::map<int, std::vector<std::pair<std::string, std::string>>> notes;  // (class, text)
  for (const KernelReport& k : r.kernels) {
    for (const ArrayUse& a : k.ast.arrays) {
      for (const Access& x : a.reads) notes[x.line].push_back({"rd", std::string("reads ") + space_name(a.space) + " " + a.name + guard_text(x.guard)});
      for (const Access& x : a.writes) notes[x.line].push_back({"wr", std::string("writes ") + space_name(a.space) + " " + a.name + guard_text(x.guard)});
    }
    for (const Atomic& t : k.ast.atomics)
      notes[t.line].push_back({"at", std::string("atomic ") + t.op + " " + space_name(t.space) + " " + t.target + ", " + position_name(t.position) +
                                         (t.spill ? " (spill)" : "")});
    for (const Barrier& b : k.ast.barriers) notes[b.line].push_back({"br", "barrier" + (b.via.empty() ? "" : " in " + b.via)});
  }
  for (const Finding& f : r.errors) notes[f.line].push_back({"err", "ERROR: " + f.message});
  for (auto& [line, list] : notes) {  // one note per distinct text
    std::vector<std::pair<std::string, std::string>> unique;
    for (auto& n : list)
      if (std::find(unique.begin(), unique.end(), n) == unique.end()) unique.push_back(n);
    list = std::move(unique);
  }
  return notes;
}

constexpr const char* kStyle = R"(body{font-family:sans-serif;margin:1.5em;color:#222}
h1{font-size:1.3em}h2{font-size:1.1em;margin-top:1.5em}
table.k{border-collapse:collapse;font-size:.9em}table.k td,table.k th{border:1px solid #ccc;padding:.2em .5em;text-align:left}
table.src{border-collapse:collapse;font-family:monospace;font-size:12.5px;width:100%}
table.src td{vertical-align:top;padding:0 .5em;white-space:pre}
td.ln{color:#999;text-align:right;user-select:none}td.ln a{color:#999;text-decoration:none}
td.tag{color:#6a4c93;font-size:11px;font-family:sans-serif;white-space:nowrap}
td.note{font-family:sans-serif;font-size:11px;white-space:normal;min-width:22em}
tr:target{background:#fff7b3}
.kw{color:#0033b3;font-weight:bold}.cm{color:#8c8c8c;font-style:italic}.str{color:#067d17}.num{color:#1750eb}
.pp{color:#9e880d}.mac{color:#871094}.lib{color:#00627a}
span.rd{color:#0b6e4f}span.wr{color:#b35c00}span.at{color:#c00;font-weight:bold}span.br{color:#555}span.err{background:#c00;color:#fff;padding:0 .3em}
.ok{color:#0b6e4f;font-weight:bold}.bad{color:#c00;font-weight:bold}
details{margin:.5em 0}summary{cursor:pointer;color:#555}
)";

}  // namespace

std::string render_html(const QueryReport& r, const std::string& picture) {
  const std::vector<std::string> code = highlight(r.source, r.target == "opencl");
  const auto notes = notes_by_line(r);
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>horseqc-inspect: " << escape(r.query) << " (" << r.model << ", "
      << r.target << ")</title>\n<style>" << kStyle << "</style></head><body>\n";
  out << "<h1>" << escape(r.query) << ": " << r.kernels.size() << " kernel(s), " << r.model << " model, " << r.target << " (" << escape(r.file_name)
      << ")</h1>\n";
  if (r.errors.empty()) out << "<p class=ok>consistency: ok (" << r.checks << " checks of the AST against the manifest and the IR)</p>\n";
  else {
    out << "<p class=bad>consistency: " << r.errors.size() << " error(s) in " << r.checks << " checks</p><ul>\n";
    for (const Finding& f : r.errors)
      out << "<li><a href=\"#L" << f.line << "\">" << escape(r.file_name) << ":" << f.line << "</a> " << escape(f.kernel) << ": " << escape(f.message) << "</li>\n";
    out << "</ul>\n";
  }
  if (!picture.empty())
    out << "<p><a href=\"" << escape(picture) << "\"><img src=\"" << escape(picture)
        << "\" alt=\"pipelines, state objects and kernels\" style=\"max-width:100%\"></a></p>\n";
  out << "<h2>Kernels in launch order</h2>\n<table class=k><tr><th>#</th><th>kernel</th><th>pipeline</th><th>launch</th><th>reductions</th><th>"
         "atomics (global)</th><th>barriers</th></tr>\n";
  for (size_t i = 0; i < r.kernels.size(); ++i) {
    const KernelReport& k = r.kernels[i];
    std::map<std::string, int> by_position;
    for (const Atomic& t : k.ast.atomics)
      if (t.space == Space::Global) ++by_position[std::string(position_name(t.position)) + (t.spill ? " (spill)" : "")];
    std::string atomics, reductions;
    for (const auto& [p, n] : by_position) atomics += (atomics.empty() ? "" : ", ") + std::to_string(n) + " " + p;
    for (const codegen::ManifestReduction& red : k.manifest.reductions)
      reductions += (reductions.empty() ? "" : ", ") + red.state + " " + ir::technique_name(red.technique) + " (" + ir::local_resolution_name(red.local) + ")";
    const std::string launch = k.manifest.work_items_param.empty() ? "fixed grid of " + std::to_string(k.manifest.fixed_grid)
                                                                   : "one per row (" + k.manifest.work_items_param + ")";
    out << "<tr><td>" << i + 1 << "</td><td><a href=\"#L" << k.ast.first_line << "\">" << escape(k.ast.name) << "</a></td><td>" << escape(k.pipeline)
        << "</td><td>" << escape(launch) << "</td><td>" << escape(reductions) << "</td><td>" << escape(atomics)
        << "</td><td>" << k.ast.barriers.size() << "</td></tr>\n";
  }
  out << "</table>\n<h2>Annotated source</h2>\n";
  // The device library (everything before the first kernel) folded; the kernels open.
  int first_kernel = static_cast<int>(code.size()) + 1;
  for (const KernelReport& k : r.kernels) first_kernel = std::min(first_kernel, k.ast.first_line);
  // The query's part starts at codegen's "// ==== horseqc query ..." header, when there is one.
  const size_t header = r.source.find("\n// ==== horseqc query");
  if (header != std::string::npos)
    first_kernel = std::min(first_kernel, static_cast<int>(std::count(r.source.begin(), r.source.begin() + static_cast<long>(header), '\n')) + 5);
  auto row = [&](int line) {
    const size_t i = static_cast<size_t>(line) - 1;
    const std::string tag = i < r.lines.size() ? r.lines[i].banner : "";
    out << "<tr id=\"L" << line << "\"><td class=ln><a href=\"#L" << line << "\">" << line << "</a></td><td class=tag>" << escape(tag)
        << "</td><td>" << (i < code.size() ? code[i] : "") << "</td><td class=note>";
    if (auto it = notes.find(line); it != notes.end())
      for (size_t n = 0; n < it->second.size(); ++n)
        out << (n ? "<br>" : "") << "<span class=" << it->second[n].first << ">" << escape(it->second[n].second) << "</span>";
    out << "</td></tr>\n";
  };
  const int library_end = std::max(0, first_kernel - 4);  // the kernel's comment header stays visible
  out << "<details><summary>dialect prelude and device library: lines 1-" << library_end << "</summary><table class=src>\n";
  for (int line = 1; line <= library_end; ++line) row(line);
  out << "</table></details>\n<table class=src>\n";
  for (int line = library_end + 1; line <= static_cast<int>(code.size()); ++line) row(line);
  out << "</table>\n</body></html>\n";
  return out.str();
}

}  // namespace hqc::inspect

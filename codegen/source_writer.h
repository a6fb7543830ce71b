// Indentation for generated source comes from scopes, never from hand-counted spaces or
// hand-balanced braces: `auto s = w.block("for (...)");` writes "for (...) {", indents until `s`
// is destroyed, then writes "}".
//
// Contract: output uses two-space indentation and "\n" line ends; no trailing spaces; blank()
// never emits two blank lines in a row (so optional sections do not leave holes).
#pragma once

#include <string>
#include <string_view>

namespace hqc::codegen {

class SourceWriter {
 public:
  // RAII scope returned by block(); closes the brace (with an optional suffix, e.g. ";").
  class Scope {
   public:
    Scope(SourceWriter& w, std::string close) : w_(&w), close_(std::move(close)) {}
    Scope(Scope&& other) noexcept : w_(other.w_), close_(std::move(other.close_)) { other.w_ = nullptr; }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    Scope& operator=(Scope&&) = delete;
    ~Scope();

   private:
    SourceWriter* w_;
    std::string close_;
  };

  // One line at the current indentation (empty text writes an empty line).
  void line(std::string_view text);
  // Several lines, each indented (text split at '\n').
  void lines(std::string_view text);
  void blank();
  // "// ---- <title> ----" preceded by a blank line (unless at the start of a block).
  void banner(std::string_view title);
  // Writes "<head> {" and indents; the returned Scope writes "}<close_suffix>".
  [[nodiscard]] Scope block(std::string_view head, std::string close_suffix = "");
  // Raw text, no indentation (preludes, embedded templates).
  void raw(std::string_view text);

  const std::string& str() const { return out_; }

 private:
  std::string out_;
  int depth_ = 0;
  bool last_blank_ = true;  // start of output counts as blank: no leading blank line
};

}  // namespace hqc::codegen

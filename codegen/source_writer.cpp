// Scoped source writer; see source_writer.h.
#include "codegen/source_writer.h"

namespace hqc::codegen {

SourceWriter::Scope::~Scope() {
  if (w_ == nullptr) return;
  --w_->depth_;
  w_->line("}" + close_);
}

void SourceWriter::line(std::string_view text) {
  if (text.empty()) {
    out_ += '\n';
    last_blank_ = true;
    return;
  }
  out_.append(static_cast<size_t>(depth_) * 2, ' ');
  out_.append(text);
  out_ += '\n';
  last_blank_ = false;
}

void SourceWriter::lines(std::string_view text) {
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    if (end > start || end < text.size()) line(text.substr(start, end - start));
    start = end + 1;
  }
}

void SourceWriter::blank() {
  if (last_blank_) return;
  out_ += '\n';
  last_blank_ = true;
}

void SourceWriter::banner(std::string_view title) {
  // Directly after an opening brace a blank line would only add noise.
  if (!out_.empty() && out_.back() == '\n' && out_.size() >= 2 && out_[out_.size() - 2] != '{') blank();
  line("// ---- " + std::string(title) + " ----");
}

SourceWriter::Scope SourceWriter::block(std::string_view head, std::string close_suffix) {
  line(std::string(head) + " {");
  ++depth_;
  last_blank_ = true;
  return Scope(*this, std::move(close_suffix));
}

void SourceWriter::raw(std::string_view text) {
  out_.append(text);
  last_blank_ = !out_.empty() && out_.back() == '\n' && (out_.size() < 2 || out_[out_.size() - 2] == '\n');
}

}  // namespace hqc::codegen

// LIKE pattern shapes and the host matcher (frontend/like_pattern.h).
//
// The matcher works segment by segment like the device one: the pattern is literal segments
// separated by '%'; the first is anchored at the start, the last at the end, and each middle one
// is matched at its leftmost position after the previous one. Segments have a fixed length (`_` is
// one byte), so the leftmost position never loses a match a later one would have found.
#include "frontend/like_pattern.h"

#include <vector>

namespace hqc::plan {

namespace {

bool segment_at(std::string_view text, size_t at, std::string_view segment) {
  if (at + segment.size() > text.size()) return false;
  for (size_t i = 0; i < segment.size(); ++i) {
    if (segment[i] != '_' && segment[i] != text[at + i]) return false;
  }
  return true;
}

}  // namespace

LikeShape classify_like(std::string_view pattern, std::string* literal) {
  const size_t wildcard = pattern.find_first_of("%_");
  if (wildcard == std::string_view::npos) {
    if (literal) *literal = std::string(pattern);
    return LikeShape::Exact;
  }
  if (wildcard + 1 == pattern.size() && pattern[wildcard] == '%') {
    if (literal) *literal = std::string(pattern.substr(0, wildcard));
    return LikeShape::Prefix;
  }
  return LikeShape::General;
}

bool like_match(std::string_view text, std::string_view pattern) {
  std::vector<std::string_view> segments;
  size_t start = 0;
  for (size_t p = 0; p <= pattern.size(); ++p) {
    if (p == pattern.size() || pattern[p] == '%') {
      segments.push_back(pattern.substr(start, p - start));
      start = p + 1;
    }
  }
  if (segments.size() == 1) return text.size() == pattern.size() && segment_at(text, 0, pattern);
  if (!segment_at(text, 0, segments.front())) return false;
  size_t pos = segments.front().size();
  for (size_t s = 1; s + 1 < segments.size(); ++s) {
    while (pos + segments[s].size() <= text.size() && !segment_at(text, pos, segments[s])) ++pos;
    if (pos + segments[s].size() > text.size()) return false;
    pos += segments[s].size();
  }
  const std::string_view last = segments.back();
  return last.size() <= text.size() - pos && segment_at(text, text.size() - last.size(), last);
}

}  // namespace hqc::plan

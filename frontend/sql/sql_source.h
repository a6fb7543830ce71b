// The query text and its name, and the one place SQL errors are formatted:
//   "<source>:<line>:<col>: <message>"   (line and column 1-based, columns counted in bytes)
// so every stage (parser, binder) reports positions the same way.
//
// Contract: `location` is a byte offset into `text` as libpg_query reports it; -1 (unknown) and
// offsets past the end report the position of the end of the text.
#pragma once

#include <string>

namespace hqc::sql {

struct SqlSource {
  std::string text;
  std::string name;  // a file name, or "<sql>"

  // "q.sql:3:14"
  std::string position(int location) const;
  // hqc::Error(Input) / Error(Unsupported) with the position prefix.
  [[noreturn]] void fail(int location, const std::string& message) const;
  [[noreturn]] void unsupported(int location, const std::string& message) const;
};

}  // namespace hqc::sql

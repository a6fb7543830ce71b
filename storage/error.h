// The one exception type horseqc reports to users. The message is complete and user-facing:
// it names the input (file, line, JSON path, query position) and what was expected.
// Exit codes are documented in docs/cli.md.
#pragma once

#include <stdexcept>
#include <string>

namespace hqc {

enum class ErrorKind {
  Usage = 2,        // bad command line
  Input = 3,        // malformed data files, plans, queries, schemas
  Unsupported = 4,  // a construct horseqc does not handle yet (named in the message)
  Device = 5,       // no such device, compile failure, out of device memory
  Internal = 70,    // a broken invariant: a bug in horseqc
};

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const { return kind_; }
  int exit_code() const { return static_cast<int>(kind_); }

 private:
  ErrorKind kind_;
};

}  // namespace hqc

// Command-line parsing shared by the horseqc programs.
//
// Contract: a program declares the options it accepts (with or without a value); parse() returns the
// positionals and options, or throws hqc::Error(Usage) naming the offending argument. `--name=value`
// and `--name value` are both accepted. Help text is written by each program, next to its options.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace hqc::cli {

struct OptionSpec {
  std::string name;       // without the leading "--"
  bool takes_value = true;
};

class Args {
 public:
  std::vector<std::string> positionals;

  bool has(const std::string& name) const;
  std::optional<std::string> get(const std::string& name) const;
  std::string get_or(const std::string& name, const std::string& fallback) const;
  // The value parsed as a number; throws Error(Usage) naming the option when it is not one.
  double get_double(const std::string& name, double fallback) const;
  long get_long(const std::string& name, long fallback) const;
  // The value, which must be one of `choices`; throws Error(Usage) listing them otherwise.
  std::string get_choice(const std::string& name, const std::vector<std::string>& choices,
                         const std::string& fallback) const;

 private:
  friend Args parse(int argc, char** argv, const std::vector<OptionSpec>& specs);
  std::map<std::string, std::string> values_;
  std::set<std::string> flags_;
};

Args parse(int argc, char** argv, const std::vector<OptionSpec>& specs);

// "<program> <version> (commit <12 hex digits>[, modified])": the commit the program was built from
// (cmake/build_info.cmake), "modified" when tracked files differed from it; "unknown" outside git.
std::string version_line(const char* program);

// Runs `body`, turning hqc::Error into "<program>: error: <message>" on stderr and its exit code;
// an interrupt removes the temporary files being written and exits 128 + signal (storage/temp_files.h).
// `--version` as the only argument prints version_line() and exits 0 without running `body`.
int run_main(const char* program, int (*body)(int, char**), int argc, char** argv);

}  // namespace hqc::cli

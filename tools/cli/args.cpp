#include "tools/cli/args.h"

#include <charconv>
#include <cstdio>
#include <exception>
#include <string>

#include "hqc_build_info.h"  // generated at build time by cmake/build_info.cmake

#include "storage/error.h"
#include "storage/temp_files.h"

namespace hqc::cli {

bool Args::has(const std::string& name) const { return flags_.count(name) || values_.count(name); }

std::optional<std::string> Args::get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::string Args::get_or(const std::string& name, const std::string& fallback) const {
  return get(name).value_or(fallback);
}

double Args::get_double(const std::string& name, double fallback) const {
  auto v = get(name);
  if (!v) return fallback;
  try {
    size_t used = 0;
    double d = std::stod(*v, &used);
    if (used == v->size()) return d;
  } catch (const std::exception&) {
  }
  throw Error(ErrorKind::Usage, "--" + name + ": expected a number, found \"" + *v + "\"");
}

long Args::get_long(const std::string& name, long fallback) const {
  auto v = get(name);
  if (!v) return fallback;
  long out = 0;
  auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
  if (ec != std::errc() || end != v->data() + v->size())
    throw Error(ErrorKind::Usage, "--" + name + ": expected an integer, found \"" + *v + "\"");
  return out;
}

std::string Args::get_choice(const std::string& name, const std::vector<std::string>& choices,
                             const std::string& fallback) const {
  auto v = get(name);
  if (!v) return fallback;
  for (const auto& c : choices)
    if (c == *v) return c;
  std::string list;
  for (const auto& c : choices) list += (list.empty() ? "" : ", ") + c;
  throw Error(ErrorKind::Usage, "--" + name + ": expected one of " + list + ", found \"" + *v + "\"");
}

Args parse(int argc, char** argv, const std::vector<OptionSpec>& specs) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-o") a = "--output";  // the one short option: the output directory of horseqc-compile
    if (a.size() < 3 || a.compare(0, 2, "--") != 0) {
      if (a.size() > 1 && a[0] == '-' && a != "-h")
        throw Error(ErrorKind::Usage, "unknown option \"" + a + "\" (see --help)");
      args.positionals.push_back(a == "-h" ? "--help" : a);
      if (a == "-h") args.flags_.insert("help");
      continue;
    }
    std::string name = a.substr(2), value;
    bool inline_value = false;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      inline_value = true;
    }
    const OptionSpec* spec = nullptr;
    for (const auto& s : specs)
      if (s.name == name) spec = &s;
    if (!spec && name != "help") throw Error(ErrorKind::Usage, "unknown option \"--" + name + "\" (see --help)");
    if (!spec || !spec->takes_value) {
      if (inline_value) throw Error(ErrorKind::Usage, "option --" + name + " takes no value");
      args.flags_.insert(name);
      continue;
    }
    if (!inline_value) {
      if (i + 1 >= argc) throw Error(ErrorKind::Usage, "option --" + name + " needs a value");
      value = argv[++i];
    }
    args.values_[name] = value;
  }
  std::erase(args.positionals, std::string("--help"));
  return args;
}

std::string version_line(const char* program) {
  return std::string(program) + " " + HQC_VERSION + " (commit " + HQC_COMMIT + (HQC_COMMIT_MODIFIED ? ", modified" : "") + ")";
}

int run_main(const char* program, int (*body)(int, char**), int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--version") {
    std::printf("%s\n", version_line(program).c_str());
    return 0;
  }
  install_interrupt_cleanup(program);  // before any thread starts (storage/temp_files.h)
  try {
    return body(argc, argv);
  } catch (const Error& e) {
    std::fprintf(stderr, "%s: error: %s\n", program, e.what());
    return e.exit_code();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: internal error: %s\n", program, e.what());
    return static_cast<int>(ErrorKind::Internal);
  }
}

}  // namespace hqc::cli

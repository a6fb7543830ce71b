// Assembles the embedded chunks (embedded_templates.cpp, generated at build time) into whole files
// once, on first use, and serves them by name.
#include "templates/template_library.h"

#include <algorithm>
#include <map>

#include "storage/error.h"
#include "templates/embedded.h"

namespace hqc::templates {
namespace {

const std::map<std::string, std::string, std::less<>>& files_by_name() {
  static const std::map<std::string, std::string, std::less<>> files = [] {
    std::map<std::string, std::string, std::less<>> out;
    for (const detail::EmbeddedFile& f : detail::embedded_files()) {
      std::string text;
      for (std::string_view chunk : f.chunks) text.append(chunk);
      out.emplace(std::string(f.name), std::move(text));
    }
    return out;
  }();
  return files;
}

}  // namespace

const std::vector<std::string>& template_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& [name, text] : files_by_name()) out.push_back(name);
    return out;  // std::map iteration order is already sorted
  }();
  return names;
}

const std::string& template_source(std::string_view name) {
  const auto& files = files_by_name();
  auto it = files.find(name);
  if (it == files.end()) {
    std::string known;
    for (const auto& [n, text] : files) known += (known.empty() ? "" : ", ") + n;
    throw Error(ErrorKind::Internal,
                "template \"" + std::string(name) + "\" is not embedded; embedded templates: " + known);
  }
  return it->second;
}

const std::vector<std::string>& library_files() {
  // Order = dependency order; each file's contract comment names what it uses.
  static const std::vector<std::string> order = {
      "device/base.h",    "device/tile.h",       "device/strings.h", "device/scan.h",
      "device/reduce.h",  "device/hash_table.h", "device/group_by.h",
  };
  return order;
}

}  // namespace hqc::templates

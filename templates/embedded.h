// Internal: the shape of the build-generated tables of embedded files (horseqc_embed_files in
// cmake/HorseqcModule.cmake, written by embed_templates.cmake). Each embedding target has its own
// table in its own namespace (hqc::templates::detail for the device library, hqc::ssb::detail and
// hqc::tpch::detail for the benchmark queries); code outside those modules goes through their
// headers (template_library.h, ssb/benchmark_queries.h, tpch/benchmark_queries.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hqc::templates::detail {

struct EmbeddedFile {
  std::string_view name;                 // path relative to the embedding folder, e.g. "device/scan.h"
  std::vector<std::string_view> chunks;  // the file's bytes, in order
};

const std::vector<EmbeddedFile>& embedded_files();

// The text of the file called `name` in `files`, or nullopt.
inline std::optional<std::string> embedded_text(const std::vector<EmbeddedFile>& files, std::string_view name) {
  for (const auto& f : files) {
    if (f.name != name) continue;
    std::string text;
    for (auto c : f.chunks) text += c;
    return text;
  }
  return std::nullopt;
}

}  // namespace hqc::templates::detail

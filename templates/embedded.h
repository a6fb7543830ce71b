// Internal: the shape of the build-generated table of embedded template files (see
// embed_templates.cmake). Only templates/template_library.cpp reads it; everything else goes
// through template_library.h.
#pragma once

#include <string_view>
#include <vector>

namespace hqc::templates::detail {

struct EmbeddedFile {
  std::string_view name;                 // path relative to templates/, e.g. "device/scan.h"
  std::vector<std::string_view> chunks;  // the file's bytes, in order
};

const std::vector<EmbeddedFile>& embedded_files();

}  // namespace hqc::templates::detail

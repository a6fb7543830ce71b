// The device-side template library, embedded into the binary at build time from the real files
// under templates/ (see README.md). This is the only way other modules read templates.
//
// Contract:
//   - template_names() lists every embedded file, sorted, by its path relative to templates/.
//   - template_source(name) returns that file's exact bytes; an unknown name throws
//     hqc::Error(Internal) naming it and the names that exist.
//   - library_files() is the dependency order of the dialect-neutral device library: a file may use
//     only the dialect prelude and the files before it. dialect-specific files (warp.cuh,
//     atomics_cas.cl) are not in it; codegen/dialect decides when they join (see dialect.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hqc::templates {

const std::vector<std::string>& template_names();
const std::string& template_source(std::string_view name);

// "device/base.h", "device/tile.h", ... in the order they must be concatenated.
const std::vector<std::string>& library_files();

}  // namespace hqc::templates

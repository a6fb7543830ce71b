// Shared by the libFuzzer targets of tests/fuzz/ (built with HORSEQC_FUZZ=ON, tests/README.md).
//
// The outcome rule every target applies: an hqc::Error is how horseqc refuses bad input, so any
// kind but ErrorKind::Internal is an expected outcome. An Internal error (a broken invariant), any
// other exception (it escapes the target and libFuzzer reports it), a crash or a sanitizer report is
// a finding. Header-only, so that fuzz_columnar can link a storage/ of its own (CMakeLists.txt).
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "storage/error.h"

namespace hqc::fuzz {

// Returns normally for an expected refusal; prints the message and aborts for ErrorKind::Internal.
inline void expect_refusal(const Error& error) {
  if (error.kind() != ErrorKind::Internal) return;
  std::fprintf(stderr, "fuzz finding: internal error: %s\n", error.what());
  std::abort();
}

// A directory of this process's own under the system temporary directory, created on first use.
inline const std::filesystem::path& scratch_dir() {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("horseqc-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

// Writes `bytes` to `path` (replacing it); aborts when that fails, as the harness is then broken.
inline void write_bytes(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) {
    std::fprintf(stderr, "fuzz harness: cannot write %s\n", path.c_str());
    std::abort();
  }
}

}  // namespace hqc::fuzz

// Every template file compiles on its own — with only the dialect prelude and the files it says it
// depends on (those before it in library_files(), plus the dialect's helper files; a tail file:
// the helpers and the whole library) — with NVRTC for
// the oldest architecture this NVRTC supports (sm_70 up to CUDA 12, sm_75 since CUDA 13) and sm_90, and with the OpenCL compiler of the first device (PoCL here). .cuh files are
// CUDA-only, .cl files OpenCL-only, .h files both.
#include <doctest/doctest.h>

#include <algorithm>

#include "codegen/dialect.h"
#include "storage/error.h"
#include "templates/template_library.h"
#include "tests/templates/device_harness.h"

using hqc::codegen::Dialect;

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool applies(const std::string& name, Dialect d) {
  if (ends_with(name, ".cuh")) return d == Dialect::Cuda;
  if (ends_with(name, ".cl")) return d == Dialect::OpenCL;
  return ends_with(name, ".h");
}

// Prelude + the dependencies of `name` + `name`.
std::string standalone_source(const std::string& name, Dialect d) {
  std::string out = hqc::codegen::dialect_prelude(d);
  const auto& helpers = hqc::codegen::dialect_table(d).helper_files;
  const bool is_helper = std::find(helpers.begin(), helpers.end(), name) != helpers.end();
  if (!is_helper) {
    for (const auto& h : helpers) out += hqc::templates::template_source(h);
    // A tail file is in no library position: it gets every library file.
    for (const auto& f : hqc::templates::library_files()) {
      if (f == name) break;
      out += hqc::templates::template_source(f);
    }
  }
  out += hqc::templates::template_source(name);
  return out;
}

}  // namespace

TEST_CASE("every template compiles standalone with NVRTC (oldest supported architecture, sm_90)") {
  int checked = 0;
  for (const std::string& name : hqc::templates::template_names()) {
    if (!applies(name, Dialect::Cuda)) continue;
    for (const std::string& arch : {hqc::test::nvrtc_oldest_architecture(), std::string("sm_90")}) {
      CAPTURE(name);
      CAPTURE(arch);
      CHECK(hqc::test::nvrtc_compile_log(standalone_source(name, Dialect::Cuda), arch) == "");
      ++checked;
    }
  }
  CHECK(checked >= 14);
}

TEST_CASE("every template builds standalone with OpenCL") {
  hqc::test::OpenClDevice device;
  int checked = 0;
  for (const std::string& name : hqc::templates::template_names()) {
    if (!applies(name, Dialect::OpenCL)) continue;
    CAPTURE(name);
    CHECK(device.build_log(standalone_source(name, Dialect::OpenCL)) == "");
    ++checked;
  }
  CHECK(checked >= 7);
}

TEST_CASE("the whole device library compiles in both dialects") {
  CHECK(hqc::test::nvrtc_compile_log(hqc::codegen::device_library_source(Dialect::Cuda), "sm_90") == "");
  hqc::test::OpenClDevice device;
  CHECK(device.build_log(hqc::codegen::device_library_source(Dialect::OpenCL)) == "");
}

TEST_CASE("dialect table: names round-trip, unknown names are usage errors") {
  CHECK(hqc::codegen::parse_dialect("cuda") == Dialect::Cuda);
  CHECK(hqc::codegen::parse_dialect("opencl") == Dialect::OpenCL);
  CHECK(std::string(hqc::codegen::dialect_name(Dialect::OpenCL)) == "opencl");
  CHECK_THROWS_AS(hqc::codegen::parse_dialect("metal"), hqc::Error);
  // The preludes differ, and only through the table: the same macro names exist in both.
  std::string cuda = hqc::codegen::dialect_prelude(Dialect::Cuda);
  std::string ocl = hqc::codegen::dialect_prelude(Dialect::OpenCL);
  for (const char* macro : {"#define HQC_KERNEL", "#define HQC_BARRIER()", "#define HQC_ATOMIC_CAS_I64(p, c, v)",
                            "#define HQC_SCRATCH_PARAMS", "#define HQC_HAS_SIMD"}) {
    CAPTURE(macro);
    CHECK(cuda.find(macro) != std::string::npos);
    CHECK(ocl.find(macro) != std::string::npos);
  }
  CHECK(ocl.find("cl_khr_int64_base_atomics") != std::string::npos);
  CHECK(cuda.find("#include") == std::string::npos);
}

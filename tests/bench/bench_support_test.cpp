// The device-free parts of bench/occupancy_vs_driver and bench/synthetic_mix: the occupancy sweep,
// the comparison and its report (with stand-in drivers), the query and synthetic modules (compiled
// with NVRTC), and Table I's kernels run on OpenCL/PoCL against their host reference at several
// launch geometries.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "bench/occupancy_check.h"
#include "bench/synthetic_kernels.h"
#include "planner/device_profile.h"
#include "planner/occupancy.h"
#include "runtime/device/backend.h"
#include "runtime/device/nvrtc_compiler.h"

using namespace hqc;

TEST_CASE("occupancy sweep: warp multiples up to the kernel's limit, dynamic sizes up to the opt-in room") {
  const planner::DeviceProfile h100 = planner::named_profile("h100");
  runtime::KernelAttributes a;
  a.registers_per_thread = 32;
  a.max_threads_per_block = 1024;
  const std::vector<bench::SweepPoint> all = bench::occupancy_sweep(h100, a);
  // 32 block sizes × {0, 1, 4, 16, 32, 48, 64, 100, 160 KiB, the whole opt-in 227 KiB}.
  REQUIRE(all.size() == 32 * 10);
  CHECK(all.front().block_size == 32);
  CHECK(all.front().dynamic_shared_bytes == 0);
  CHECK(all[9].dynamic_shared_bytes == h100.shared_per_block_optin);
  CHECK(all.back().block_size == 1024);

  a.static_shared_bytes = 200'000;  // room 232,448 − 200,000 = 32,448 B: 0, 1, 4, 16 KiB and the room
  a.max_threads_per_block = 256;
  const std::vector<bench::SweepPoint> tight = bench::occupancy_sweep(h100, a);
  REQUIRE(tight.size() == 8 * 5);
  CHECK(tight[3].dynamic_shared_bytes == 16 * 1024);
  CHECK(tight[4].dynamic_shared_bytes == 32'448);
  CHECK(tight.back().block_size == 256);
}

TEST_CASE("occupancy comparison: agreement, mismatches and the report") {
  const planner::DeviceProfile h100 = planner::named_profile("h100");
  runtime::KernelAttributes a;
  a.registers_per_thread = 40;
  a.static_shared_bytes = 1024;
  a.max_threads_per_block = 128;
  auto model = [&](uint32_t block, uint32_t dynamic) {
    return static_cast<int>(planner::compute_occupancy(h100, {block, 40, 1024ull + dynamic}).blocks_per_sm);
  };
  const std::vector<bench::OccupancyRow> same = bench::compare(h100, "ssb q1.1", "k", a, model);
  CHECK(same.size() == 4 * 10);
  CHECK(bench::count_mismatches(same) == 0);
  // 40 registers, 128 threads, 1 KiB static: registers allow ⌊(65536/4)/(40·32 → 1280)⌋·4 = 48 warps = 12 blocks;
  // 2 KiB of shared memory per block (1 KiB static + 1 KiB reserved) would allow 114; so 12, by registers.
  CHECK(same[30].point.block_size == 128);
  CHECK(same[30].point.dynamic_shared_bytes == 0);
  CHECK(same[30].predicted == 12);
  CHECK(same[30].limit == "registers");
  const std::string ok = bench::format_report(same);
  CHECK(ok.find("ssb q1.1") != std::string::npos);
  CHECK(ok.find("40 points, 0 mismatches") != std::string::npos);
  CHECK(ok.find("planner") == std::string::npos);  // no mismatch section

  // A driver that disagrees at 64 threads: exactly those 10 points mismatch and are listed.
  auto off = [&](uint32_t block, uint32_t dynamic) { return model(block, dynamic) + (block == 64 ? 1 : 0); };
  const std::vector<bench::OccupancyRow> rows = bench::compare(h100, "tpch q5", "kernel_two", a, off);
  CHECK(bench::count_mismatches(rows) == 10);
  const std::string report = bench::format_report(rows);
  CHECK(report.find("40 points, 10 mismatches") != std::string::npos);
  CHECK(report.find("tpch q5 kernel_two: block 64, dynamic 0 B: planner 24, driver 25 (registers)") != std::string::npos);
  CHECK(report.find("block 32, dynamic 0 B") == std::string::npos);
}

TEST_CASE("query modules: every SSB and TPC-H query, as CUDA that NVRTC compiles") {
  std::vector<std::string> skipped;
  const std::vector<bench::KernelModule> modules = bench::query_modules(skipped);
  const auto ssb = std::count_if(modules.begin(), modules.end(), [](const auto& m) { return m.label.rfind("ssb ", 0) == 0; });
  const auto tpch = std::count_if(modules.begin(), modules.end(), [](const auto& m) { return m.label.rfind("tpch ", 0) == 0; });
  CHECK(ssb == 13);
  // Compiled without statistics (as horseqc-compile): Q8, Q11 and Q15 read 128-bit sums in later
  // stages (Q15: MAX of them), and none is skipped any more.
  CHECK(tpch == 22);
  for (const std::string& s : skipped) {
    CAPTURE(s);
    CHECK(s.empty());
  }
  for (const bench::KernelModule& m : modules) {
    CAPTURE(m.label);
    CHECK_FALSE(m.source.kernel_names.empty());
    CHECK(m.source.source.find("extern \"C\" __global__") != std::string::npos);
  }
  // One of them through NVRTC, as the tool compiles them on the GPU.
  CHECK_FALSE(runtime::compile_cuda_only(modules.front().source.source, "sm_90").empty());
}

TEST_CASE("Table I's synthetic kernels: CUDA modules compile, OpenCL outputs equal the host at any geometry") {
  const auto& kinds = bench::table_one();
  CHECK(kinds[0].registers == 8);
  CHECK(kinds[4].shared_bytes == 1536);
  const std::vector<bench::KernelModule> modules = bench::synthetic_modules();
  REQUIRE(modules.size() == 5);
  for (size_t i = 0; i < modules.size(); ++i) {
    CAPTURE(modules[i].label);
    const std::vector<std::string>& o = modules[i].source.options;
    CHECK(std::find(o.begin(), o.end(), "--maxrregcount=" + std::to_string(kinds[i].registers)) != o.end());
  }
  for (const bench::SyntheticKind& kind : kinds) {
    CAPTURE(kind.name);
    const runtime::ModuleSource cuda = bench::synthetic_module(kind, codegen::Dialect::Cuda);
    std::vector<std::string> extra(cuda.options.begin(), cuda.options.end());
    CHECK_FALSE(runtime::compile_cuda_only(cuda.source, "sm_90", extra).empty());
  }

  auto backend = runtime::open_backend(runtime::DeviceChoice::OpenCL);
  for (const bench::SyntheticKind& kind : kinds) {
    CAPTURE(kind.name);
    const runtime::CompileResult compiled = backend->compile(bench::synthetic_module(kind, codegen::Dialect::OpenCL), nullptr);
    const runtime::Kernel& k = compiled.module->kernel(kind.kernel_name());
    CHECK(k.attributes.static_shared_bytes >= kind.shared_bytes);
    const uint64_t n = 3000;
    std::vector<uint32_t> input(n);
    for (uint64_t i = 0; i < n; ++i) input[i] = static_cast<uint32_t>(i * 2654435761u + 12345u);
    runtime::DeviceBuffer in = backend->allocate(n * 4);
    in.upload(input);
    runtime::DeviceBuffer out = backend->allocate(n * 4);
    for (const runtime::LaunchConfig cfg : {runtime::LaunchConfig{1, 64, 0}, runtime::LaunchConfig{7, 128, 0},
                                            runtime::LaunchConfig{100, 32, 0}}) {
      CAPTURE(cfg.grid_blocks);
      out.fill_u32(0);
      backend->launch(k, {runtime::KernelArg::buf(in), runtime::KernelArg::buf(out), runtime::KernelArg::int64(static_cast<int64_t>(n))}, cfg);
      const std::vector<uint32_t> got = out.download_as<uint32_t>(n);
      size_t wrong = 0;
      for (uint64_t i = 0; i < n; ++i) wrong += got[i] != bench::synthetic_reference(kind, input[i]);
      CHECK(wrong == 0);
    }
  }
}

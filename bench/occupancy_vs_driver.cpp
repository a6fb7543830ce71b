// occupancy-vs-driver: the planner's occupancy model (planner/occupancy.h) against the CUDA driver's
// cuOccupancyMaxActiveBlocksPerMultiprocessor on the GPU it runs on, for horseqc's real kernels:
// the compound kernels of every SSB and TPC-H query it compiles and Table I's synthetic kernels,
// compiled by NVRTC and loaded, at every block size (multiples of the warp) and a range of dynamic
// shared memory sizes (bench/occupancy_check.h). Prints a table per kernel and every mismatch.
//
//   occupancy-vs-driver [--only ssb|tpch|synthetic] [--csv FILE]
//
// Exit codes: 0 no mismatch, 1 a mismatch, 5 no CUDA device (nothing compared; docs/cli.md's
// device code), 2 usage. Needs an NVIDIA GPU: bench/gpu_planner.sh BIN occupancy runs it.
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "bench/occupancy_check.h"
#include "runtime/device/backend.h"
#include "runtime/device/kernel_cache.h"
#include "runtime/execution/launch_config.h"
#include "storage/error.h"
#include "tools/cli/args.h"

namespace {

using namespace hqc;

int run(int argc, char** argv) {
  const cli::Args args = cli::parse(argc, argv, {{"only"}, {"csv"}, {"help", false}});
  if (args.has("help")) {
    std::puts("usage: occupancy-vs-driver [--only ssb|tpch|synthetic] [--csv FILE]\n"
              "exit codes: 0 no mismatch, 1 a mismatch, 2 usage, 5 no CUDA device");
    return 0;
  }
  const std::string only = args.get_choice("only", {"all", "ssb", "tpch", "synthetic"}, "all");
  std::unique_ptr<runtime::Backend> backend;
  try {
    backend = runtime::open_backend(runtime::DeviceChoice::Cuda);
  } catch (const Error& e) {
    std::fprintf(stderr, "occupancy-vs-driver: no CUDA device, nothing compared: %s\n", e.what());
    return static_cast<int>(ErrorKind::Device);
  }
  auto cache = runtime::KernelCache::open_default();
  const planner::DeviceProfile profile = runtime::device_profile_for(backend->properties());
  std::printf("device: %s\nprofile: %u SMs, %u warps/SM, %u blocks/SM, %u registers/SM, %llu B shared/SM, "
              "%llu B opt-in per block, %llu B reserved per block\n\n",
              backend->device_description().c_str(), profile.sm_count, profile.max_warps_per_sm(),
              profile.max_blocks_per_sm, profile.registers_per_sm,
              static_cast<unsigned long long>(profile.shared_per_sm),
              static_cast<unsigned long long>(profile.shared_per_block_optin),
              static_cast<unsigned long long>(profile.shared_reserved_per_block));

  std::vector<bench::KernelModule> modules;
  std::vector<std::string> skipped;
  if (only != "synthetic") {
    for (bench::KernelModule& m : bench::query_modules(skipped)) {
      if (only == "all" || m.label.rfind(only + " ", 0) == 0) modules.push_back(std::move(m));
    }
  }
  if (only == "all" || only == "synthetic") {
    for (bench::KernelModule& m : bench::synthetic_modules()) modules.push_back(std::move(m));
  }
  for (const std::string& s : skipped) std::printf("skipped (unsupported): %s\n", s.c_str());

  std::vector<bench::OccupancyRow> rows;
  for (const bench::KernelModule& m : modules) {
    const runtime::CompileResult compiled = backend->compile(m.source, cache.get());
    for (const runtime::Kernel& k : compiled.module->kernels()) {
      std::vector<bench::OccupancyRow> mine = bench::compare(
          profile, m.label, k.name, k.attributes,
          [&](uint32_t block, uint32_t dynamic) { return backend->driver_active_blocks(k, block, dynamic); });
      rows.insert(rows.end(), mine.begin(), mine.end());
    }
  }
  std::fputs(bench::format_report(rows).c_str(), stdout);
  if (auto path = args.get("csv")) {
    std::ofstream csv(*path);
    csv << "module,kernel,registers,static_shared_bytes,block_size,dynamic_shared_bytes,planner,driver,limit\n";
    for (const bench::OccupancyRow& r : rows) {
      csv << r.module << "," << r.kernel << "," << r.registers << "," << r.static_shared_bytes << "," << r.point.block_size
          << "," << r.point.dynamic_shared_bytes << "," << r.predicted << "," << r.driver << "," << r.limit << "\n";
    }
  }
  return bench::count_mismatches(rows) == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return hqc::cli::run_main("occupancy-vs-driver", run, argc, argv); }

// The planner's occupancy model against the CUDA driver's, for horseqc's real kernels: the parts of
// bench/occupancy_vs_driver that need no device (kernel collection, the sweep, the comparison and
// its report), so they are unit-tested here (tests/bench/).
//
// Contract:
//   - query_modules() compiles every SSB and TPC-H query horseqc supports (SQL, resolution model)
//     to its CUDA module; queries that raise Error(Unsupported) are listed in `skipped` with the
//     reason. synthetic_modules() are Table I's kernels (bench/synthetic_kernels.h) for CUDA.
//   - occupancy_sweep(): block sizes = every multiple of the warp up to min(the compiled kernel's
//     limit, the device's); dynamic shared bytes = 0, 1, 4, 16, 32, 48, 64, 100, 160 KiB and the
//     opt-in limit minus the static bytes, those at most that limit. Ordered by block, then bytes.
//   - compare(): predicted = planner::compute_occupancy(profile, {T, registers, static + dynamic});
//     driver = the callback (cuOccupancyMaxActiveBlocksPerMultiprocessor on the GPU, with the kernel
//     opted in to the whole opt-in limit); a row mismatches when they differ.
//   - format_report(): one line per kernel (points, mismatches, the registers and static shared
//     bytes it was compiled with), then every mismatching point with both numbers and the limit the
//     model names; the last line says "0 mismatches" or how many.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "planner/device_profile.h"
#include "runtime/device/backend.h"

namespace hqc::bench {

struct KernelModule {
  std::string label;               // "ssb q1.1", "tpch q5", "synthetic I"
  runtime::ModuleSource source;    // CUDA source, options and kernel names
};

std::vector<KernelModule> query_modules(std::vector<std::string>& skipped);
std::vector<KernelModule> synthetic_modules();

struct SweepPoint {
  uint32_t block_size = 0;
  uint32_t dynamic_shared_bytes = 0;
};

std::vector<SweepPoint> occupancy_sweep(const planner::DeviceProfile& profile, const runtime::KernelAttributes& kernel);

struct OccupancyRow {
  std::string module;
  std::string kernel;
  int registers = 0;
  uint64_t static_shared_bytes = 0;
  SweepPoint point;
  uint32_t predicted = 0;
  int driver = 0;
  std::string limit;               // what bounds the model's β (planner::to_string(OccupancyLimit))
  bool mismatch() const { return driver != static_cast<int>(predicted); }
};

// blocks per SM as the driver says for (block size, dynamic shared bytes)
using DriverOccupancy = std::function<int(uint32_t, uint32_t)>;

std::vector<OccupancyRow> compare(const planner::DeviceProfile& profile, const std::string& module,
                                  const std::string& kernel, const runtime::KernelAttributes& attributes,
                                  const DriverOccupancy& driver);

size_t count_mismatches(const std::vector<OccupancyRow>& rows);
std::string format_report(const std::vector<OccupancyRow>& rows);

}  // namespace hqc::bench

// The read and compute probes: launches of templates/probe/probes.h's kernels, timed on the device.
// See probes.h.
#include "runtime/device/probes.h"

#include <algorithm>
#include <vector>

#include "templates/template_library.h"

namespace hqc::runtime {

ModuleSource probe_module(const std::string& dialect_prelude, std::vector<std::string> compile_options) {
  ModuleSource m;
  m.source = dialect_prelude + templates::template_source("probe/probes.h");
  m.options = std::move(compile_options);
  m.kernel_names = {kReadProbeKernel, kComputeProbeKernel};
  m.label = "device probes (templates/probe/probes.h)";
  return m;
}

namespace {

// 256-thread blocks, enough to fill every multiprocessor's threads once.
LaunchConfig full_occupancy(const DeviceProperties& device) {
  LaunchConfig cfg;
  cfg.block_size = 256;
  const uint64_t per_mp = std::max<uint64_t>(1, device.max_threads_per_multiprocessor / cfg.block_size);
  cfg.grid_blocks = std::max<uint64_t>(1, device.multiprocessors) * std::min<uint64_t>(per_mp, 16);
  return cfg;
}

}  // namespace

uint64_t read_probe_bytes(const DeviceProperties& device) {
  if (!device.is_gpu) return uint64_t{16} << 20;
  const uint64_t want = std::max<uint64_t>(uint64_t{64} << 20, 4 * device.l2_cache_bytes);
  return std::max<uint64_t>(uint64_t{1} << 20, std::min(want, device.global_memory / 8)) / 8 * 8;
}

uint64_t compute_probe_iterations(const DeviceProperties& device) { return device.is_gpu ? 1024 : 16; }

double measure_read_bandwidth(Backend& backend, const Module& module, uint64_t bytes, int passes) {
  DeviceBuffer data = backend.allocate(bytes);
  data.fill_u64(0x0123456789abcdefull);
  DeviceBuffer sink = backend.allocate(8);
  const std::vector<KernelArg> args = {KernelArg::buf(data), KernelArg::int64(static_cast<int64_t>(bytes / 8)),
                                       KernelArg::buf(sink)};
  const Kernel& kernel = module.kernel(kReadProbeKernel);
  double best_ms = 1e300;
  for (int i = 0; i < std::max(1, passes); ++i) {
    best_ms = std::min(best_ms, backend.launch_timed(kernel, args, full_occupancy(backend.properties())));
  }
  return static_cast<double>(bytes) / (std::max(best_ms, 1e-6) / 1e3);
}

double measure_compute_throughput(Backend& backend, const Module& module, uint64_t iterations, int passes) {
  DeviceBuffer sink = backend.allocate(8);
  const LaunchConfig cfg = full_occupancy(backend.properties());
  const std::vector<KernelArg> args = {KernelArg::int64(static_cast<int64_t>(iterations)), KernelArg::buf(sink)};
  const Kernel& kernel = module.kernel(kComputeProbeKernel);
  double best_ms = 1e300;
  for (int i = 0; i < std::max(1, passes); ++i) best_ms = std::min(best_ms, backend.launch_timed(kernel, args, cfg));
  const double ops = static_cast<double>(cfg.grid_blocks) * cfg.block_size * static_cast<double>(iterations) *
                     kComputeProbeOpsPerIteration;
  return ops / (std::max(best_ms, 1e-6) / 1e3);
}

}  // namespace hqc::runtime

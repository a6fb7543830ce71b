// Device probes: the read bandwidth and the compute throughput kernels reach on this device, the
// inputs of the schedule and stream models (planner/schedule_model.h, planner/stream_model.h).
//
// Contract:
//   - probe_module() is templates/probe/probes.h after the backend dialect's prelude, with the
//     dialect's compile options (the runtime knows no dialect: codegen::dialect_prelude() and
//     codegen::compile_options() come from the caller); `module` is it compiled, with the kernels
//     kReadProbeKernel and kComputeProbeKernel.
//   - measure_read_bandwidth(): bytes ÷ the device-timed (launch_timed) duration of one streaming
//     read over a buffer of `bytes` bytes (a multiple of 8, allocated and freed here), at full
//     occupancy (256-thread blocks, as many as fill every SM once), best of `passes`. Bytes larger
//     than the L2 cache make it the DRAM read bandwidth: read_probe_bytes() chooses them.
//   - measure_compute_throughput(): lane multiply-adds per second of the compute probe at full
//     occupancy, `iterations` × kComputeProbeOpsPerIteration per work-item, best of `passes`.
//   - Neither is a test: both are timings of this device.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/device/backend.h"

namespace hqc::runtime {

inline constexpr const char* kReadProbeKernel = "hqc_probe_read";
inline constexpr const char* kComputeProbeKernel = "hqc_probe_compute";
// HQC_PROBE_OPS_PER_ITERATION of templates/probe/probes.h.
inline constexpr uint32_t kComputeProbeOpsPerIteration = 32;

ModuleSource probe_module(const std::string& dialect_prelude, std::vector<std::string> compile_options);

// GPUs: max(64 MiB, 4 × L2) — 200 MiB on an H100 or H200 (50 MiB L2), so every pass reads DRAM —
// at most an eighth of the device memory; other devices (PoCL: host memory) 16 MiB.
uint64_t read_probe_bytes(const DeviceProperties& device);
// GPUs: 1,024 iterations (~0.5 ms on an H100); other devices 16.
uint64_t compute_probe_iterations(const DeviceProperties& device);

double measure_read_bandwidth(Backend& backend, const Module& module, uint64_t bytes, int passes);
double measure_compute_throughput(Backend& backend, const Module& module, uint64_t iterations, int passes);

}  // namespace hqc::runtime

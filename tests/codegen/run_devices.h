// What the codegen run tests (joins/, wide_sums/, semi_join/) execute generated programs on, and
// under which configurations: OpenCL (PoCL here) always, CUDA where there is a device (elsewhere
// NVRTC compile checks cover the CUDA source); each execution model with and without statistics.
#pragma once

#include <memory>
#include <vector>

#include "codegen/dialect.h"
#include "ir/kernel.h"
#include "runtime/device/backend.h"
#include "storage/error.h"

namespace hqc::test {

struct Device {
  std::unique_ptr<runtime::Backend> backend;
  codegen::Dialect dialect;
};

inline std::vector<Device>& devices() {
  static std::vector<Device> out = [] {
    std::vector<Device> d;
    d.push_back({runtime::open_backend(runtime::DeviceChoice::OpenCL), codegen::Dialect::OpenCL});
    try {
      d.push_back({runtime::open_backend(runtime::DeviceChoice::Cuda), codegen::Dialect::Cuda});
    } catch (const Error&) {
      // no CUDA device here: the OpenCL run covers the logic
    }
    return d;
  }();
  return out;
}

// One configuration: execution model x statistics (layout from the data) or not.
struct Config {
  ir::ExecutionModel model;
  bool with_stats;
};

inline constexpr Config kConfigs[] = {{ir::ExecutionModel::Resolution, false},
                                      {ir::ExecutionModel::Pipelined, false},
                                      {ir::ExecutionModel::Resolution, true},
                                      {ir::ExecutionModel::Pipelined, true}};

}  // namespace hqc::test

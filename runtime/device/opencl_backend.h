// The OpenCL backend (OpenCL 1.2 API through the ICD loader): a GPU if one is registered, else a
// CPU device such as PoCL. $HORSEQC_OPENCL_DEVICE (or BackendOptions::opencl_device) picks the
// first device whose platform, vendor or name contains the given text, case-insensitively.
//
// Contract: open_opencl_backend() throws hqc::Error(ErrorKind::Device) naming the devices it saw
// when none matches; a build failure's Error carries the build log. The queue is in-order with
// profiling enabled, so launch_timed() reports device time from event profiling.
#pragma once

#include <memory>
#include <string>

#include "runtime/device/backend.h"

namespace hqc::runtime {

std::unique_ptr<Backend> open_opencl_backend(const std::string& device_preference = "");

}  // namespace hqc::runtime

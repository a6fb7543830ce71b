// The CUDA backend: the driver API (dlopen'ed, see cuda_driver.h) on the device's primary context,
// with NVRTC compiling to a cubin for the device's compute capability. No managed memory.
//
// Contract: open_cuda_backend() throws hqc::Error(ErrorKind::Device) whose message starts with
// "CUDA" when the driver is missing, reports no device, or fails; it never returns a fallback.
#pragma once

#include <memory>

#include "runtime/device/backend.h"

namespace hqc::runtime {

std::unique_ptr<Backend> open_cuda_backend(int device_ordinal = 0);

}  // namespace hqc::runtime

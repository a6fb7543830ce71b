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

// The CUDA device ordinal `backend` drives, or -1 when it is not the CUDA backend: NCCL binds its
// communicator to that device and works on that device's primary context (nccl_communicator.h).
int cuda_device_ordinal(const Backend& backend);

}  // namespace hqc::runtime

// DevicePrimitives on the CUDA backend: CUB and Thrust through cuda_primitives.h, on the backend's
// primary context. Contract: device_primitives.h.
#pragma once

#include <memory>

#include "runtime/device/device_primitives.h"

namespace hqc::runtime {

class Backend;

// `backend` is the CUDA backend of device `ordinal` (its DeviceBuffers hold CUdeviceptrs); it lends
// the calls' temporaries (Backend::acquire_scratch) and must outlive the result. Throws Error(Device)
// when the CUDA runtime cannot use the device.
std::unique_ptr<DevicePrimitives> make_cub_primitives(Backend& backend, int ordinal);

}  // namespace hqc::runtime

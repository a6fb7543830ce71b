// DevicePrimitives on the OpenCL backend, from Boost.Compute (header-only, Boost 1.74): its
// stable_sort_by_key, gather, inclusive_scan and transform on the backend's own context, device and
// in-order queue, wrapped without creating new ones. Contract: device_primitives.h.
#pragma once

#include <memory>

#include "runtime/device_primitives.h"

// The OpenCL handle types (cl_context, cl_device_id, cl_command_queue are pointers to these), so
// that this header needs no <CL/cl.h>.
struct _cl_context;
struct _cl_device_id;
struct _cl_command_queue;

namespace hqc::runtime {

// `queue` must be an in-order queue of `context` on `device`; all three must outlive the result.
std::unique_ptr<DevicePrimitives> make_boost_compute_primitives(_cl_context* context, _cl_device_id* device,
                                                                _cl_command_queue* queue);

}  // namespace hqc::runtime

// DevicePrimitives on the OpenCL backend, from Boost.Compute (header-only, Boost 1.74): its
// stable_sort_by_key, gather, inclusive_scan, exclusive_scan, reduce, reduce_by_key and transform on
// the backend's own context, device and in-order queue, wrapped without creating new ones.
// Contract: device_primitives.h.
#pragma once

#include <memory>

#include "runtime/device/device_primitives.h"

// The OpenCL handle types (cl_context, cl_device_id, cl_command_queue are pointers to these), so
// that this header needs no <CL/cl.h>.
struct _cl_context;
struct _cl_device_id;
struct _cl_command_queue;

namespace hqc::runtime {

// Boost.Compute picks its sort, scans and reductions by device type: on CPUs a merge sort, per-core
// scans and reductions and a serial reduce_by_key, on anything else a radix sort, work-group scans
// and reductions and a scan-based reduce_by_key. GpuVariants takes the latter on any device, so
// that PoCL in CI runs the code a GPU runs (OpenClBackend::primitives() takes it when
// $HORSEQC_BOOST_COMPUTE_VARIANTS is "gpu"; tests/runtime/device_primitives_test.cpp does so).
enum class BoostComputeVariants { ByDeviceType, GpuVariants };

// `queue` must be an in-order queue of `context` on `device`; all three must outlive the result.
std::unique_ptr<DevicePrimitives> make_boost_compute_primitives(_cl_context* context, _cl_device_id* device,
                                                                _cl_command_queue* queue,
                                                                BoostComputeVariants variants);

// The variants $HORSEQC_BOOST_COMPUTE_VARIANTS asks for ("gpu": GpuVariants; unset or empty:
// ByDeviceType); another value throws Error(Usage).
BoostComputeVariants boost_compute_variants_from_environment();

}  // namespace hqc::runtime

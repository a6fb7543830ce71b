// A DeviceProfile for the device a query actually runs on, from what its driver reports.
//
// Contract:
//   - Input is plain data (ReportedLimits): runtime/ copies it from cuDeviceGetAttribute or
//     clGetDeviceInfo, so the planner still never talks to a device. A field the API cannot report
//     is 0.
//   - CUDA (cc_major > 0): the architecture rules no driver attribute reports (register allocation
//     unit and sub-partitions, shared-memory allocation unit, registers per thread) come from the
//     built-in profile of that compute capability — or, for a CC newer than the newest built-in one
//     of the same or a lower major, from that newest one (allocation rules have not changed since
//     7.0). Every count the driver reports (SMs, threads/blocks per SM, registers per SM/block,
//     shared memory per SM/block/opt-in, reservation per block) replaces the built-in value.
//     A CC below every built-in one throws Error(Unsupported).
//   - OpenCL (cc_major == 0): a conservative profile from what clGetDeviceInfo reports:
//       · warp = the preferred work-group multiple (1 when unknown);
//       · threads per compute unit = the reported value, else the largest work-group (a compute unit
//         runs at least one whole work-group; more is not promised);
//       · resident groups per compute unit = the reported value, else 1 (the one promised group),
//         so the model prefers the largest work-group the kernel and the local memory allow, and a
//         striding kernel's grid is a few groups per compute unit;
//       · registers never limit: OpenCL does not report a kernel's registers (KernelAttributes says
//         0), and the profile's register file holds max_registers_per_thread for every thread;
//       · local memory per compute unit = local memory per work-group (resident groups share one
//         compute unit's local memory, as on a GPU), no reservation, 1-byte allocation unit.
//   - The result passes validate(); a device without SMs / work-group size / shared memory reported
//     throws Error(Device) naming the device and the missing field.
#pragma once

#include <cstdint>
#include <string>

#include "planner/device_profile.h"

namespace hqc::planner {

// What a driver reports about one device; 0 = not reported.
struct ReportedLimits {
  std::string name;                      // the device's name, becomes DeviceProfile::name
  int cc_major = 0;                      // CUDA compute capability; 0 on OpenCL
  int cc_minor = 0;
  uint32_t sm_count = 0;                 // SMs / compute units
  uint32_t warp_size = 0;                // warp / preferred work-group size multiple
  uint32_t max_threads_per_block = 0;    // block / work-group limit
  uint32_t max_threads_per_sm = 0;
  uint32_t max_blocks_per_sm = 0;
  uint32_t registers_per_sm = 0;
  uint32_t registers_per_block = 0;
  uint64_t shared_per_sm = 0;
  uint64_t shared_per_block = 0;         // default limit (OpenCL: CL_DEVICE_LOCAL_MEM_SIZE)
  uint64_t shared_per_block_optin = 0;
  uint64_t shared_reserved_per_block = 0;
};

DeviceProfile profile_from_reported(const ReportedLimits& reported);

}  // namespace hqc::planner

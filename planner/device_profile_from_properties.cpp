// Device profiles from driver-reported limits; see device_profile_from_properties.h.
#include "planner/device_profile_from_properties.h"

#include <algorithm>
#include <utility>

#include "storage/error.h"

namespace hqc::planner {
namespace {

// The newest built-in CC at or below the reported one: its allocation rules are the device's.
std::pair<int, int> architecture_base(const ReportedLimits& r) {
  std::pair<int, int> best{0, 0};
  for (const std::pair<int, int>& cc : known_compute_capabilities()) {
    if (cc <= std::make_pair(r.cc_major, r.cc_minor) && cc > best) best = cc;
  }
  if (best.first == 0) {
    // profile_for_compute_capability() names the supported ones in its message.
    return {r.cc_major, r.cc_minor};
  }
  return best;
}

template <typename T>
void overwrite(T& field, T reported) {
  if (reported > 0) field = reported;
}

void require_reported(bool ok, const ReportedLimits& r, const char* field) {
  if (!ok) {
    throw Error(ErrorKind::Device, "device \"" + r.name + "\" did not report " + field +
                                       ", which the launch planner needs (see planner/device_profile_from_properties.h)");
  }
}

DeviceProfile cuda_profile(const ReportedLimits& r) {
  const auto [major, minor] = architecture_base(r);
  DeviceProfile p = profile_for_compute_capability(major, minor);
  p.cc_major = r.cc_major;
  p.cc_minor = r.cc_minor;
  overwrite(p.sm_count, r.sm_count);
  overwrite(p.warp_size, r.warp_size);
  overwrite(p.max_threads_per_block, r.max_threads_per_block);
  overwrite(p.max_threads_per_sm, r.max_threads_per_sm);
  overwrite(p.max_blocks_per_sm, r.max_blocks_per_sm);
  overwrite(p.registers_per_sm, r.registers_per_sm);
  overwrite(p.registers_per_block, r.registers_per_block);
  overwrite(p.shared_per_sm, r.shared_per_sm);
  overwrite(p.shared_per_block, r.shared_per_block);
  overwrite(p.shared_per_block_optin, r.shared_per_block_optin);
  // 0 is a legitimate reservation (before CC 8.0), so only a CC that has one takes the driver's.
  if (p.shared_reserved_per_block > 0) overwrite(p.shared_reserved_per_block, r.shared_reserved_per_block);
  return p;
}

DeviceProfile opencl_profile(const ReportedLimits& r) {
  require_reported(r.sm_count > 0, r, "its compute units (CL_DEVICE_MAX_COMPUTE_UNITS)");
  require_reported(r.shared_per_block > 0, r, "its local memory (CL_DEVICE_LOCAL_MEM_SIZE)");
  DeviceProfile p;
  p.sm_count = r.sm_count;
  p.warp_size = std::max<uint32_t>(1, r.warp_size);
  p.max_threads_per_block = r.max_threads_per_block / p.warp_size * p.warp_size;
  require_reported(p.max_threads_per_block > 0, r, "a work-group size of at least one warp (CL_DEVICE_MAX_WORK_GROUP_SIZE)");
  p.max_threads_per_sm = std::max(p.max_threads_per_block, r.max_threads_per_sm / p.warp_size * p.warp_size);
  p.max_blocks_per_sm = r.max_blocks_per_sm > 0 ? r.max_blocks_per_sm : 1;
  // Registers must never be the limit: a file large enough for every thread at the maximum.
  p.max_registers_per_thread = 255;
  p.register_allocation_unit = 1;
  p.register_warp_granularity = 1;
  p.registers_per_sm = p.max_threads_per_sm * p.max_registers_per_thread;
  p.registers_per_block = p.registers_per_sm;
  p.shared_per_block = r.shared_per_block;
  p.shared_per_block_optin = std::max(r.shared_per_block, r.shared_per_block_optin);
  p.shared_per_sm = std::max(p.shared_per_block_optin, r.shared_per_sm);
  p.shared_reserved_per_block = 0;
  p.shared_allocation_unit = 1;
  return p;
}

}  // namespace

DeviceProfile profile_from_reported(const ReportedLimits& reported) {
  DeviceProfile p = reported.cc_major > 0 ? cuda_profile(reported) : opencl_profile(reported);
  p.name = reported.name.empty() ? p.name : reported.name;
  validate(p, "device \"" + p.name + "\"");
  return p;
}

}  // namespace hqc::planner

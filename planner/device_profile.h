// Device properties the planner's models read, as plain data: the planner never talks to a device.
//
// Contract:
//   - A DeviceProfile holds the per-SM and per-block limits of one GPU (seed 000 Table I, extended
//     with the allocation rules of compute capability 7.0 and later). runtime/ fills the
//     device-specific counts (SMs, shared memory, ...) from cuDeviceGetAttribute; the architecture
//     rules that no driver attribute reports (register allocation unit, warp allocation
//     granularity, shared-memory allocation unit) come from profile_for_compute_capability().
//   - Built-in profiles: compute capabilities 7.0, 7.5, 8.0, 8.6, 8.9, 9.0 with NVIDIA's published
//     per-CC limits and the SM count of a representative board (V100, T4, A100, RTX 3090,
//     RTX 4090, H100 SXM), and "h100" (= CC 9.0, measured on the device machine, DESIGN.md §7).
//   - profile_from_json() accepts exactly the keys to_json() writes; a missing key or a value out of
//     range throws Error(Input) naming the source and the JSON path. validate() enforces the
//     invariants every model relies on (all counts positive, warp size divides the thread limits).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace hqc::planner {

struct DeviceProfile {
  std::string name;                      // "h100", "cc86", or a file's own name
  int cc_major = 0;                      // compute capability, informational for JSON profiles
  int cc_minor = 0;
  uint32_t sm_count = 0;                 // streaming multiprocessors (#SM)
  uint32_t warp_size = 32;
  uint32_t max_threads_per_block = 0;
  uint32_t max_threads_per_sm = 0;       // W_SM · warp_size
  uint32_t max_blocks_per_sm = 0;        // B_SM
  uint32_t registers_per_sm = 0;         // R_SM
  uint32_t registers_per_block = 0;      // a block's registers, warps rounded to the granularity
  uint32_t register_allocation_unit = 0; // G_R: a warp's registers are allocated in these units
  uint32_t register_warp_granularity = 0;// G_W: register file split into this many sub-partitions
  uint32_t max_registers_per_thread = 0;
  uint64_t shared_per_sm = 0;            // S_SM, bytes usable by blocks (carveout at its maximum)
  uint64_t shared_per_block = 0;         // without opt-in (48 KiB on every CC here)
  uint64_t shared_per_block_optin = 0;   // with cudaFuncAttributeMaxDynamicSharedMemorySize
  uint64_t shared_reserved_per_block = 0;// taken by the driver for every block (CC >= 8.0: 1 KiB)
  uint64_t shared_allocation_unit = 0;   // a block's shared memory is rounded up to this

  uint32_t max_warps_per_sm() const { return max_threads_per_sm / warp_size; }
};

// The compute capabilities with a built-in profile, as (major, minor).
std::vector<std::pair<int, int>> known_compute_capabilities();
// Built-in profile; throws Error(Unsupported) listing the known ones for any other CC.
DeviceProfile profile_for_compute_capability(int major, int minor);
// "h100", "cc70", "cc75", "cc80", "cc86", "cc89", "cc90"; throws Error(Usage) listing them.
DeviceProfile named_profile(const std::string& name);
std::vector<std::string> builtin_profile_names();

// Throws Error(Input) "<source>: <field>: ..." on a broken invariant.
void validate(const DeviceProfile& profile, const std::string& source);

nlohmann::json to_json(const DeviceProfile& profile);
// `source` names the input in messages (a file name); the result is validated.
DeviceProfile profile_from_json(const nlohmann::json& json, const std::string& source);
DeviceProfile load_profile(const std::string& path);
void save_profile(const DeviceProfile& profile, const std::string& path);

}  // namespace hqc::planner

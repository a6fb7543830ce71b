// Built-in device profiles and their JSON form. See device_profile.h for the contract.
#include "planner/device_profile.h"

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "storage/error.h"

namespace hqc::planner {
namespace {

constexpr uint64_t kKiB = 1024;

// Values from NVIDIA's CUDA C++ Programming Guide, "Technical Specifications per Compute
// Capability", and the shared-memory capacities of the tuning guides of each architecture.
// Every CC here allocates registers per warp in units of 256 over 4 sub-partitions and grants
// 48 KiB of shared memory per block without opt-in.
DeviceProfile base_profile(int major, int minor) {
  DeviceProfile p;
  p.cc_major = major;
  p.cc_minor = minor;
  p.name = "cc" + std::to_string(major) + std::to_string(minor);
  p.warp_size = 32;
  p.max_threads_per_block = 1024;
  p.registers_per_sm = 65536;
  p.registers_per_block = 65536;
  p.register_allocation_unit = 256;
  p.register_warp_granularity = 4;
  p.max_registers_per_thread = 255;
  p.shared_per_block = 48 * kKiB;
  return p;
}

struct Row {
  int major, minor;
  uint32_t sms, threads_per_sm, blocks_per_sm;
  uint64_t shared_per_sm_kib, optin_kib, reserved, unit;
};

// sms: the representative board named in device_profile.h.
constexpr Row kRows[] = {
    {7, 0, 80, 2048, 32, 96, 96, 0, 256},      // V100
    {7, 5, 40, 1024, 16, 64, 64, 0, 256},      // T4
    {8, 0, 108, 2048, 32, 164, 163, 1024, 128},// A100
    {8, 6, 82, 1536, 16, 100, 99, 1024, 128},  // RTX 3090
    {8, 9, 128, 1536, 24, 100, 99, 1024, 128}, // RTX 4090
    {9, 0, 132, 2048, 32, 228, 227, 1024, 128},// H100 SXM
};

template <typename T>
T read_field(const nlohmann::json& json, const char* key, const std::string& source) {
  if (!json.contains(key)) {
    throw Error(ErrorKind::Input, source + ": $." + key + ": missing (device profiles need every field of "
                                                          "`horseqc-plan --device h100 --dump-profile`)");
  }
  const nlohmann::json& v = json.at(key);
  if constexpr (std::is_same_v<T, std::string>) {
    if (!v.is_string()) throw Error(ErrorKind::Input, source + ": $." + key + ": expected a string");
    return v.get<std::string>();
  } else {
    if (!v.is_number_integer() || v.get<int64_t>() < 0) {
      throw Error(ErrorKind::Input, source + ": $." + key + ": expected a non-negative integer, found " + v.dump());
    }
    return static_cast<T>(v.get<uint64_t>());
  }
}

void require(bool ok, const std::string& source, const char* field, const std::string& what) {
  if (!ok) throw Error(ErrorKind::Input, source + ": " + field + ": " + what);
}

}  // namespace

std::vector<std::pair<int, int>> known_compute_capabilities() {
  std::vector<std::pair<int, int>> out;
  for (const Row& r : kRows) out.emplace_back(r.major, r.minor);
  return out;
}

DeviceProfile profile_for_compute_capability(int major, int minor) {
  for (const Row& r : kRows) {
    if (r.major != major || r.minor != minor) continue;
    DeviceProfile p = base_profile(major, minor);
    p.sm_count = r.sms;
    p.max_threads_per_sm = r.threads_per_sm;
    p.max_blocks_per_sm = r.blocks_per_sm;
    p.shared_per_sm = r.shared_per_sm_kib * kKiB;
    p.shared_per_block_optin = r.optin_kib * kKiB;
    p.shared_reserved_per_block = r.reserved;
    p.shared_allocation_unit = r.unit;
    return p;
  }
  std::string known;
  for (const Row& r : kRows) known += (known.empty() ? "" : ", ") + std::to_string(r.major) + "." + std::to_string(r.minor);
  throw Error(ErrorKind::Unsupported, "no built-in device profile for compute capability " + std::to_string(major) + "." +
                                          std::to_string(minor) + " (known: " + known +
                                          "); pass a JSON profile instead");
}

std::vector<std::string> builtin_profile_names() {
  std::vector<std::string> names{"h100"};
  for (const Row& r : kRows) names.push_back("cc" + std::to_string(r.major) + std::to_string(r.minor));
  return names;
}

DeviceProfile named_profile(const std::string& name) {
  if (name == "h100") {
    DeviceProfile p = profile_for_compute_capability(9, 0);
    p.name = "h100";
    return p;
  }
  for (const Row& r : kRows) {
    if (name == "cc" + std::to_string(r.major) + std::to_string(r.minor)) return profile_for_compute_capability(r.major, r.minor);
  }
  std::string known;
  for (const std::string& n : builtin_profile_names()) known += (known.empty() ? "" : ", ") + n;
  throw Error(ErrorKind::Usage, "unknown device profile \"" + name + "\" (built-in: " + known + ", or a JSON file)");
}

void validate(const DeviceProfile& p, const std::string& source) {
  require(p.sm_count > 0, source, "sm_count", "must be positive");
  require(p.warp_size > 0, source, "warp_size", "must be positive");
  require(p.max_threads_per_block > 0 && p.max_threads_per_block % p.warp_size == 0, source, "max_threads_per_block",
          "must be a positive multiple of warp_size");
  require(p.max_threads_per_sm >= p.max_threads_per_block && p.max_threads_per_sm % p.warp_size == 0, source,
          "max_threads_per_sm", "must be a multiple of warp_size and at least max_threads_per_block");
  require(p.max_blocks_per_sm > 0, source, "max_blocks_per_sm", "must be positive");
  require(p.register_allocation_unit > 0, source, "register_allocation_unit", "must be positive");
  require(p.register_warp_granularity > 0, source, "register_warp_granularity", "must be positive");
  require(p.registers_per_sm >= p.register_allocation_unit * p.register_warp_granularity, source, "registers_per_sm",
          "must hold at least one allocation unit per sub-partition");
  require(p.registers_per_block > 0, source, "registers_per_block", "must be positive");
  require(p.max_registers_per_thread > 0, source, "max_registers_per_thread", "must be positive");
  require(p.shared_allocation_unit > 0, source, "shared_allocation_unit", "must be positive");
  require(p.shared_per_sm > 0, source, "shared_per_sm", "must be positive");
  require(p.shared_per_block > 0 && p.shared_per_block <= p.shared_per_block_optin, source, "shared_per_block",
          "must be positive and at most shared_per_block_optin");
  require(p.shared_per_block_optin + p.shared_reserved_per_block <= p.shared_per_sm, source, "shared_per_block_optin",
          "plus shared_reserved_per_block must fit in shared_per_sm");
}

nlohmann::json to_json(const DeviceProfile& p) {
  return nlohmann::json{{"name", p.name},
                        {"cc_major", p.cc_major},
                        {"cc_minor", p.cc_minor},
                        {"sm_count", p.sm_count},
                        {"warp_size", p.warp_size},
                        {"max_threads_per_block", p.max_threads_per_block},
                        {"max_threads_per_sm", p.max_threads_per_sm},
                        {"max_blocks_per_sm", p.max_blocks_per_sm},
                        {"registers_per_sm", p.registers_per_sm},
                        {"registers_per_block", p.registers_per_block},
                        {"register_allocation_unit", p.register_allocation_unit},
                        {"register_warp_granularity", p.register_warp_granularity},
                        {"max_registers_per_thread", p.max_registers_per_thread},
                        {"shared_per_sm", p.shared_per_sm},
                        {"shared_per_block", p.shared_per_block},
                        {"shared_per_block_optin", p.shared_per_block_optin},
                        {"shared_reserved_per_block", p.shared_reserved_per_block},
                        {"shared_allocation_unit", p.shared_allocation_unit}};
}

DeviceProfile profile_from_json(const nlohmann::json& json, const std::string& source) {
  if (!json.is_object()) throw Error(ErrorKind::Input, source + ": $: expected a JSON object with device limits");
  for (const auto& [key, value] : json.items()) {
    if (!to_json(DeviceProfile{}).contains(key)) {
      throw Error(ErrorKind::Input, source + ": $." + key + ": unknown device profile field");
    }
  }
  DeviceProfile p;
  p.name = read_field<std::string>(json, "name", source);
  p.cc_major = read_field<int>(json, "cc_major", source);
  p.cc_minor = read_field<int>(json, "cc_minor", source);
  p.sm_count = read_field<uint32_t>(json, "sm_count", source);
  p.warp_size = read_field<uint32_t>(json, "warp_size", source);
  p.max_threads_per_block = read_field<uint32_t>(json, "max_threads_per_block", source);
  p.max_threads_per_sm = read_field<uint32_t>(json, "max_threads_per_sm", source);
  p.max_blocks_per_sm = read_field<uint32_t>(json, "max_blocks_per_sm", source);
  p.registers_per_sm = read_field<uint32_t>(json, "registers_per_sm", source);
  p.registers_per_block = read_field<uint32_t>(json, "registers_per_block", source);
  p.register_allocation_unit = read_field<uint32_t>(json, "register_allocation_unit", source);
  p.register_warp_granularity = read_field<uint32_t>(json, "register_warp_granularity", source);
  p.max_registers_per_thread = read_field<uint32_t>(json, "max_registers_per_thread", source);
  p.shared_per_sm = read_field<uint64_t>(json, "shared_per_sm", source);
  p.shared_per_block = read_field<uint64_t>(json, "shared_per_block", source);
  p.shared_per_block_optin = read_field<uint64_t>(json, "shared_per_block_optin", source);
  p.shared_reserved_per_block = read_field<uint64_t>(json, "shared_reserved_per_block", source);
  p.shared_allocation_unit = read_field<uint64_t>(json, "shared_allocation_unit", source);
  validate(p, source);
  return p;
}

DeviceProfile load_profile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(ErrorKind::Input, path + ": cannot open device profile");
  nlohmann::json json;
  try {
    in >> json;
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(ErrorKind::Input, path + ": byte " + std::to_string(e.byte) + ": malformed JSON (" + e.what() + ")");
  }
  return profile_from_json(json, path);
}

void save_profile(const DeviceProfile& profile, const std::string& path) {
  std::ofstream out(path);
  if (!out) throw Error(ErrorKind::Input, path + ": cannot write device profile");
  out << to_json(profile).dump(2) << "\n";
}

}  // namespace hqc::planner

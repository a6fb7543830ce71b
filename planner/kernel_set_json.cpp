// Reading a kernel set from JSON. See kernel_set_json.h for the format.
#include "planner/kernel_set_json.h"

#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "storage/error.h"

namespace hqc::planner {
namespace {

[[noreturn]] void fail(const std::string& source, const std::string& path, const std::string& what) {
  throw Error(ErrorKind::Input, source + ": " + path + ": " + what);
}

void only_keys(const nlohmann::json& object, const std::set<std::string>& allowed, const std::string& source,
               const std::string& path) {
  if (!object.is_object()) fail(source, path, "expected an object");
  for (const auto& [key, value] : object.items()) {
    if (allowed.count(key) == 0) {
      std::string list;
      for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
      fail(source, path + "." + key, "unknown key (expected one of: " + list + ")");
    }
  }
}

uint64_t unsigned_field(const nlohmann::json& object, const char* key, const std::string& source, const std::string& path,
                        std::optional<uint64_t> fallback) {
  if (!object.contains(key)) {
    if (fallback) return *fallback;
    fail(source, path + "." + key, "missing (expected a non-negative integer)");
  }
  const nlohmann::json& v = object.at(key);
  if (!v.is_number_integer() || v.get<int64_t>() < 0) {
    fail(source, path + "." + key, "expected a non-negative integer, found " + v.dump());
  }
  return v.get<uint64_t>();
}

double number_field(const nlohmann::json& object, const char* key, const std::string& source, const std::string& path,
                    bool positive) {
  if (!object.contains(key)) fail(source, path + "." + key, "missing (expected a number)");
  const nlohmann::json& v = object.at(key);
  if (!v.is_number() || v.get<double>() < 0 || (positive && v.get<double>() == 0)) {
    fail(source, path + "." + key, std::string("expected a ") + (positive ? "positive" : "non-negative") + " number, found " + v.dump());
  }
  return v.get<double>();
}

}  // namespace

KernelSet kernel_set_from_json(const nlohmann::json& json, const std::string& source) {
  only_keys(json, {"kernels", "stream"}, source, "$");
  if (!json.contains("kernels") || !json.at("kernels").is_array() || json.at("kernels").empty()) {
    fail(source, "$.kernels", "expected a non-empty array of kernels");
  }
  KernelSet set;
  const nlohmann::json& kernels = json.at("kernels");
  for (size_t i = 0; i < kernels.size(); ++i) {
    const std::string path = "$.kernels[" + std::to_string(i) + "]";
    const nlohmann::json& k = kernels[i];
    only_keys(k, {"name", "threads", "registers", "shared_bytes", "shared_bytes_per_thread"}, source, path);
    KernelDemand d;
    d.name = "k" + std::to_string(i);
    if (k.contains("name")) {
      if (!k.at("name").is_string()) fail(source, path + ".name", "expected a string");
      d.name = k.at("name").get<std::string>();
    }
    d.threads = unsigned_field(k, "threads", source, path, std::nullopt);
    if (d.threads == 0) fail(source, path + ".threads", "expected at least 1 thread");
    const uint64_t registers = unsigned_field(k, "registers", source, path, std::nullopt);
    if (registers > 65535) fail(source, path + ".registers", "expected a register count per thread, found " + std::to_string(registers));
    d.registers_per_thread = static_cast<uint32_t>(registers);
    const uint64_t fixed = unsigned_field(k, "shared_bytes", source, path, 0);
    const uint64_t per_thread = unsigned_field(k, "shared_bytes_per_thread", source, path, 0);
    d.shared_per_block = linear_shared_memory(fixed, per_thread);
    set.kernels.push_back(std::move(d));
    set.shared_terms.emplace_back(fixed, per_thread);
  }
  if (json.contains("stream")) {
    const nlohmann::json& s = json.at("stream");
    only_keys(s, {"bytes_in", "bytes_out", "h2d_gb_per_s", "d2h_gb_per_s", "kernel_gb_per_s", "chunk_overhead_us", "max_chunks", "engines"},
              source, "$.stream");
    StreamInput in;
    in.rates.bytes_in = number_field(s, "bytes_in", source, "$.stream", false);
    in.rates.bytes_out = number_field(s, "bytes_out", source, "$.stream", false);
    in.rates.host_to_device_bytes_per_s = number_field(s, "h2d_gb_per_s", source, "$.stream", true) * 1e9;
    in.rates.device_to_host_bytes_per_s = number_field(s, "d2h_gb_per_s", source, "$.stream", true) * 1e9;
    in.rates.kernel_bytes_per_s = number_field(s, "kernel_gb_per_s", source, "$.stream", true) * 1e9;
    in.rates.per_chunk_overhead_s = number_field(s, "chunk_overhead_us", source, "$.stream", false) * 1e-6;
    in.max_chunks = unsigned_field(s, "max_chunks", source, "$.stream", 1024);
    if (in.max_chunks == 0) fail(source, "$.stream.max_chunks", "expected at least 1");
    if (s.contains("engines")) {
      const nlohmann::json& e = s.at("engines");
      if (e == "three") {
        in.engines = Engines::ThreeEngines;
      } else if (e == "one") {
        in.engines = Engines::OneCopyEngineOverlap;
      } else {
        fail(source, "$.stream.engines", "expected \"three\" or \"one\", found " + e.dump());
      }
    }
    set.stream = in;
  }
  return set;
}

KernelSet load_kernel_set(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(ErrorKind::Input, path + ": cannot open kernel set");
  nlohmann::json json;
  try {
    in >> json;
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(ErrorKind::Input, path + ": byte " + std::to_string(e.byte) + ": malformed JSON (" + e.what() + ")");
  }
  return kernel_set_from_json(json, path);
}

}  // namespace hqc::planner

// Kernel cache entries on disk. File layout (little-endian):
//   bytes 0..7    magic "HQCKRNL1"
//   bytes 8..15   payload length
//   bytes 16..23  FNV-1a 64 of the payload
//   bytes 24..    payload
// Writers use <key>.tmp.<pid>.<counter> + rename(2), which is atomic within one directory.
#include "runtime/device/kernel_cache.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <system_error>

#include <unistd.h>

#include "runtime/device/stable_hash.h"

namespace hqc::runtime {

namespace {

constexpr char kMagic[8] = {'H', 'Q', 'C', 'K', 'R', 'N', 'L', '1'};
constexpr size_t kHeaderBytes = 24;

void put_u64(char* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>(v >> (8 * i));
}
uint64_t get_u64(const char* in) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(static_cast<unsigned char>(in[i])) << (8 * i);
  return v;
}

}  // namespace

KernelCache::KernelCache(std::filesystem::path directory) : directory_(std::move(directory)) {
  std::error_code ec;
  std::filesystem::create_directories(directory_, ec);
  if (ec) last_error_ = "cannot create kernel cache directory " + directory_.string() + ": " + ec.message();
}

std::filesystem::path KernelCache::default_directory() {
  if (const char* explicit_dir = std::getenv("HORSEQC_KERNEL_CACHE"); explicit_dir && *explicit_dir) {
    return explicit_dir;
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    return std::filesystem::path(xdg) / "horseqc" / "kernels";
  }
  if (const char* home = std::getenv("HOME"); home && *home) {
    return std::filesystem::path(home) / ".cache" / "horseqc" / "kernels";
  }
  return std::filesystem::temp_directory_path() / "horseqc-kernels";
}

std::unique_ptr<KernelCache> KernelCache::open_default() {
  if (const char* explicit_dir = std::getenv("HORSEQC_KERNEL_CACHE"); explicit_dir && std::string(explicit_dir) == "off") {
    return nullptr;
  }
  return std::make_unique<KernelCache>(default_directory());
}

std::string KernelCache::key_for(const std::string& identity, const std::string& source,
                                 const std::vector<std::string>& options) {
  StableHasher h;
  h.add("horseqc-kernel-cache-v1");
  h.add(identity);
  h.add(source);
  for (const std::string& option : options) h.add(option);
  return h.hex();
}

std::filesystem::path KernelCache::entry_path(const std::string& key) const { return directory_ / (key + ".bin"); }

std::optional<std::vector<char>> KernelCache::load(const std::string& key) {
  const std::filesystem::path path = entry_path(key);
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  bool ok = bytes.size() >= kHeaderBytes && std::memcmp(bytes.data(), kMagic, 8) == 0;
  if (ok) {
    const uint64_t length = get_u64(bytes.data() + 8);
    const uint64_t checksum = get_u64(bytes.data() + 16);
    ok = length == bytes.size() - kHeaderBytes &&
         fnv1a64(bytes.data() + kHeaderBytes, static_cast<size_t>(length)) == checksum;
  }
  if (!ok) {
    ++corrupt_entries_;
    remove(key);
    return std::nullopt;
  }
  return std::vector<char>(bytes.begin() + kHeaderBytes, bytes.end());
}

bool KernelCache::store(const std::string& key, const std::vector<char>& payload) {
  static std::atomic<uint64_t> counter{0};
  std::error_code ec;
  std::filesystem::create_directories(directory_, ec);
  const std::filesystem::path final_path = entry_path(key);
  const std::filesystem::path temp_path =
      directory_ / (key + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++));
  char header[kHeaderBytes];
  std::memcpy(header, kMagic, 8);
  put_u64(header + 8, payload.size());
  put_u64(header + 16, fnv1a64(payload.data(), payload.size()));
  {
    std::ofstream out(temp_path, std::ios::binary | std::ios::trunc);
    out.write(header, kHeaderBytes);
    out.write(payload.data(), static_cast<std::streamsize>(payload.size()));
    out.flush();
    if (!out) {
      last_error_ = "cannot write kernel cache entry " + temp_path.string();
      out.close();
      std::filesystem::remove(temp_path, ec);
      return false;
    }
  }
  std::filesystem::rename(temp_path, final_path, ec);
  if (ec) {
    last_error_ = "cannot rename kernel cache entry into " + final_path.string() + ": " + ec.message();
    std::filesystem::remove(temp_path, ec);
    return false;
  }
  return true;
}

void KernelCache::remove(const std::string& key) {
  std::error_code ec;
  std::filesystem::remove(entry_path(key), ec);
}

}  // namespace hqc::runtime

// On-disk cache of compiled kernels (cubins, OpenCL program binaries), so the second run of a
// query compiles nothing.
//
// Contract:
//   - key_for() is stable across processes and builds: a hash of (device/compiler identity,
//     source, options). A changed driver, compiler, architecture, source or option is a new key.
//   - Entries are written to a temporary file in the same directory and renamed into place, so a
//     concurrent reader sees either no entry or a complete one, never a torn one.
//   - Every entry carries a header (magic, format version, payload length, payload checksum);
//     load() returns nullopt for a missing, truncated or corrupt entry and deletes the bad file, so
//     the caller recompiles and stores a good one.
//   - The cache is an optimisation: a directory that cannot be written makes store() return false
//     (with last_error() saying why), never fail a query.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hqc::runtime {

class KernelCache {
 public:
  // Creates `directory` (and parents) if needed.
  explicit KernelCache(std::filesystem::path directory);

  // $HORSEQC_KERNEL_CACHE, else $XDG_CACHE_HOME/horseqc/kernels, else ~/.cache/horseqc/kernels.
  static std::filesystem::path default_directory();
  // The cache in default_directory(), or nullptr when $HORSEQC_KERNEL_CACHE is "off".
  static std::unique_ptr<KernelCache> open_default();

  static std::string key_for(const std::string& identity, const std::string& source,
                             const std::vector<std::string>& options);

  std::optional<std::vector<char>> load(const std::string& key);
  bool store(const std::string& key, const std::vector<char>& payload);
  void remove(const std::string& key);

  const std::filesystem::path& directory() const { return directory_; }
  std::filesystem::path entry_path(const std::string& key) const;
  // Entries found corrupt (and removed) by this object's load() calls.
  uint64_t corrupt_entries() const { return corrupt_entries_; }
  const std::string& last_error() const { return last_error_; }

 private:
  std::filesystem::path directory_;
  uint64_t corrupt_entries_ = 0;
  std::string last_error_;
};

}  // namespace hqc::runtime

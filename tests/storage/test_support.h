// Helpers for the storage tests: where the fixtures are, and scratch directories that clean up.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>

namespace hqc::test {

// tests/data in the source tree (CTest sets HORSEQC_SOURCE_DIR; running the binary from the source
// root works too).
inline std::filesystem::path data_dir() {
  const char* src = std::getenv("HORSEQC_SOURCE_DIR");
  const std::filesystem::path root = src && *src ? std::filesystem::path(src) : std::filesystem::current_path();
  const std::filesystem::path dir = root / "tests" / "data";
  if (!std::filesystem::is_directory(dir)) throw std::runtime_error("no fixtures at " + dir.string() + "; set HORSEQC_SOURCE_DIR");
  return dir;
}

// A fresh directory under the system temp dir, removed with everything in it at scope exit.
class ScratchDir {
 public:
  ScratchDir() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() / ("hqc-storage-test-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all, std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

inline void write_file(const std::filesystem::path& p, const std::string& content) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << content;
}

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace hqc::test

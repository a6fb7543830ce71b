// A read-only memory mapping of a whole file, so parsers index the bytes without copying them.
// Throws hqc::Error (ErrorKind::Input) naming the path when the file cannot be opened or mapped.
// An empty file maps to data() == nullptr, size() == 0.
#pragma once

#include <cstddef>
#include <filesystem>

namespace hqc {

class MappedFile {
 public:
  explicit MappedFile(const std::filesystem::path& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const char* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  const char* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace hqc

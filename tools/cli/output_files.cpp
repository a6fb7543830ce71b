// Output files of the command-line programs; contract in output_files.h.
#include "tools/cli/output_files.h"

#include <fstream>

#include "storage/error.h"
#include "storage/temp_files.h"

namespace hqc::cli {

// Complete or not at all: written under a temporary name (removed on failure or interrupt), renamed.
void write_output_file(const std::filesystem::path& path, const std::string& text) {
  const std::filesystem::path tmp = temp_path_for(path);
  const TempGuard guard(tmp);
  std::error_code ec;
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    out.flush();
    if (!out) {
      std::filesystem::remove(tmp, ec);
      throw Error(ErrorKind::Input, "cannot write " + path.string() + " (--output)");
    }
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw Error(ErrorKind::Input, "cannot write " + path.string() + " (--output): " + ec.message());
  }
}

// The output directory, created if absent; an existing non-directory or an uncreatable path is a
// user error (exit 3) naming it.
void ensure_output_dir(const std::filesystem::path& dir) {
  std::error_code ec;
  if (std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec))
    throw Error(ErrorKind::Input, "--output " + dir.string() + ": exists and is not a directory");
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error(ErrorKind::Input, "--output " + dir.string() + ": cannot create the directory: " + ec.message());
}

}  // namespace hqc::cli

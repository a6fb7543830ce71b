// Temporary files and directories that never outlive the process that made them.
//
// Contract: everything horseqc writes is written under a temporary name and renamed into place
// complete. The temporary name is always "<final>.tmp-<pid>" (temp_path_for), so that
//   - while the process runs, each one is registered (TempGuard); an interrupt (SIGINT, SIGTERM,
//     SIGHUP) handled by install_interrupt_cleanup removes every registered path, says so on stderr
//     and ends the process with 128 + the signal number (130 for Ctrl-C);
//   - one left behind by a process that was killed outright (SIGKILL, a crash, a power cut) is
//     recognised by its dead pid and removed by sweep_stale_temp_files at the next start, which the
//     writers call on the directory they write into. A live pid's files are never touched.
#pragma once

#include <filesystem>
#include <string>

namespace hqc {

// "<final>.tmp-<pid of this process>".
std::filesystem::path temp_path_for(const std::filesystem::path& final_path);

// Registers `path` (a file or a directory) for removal on interrupt while the guard lives. The guard
// does not remove it on destruction: the writer renames it into place or removes it itself.
class TempGuard {
 public:
  explicit TempGuard(std::filesystem::path path);
  ~TempGuard();
  TempGuard(const TempGuard&) = delete;
  TempGuard& operator=(const TempGuard&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Call first in main, before any thread starts: blocks SIGINT / SIGTERM / SIGHUP in every thread and
// handles them in a thread of their own (see the contract above). `program` prefixes the message.
void install_interrupt_cleanup(const std::string& program);

// Removes the entries of `dir` named "*.tmp-<pid>" whose process no longer exists; returns how many
// (a missing directory: 0).
size_t sweep_stale_temp_files(const std::filesystem::path& dir);

}  // namespace hqc

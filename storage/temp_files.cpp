// Registry of temporary paths, the interrupt thread and the sweep of dead processes' leftovers
// (contract in temp_files.h).
#include "storage/temp_files.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

namespace hqc {
namespace {

struct Registry {
  std::mutex mutex;
  std::multiset<std::filesystem::path> paths;
};

Registry& registry() {
  static Registry r;
  return r;
}

constexpr const char* kMarker = ".tmp-";

// The pid of a "<name>.tmp-<pid>" entry, or 0 when the name is not of that form.
pid_t temp_owner(const std::string& name) {
  const size_t at = name.rfind(kMarker);
  if (at == std::string::npos || at == 0) return 0;
  const std::string digits = name.substr(at + std::strlen(kMarker));
  if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) return 0;
  return static_cast<pid_t>(std::stol(digits));
}

bool process_exists(pid_t pid) { return ::kill(pid, 0) == 0 || errno == EPERM; }

}  // namespace

std::filesystem::path temp_path_for(const std::filesystem::path& final_path) {
  return final_path.string() + kMarker + std::to_string(::getpid());
}

TempGuard::TempGuard(std::filesystem::path path) : path_(std::move(path)) {
  std::lock_guard<std::mutex> lock(registry().mutex);
  registry().paths.insert(path_);
}

TempGuard::~TempGuard() {
  std::lock_guard<std::mutex> lock(registry().mutex);
  auto it = registry().paths.find(path_);
  if (it != registry().paths.end()) registry().paths.erase(it);
}

void install_interrupt_cleanup(const std::string& program) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);  // inherited by every thread started from here on
  std::thread([set, program] {
    int sig = 0;
    if (sigwait(&set, &sig) != 0) return;
    size_t removed = 0;
    {
      // Held to the end: no writer registers or renames a path while it is being removed.
      std::lock_guard<std::mutex> lock(registry().mutex);
      for (const std::filesystem::path& p : registry().paths) {
        std::error_code ec;
        removed += std::filesystem::remove_all(p, ec) > 0 ? 1 : 0;
      }
      std::fflush(stdout);
      std::fprintf(stderr, "\n%s: interrupted by %s; %zu temporary file(s) removed, nothing half-written is left\n",
                   program.c_str(), strsignal(sig), removed);
      std::fflush(stderr);
      std::_Exit(128 + sig);
    }
  }).detach();
}

size_t sweep_stale_temp_files(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return 0;
  size_t removed = 0;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const pid_t owner = temp_owner(it->path().filename().string());
    if (owner <= 0 || owner == ::getpid() || process_exists(owner)) continue;
    std::error_code rm;
    if (std::filesystem::remove_all(it->path(), rm) > 0 && !rm) ++removed;
  }
  return removed;
}

}  // namespace hqc

// The watchdog's monitor thread and its stack of open phases (contract in watchdog.h).
#include "runtime/execution/watchdog.h"

#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

namespace hqc::runtime {
namespace {

using Clock = std::chrono::steady_clock;

struct Open {
  std::string query, phase, detail;
  Clock::time_point start;
};

struct State {
  std::mutex mutex;
  std::vector<Open> open;  // innermost last
  double limit = 0;
  std::string program = "horseqc";
  bool started = false;
};

State& state() {
  static State s;
  return s;
}

[[noreturn]] void expire(const Open& o, double ran, double limit, const std::string& program) {
  std::fflush(stdout);
  std::fprintf(stderr,
               "%s: error: %s: the %s phase%s has run for %.1f s, over the watchdog's limit of %g s (--watchdog); "
               "stopping. A kernel that does not return or a compile that does not finish is a device fault (exit 5); "
               "if the work is simply that large, raise the limit\n",
               program.c_str(), o.query.c_str(), o.phase.c_str(), o.detail.empty() ? "" : (" (" + o.detail + ")").c_str(),
               ran, limit);
  std::fflush(stderr);
  // The stuck call cannot be cancelled from here (it may hold the driver); leave without unwinding.
  std::_Exit(5);
}

void monitor() {
  State& s = state();
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.limit <= 0) continue;
    // The outermost phase over the limit (a restart loop of short launches is a hang too), with
    // what its innermost phase is doing.
    for (const Open& o : s.open) {
      const double ran = std::chrono::duration<double>(Clock::now() - o.start).count();
      if (ran <= s.limit) continue;
      Open named = o;
      const Open& inner = s.open.back();
      if (&inner != &o) named.detail = inner.phase + (inner.detail.empty() ? "" : ": " + inner.detail);
      expire(named, ran, s.limit, s.program);
    }
  }
}

}  // namespace

void Watchdog::arm(double limit_seconds, const std::string& program) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.limit = limit_seconds;
  s.program = program;
  if (limit_seconds > 0 && !s.started) {
    s.started = true;
    std::thread(monitor).detach();
  }
}

double Watchdog::limit_seconds() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.limit;
}

Watchdog::Phase::Phase(std::string query, std::string phase, std::string detail) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  depth_ = s.open.size();
  s.open.push_back({std::move(query), std::move(phase), std::move(detail), Clock::now()});
}

Watchdog::Phase::~Phase() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.open.resize(depth_);
}

void Watchdog::Phase::detail(std::string what) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (depth_ < s.open.size()) s.open[depth_].detail = std::move(what);
}

}  // namespace hqc::runtime

// A progress bar for long host-side work (loading .tbl files, generating data).
//
// Contract:
//   - Thread-safe: any number of workers call advance() concurrently (one relaxed atomic add).
//   - Draws only when the sink is a terminal (stderr by default, checked with isatty) and the work has
//     run longer than `delay` (1 s by default), so short loads, pipes, logs and CI stay clean.
//   - Redraws at most every 100 ms from its own thread; finish() (or the destructor) stops that
//     thread and clears the line, so later output starts on a clean line.
//   - A custom sink (tests) is always treated as a terminal.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>

namespace hqc {

class Progress {
 public:
  enum class Unit { Bytes, Rows };
  struct Options {
    std::chrono::milliseconds delay{1000};
    std::ostream* sink = nullptr;  // nullptr: std::cerr, drawn only if stderr is a terminal
    bool enabled = true;           // false: never draws (callers pass their --quiet here)
  };

  Progress(std::string label, uint64_t total, Unit unit);
  Progress(std::string label, uint64_t total, Unit unit, Options options);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void advance(uint64_t amount) { done_.fetch_add(amount, std::memory_order_relaxed); }
  uint64_t done() const { return done_.load(std::memory_order_relaxed); }
  // Stops drawing and erases the bar; idempotent.
  void finish();
  // The bar as it would be drawn now (without the leading carriage return); public for tests.
  std::string render(std::chrono::steady_clock::duration elapsed) const;

 private:
  void run();

  std::string label_;
  uint64_t total_;
  Unit unit_;
  Options options_;
  std::ostream* sink_ = nullptr;  // nullptr when nothing will ever be drawn
  std::atomic<uint64_t> done_{0};
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  bool drawn_ = false;
  std::thread thread_;
};

}  // namespace hqc

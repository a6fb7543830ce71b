// Progress bar (contract in progress.h).
#include "storage/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>

namespace hqc {

namespace {

std::string amount(uint64_t v, Progress::Unit unit) {
  char buf[32];
  if (unit == Progress::Unit::Bytes) {
    const double mib = static_cast<double>(v) / (1024.0 * 1024.0);
    if (mib >= 1024.0) std::snprintf(buf, sizeof buf, "%.1f GiB", mib / 1024.0);
    else std::snprintf(buf, sizeof buf, "%.1f MiB", mib);
  } else {
    std::snprintf(buf, sizeof buf, "%llu rows", static_cast<unsigned long long>(v));
  }
  return buf;
}

}  // namespace

Progress::Progress(std::string label, uint64_t total, Unit unit) : Progress(std::move(label), total, unit, Options{}) {}

Progress::Progress(std::string label, uint64_t total, Unit unit, Options options)
    : label_(std::move(label)), total_(total), unit_(unit), options_(options), start_(std::chrono::steady_clock::now()) {
  if (!options_.enabled) return;
  if (options_.sink) sink_ = options_.sink;
  else if (::isatty(STDERR_FILENO)) sink_ = &std::cerr;
  if (sink_) thread_ = std::thread([this] { run(); });
}

Progress::~Progress() { finish(); }

std::string Progress::render(std::chrono::steady_clock::duration elapsed) const {
  constexpr int kWidth = 30;
  const uint64_t d = done();
  const double fraction = total_ == 0 ? 1.0 : std::min(1.0, static_cast<double>(d) / static_cast<double>(total_));
  const int filled = static_cast<int>(fraction * kWidth);
  std::string bar = label_ + " [" + std::string(static_cast<size_t>(filled), '#') +
                    std::string(static_cast<size_t>(kWidth - filled), '.') + "] ";
  char tail[96];
  std::snprintf(tail, sizeof tail, "%3d%%  %s / %s  %.1f s", static_cast<int>(fraction * 100.0),
                amount(d, unit_).c_str(), amount(total_, unit_).c_str(),
                std::chrono::duration<double>(elapsed).count());
  return bar + tail;
}

void Progress::run() {
  std::unique_lock lock(mutex_);
  if (wake_.wait_for(lock, options_.delay, [this] { return stop_; })) return;  // finished quickly
  while (!stop_) {
    *sink_ << '\r' << render(std::chrono::steady_clock::now() - start_) << "\x1b[K" << std::flush;
    drawn_ = true;
    wake_.wait_for(lock, std::chrono::milliseconds(100), [this] { return stop_; });
  }
}

void Progress::finish() {
  {
    std::lock_guard lock(mutex_);
    if (stop_) return;
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (drawn_) *sink_ << "\r\x1b[K" << std::flush;  // leave a clean line for whatever prints next
}

}  // namespace hqc

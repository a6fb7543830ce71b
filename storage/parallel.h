// parallel_for: runs task(i) for i in [0, n) on up to `threads` std::threads that pull indices from
// a shared counter (chunks of uneven cost balance themselves). The calling thread is one of the
// workers. An exception thrown by a task stops further tasks from starting and is rethrown to the
// caller after every worker has joined, so no worker outlives the data it uses.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace hqc {

// 0 means "as many as the machine has".
inline unsigned resolve_threads(unsigned requested) {
  if (requested != 0) return requested;
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : hw;
}

template <typename Task>
void parallel_for(size_t n, unsigned threads, Task&& task) {
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto worker = [&] {
    for (size_t i; !failed.load(std::memory_order_relaxed) && (i = next.fetch_add(1)) < n;) {
      try {
        task(i);
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (!error) error = std::current_exception();
        failed = true;
      }
    }
  };
  const size_t workers = std::min<size_t>(resolve_threads(threads), n);
  std::vector<std::thread> pool;
  for (size_t w = 1; w < workers; ++w) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace hqc

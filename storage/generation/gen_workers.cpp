// Chunked parallel loops and progress of the data generators; see gen_workers.h for the contract.
#include "storage/generation/gen_workers.h"

#include <algorithm>

#include "storage/parallel.h"

namespace hqc::gen {

void for_chunks(uint64_t n, unsigned threads, const std::function<void(uint64_t, uint64_t)>& body) {
  if (n == 0) return;
  threads = resolve_threads(threads);
  // Chunks small enough to balance the load and move the progress bar, large enough that the shared
  // counter is not contended.
  const uint64_t chunk = std::clamp<uint64_t>(n / (uint64_t{threads} * 16), 1024, 1u << 20);
  const uint64_t chunks = (n + chunk - 1) / chunk;
  parallel_for(chunks, threads, [&](size_t k) {
    const uint64_t begin = k * chunk;
    body(begin, std::min(n, begin + chunk));
  });
}

GenWorkers::GenWorkers(const GenOptions& options, uint64_t total_units)
    : seed(options.seed),
      threads(resolve_threads(options.threads)),
      columns(options.columns),
      progress_(options.progress),
      total_units_(total_units) {}

void GenWorkers::advance(uint64_t units) {
  std::lock_guard<std::mutex> lock(progress_mutex_);
  done_units_ = std::min(total_units_, done_units_ + units);
  if (progress_) progress_(done_units_, total_units_);
}

void GenWorkers::for_chunks(uint64_t n, uint64_t weight, const std::function<void(uint64_t, uint64_t)>& body) {
  gen::for_chunks(n, threads, [&](uint64_t begin, uint64_t end) {
    body(begin, end);
    if (weight) advance((end - begin) * weight);
  });
}

}  // namespace hqc::gen

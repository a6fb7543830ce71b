// Worker threads and progress reporting shared by the benchmark data generators (ssb/, tpch/).
//
// Contract: for_chunks(n, threads, body) calls body(begin, end) over disjoint chunks covering [0, n) on
// up to `threads` threads (the caller is one of them); which values a row gets must not depend on the
// chunking, so chunk sizes are free to follow n and the thread count. An exception thrown by body
// stops further chunks and is rethrown after every worker has joined. GenWorkers adds a progress
// counter: it advances by `weight` units per index handled, is serialized, never decreases and never
// passes the total given at construction.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>

#include "storage/generation/gen_options.h"

namespace hqc::gen {

void for_chunks(uint64_t n, unsigned threads, const std::function<void(uint64_t, uint64_t)>& body);

class GenWorkers {
 public:
  // `total_units`: the progress units of the whole generation (what options.progress is told).
  GenWorkers(const GenOptions& options, uint64_t total_units);

  uint64_t seed;
  unsigned threads;  // resolved: never 0
  std::set<std::string> columns;  // GenOptions::columns

  // GenOptions::keeps.
  bool keeps(const std::string& table, const std::string& column) const {
    return columns.empty() || columns.count(table + "." + column) > 0;
  }

  // for_chunks on this generator's threads, advancing progress by `weight` units per index (0: none).
  void for_chunks(uint64_t n, uint64_t weight, const std::function<void(uint64_t, uint64_t)>& body);
  // Advances progress without parallel work (small tables).
  void advance(uint64_t units);

 private:
  std::function<void(uint64_t, uint64_t)> progress_;
  uint64_t total_units_;
  uint64_t done_units_ = 0;
  std::mutex progress_mutex_;
};

}  // namespace hqc::gen

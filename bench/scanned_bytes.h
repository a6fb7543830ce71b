// Shared by the benchmarks that set kernel time against a memory bound (ssb-bandwidth-bound,
// models-bench): the bytes of the columns a program's pipelines scan from base tables, each
// pipeline reading its source columns once.
#pragma once

#include <cstdint>

#include "ir/program.h"
#include "storage/table.h"

namespace hqc::bench {

inline uint64_t scanned_bytes(const ir::Program& program, const Database& db) {
  uint64_t total = 0;
  for (const auto& p : program.pipelines) {
    if (p.source.table.empty()) continue;
    const Table& t = db.table(p.source.table);
    for (const auto& c : p.source.columns) total += t.column(c).device_bytes();
  }
  return total;
}

}  // namespace hqc::bench

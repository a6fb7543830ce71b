// Shared by the benchmarks that set kernel time against a memory bound (ssb-bandwidth-bound,
// models-bench): the bytes of the columns a program's pipelines scan from base tables, each
// pipeline reading its source columns once.
#pragma once

#include <cstdint>

#include "ir/program.h"
#include "storage/table.h"

namespace hqc::bench {

// One pipeline: its source table's columns (0 when it scans a materialized output or a table).
inline uint64_t scanned_bytes(const ir::Pipeline& p, const Database& db) {
  if (p.source.table.empty()) return 0;
  uint64_t total = 0;
  const Table& t = db.table(p.source.table);
  for (const auto& c : p.source.columns) total += t.column(c).device_bytes();
  return total;
}

inline uint64_t scanned_bytes(const ir::Program& program, const Database& db) {
  uint64_t total = 0;
  for (const auto& p : program.pipelines) total += scanned_bytes(p, db);
  return total;
}

}  // namespace hqc::bench

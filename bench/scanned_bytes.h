// Shared by the benchmarks that set kernel time against a memory bound (ssb-bandwidth-bound,
// models-bench): the bytes of the columns a program's pipelines scan from base tables, each
// pipeline reading its source columns once.
#pragma once

#include <cstdint>

#include "ir/program.h"
#include "storage/table.h"

namespace hqc::bench {

// One pipeline (program.pipelines[index]): its source table's columns as the device holds them —
// narrowed where pass narrow_columns narrowed them (ir::KernelArg::stored_bytes) — or 0 when it
// scans a materialized output or an aggregation table.
inline uint64_t scanned_bytes(const ir::Program& program, size_t index, const Database& db) {
  const ir::Pipeline& p = program.pipelines.at(index);
  if (p.source.table.empty()) return 0;
  uint64_t total = 0;
  const Table& t = db.table(p.source.table);
  for (const auto& c : p.source.columns) {
    const Column& column = t.column(c);
    uint64_t bytes = column.device_bytes();
    for (const ir::Kernel& k : program.kernels) {
      if (k.pipeline != static_cast<int>(index)) continue;
      for (const ir::KernelArg& a : k.args)
        if (a.kind == ir::KernelArg::Kind::Column && a.table == p.source.table && a.column == c && a.stored_bytes != 0)
          bytes = column.size() * a.stored_bytes;
    }
    total += bytes;
  }
  return total;
}

inline uint64_t scanned_bytes(const ir::Program& program, const Database& db) {
  uint64_t total = 0;
  for (size_t i = 0; i < program.pipelines.size(); ++i) total += scanned_bytes(program, i, db);
  return total;
}

}  // namespace hqc::bench

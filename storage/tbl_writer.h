// Writing a table as a dbgen-style .tbl file: one line per row, every field followed by '|' (also
// the last one, as dbgen and ssb-dbgen write it), '\n' after each row.
//
// Contract:
//   - Field text per the column's catalog definition, the inverse of the .tbl loader: integers in
//     decimal; Decimal(p, s) with exactly s fractional digits ("-0.05"); Date as YYYY-MM-DD, or
//     YYYYMMDD when text_format is "yyyymmdd"; Float64 in the shortest text that reads back exactly;
//     strings as their bytes.
//   - A string containing '|', '\n' or '\r' cannot be written (dbgen text has no quoting): throws
//     hqc::Error(Input) naming the table, the column and the row.
//   - The file appears complete or not at all: written to "<path>.tmp-<pid>" and renamed over `path`;
//     on any failure the temporary is removed and hqc::Error(Input) names the path and the reason.
//   - `threads` format row ranges in parallel (0 = one per hardware thread); the bytes written do not
//     depend on it. `progress`, when given, advances by the rows written.
#pragma once

#include <cstdint>
#include <string>

#include "storage/catalog.h"
#include "storage/progress.h"
#include "storage/table.h"

namespace hqc {

void write_tbl(const Table& table, const TableDef& def, const std::string& path, unsigned threads = 1,
               Progress* progress = nullptr);

// Appends row `row` of `table` as one .tbl line (with its trailing '|' and '\n') to `out`.
// `def` must describe the table's columns in the same order (checked by write_tbl).
void append_tbl_line(std::string& out, const Table& table, const TableDef& def, uint64_t row);

}  // namespace hqc

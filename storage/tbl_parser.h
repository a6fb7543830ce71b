// Parsing one dbgen-style .tbl file into a Table, in parallel. No caching here (see tbl_loader.h).
//
// Expects: a TableDef whose columns are in the file's field order.
// Input format: one row per line ('\n', an optional '\r' before it is dropped), fields separated by
// '|', with or without a trailing '|' after the last field (dbgen writes one; the first line decides
// which convention the file follows); the last line may lack its newline. Blank lines are errors.
// Values as described in field_parser.h, per column type (text_format "yyyymmdd" for such dates).
// Guarantees: the returned Table has every column of the TableDef, in order, validated, with stats;
// dictionary columns have sorted dictionaries with order-preserving codes. On any problem it throws
// hqc::Error (ErrorKind::Input) and returns nothing, e.g.
//   lineorder.tbl:18233: column 9 (lo_quantity): expected integer, found "1x"
//   lineorder.tbl:7: expected 17 columns separated by '|', found 16
//   nation.tbl: empty file (no rows)
// The first error in file order is reported, whichever worker finds it first.
#pragma once

#include <filesystem>

#include "storage/catalog.h"
#include "storage/load_options.h"
#include "storage/table.h"

namespace hqc {

Table parse_tbl(const TableDef& def, const std::filesystem::path& file, const LoadOptions& options);

}  // namespace hqc

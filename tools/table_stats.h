// Human-readable statistics of loaded tables (rows, bytes, per-column type, encoding, min, max,
// distinct values), printed by horseqc-run --stats and by the demo.
#pragma once

#include <string>

#include "storage/catalog.h"
#include "storage/table.h"

namespace hqc::cli {

std::string format_table_stats(const Catalog& catalog, const Database& db);

}  // namespace hqc::cli

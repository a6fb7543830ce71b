// Loading tables from a data directory: .tbl text through the columnar cache, or .hqc columnar files.
//
// Entry points:
//   load_tbl       one .tbl file -> Table. With options.use_cache, a valid <file>.hqc cache for the
//                  same schema and the same source (size + mtime) is read instead of parsing; after a
//                  parse the cache is (re)written atomically. A cache that cannot be read (stale,
//                  truncated, damaged, other schema) is ignored and replaced, never used; one that
//                  cannot be written is skipped (the cache is an optimisation, loading still works).
//   load_database  every table of a catalog from <dir>/<table>.tbl, or, where there is no .tbl, from
//                  a standalone columnar file <dir>/<table>.hqc (horseqc-gen --format columnar).
// Errors are hqc::Error (ErrorKind::Input) naming the path, e.g.
//   data/sf1/lineorder.tbl: no such file (nor lineorder.hqc); expected table lineorder of schema ssb
// and the parse errors described in tbl_parser.h. No half-loaded table is returned or cached.
#pragma once

#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "storage/catalog.h"
#include "storage/load_options.h"
#include "storage/table.h"

namespace hqc {

// What a load did, for the CLI's verbose output and for tests.
struct LoadReport {
  std::string table;
  std::filesystem::path source;        // the .tbl or standalone .hqc file
  bool from_columnar = false;          // read from a cache or a standalone columnar file
  std::filesystem::path cache_file;    // cache read or written; empty when none
  std::string cache_note;              // why a cache was not used or not written; empty otherwise
  double seconds = 0;
};

Table load_tbl(const TableDef& def, const std::filesystem::path& file, const LoadOptions& options = {},
               LoadReport* report = nullptr);

Database load_database(const Catalog& catalog, const std::filesystem::path& dir, const LoadOptions& options = {},
                       std::vector<LoadReport>* reports = nullptr);

// What a query's plan needs of a directory of standalone columnar files (<table>.hqc, horseqc-gen
// --format columnar) without their rows: every table of `catalog` as a share of no rows of the whole
// file (Table::partition = {0, the file's rows}) holding the `columns` ("table.column") it names, each
// with the file's whole-table statistics and its whole dictionary — what planner::DatabaseStatistics
// reads, so a query can be planned and compiled while the rows load (horseqc-run's first CUDA query).
// nullopt where a table is not such a file (a .tbl, with or without its cache, or neither) or a file
// is rejected: load_database then says why.
std::optional<Database> load_database_statistics(const Catalog& catalog, const std::filesystem::path& dir,
                                                 const std::set<std::string>& columns);

// The names of `def`'s columns that options.columns asks for; nullopt: every column.
std::optional<std::set<std::string>> columns_to_load(const TableDef& def, const LoadOptions& options);

// Where load_tbl looks for and writes the cache of `file`, in order of preference.
std::vector<std::filesystem::path> cache_candidates(const std::filesystem::path& file, const LoadOptions& options);

}  // namespace hqc

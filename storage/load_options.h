// Options shared by the .tbl parser and the loader with its columnar cache.
#pragma once

#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace hqc {

struct LoadOptions {
  // Parser threads; 0 = std::thread::hardware_concurrency().
  unsigned threads = 0;
  // An empty .tbl file is an error ("empty file") unless this is set; then it loads as zero rows.
  bool allow_empty = false;
  // Read and write the binary columnar cache (<table>.tbl.hqc); off, every load parses the text.
  bool use_cache = true;
  // Where cache files go. Empty: next to the data, or, when that directory is not writable, the
  // user cache directory ($XDG_CACHE_HOME or ~/.cache, under horseqc/columnar).
  std::filesystem::path cache_dir;
  // Draw a progress bar on stderr (only when it is a terminal and the load takes over a second).
  bool progress = true;
  // load_database only: the tables to load (empty = every table of the catalog).
  std::vector<std::string> tables;
  // The columns to load, as "table.column" (nullopt = every column). A columnar file (a cache or a
  // standalone .hqc) reads only these; a .tbl parsed anew writes its cache with every column and keeps
  // only these. A table with none of them loads as its row count alone. horseqc-run loads the columns
  // its queries read: a fresh process's first query does not wait for the whole database.
  std::optional<std::set<std::string>> columns;
};

}  // namespace hqc

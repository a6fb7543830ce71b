// One rank's share of a database (contract and scheme in partition.h).
#include "storage/partition.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>

#include "storage/columnar_cache.h"
#include "storage/error.h"
#include "storage/temp_files.h"

namespace hqc {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string range_text(RowRange r) {
  return "[" + std::to_string(r.first) + ", " + std::to_string(r.first + r.rows) + ")";
}

// Where the rows of one rank of a table split by rows begin: floor(total·W_<k / W); 0 for k = 0 and
// total for k = ranks exactly, so the shares are contiguous and cover the table.
uint64_t share_start(uint64_t total, const PartitionRequest& request, int k) {
  if (k <= 0) return 0;
  if (k >= request.ranks) return total;
  if (request.weights.empty()) {  // floor(total·k / ranks) exactly, without overflowing
    const auto ranks = static_cast<uint64_t>(request.ranks), kk = static_cast<uint64_t>(k);
    return total / ranks * kk + total % ranks * kk / ranks;
  }
  long double before = 0, sum = 0;
  for (int r = 0; r < request.ranks; ++r) {
    if (r < k) before += request.weights[static_cast<size_t>(r)];
    sum += request.weights[static_cast<size_t>(r)];
  }
  const auto start = static_cast<uint64_t>(std::floor(static_cast<long double>(total) * before / sum));
  return std::min(start, total);
}

// One partitioned table's rows, from its columnar copy (range reads) or, without a valid one, from the
// whole table loaded by load_tbl.
class PartitionSource {
 public:
  PartitionSource(const TableDef& def, const std::filesystem::path& dir, const LoadOptions& options, LoadReport& report)
      : def_(def), options_(options), report_(report), columns_(columns_to_load(def, options)) {
    const std::filesystem::path tbl = dir / (def.name + ".tbl");
    const std::filesystem::path hqc = dir / (def.name + ".hqc");
    std::error_code ec;
    report_ = LoadReport{def.name, tbl};
    if (std::filesystem::exists(tbl, ec)) {
      tbl_ = tbl;
      if (options.use_cache) {
        const SourceStamp stamp = stamp_of(tbl);
        for (const std::filesystem::path& cache : cache_candidates(tbl, options)) {
          if (!std::filesystem::exists(cache, ec)) continue;
          std::string why;
          if ((file_ = ColumnarFile::open(def, cache, stamp, &why))) {
            report_.from_columnar = true;
            report_.cache_file = cache;
            report_.cache_note.clear();
            return;
          }
          report_.cache_note = why;
        }
      }
      load_whole(report_.cache_note.empty() ? "no columnar cache of " + tbl.filename().string() : report_.cache_note);
    } else if (std::filesystem::exists(hqc, ec)) {
      std::string why;
      file_ = ColumnarFile::open(def, hqc, std::nullopt, &why);
      if (!file_)
        throw Error(ErrorKind::Input, dir.string() + "/" + why + "; regenerate it (horseqc-gen --format columnar) "
                                      "or provide " + def.name + ".tbl");
      report_ = LoadReport{def.name, hqc, true, hqc, "", 0};
    } else {
      throw Error(ErrorKind::Input, tbl.string() + ": no such file (nor " + hqc.filename().string() + "); expected table " +
                                        def.name);
    }
  }

  uint64_t rows() const { return file_ ? file_->rows() : whole_->rows; }

  int64_t int_at(const std::string& column, uint64_t row) const {
    if (file_) return file_->int_at(static_cast<size_t>(def_.index_of(column)), row);
    return whole_->column(column).int_at(row);
  }

  // The rows of `range` (of the columns LoadOptions::columns asks for). A cache whose range cannot be
  // read (damaged) gives way to load_tbl, which verifies and rewrites it; a standalone columnar file has
  // no text to fall back on.
  Table slice(RowRange range) {
    if (file_) {
      std::string why;
      if (std::optional<Table> t = file_->read_rows(range.first, range.rows, &why, options_.threads, columns_ ? &*columns_ : nullptr))
        return std::move(*t);
      if (tbl_.empty())
        throw Error(ErrorKind::Input, why + "; regenerate it (horseqc-gen --format columnar) or provide " + def_.name + ".tbl");
      file_.reset();
      load_whole(why);
    }
    report_.cache_note += "; loaded the whole table and kept rows " + range_text(range);
    Table rows = slice_rows(*whole_, range.first, range.rows);
    if (columns_) return keep_columns(std::move(rows), *columns_);
    return rows;
  }

 private:
  // The whole table through load_tbl (which writes the cache for the next loads); `why` says why no
  // columnar copy was read.
  void load_whole(const std::string& why) {
    LoadOptions every_column = options_;  // the keys find the ranges, whichever columns are kept
    every_column.columns.reset();
    whole_ = load_tbl(def_, tbl_, every_column, &report_);
    std::string note = "no valid columnar copy to read a range from (" + why + ")";
    if (!report_.cache_note.empty()) note += "; " + report_.cache_note;  // e.g. the cache could not be written
    report_.cache_note = note;
  }

  const TableDef& def_;
  const LoadOptions& options_;
  LoadReport& report_;
  std::filesystem::path tbl_;  // empty for a standalone columnar file
  std::optional<ColumnarFile> file_;
  std::optional<Table> whole_;
  std::optional<std::set<std::string>> columns_;  // nullopt: every column
};

// A boundary between two ranks' ranges of a key: before every key, at `key`, or after every key.
struct KeyBoundary {
  enum class At { Start, Key, End } at = At::Start;
  int64_t key = 0;
};

// The boundary of the parent's keys at parent row `row` (a rank's first row): Start for row 0, End past
// the last row, else the key there — which must be strictly above the key before it, or one key's rows
// would be split between two ranks.
KeyBoundary parent_boundary(const PartitionSource& parent, const std::string& table, const std::string& key, uint64_t row) {
  if (row == 0) return {KeyBoundary::At::Start, 0};
  if (row >= parent.rows()) return {KeyBoundary::At::End, 0};
  const int64_t before = parent.int_at(key, row - 1), at = parent.int_at(key, row);
  if (!(before < at))
    throw Error(ErrorKind::Input, table + ": not sorted by " + key + " (strictly ascending) at row " + std::to_string(row) +
                                      ": " + std::to_string(before) + " then " + std::to_string(at) +
                                      "; partitioning needs the table in " + key + " order, as dbgen writes it");
  return {KeyBoundary::At::Key, at};
}

// The boundary at row `row` of a table split by rows at its key's boundaries: the key there (its rows
// go to the rank that row's share starts, all of them), Start for row 0, End past the last row.
KeyBoundary row_boundary(const PartitionSource& table, const std::string& key, uint64_t row) {
  if (row == 0) return {KeyBoundary::At::Start, 0};
  if (row >= table.rows()) return {KeyBoundary::At::End, 0};
  return {KeyBoundary::At::Key, table.int_at(key, row)};
}

// The first child row whose key is not below `b` (a binary search reading single keys).
uint64_t child_row(const PartitionSource& child, const std::string& key, KeyBoundary b) {
  if (b.at == KeyBoundary::At::Start) return 0;
  if (b.at == KeyBoundary::At::End) return child.rows();
  uint64_t lo = 0, hi = child.rows();
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (child.int_at(key, mid) < b.key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// Checks what the binary search relied on, at the rows it touched: the keys at the table's ends, at
// the ends of the share and next to them are non-decreasing in row order, those before the share lie
// below its lower boundary and those from its end on not below its upper boundary.
void check_child_order(const PartitionSource& child, const std::string& table, const std::string& key, RowRange share,
                       KeyBoundary lo, KeyBoundary hi) {
  const uint64_t n = child.rows(), end = share.first + share.rows;
  if (n == 0) return;
  auto fail = [&](const std::string& what) {
    throw Error(ErrorKind::Input, table + ": not sorted by " + key + " " + what +
                                      "; partitioning needs the table in " + key + " order, as dbgen writes it");
  };
  std::vector<uint64_t> rows{0, n - 1};
  for (uint64_t r : {share.first, end}) {
    if (r > 0) rows.push_back(r - 1);
    if (r < n) rows.push_back(r);
  }
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  for (size_t i = 1; i < rows.size(); ++i) {
    const int64_t a = child.int_at(key, rows[i - 1]), b = child.int_at(key, rows[i]);
    if (a > b)
      fail("(row " + std::to_string(rows[i - 1]) + " has " + std::to_string(a) + ", row " + std::to_string(rows[i]) +
           " has " + std::to_string(b) + ")");
  }
  auto below = [&](uint64_t row, KeyBoundary b) { return b.at == KeyBoundary::At::End || (b.at == KeyBoundary::At::Key && child.int_at(key, row) < b.key); };
  if (share.first > 0 && !below(share.first - 1, lo)) fail("before row " + std::to_string(share.first));
  if (share.rows > 0 && below(share.first, lo)) fail("at row " + std::to_string(share.first));
  if (end < n && below(end, hi)) fail("at row " + std::to_string(end));
  if (share.rows > 0 && !below(end - 1, hi)) fail("before row " + std::to_string(end));
}

}  // namespace

void check_partition_request(const PartitionRequest& request) {
  if (request.ranks < 1) throw Error(ErrorKind::Usage, "partition: " + std::to_string(request.ranks) + " ranks; expected at least 1");
  if (request.rank < 0 || request.rank >= request.ranks)
    throw Error(ErrorKind::Usage, "partition: rank " + std::to_string(request.rank) + " outside [0, " +
                                      std::to_string(request.ranks) + ")");
  if (request.weights.empty()) return;
  if (request.weights.size() != static_cast<size_t>(request.ranks))
    throw Error(ErrorKind::Usage, "partition: " + std::to_string(request.weights.size()) + " weights for " +
                                      std::to_string(request.ranks) + " ranks; expected one per rank");
  double sum = 0;
  for (size_t r = 0; r < request.weights.size(); ++r) {
    const double w = request.weights[r];
    if (!std::isfinite(w) || w < 0)
      throw Error(ErrorKind::Usage, "partition: weight " + std::to_string(w) + " of rank " + std::to_string(r) +
                                        "; expected a finite number >= 0");
    sum += w;
  }
  if (!(sum > 0)) throw Error(ErrorKind::Usage, "partition: every weight is 0; at least one rank must get rows");
}

RowRange row_share(uint64_t total, const PartitionRequest& request) {
  check_partition_request(request);
  const uint64_t first = share_start(total, request, request.rank);
  const uint64_t end = std::max(first, share_start(total, request, request.rank + 1));
  return {first, end - first};
}

std::vector<PartitionedTable> partition_scheme(const Catalog& catalog) {
  auto has = [&](const std::string& table, const std::string& column) {
    const TableDef* t = catalog.find(table);
    return t && (column.empty() || t->find(column));
  };
  if (catalog.name == "ssb" && has("lineorder", "")) return {{"lineorder", "", "", ""}};
  if (catalog.name == "tpch" && has("orders", "o_orderkey") && has("lineitem", "l_orderkey"))
    return {{"orders", "", "", ""}, {"lineitem", "l_orderkey", "orders", "o_orderkey"}, {"partsupp", "ps_partkey", "", ""}};
  return {};
}

std::vector<std::string> partitioned_tables(const Catalog& catalog) {
  std::vector<std::string> out;
  for (const PartitionedTable& p : partition_scheme(catalog)) out.push_back(p.table);
  return out;
}

Database load_partition(const Catalog& catalog, const std::filesystem::path& dir, const LoadOptions& options,
                        const PartitionRequest& request, std::vector<LoadReport>* reports) {
  check_partition_request(request);
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw Error(ErrorKind::Input, dir.string() + ": not a directory; expected a directory of " + catalog.name +
                                      " .tbl or .hqc files");
  std::vector<std::string> wanted = options.tables;
  if (wanted.empty())
    for (const TableDef& t : catalog.tables) wanted.push_back(t.name);
  for (const std::string& name : wanted)
    if (!catalog.find(name)) throw Error(ErrorKind::Input, "table " + name + " is not part of schema " + catalog.name);
  auto is_wanted = [&](const std::string& name) { return std::find(wanted.begin(), wanted.end(), name) != wanted.end(); };

  const std::vector<PartitionedTable> scheme = partition_scheme(catalog);
  const std::vector<std::string> partitioned = partitioned_tables(catalog);
  LoadOptions replicated_options = options;
  replicated_options.tables.clear();
  for (const std::string& name : wanted)
    if (std::find(partitioned.begin(), partitioned.end(), name) == partitioned.end()) replicated_options.tables.push_back(name);

  Database db;
  if (!replicated_options.tables.empty()) db = load_database(catalog, dir, replicated_options, reports);
  else sweep_stale_temp_files(dir);  // as load_database does: caches an earlier, killed run was writing

  // The parents' key boundaries of this rank, per child: [lo, hi).
  std::map<std::string, std::pair<KeyBoundary, KeyBoundary>> child_bounds;
  for (const PartitionedTable& p : scheme) {
    const bool wanted_here = is_wanted(p.table);
    const bool parent_of_wanted = std::any_of(scheme.begin(), scheme.end(), [&](const PartitionedTable& c) {
      return c.parent == p.table && is_wanted(c.table);
    });
    if (!wanted_here && !parent_of_wanted) continue;
    const auto t0 = std::chrono::steady_clock::now();
    LoadReport report;
    PartitionSource source(*catalog.find(p.table), dir, options, report);
    RowRange share;
    if (p.key.empty()) {
      share = row_share(source.rows(), request);
    } else {
      // The rank's range of keys: its parent's (co-partitioned), or its own rows' boundaries moved
      // back to the first row of their keys (split at key boundaries); then the rows of those keys.
      const std::pair<KeyBoundary, KeyBoundary> bounds =
          p.parent.empty() ? std::pair{row_boundary(source, p.key, share_start(source.rows(), request, request.rank)),
                                       row_boundary(source, p.key, share_start(source.rows(), request, request.rank + 1))}
                           : child_bounds.at(p.table);
      share.first = child_row(source, p.key, bounds.first);
      share.rows = std::max(share.first, child_row(source, p.key, bounds.second)) - share.first;
      check_child_order(source, p.table, p.key, share, bounds.first, bounds.second);
    }
    for (const PartitionedTable& c : scheme)
      if (c.parent == p.table && is_wanted(c.table))
        child_bounds[c.table] = {parent_boundary(source, p.table, c.parent_key, share.first),
                                 parent_boundary(source, p.table, c.parent_key, share.first + share.rows)};
    if (!wanted_here) continue;
    Table table = source.slice(share);
    report.seconds = seconds_since(t0);
    db.tables.emplace(p.table, std::move(table));
    if (reports) reports->push_back(std::move(report));
  }
  return db;
}

}  // namespace hqc

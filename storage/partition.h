// Loading one rank's share of a database for distributed runs (`mpirun -np N horseqc-run ...`, one
// rank per device): the fact tables are range-partitioned across the ranks, every other table is
// replicated. No rank holds a whole partitioned table, and every rank sees the whole table's
// statistics (Table::partition; planner::DatabaseStatistics::rows), so all ranks plan and compile the
// identical program.
//
// The scheme (partition_scheme() is the one place that decides it):
//   SSB    lineorder  split by rows
//   TPC-H  orders     split by rows
//          lineitem   co-partitioned with orders on l_orderkey = o_orderkey
//          partsupp   split by rows at ps_partkey's boundaries: every part's rows on one rank (four
//                     suppliers a part, 80 M rows at SF 100). TPC-H Q2, Q11 and Q16 scan only partsupp
//                     and dimensions and would otherwise do all their work on every rank; groups by
//                     ps_partkey are then complete on their rank (Q2's cheapest supplier per part).
//   any other table, and every table of any other schema: replicated (loaded as load_database does).
// Rows: with weights w_0..w_{R-1} (empty: all equal), W their sum and W_<r the sum over ranks before r,
//   rank r gets rows [floor(total·W_<r / W), floor(total·W_<=r / W)). The shares are contiguous, in
//   rank order, and cover the table; a rank of weight 0 gets an empty share.
// Split at key boundaries: as by rows, but each boundary row b (0 < b < total) moves back to the first
//   row whose key equals b's key, so that no key has rows on two ranks; the table must be sorted by the
//   key (checked as for a co-partitioned child, below).
// Co-partitioned: let k_r be the parent key (o_orderkey) of rank r's first parent row, i.e. of parent row
//   floor(total·W_<r / W); k_0 = -infinity, and k_r = +infinity where that row is past the end. Rank r
//   gets exactly the child rows whose key (l_orderkey) lies in [k_r, k_{r+1}), found by binary search
//   over the key read element by element from the columnar file. This needs both tables sorted by the
//   key (dbgen writes them in order-key order, and so does horseqc-gen); the order is verified at the
//   rows the search uses (the ends of each table, of the share and its neighbours; parent keys strictly
//   increasing across a split), and Error(Input) names the table where it is not.
// A rank whose share is empty gets a table of 0 rows: every column present and empty, dictionaries and
// whole-table stats kept.
//
// Reading a partitioned table: from its columnar copy, a range read (columnar_cache.h: no payload
// checksums on a range) — the standalone <dir>/<table>.hqc, or, where <dir>/<table>.tbl exists, its
// valid cache (load_tbl's cache_candidates and source stamp). Without a valid columnar copy (or with
// options.use_cache off) the whole .tbl is loaded with load_tbl, which writes the cache, and sliced in
// memory; the table's LoadReport::cache_note says so. A distributed CLI should therefore let one rank
// load first and the others after it, so that they find the cache instead of each parsing the text.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "storage/catalog.h"
#include "storage/load_options.h"
#include "storage/table.h"
#include "storage/tbl_loader.h"

namespace hqc {

struct PartitionRequest {
  int rank = 0;   // this process's rank, in [0, ranks)
  int ranks = 1;  // how many ranks share the partitioned tables
  // Empty: equal shares. Else one finite, non-negative weight per rank, not all zero (e.g. relative
  // device speeds).
  std::vector<double> weights;
};

// Throws hqc::Error(Usage) for ranks < 1, a rank outside [0, ranks), weights of another count than
// ranks, a negative or non-finite weight, or weights summing to 0; the message names the value.
void check_partition_request(const PartitionRequest& request);

// A range of rows: [first, first + rows).
struct RowRange {
  uint64_t first = 0;
  uint64_t rows = 0;
  bool operator==(const RowRange&) const = default;
};

// request.rank's share of a table of `total` rows split by rows (the formula above). Checks the request.
RowRange row_share(uint64_t total, const PartitionRequest& request);

// One partitioned table of a schema.
struct PartitionedTable {
  std::string table;
  // Empty: split by rows. With `parent` empty: split by rows at `key`'s boundaries. Else
  // co-partitioned with `parent` (listed before it): the rows whose `key` lies in the rank's range of
  // `parent_key` values. Tables co-partitioned with one another are one *group*, named by the parent.
  std::string key;
  std::string parent;
  std::string parent_key;
  // The group: the parent's name for a co-partitioned child, else the table's own.
  const std::string& group() const { return parent.empty() ? table : parent; }
};

// The partitioned tables of a catalog, parents before their children: SSB (Catalog::ssb(), by name)
// {lineorder}; TPC-H {orders, lineitem on l_orderkey = o_orderkey, partsupp at ps_partkey's boundaries};
// empty for any other schema. A
// built-in name whose tables or key columns are missing gives an empty list too.
std::vector<PartitionedTable> partition_scheme(const Catalog& catalog);

// The names in partition_scheme(catalog): {"lineorder"}, {"orders", "lineitem", "partsupp"} or {}.
std::vector<std::string> partitioned_tables(const Catalog& catalog);

// This rank's database: replicated tables as load_database loads them, partitioned tables as the
// rank's share (Table::partition set, stats of the whole table). options.tables limits the tables
// loaded as in load_database (a co-partitioned child still reads its parent's keys). `reports`, when
// given, receives one LoadReport per table loaded. Errors: Error(Usage) for a bad request (checked
// before any file is touched); Error(Input) as load_database's, and for data not sorted by its key.
Database load_partition(const Catalog& catalog, const std::filesystem::path& dir, const LoadOptions& options,
                        const PartitionRequest& request, std::vector<LoadReport>* reports = nullptr);

}  // namespace hqc

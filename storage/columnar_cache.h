// The binary columnar file format (.hqc): a table's column arrays as they sit in memory, so loading
// is one bulk read per array instead of parsing text.
//
// Two uses of the one format:
//   - the cache of a parsed .tbl (<table>.tbl.hqc), stamped with the source's size and mtime;
//   - a columnar data file with no source (<table>.hqc, written by `horseqc-gen --format columnar`).
//
// Layout, native little-endian (docs/schema-format.md has the byte-level table):
//   header      magic "HQCCOLS\n", format version, byte-order mark, TableDef fingerprint, flags,
//               column count, source size, source mtime (ns), row count, total file size
//   descriptors per column: storage kind, stats, dictionary entry count and bytes, heap bytes,
//               checksum of the column's payload arrays (per 512 KiB block, folded in order)
//   checksum    FNV-1a of header + descriptors
//   payload     per column: values | offsets + heap bytes | dictionary offsets + bytes + codes
//   trailer     magic "HQCEND\n\0"
//
// Guarantees:
//   - write_columnar writes to a temporary file in the same directory and renames it into place, so
//     a concurrent reader sees either no file, the old file or the complete new one, never a torn one.
//   - read_columnar returns nullopt (and says why) instead of a Table for any file that is missing,
//     of another version or byte order, of another schema (fingerprint), of another source (stamp),
//     truncated, damaged (checksums) or internally inconsistent; every column it returns passed
//     Column::validate().
//   - Range reads (ColumnarFile, read_columnar_rows) read only rows [first, first + rows) of every
//     column, for distributed runs where each rank holds a share of a table (storage/partition.h).
//     They check the header, the descriptor checksum, the sizes, the end marker and the invariants of
//     what they read (offsets, dictionaries, codes) as read_columnar does, but NOT the payload's block
//     checksums, which cover whole arrays: damage inside the payload may go unnoticed by a range read.
//     Load the whole file once (read_columnar, load_tbl) to verify it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "storage/catalog.h"
#include "storage/table.h"

namespace hqc {

// Identifies one version of a source file; any edit changes at least the mtime.
struct SourceStamp {
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  bool operator==(const SourceStamp&) const = default;
};

// Throws hqc::Error (ErrorKind::Input) naming the path when it cannot be inspected.
SourceStamp stamp_of(const std::filesystem::path& source);

// Hash of everything in a TableDef that shapes the stored arrays (names, types, encodings, text
// formats) and of the format version.
uint64_t table_fingerprint(const TableDef& def);

// Writes `table` (whose columns must match `def` in order, name and type) to `path` atomically.
// `source`: the stamp of the .tbl it was parsed from; nullopt for a standalone columnar file.
// Throws hqc::Error (ErrorKind::Input) naming the path on I/O failure, leaving no temporary file.
void write_columnar(const Table& table, const TableDef& def, const std::filesystem::path& path,
                    std::optional<SourceStamp> source = std::nullopt);

// Reads a columnar file written for `def`. With `expected_source`, the file must carry exactly that
// stamp (a cache); without, any stamp or none is accepted (a standalone file). On nullopt, *why_not
// (if given) says why, for messages such as "lineorder.hqc: truncated or extended (header says ...)".
// Columns are read by up to `threads` threads (0 = all cores). With `columns` (names of `def`'s
// columns), only those are read, checked and returned, in the file's order; the others are skipped
// unread (a query's first run reads what it needs, not the whole table). The header, descriptors and
// end marker are checked either way; an unread column's payload is not.
std::optional<Table> read_columnar(const TableDef& def, const std::filesystem::path& path,
                                   std::optional<SourceStamp> expected_source, std::string* why_not = nullptr,
                                   unsigned threads = 0, const std::set<std::string>* columns = nullptr);

// An open columnar file whose header, descriptors and end marker passed the checks of read_columnar;
// no payload has been read. Reads single values (a binary search over a sorted key) and row ranges
// without loading the whole table. Holds the file open; movable, not copyable.
class ColumnarFile {
 public:
  // nullopt (saying why in *why_not) where read_columnar would reject the file for its header,
  // descriptors, size, source stamp or end marker.
  static std::optional<ColumnarFile> open(const TableDef& def, const std::filesystem::path& path,
                                          std::optional<SourceStamp> expected_source, std::string* why_not = nullptr);
  ColumnarFile(ColumnarFile&&) noexcept;
  ColumnarFile& operator=(ColumnarFile&&) noexcept;
  ~ColumnarFile();

  // The table's rows (the whole file).
  uint64_t rows() const;
  // Row `row` of column `column` (its index in the TableDef) of an integer-backed column (Int32, Date,
  // Int64, Decimal, dictionary codes), by one read of its bytes: no checksum. Throws Error(Input)
  // naming the file for a row past the end or a failed read, Error(Internal) for a column index out of
  // range or a Float64 or heap string column.
  int64_t int_at(size_t column, uint64_t row) const;
  // Rows [first_row, first_row + rows) of every column: plain values and dictionary codes of the
  // range; the whole dictionary; heap offsets [first_row, first_row + rows] rebased to start at 0 and
  // the heap bytes between them. Table::rows = rows, Table::partition = {first_row, rows()}, and every
  // column's stats are the file's whole-table stats. nullopt (and *why_not) for a range past the end
  // ("lineorder.hqc: rows [90, 110) asked, the file holds 100 rows of table lineorder"), a failed
  // read or contents that break Column's invariants. Columns are read by up to `threads` threads.
  // With `columns` (names of the table's columns), only those, as read_columnar.
  std::optional<Table> read_rows(uint64_t first_row, uint64_t rows, std::string* why_not = nullptr,
                                 unsigned threads = 0, const std::set<std::string>* columns = nullptr) const;

 private:
  struct State;
  explicit ColumnarFile(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// ColumnarFile::open followed by read_rows: nullopt (and *why_not) for either's reasons.
std::optional<Table> read_columnar_rows(const TableDef& def, const std::filesystem::path& path,
                                        std::optional<SourceStamp> expected_source, uint64_t first_row, uint64_t rows,
                                        std::string* why_not = nullptr, unsigned threads = 0);

}  // namespace hqc

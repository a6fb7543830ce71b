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
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
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
// Columns are read by up to `threads` threads (0 = all cores).
std::optional<Table> read_columnar(const TableDef& def, const std::filesystem::path& path,
                                   std::optional<SourceStamp> expected_source, std::string* why_not = nullptr,
                                   unsigned threads = 0);

}  // namespace hqc

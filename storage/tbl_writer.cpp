// .tbl writer; see tbl_writer.h for the contract.
#include "storage/tbl_writer.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <unistd.h>
#include <vector>

#include "storage/date.h"
#include "storage/error.h"
#include "storage/parallel.h"
#include "storage/temp_files.h"

namespace hqc {

namespace {

void append_int(std::string& out, int64_t v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  (void)ec;  // 24 bytes always hold an int64
  out.append(buf, end);
}

void append_padded(std::string& out, uint64_t v, int width) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  (void)ec;
  out.append(static_cast<size_t>(std::max<std::ptrdiff_t>(0, width - (end - buf))), '0');
  out.append(buf, end);
}

void append_decimal(std::string& out, int64_t v, uint8_t scale) {
  // Unsigned magnitude, so INT64_MIN has one too.
  uint64_t mag = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  if (v < 0) out.push_back('-');
  uint64_t pow10 = 1;
  for (uint8_t i = 0; i < scale; ++i) pow10 *= 10;
  append_padded(out, mag / pow10, 1);
  if (scale > 0) {
    out.push_back('.');
    append_padded(out, mag % pow10, scale);
  }
}

void append_date(std::string& out, int32_t days, bool compact) {
  const CivilDate c = civil_from_days(days);
  if (c.year < 0) out.push_back('-');
  append_padded(out, static_cast<uint64_t>(c.year < 0 ? -int64_t{c.year} : c.year), 4);
  if (!compact) out.push_back('-');
  append_padded(out, c.month, 2);
  if (!compact) out.push_back('-');
  append_padded(out, c.day, 2);
}

void append_float(std::string& out, double v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  (void)ec;  // 32 bytes hold the shortest form of any double
  out.append(buf, end);
}

void append_string(std::string& out, std::string_view s, const Table& table, const Column& c, uint64_t row) {
  if (s.find_first_of("|\n\r") != std::string_view::npos)
    throw Error(ErrorKind::Input, "cannot write " + table.name + ".tbl: row " + std::to_string(row + 1) + ", column " +
                                      c.name + " contains '|' or a line break, which .tbl text cannot represent");
  out.append(s);
}

void check_layout(const Table& table, const TableDef& def) {
  if (table.columns.size() != def.columns.size())
    throw Error(ErrorKind::Internal, "write_tbl: table " + table.name + " has " + std::to_string(table.columns.size()) +
                                         " columns, its definition " + std::to_string(def.columns.size()));
  for (size_t i = 0; i < def.columns.size(); ++i) {
    const Column& c = table.columns[i];
    if (c.name != def.columns[i].name || !(c.type == def.columns[i].type) || c.size() != table.rows)
      throw Error(ErrorKind::Internal, "write_tbl: column " + std::to_string(i + 1) + " of " + table.name + " is " +
                                           c.name + " (" + c.type.to_string() + ", " + std::to_string(c.size()) +
                                           " rows), expected " + def.columns[i].name + " (" +
                                           def.columns[i].type.to_string() + ", " + std::to_string(table.rows) + " rows)");
  }
}

[[noreturn]] void io_failure(const std::string& path, const std::string& what, int err) {
  throw Error(ErrorKind::Input, "cannot write " + path + ": " + what + ": " + std::strerror(err));
}

}  // namespace

void append_tbl_line(std::string& out, const Table& table, const TableDef& def, uint64_t row) {
  for (size_t i = 0; i < table.columns.size(); ++i) {
    const Column& c = table.columns[i];
    const ColumnDef& cd = def.columns[i];
    switch (c.type.id) {
      case TypeId::Int32: append_int(out, c.i32[row]); break;
      case TypeId::Int64: append_int(out, c.i64[row]); break;
      case TypeId::Decimal: append_decimal(out, c.i64[row], c.type.scale); break;
      case TypeId::Date: append_date(out, c.i32[row], cd.text_format == "yyyymmdd"); break;
      case TypeId::Float64: append_float(out, c.f64[row]); break;
      case TypeId::String: append_string(out, c.string_at(row), table, c, row); break;
      case TypeId::Bool:
        throw Error(ErrorKind::Internal, "write_tbl: column " + c.name + " of " + table.name + " has type bool");
    }
    out.push_back('|');
  }
  out.push_back('\n');
}

void write_tbl(const Table& table, const TableDef& def, const std::string& path, unsigned threads,
               Progress* progress) {
  check_layout(table, def);
  const std::string tmp = temp_path_for(path).string();
  const TempGuard guard(tmp);
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) io_failure(path, "cannot create " + tmp, errno);
  try {
    // Rounds of `workers` chunks: formatted in parallel, written in row order.
    constexpr uint64_t kChunkRows = 1 << 16;
    const unsigned workers = resolve_threads(threads);
    std::vector<std::string> text(workers);
    for (uint64_t round_begin = 0; round_begin < table.rows; round_begin += kChunkRows * workers) {
      const uint64_t chunks = std::min<uint64_t>(workers, (table.rows - round_begin + kChunkRows - 1) / kChunkRows);
      parallel_for(chunks, workers, [&](size_t k) {
        const uint64_t begin = round_begin + k * kChunkRows, end = std::min(table.rows, begin + kChunkRows);
        text[k].clear();
        for (uint64_t r = begin; r < end; ++r) append_tbl_line(text[k], table, def, r);
      });
      for (uint64_t k = 0; k < chunks; ++k) {
        if (std::fwrite(text[k].data(), 1, text[k].size(), f) != text[k].size()) io_failure(path, "write failed", errno);
      }
      if (progress) progress->advance(std::min(table.rows - round_begin, kChunkRows * workers));
    }
    if (std::fflush(f) != 0) io_failure(path, "write failed", errno);
    const int closed = std::fclose(f);
    f = nullptr;
    if (closed != 0) io_failure(path, "close failed", errno);
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) throw Error(ErrorKind::Input, "cannot write " + path + ": rename from " + tmp + " failed: " + ec.message());
  } catch (...) {
    if (f) std::fclose(f);
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw;
  }
}

}  // namespace hqc

// Parallel .tbl parser (contract in tbl_parser.h).
//
// Three phases over the memory-mapped file, each parallel over chunks that end at newlines:
//   1. count the lines of every chunk, which fixes each chunk's first row: workers then write values
//      straight into the final column arrays, and an error's line number is exact;
//   2. parse: integers, decimals and dates go to their final place; heap strings to a per-chunk heap
//      (offsets relative to it); dictionary strings get chunk-local ids from a per-chunk map;
//   3. stitch: heaps are concatenated and offsets rebased; the distinct strings of all chunks are
//      sorted into one dictionary and local ids are rewritten to order-preserving global codes.
#include "storage/tbl_parser.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <string_view>
#include <unordered_map>

#include "storage/error.h"
#include "storage/field_parser.h"
#include "storage/mapped_file.h"
#include "storage/parallel.h"
#include "storage/progress.h"

namespace hqc {

namespace {

enum class Slot : uint8_t { Int32, Int64, Decimal, IsoDate, YmdDate, Float64, Dictionary, Heap };

struct ColumnPlan {
  Slot slot;
  int side = -1;  // index among the heap columns or among the dictionary columns
};

struct LocalDictionary {
  std::unordered_map<std::string_view, int32_t> ids;
  std::vector<std::string_view> values;  // by local id; views into the mapped file
};

struct ChunkError {
  enum class Kind : uint8_t { None, FieldCount, EmptyLine, Field } kind = Kind::None;
  uint64_t local_line = 0;
  size_t column = 0;
  size_t found_fields = 0;
  FieldStatus status = FieldStatus::Ok;
  std::string text;
};

struct Chunk {
  const char* begin = nullptr;
  const char* end = nullptr;
  uint64_t lines = 0;
  uint64_t first_row = 0;
  std::vector<std::vector<char>> heaps;
  std::vector<LocalDictionary> dictionaries;
  ChunkError error;
};

Slot slot_of(const ColumnDef& c) {
  switch (c.type.id) {
    case TypeId::Int32: return Slot::Int32;
    case TypeId::Int64: return Slot::Int64;
    case TypeId::Decimal: return Slot::Decimal;
    case TypeId::Date: return c.text_format == "yyyymmdd" ? Slot::YmdDate : Slot::IsoDate;
    case TypeId::Float64: return Slot::Float64;
    case TypeId::String: return c.encoding == Encoding::Dictionary ? Slot::Dictionary : Slot::Heap;
    case TypeId::Bool: break;
  }
  throw Error(ErrorKind::Internal, "column " + c.name + ": type " + c.type.to_string() + " cannot be loaded");
}

std::vector<Chunk> split_chunks(const char* data, size_t size, unsigned threads) {
  // Several chunks per thread, so a slow chunk does not leave the other threads idle at the end.
  const size_t target = std::clamp<size_t>(size / (size_t{threads} * 8 + 1), size_t{1} << 16, size_t{64} << 20);
  std::vector<Chunk> chunks;
  size_t start = 0;
  while (start < size) {
    size_t end = std::min(size, start + target);
    if (end < size) {
      const void* nl = std::memchr(data + end, '\n', size - end);
      end = nl ? static_cast<size_t>(static_cast<const char*>(nl) - data) + 1 : size;
    }
    Chunk c;
    c.begin = data + start;
    c.end = data + end;
    chunks.push_back(std::move(c));
    start = end;
  }
  return chunks;
}

uint64_t count_lines(const Chunk& c) {
  uint64_t n = 0;
  for (const char* p = c.begin; p < c.end;) {
    const void* nl = std::memchr(p, '\n', static_cast<size_t>(c.end - p));
    ++n;
    if (!nl) break;
    p = static_cast<const char*>(nl) + 1;
  }
  return n;
}

// dbgen ends every field, the last one included, with '|'; other tools only separate fields. The
// first line decides which convention the file follows, so a trailing empty string field of an
// unterminated file ("a|b|" with three columns) is not mistaken for a terminator, and a missing
// last field of a terminated file ("a|b|" with three columns) is reported rather than read as "".
bool lines_end_with_separator(const char* data, size_t size, size_t ncols) {
  if (size == 0 || ncols == 0) return false;
  const void* nl = std::memchr(data, '\n', size);
  const char* end = nl ? static_cast<const char*>(nl) : data + size;
  if (end > data && end[-1] == '\r') --end;
  if (end == data || end[-1] != '|') return false;
  const size_t bars = static_cast<size_t>(std::count(data, end, '|'));
  return bars != ncols - 1;  // exactly ncols - 1 bars: the final '|' separates an empty last field
}

class ChunkParser {
 public:
  ChunkParser(const TableDef& def, const std::vector<ColumnPlan>& plan, Table& table, bool terminated)
      : def_(def), plan_(plan), table_(table), terminated_(terminated), fields_(def.columns.size() + 1) {}

  // Parses one chunk; stops at the first bad line and records it in chunk.error.
  void parse(Chunk& chunk) {
    const size_t ncols = def_.columns.size();
    uint64_t local = 0;
    for (const char* p = chunk.begin; p < chunk.end; ++local) {
      // One pass finds both the field boundaries and the end of the line.
      size_t pieces = 0;
      const char* field = p;
      const char* q = p;
      for (; q < chunk.end && *q != '\n'; ++q) {
        if (*q != '|') continue;
        if (pieces <= ncols) fields_[pieces] = std::string_view(field, static_cast<size_t>(q - field));
        ++pieces;
        field = q + 1;
      }
      const char* le = (q > p && q[-1] == '\r') ? q - 1 : q;
      if (le == p) {
        fail(chunk, local, ChunkError::Kind::EmptyLine);
        return;
      }
      // In a terminated file a final '|' ends the line rather than starting an empty field.
      // (field == le: the line's last byte before any '\r' is a '|'; le > p, so field was moved there.)
      if (!(terminated_ && field == le)) {
        if (pieces <= ncols) fields_[pieces] = std::string_view(field, static_cast<size_t>(le - field));
        ++pieces;
      }
      if (pieces != ncols) {
        fail(chunk, local, ChunkError::Kind::FieldCount);
        chunk.error.found_fields = pieces;
        return;
      }
      const uint64_t row = chunk.first_row + local;
      for (size_t c = 0; c < ncols; ++c) {
        const FieldStatus st = store(chunk, c, row, fields_[c]);
        if (st != FieldStatus::Ok) {
          fail(chunk, local, ChunkError::Kind::Field);
          chunk.error.column = c;
          chunk.error.status = st;
          chunk.error.text = std::string(fields_[c]);
          return;
        }
      }
      p = q < chunk.end ? q + 1 : q;
    }
  }

 private:
  static void fail(Chunk& chunk, uint64_t local, ChunkError::Kind kind) {
    chunk.error.kind = kind;
    chunk.error.local_line = local;
  }

  FieldStatus store(Chunk& chunk, size_t c, uint64_t row, std::string_view text) {
    Column& col = table_.columns[c];
    const ColumnPlan& plan = plan_[c];
    switch (plan.slot) {
      case Slot::Int32: return parse_int32_field(text, col.i32[row]);
      case Slot::Int64: return parse_int64_field(text, col.i64[row]);
      case Slot::Decimal:
        return parse_decimal_field(text, col.type.precision, col.type.scale, col.i64[row]);
      case Slot::IsoDate: return parse_iso_date_field(text, col.i32[row]);
      case Slot::YmdDate: return parse_yyyymmdd_date_field(text, col.i32[row]);
      case Slot::Float64: return parse_float64_field(text, col.f64[row]);
      case Slot::Heap: {
        const FieldStatus st = check_string_field(text, col.type.length);
        if (st != FieldStatus::Ok) return st;
        std::vector<char>& heap = chunk.heaps[static_cast<size_t>(plan.side)];
        heap.insert(heap.end(), text.begin(), text.end());
        col.offsets[row + 1] = heap.size();  // chunk-relative until stitched
        return FieldStatus::Ok;
      }
      case Slot::Dictionary: {
        LocalDictionary& d = chunk.dictionaries[static_cast<size_t>(plan.side)];
        auto it = d.ids.find(text);
        if (it == d.ids.end()) {
          // Identical bytes were checked when first seen, so only new values are validated.
          const FieldStatus st = check_string_field(text, col.type.length);
          if (st != FieldStatus::Ok) return st;
          it = d.ids.emplace(text, static_cast<int32_t>(d.values.size())).first;
          d.values.push_back(text);
        }
        col.i32[row] = it->second;
        return FieldStatus::Ok;
      }
    }
    return FieldStatus::Malformed;
  }

  const TableDef& def_;
  const std::vector<ColumnPlan>& plan_;
  Table& table_;
  bool terminated_;
  std::vector<std::string_view> fields_;
};

std::string error_message(const TableDef& def, const std::string& file_name, const Chunk& chunk) {
  const ChunkError& e = chunk.error;
  const std::string where = file_name + ":" + std::to_string(chunk.first_row + e.local_line + 1) + ": ";
  const std::string want = std::to_string(def.columns.size()) + " columns separated by '|'";
  switch (e.kind) {
    case ChunkError::Kind::EmptyLine: return where + "expected " + want + ", found an empty line";
    case ChunkError::Kind::FieldCount: return where + "expected " + want + ", found " + std::to_string(e.found_fields);
    case ChunkError::Kind::Field: {
      const ColumnDef& c = def.columns[e.column];
      return where + "column " + std::to_string(e.column + 1) + " (" + c.name + "): expected " +
             describe_expectation(c, e.status) + ", found " + quote_field(e.text);
    }
    case ChunkError::Kind::None: break;
  }
  return where + "unknown error";
}

void stitch_heaps(Table& table, const std::vector<ColumnPlan>& plan, std::vector<Chunk>& chunks, unsigned threads) {
  for (size_t c = 0; c < plan.size(); ++c) {
    if (plan[c].slot != Slot::Heap) continue;
    const auto side = static_cast<size_t>(plan[c].side);
    Column& col = table.columns[c];
    std::vector<uint64_t> base(chunks.size() + 1, 0);
    for (size_t k = 0; k < chunks.size(); ++k) base[k + 1] = base[k] + chunks[k].heaps[side].size();
    col.heap.resize(base.back());
    col.offsets[0] = 0;
    parallel_for(chunks.size(), threads, [&](size_t k) {
      std::vector<char>& h = chunks[k].heaps[side];
      if (!h.empty()) std::memcpy(col.heap.data() + base[k], h.data(), h.size());
      for (uint64_t r = chunks[k].first_row; r < chunks[k].first_row + chunks[k].lines; ++r) col.offsets[r + 1] += base[k];
      std::vector<char>().swap(h);
    });
  }
}

void stitch_dictionaries(Table& table, const std::vector<ColumnPlan>& plan, std::vector<Chunk>& chunks,
                         unsigned threads, const std::string& file_name) {
  for (size_t c = 0; c < plan.size(); ++c) {
    if (plan[c].slot != Slot::Dictionary) continue;
    const auto side = static_cast<size_t>(plan[c].side);
    Column& col = table.columns[c];
    std::vector<std::string_view> all;
    for (const Chunk& k : chunks) all.insert(all.end(), k.dictionaries[side].values.begin(), k.dictionaries[side].values.end());
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    if (all.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max()))
      throw Error(ErrorKind::Input, file_name + ": column " + col.name + " has more distinct values than int32 "
                  "dictionary codes can number; declare it with \"encoding\": \"heap\"");
    col.dictionary.assign(all.begin(), all.end());
    parallel_for(chunks.size(), threads, [&](size_t k) {
      const LocalDictionary& d = chunks[k].dictionaries[side];
      std::vector<int32_t> global(d.values.size());
      for (size_t i = 0; i < d.values.size(); ++i)
        global[i] = static_cast<int32_t>(std::lower_bound(all.begin(), all.end(), d.values[i]) - all.begin());
      for (uint64_t r = chunks[k].first_row; r < chunks[k].first_row + chunks[k].lines; ++r)
        col.i32[r] = global[static_cast<size_t>(col.i32[r])];
    });
  }
}

}  // namespace

Table parse_tbl(const TableDef& def, const std::filesystem::path& file, const LoadOptions& options) {
  const std::string file_name = file.filename().string();
  const unsigned threads = resolve_threads(options.threads);
  std::vector<ColumnPlan> plan;
  int heaps = 0, dictionaries = 0;
  for (const ColumnDef& c : def.columns) {
    ColumnPlan p{slot_of(c)};
    if (p.slot == Slot::Heap) p.side = heaps++;
    if (p.slot == Slot::Dictionary) p.side = dictionaries++;
    plan.push_back(p);
  }

  const MappedFile mapped(file);
  if (mapped.size() == 0 && !options.allow_empty)
    throw Error(ErrorKind::Input, file.string() + ": empty file (no rows); expected " + def.name + " data");
  std::vector<Chunk> chunks = split_chunks(mapped.data(), mapped.size(), threads);
  parallel_for(chunks.size(), threads, [&](size_t k) { chunks[k].lines = count_lines(chunks[k]); });
  uint64_t rows = 0;
  for (Chunk& k : chunks) {
    k.first_row = rows;
    rows += k.lines;
    k.heaps.resize(static_cast<size_t>(heaps));
    k.dictionaries.resize(static_cast<size_t>(dictionaries));
  }

  const bool terminated = lines_end_with_separator(mapped.data(), mapped.size(), def.columns.size());
  Table table;
  table.name = def.name;
  table.rows = rows;
  for (size_t c = 0; c < def.columns.size(); ++c) {
    Column col;
    col.name = def.columns[c].name;
    col.type = def.columns[c].type;
    col.encoding = def.columns[c].encoding;
    switch (plan[c].slot) {
      case Slot::Int32: case Slot::IsoDate: case Slot::YmdDate: case Slot::Dictionary: col.i32.resize(rows); break;
      case Slot::Int64: case Slot::Decimal: col.i64.resize(rows); break;
      case Slot::Float64: col.f64.resize(rows); break;
      case Slot::Heap: col.offsets.resize(rows + 1); break;
    }
    table.columns.push_back(std::move(col));
  }

  {
    Progress progress("loading " + file_name, mapped.size(), Progress::Unit::Bytes,
                      Progress::Options{.enabled = options.progress});
    // Chunks after the earliest failed one are skipped: their errors could not be the first.
    std::atomic<size_t> first_failed{chunks.size()};
    parallel_for(chunks.size(), threads, [&](size_t k) {
      if (k > first_failed.load(std::memory_order_relaxed)) return;
      ChunkParser parser(def, plan, table, terminated);
      parser.parse(chunks[k]);
      if (chunks[k].error.kind != ChunkError::Kind::None) {
        size_t seen = first_failed.load();
        while (k < seen && !first_failed.compare_exchange_weak(seen, k)) {}
      }
      progress.advance(static_cast<uint64_t>(chunks[k].end - chunks[k].begin));
    });
    for (const Chunk& k : chunks)
      if (k.error.kind != ChunkError::Kind::None) throw Error(ErrorKind::Input, error_message(def, file_name, k));
  }

  stitch_heaps(table, plan, chunks, threads);
  stitch_dictionaries(table, plan, chunks, threads, file_name);
  // A column that breaks its invariants here is a bug in this file (std::logic_error), not bad input.
  parallel_for(table.columns.size(), threads, [&](size_t c) {
    table.columns[c].compute_stats();
    table.columns[c].validate();
  });
  return table;
}

}  // namespace hqc

// Columnar file reader and writer (contract and layout in columnar_cache.h).
#include "storage/columnar_cache.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <type_traits>

#include "storage/error.h"
#include "storage/parallel.h"
#include "storage/temp_files.h"

namespace hqc {

namespace {

constexpr char kMagic[8] = {'H', 'Q', 'C', 'C', 'O', 'L', 'S', '\n'};
constexpr char kTrailer[8] = {'H', 'Q', 'C', 'E', 'N', 'D', '\n', '\0'};
// Fuzzing builds (tests/fuzz/fuzz_columnar.cpp) read files whatever their checksums say, so that
// mutated files reach the structural checks, which must hold on their own: checksums detect
// accidental damage, not files crafted to pass them.
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
constexpr bool kIgnoreChecksums = true;
#else
constexpr bool kIgnoreChecksums = false;
#endif
constexpr uint32_t kVersion = 3;  // 2: per-column payload checksums; 3: checksums over 512 KiB blocks
constexpr uint32_t kByteOrderMark = 0x01020304;
constexpr uint32_t kFlagHasSource = 1;
constexpr size_t kHeaderBytes = 64;
constexpr size_t kDescriptorBytes = 64;
// Sanity bounds that keep a corrupt descriptor from causing a huge allocation or an overflow;
// the exact file-size check below catches everything else.
constexpr uint64_t kMaxCount = uint64_t{1} << 44;

enum class Kind : uint8_t { Int32 = 1, Int64 = 2, Float64 = 3, Heap = 4, Dictionary = 5 };

Kind kind_of(const DataType& t, Encoding e) {
  switch (t.id) {
    case TypeId::Int32: case TypeId::Date: return Kind::Int32;
    case TypeId::Int64: case TypeId::Decimal: return Kind::Int64;
    case TypeId::Float64: return Kind::Float64;
    case TypeId::String: return e == Encoding::Dictionary ? Kind::Dictionary : Kind::Heap;
    case TypeId::Bool: break;
  }
  throw Error(ErrorKind::Internal, "type " + t.to_string() + " has no columnar form");
}

uint64_t fnv1a(const void* data, size_t n, uint64_t h = 0xcbf29ce484222325ULL) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ULL;
  return h;
}

// Payload checksums are computed per block of kBlockBytes of each array (blocks start at the array's
// first byte), so the reader can verify a block right after reading it, while it is still in the
// core's L2 cache, and spread blocks of every column over all cores.
constexpr uint64_t kBlockBytes = uint64_t{1} << 19;

constexpr uint64_t kP1 = 0x9E3779B97F4A7C15ULL, kP2 = 0xC2B2AE3D27D4EB4FULL;  // odd, well-mixed constants

uint64_t mix64(uint64_t h) {  // a full-avalanche finaliser (every input bit affects every output bit)
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDULL;
  h ^= h >> 33;
  h *= 0xC4CEB9FE1A85EC53ULL;
  return h ^ (h >> 33);
}

// The checksum of one block (at most kBlockBytes): a Fletcher-style pair of sums per lane, over
// eight 64-bit lanes of 64-byte stripes. Only additions, so compilers turn it into vector code that
// runs faster than memory. The first sum of a lane changes with any damage that does not cancel out
// within the lane; the second weighs each word by its position, so moved or swapped words show too.
// The sums and the length then go through a full-avalanche mix. It detects damaged payloads (torn
// writes, flipped bits, zeroed or shifted pages), not adversaries.
uint64_t block_hash(const unsigned char* p, uint64_t n) {
  uint64_t first[8] = {}, second[8] = {};
  auto stripe = [&](const unsigned char* s) {
    for (int i = 0; i < 8; ++i) {
      uint64_t w;
      std::memcpy(&w, s + 8 * i, 8);
      first[i] += w;
      second[i] += first[i];
    }
  };
  uint64_t left = n;
  for (; left >= 64; left -= 64, p += 64) stripe(p);
  if (left > 0) {  // the tail, zero-padded; n (mixed in below) tells padding from real zeros
    unsigned char last[64] = {};
    std::memcpy(last, p, left);
    stripe(last);
  }
  uint64_t h = mix64(n ^ kP2);
  // Each sum gets its own bijective mix, so a difference in one cannot cancel a difference in the other.
  for (int i = 0; i < 8; ++i) h = mix64(mix64(h ^ first[i]) ^ second[i]);
  return h;
}

// The checksum of a column: its arrays' block hashes folded in file order.
uint64_t fold_checksum(uint64_t h, uint64_t block) { return mix64((h ^ block) * kP2 + kP1); }

// Large arrays get transparent huge pages where the kernel offers them on request: a column is
// then faulted in 2 MiB at a time instead of 4 KiB, which was the largest cost of loading.
void advise_huge_pages(const void* data, uint64_t bytes) {
#ifdef MADV_HUGEPAGE
  constexpr uintptr_t kHuge = uintptr_t{1} << 21;
  if (bytes < 2 * kHuge) return;
  const auto begin = (reinterpret_cast<uintptr_t>(data) + kHuge - 1) & ~(kHuge - 1);
  const auto end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(kHuge - 1);
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // a hint: failure is fine
#else
  (void)data;
  (void)bytes;
#endif
}

// The arrays of one column's payload, in file order.
struct ArrayRef {
  const void* data;
  uint64_t bytes;
};

// Checksums of every column's arrays, blocks hashed in parallel.
std::vector<uint64_t> column_checksums(const std::vector<std::vector<ArrayRef>>& columns, unsigned threads) {
  struct Block {
    size_t column;
    const unsigned char* data;
    uint64_t bytes;
  };
  std::vector<Block> blocks;
  for (size_t c = 0; c < columns.size(); ++c)
    for (const ArrayRef& a : columns[c])
      for (uint64_t at = 0; at < a.bytes; at += kBlockBytes)
        blocks.push_back({c, static_cast<const unsigned char*>(a.data) + at, std::min(kBlockBytes, a.bytes - at)});
  std::vector<uint64_t> hashes(blocks.size());
  parallel_for(blocks.size(), threads, [&](size_t b) { hashes[b] = block_hash(blocks[b].data, blocks[b].bytes); });
  std::vector<uint64_t> out(columns.size(), 0);
  for (size_t b = 0; b < blocks.size(); ++b) out[blocks[b].column] = fold_checksum(out[blocks[b].column], hashes[b]);
  return out;
}

struct Descriptor {
  Kind kind{};
  ColumnStats stats;
  uint64_t dict_count = 0;
  uint64_t dict_bytes = 0;
  uint64_t heap_bytes = 0;
  uint64_t checksum = 0;  // block hashes of the payload arrays, folded (column_checksums)

  uint64_t payload_bytes(uint64_t rows) const {
    switch (kind) {
      case Kind::Int32: return rows * 4;
      case Kind::Int64: case Kind::Float64: return rows * 8;
      case Kind::Heap: return (rows + 1) * 8 + heap_bytes;
      case Kind::Dictionary: return (dict_count + 1) * 8 + dict_bytes + rows * 4;
    }
    return 0;
  }
};

class ByteWriter {
 public:
  template <typename T>
  void put(T v) {
    const auto* p = reinterpret_cast<const char*>(&v);
    bytes_.insert(bytes_.end(), p, p + sizeof v);
  }
  void raw(const void* p, size_t n) { bytes_.insert(bytes_.end(), static_cast<const char*>(p), static_cast<const char*>(p) + n); }
  void pad_to(size_t n) { bytes_.resize(n, 0); }
  std::vector<char>& bytes() { return bytes_; }

 private:
  std::vector<char> bytes_;
};

class ByteReader {
 public:
  ByteReader(const char* p, size_t n) : p_(p), end_(p + n) {}
  template <typename T>
  T get() {
    T v{};
    if (p_ + sizeof v <= end_) std::memcpy(&v, p_, sizeof v);
    p_ += sizeof v;
    return v;
  }
  void skip(size_t n) { p_ += n; }

 private:
  const char* p_;
  const char* end_;
};

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

// Reads exactly n bytes at `offset` (pread may return less than asked, e.g. above 2 GiB).
bool pread_all(int fd, void* dst, uint64_t n, uint64_t offset) {
  auto* p = static_cast<char*>(dst);
  while (n > 0) {
    const ssize_t got = ::pread(fd, p, n, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    p += got;
    n -= static_cast<uint64_t>(got);
    offset += static_cast<uint64_t>(got);
  }
  return true;
}

}  // namespace

SourceStamp stamp_of(const std::filesystem::path& source) {
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(source, ec);
  if (ec) throw Error(ErrorKind::Input, source.string() + ": cannot inspect: " + ec.message());
  const auto mtime = std::filesystem::last_write_time(source, ec);
  if (ec) throw Error(ErrorKind::Input, source.string() + ": cannot inspect: " + ec.message());
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(mtime.time_since_epoch()).count();
  return {size, static_cast<int64_t>(ns)};
}

uint64_t table_fingerprint(const TableDef& def) {
  std::string text = "hqc-columnar-" + std::to_string(kVersion) + "|" + def.name;
  for (const ColumnDef& c : def.columns)
    text += "|" + c.name + ":" + c.type.to_string() + ":" + encoding_name(c.encoding) + ":" + c.text_format;
  return fnv1a(text.data(), text.size());
}

void write_columnar(const Table& table, const TableDef& def, const std::filesystem::path& path,
                    std::optional<SourceStamp> source) {
  if (table.columns.size() != def.columns.size())
    throw Error(ErrorKind::Internal, "write_columnar: table " + table.name + " does not match its definition");
  std::vector<Kind> kinds;
  for (size_t c = 0; c < def.columns.size(); ++c) {
    const Column& col = table.columns[c];
    if (col.name != def.columns[c].name || !(col.type == def.columns[c].type) || col.encoding != def.columns[c].encoding)
      throw Error(ErrorKind::Internal, "write_columnar: column " + col.name + " does not match its definition");
    kinds.push_back(kind_of(col.type, col.encoding));
  }

  // Dictionaries are serialised up front (they are small) so every column's payload is a list of
  // arrays whose checksum can go into the header before the payload is written.
  std::vector<std::vector<uint64_t>> dict_offsets(kinds.size());
  std::vector<std::string> dict_bytes(kinds.size());
  std::vector<std::vector<ArrayRef>> arrays(kinds.size());
  for (size_t c = 0; c < kinds.size(); ++c) {
    const Column& col = table.columns[c];
    switch (kinds[c]) {
      case Kind::Int32: arrays[c] = {{col.i32.data(), col.i32.size() * 4}}; break;
      case Kind::Int64: arrays[c] = {{col.i64.data(), col.i64.size() * 8}}; break;
      case Kind::Float64: arrays[c] = {{col.f64.data(), col.f64.size() * 8}}; break;
      case Kind::Heap: arrays[c] = {{col.offsets.data(), col.offsets.size() * 8}, {col.heap.data(), col.heap.size()}}; break;
      case Kind::Dictionary:
        dict_offsets[c].push_back(0);
        for (const std::string& v : col.dictionary) {
          dict_bytes[c] += v;
          dict_offsets[c].push_back(dict_bytes[c].size());
        }
        arrays[c] = {{dict_offsets[c].data(), dict_offsets[c].size() * 8},
                     {dict_bytes[c].data(), dict_bytes[c].size()},
                     {col.i32.data(), col.i32.size() * 4}};
        break;
    }
  }

  // Header and descriptors are assembled in memory (they are small) so the checksum covers them.
  const std::vector<uint64_t> checksums = column_checksums(arrays, 0);
  std::vector<Descriptor> descriptors;
  uint64_t payload = 0;
  for (size_t c = 0; c < kinds.size(); ++c) {
    const Column& col = table.columns[c];
    Descriptor d;
    d.kind = kinds[c];
    d.stats = col.stats;
    d.dict_count = col.dictionary.size();
    d.dict_bytes = dict_bytes[c].size();
    d.heap_bytes = col.heap.size();
    d.checksum = checksums[c];
    payload += d.payload_bytes(table.rows);
    descriptors.push_back(d);
  }
  ByteWriter w;
  w.raw(kMagic, sizeof kMagic);
  w.put<uint32_t>(kVersion);
  w.put<uint32_t>(kByteOrderMark);
  w.put<uint64_t>(table_fingerprint(def));
  w.put<uint32_t>(source ? kFlagHasSource : 0);
  w.put<uint32_t>(static_cast<uint32_t>(kinds.size()));
  w.put<uint64_t>(source ? source->size : 0);
  w.put<int64_t>(source ? source->mtime_ns : 0);
  w.put<uint64_t>(table.rows);
  const uint64_t total = kHeaderBytes + kDescriptorBytes * kinds.size() + 8 + payload + sizeof kTrailer;
  w.put<uint64_t>(total);
  w.pad_to(kHeaderBytes);
  for (const Descriptor& d : descriptors) {
    const size_t start = w.bytes().size();
    w.put<uint8_t>(static_cast<uint8_t>(d.kind));
    w.put<uint8_t>(d.stats.valid ? 1 : 0);
    w.put<uint8_t>(d.stats.sorted ? 1 : 0);  // a reserved (zero) byte before: files without it read "not sorted"
    w.pad_to(start + 8);
    w.put<int64_t>(d.stats.min);
    w.put<int64_t>(d.stats.max);
    w.put<uint64_t>(d.stats.distinct);
    w.put<uint64_t>(d.dict_count);
    w.put<uint64_t>(d.dict_bytes);
    w.put<uint64_t>(d.heap_bytes);
    w.put<uint64_t>(d.checksum);
  }
  w.put<uint64_t>(fnv1a(w.bytes().data(), w.bytes().size()));

  const std::filesystem::path tmp = temp_path_for(path);
  const TempGuard guard(tmp);
  bool ok = true;
  {
    File f(std::fopen(tmp.c_str(), "wb"));
    if (!f) throw Error(ErrorKind::Input, tmp.string() + ": cannot create: " + std::strerror(errno));
    auto out = [&](const void* p, size_t n) { ok = ok && (n == 0 || std::fwrite(p, 1, n, f.get()) == n); };
    out(w.bytes().data(), w.bytes().size());
    for (size_t c = 0; c < kinds.size() && ok; ++c)
      for (const ArrayRef& array : arrays[c]) out(array.data, array.bytes);
    out(kTrailer, sizeof kTrailer);
    ok = ok && std::fflush(f.get()) == 0;
  }
  std::error_code ec;
  if (ok) std::filesystem::rename(tmp, path, ec);
  if (!ok || ec) {
    const std::string reason = ec ? ec.message() : std::strerror(errno);
    std::filesystem::remove(tmp, ec);
    throw Error(ErrorKind::Input, path.string() + ": cannot write: " + reason);
  }
}

namespace {

// A file's header, descriptors and end marker, checked: everything but the payload.
struct Layout {
  uint64_t rows = 0;
  std::vector<Descriptor> descriptors;
  std::vector<uint64_t> column_offset;  // columns + 1: where each column's payload starts; the last, the end marker
};

// Reads and checks the layout of the open file `fd` of `actual_size` bytes. Returns the reason it is
// rejected, or "" with `out` filled.
std::string read_layout(int fd, uint64_t actual_size, const TableDef& def, std::optional<SourceStamp> expected_source,
                        Layout& out) {
  std::vector<char> head(kHeaderBytes);
  if (actual_size < sizeof kMagic || !pread_all(fd, head.data(), sizeof kMagic, 0) ||
      std::memcmp(head.data(), kMagic, sizeof kMagic) != 0)
    return "not a horseqc columnar file";
  if (!pread_all(fd, head.data() + sizeof kMagic, kHeaderBytes - sizeof kMagic, sizeof kMagic)) return "truncated header";
  ByteReader r(head.data() + sizeof kMagic, kHeaderBytes - sizeof kMagic);
  const auto version = r.get<uint32_t>();
  const auto bom = r.get<uint32_t>();
  const auto fingerprint = r.get<uint64_t>();
  const auto flags = r.get<uint32_t>();
  const auto ncols = r.get<uint32_t>();
  const SourceStamp stamp{r.get<uint64_t>(), r.get<int64_t>()};
  const auto rows = r.get<uint64_t>();
  const auto total = r.get<uint64_t>();
  if (version != kVersion) return "format version " + std::to_string(version) + ", expected " + std::to_string(kVersion);
  if (bom != kByteOrderMark) return "written on a machine of another byte order";
  if (fingerprint != table_fingerprint(def) || ncols != def.columns.size())
    return "written for another definition of table " + def.name;
  if (expected_source) {
    if (!(flags & kFlagHasSource)) return "has no source stamp";
    if (!(stamp == *expected_source)) return "stale: the source file changed since the cache was written";
  }
  if (total != actual_size)
    return "truncated or extended (header says " + std::to_string(total) + " bytes, found " + std::to_string(actual_size) + ")";
  if (rows > kMaxCount) return "implausible row count";

  head.resize(kHeaderBytes + kDescriptorBytes * ncols + 8);
  if (!pread_all(fd, head.data() + kHeaderBytes, head.size() - kHeaderBytes, kHeaderBytes)) return "truncated descriptors";
  uint64_t checksum;
  std::memcpy(&checksum, head.data() + head.size() - 8, 8);
  if (checksum != fnv1a(head.data(), head.size() - 8) && !kIgnoreChecksums) return "header checksum mismatch";
  out.rows = rows;
  out.descriptors.clear();
  uint64_t payload = 0;
  for (uint32_t c = 0; c < ncols; ++c) {
    ByteReader d(head.data() + kHeaderBytes + kDescriptorBytes * c, kDescriptorBytes);
    Descriptor desc;
    desc.kind = static_cast<Kind>(d.get<uint8_t>());
    desc.stats.valid = d.get<uint8_t>() != 0;
    desc.stats.sorted = d.get<uint8_t>() != 0;
    d.skip(5);
    desc.stats.min = d.get<int64_t>();
    desc.stats.max = d.get<int64_t>();
    desc.stats.distinct = d.get<uint64_t>();
    desc.dict_count = d.get<uint64_t>();
    desc.dict_bytes = d.get<uint64_t>();
    desc.heap_bytes = d.get<uint64_t>();
    desc.checksum = d.get<uint64_t>();
    const ColumnDef& cd = def.columns[c];
    if (desc.kind != kind_of(cd.type, cd.encoding)) return "column " + cd.name + " stored in another form";
    if (desc.dict_count > kMaxCount || desc.dict_bytes > kMaxCount || desc.heap_bytes > kMaxCount)
      return "implausible sizes for column " + cd.name;
    payload += desc.payload_bytes(rows);
    out.descriptors.push_back(desc);
  }
  if (head.size() + payload + sizeof kTrailer != actual_size) return "sizes in the descriptors do not add up";

  out.column_offset.assign(ncols + 1, head.size());
  for (uint32_t c = 0; c < ncols; ++c) out.column_offset[c + 1] = out.column_offset[c] + out.descriptors[c].payload_bytes(rows);
  char trailer[sizeof kTrailer];
  if (!pread_all(fd, trailer, sizeof trailer, out.column_offset[ncols]) || std::memcmp(trailer, kTrailer, sizeof kTrailer) != 0)
    return "missing end marker";
  return "";
}

}  // namespace

std::optional<Table> read_columnar(const TableDef& def, const std::filesystem::path& path,
                                   std::optional<SourceStamp> expected_source, std::string* why_not,
                                   unsigned threads, const std::set<std::string>* columns) {
  const std::string name = path.filename().string();
  auto reject = [&](const std::string& why) -> std::optional<Table> {
    if (why_not) *why_not = name + ": " + why;
    return std::nullopt;
  };
  std::error_code ec;
  const uint64_t actual_size = std::filesystem::file_size(path, ec);
  if (ec) return reject("cannot read: " + ec.message());
  File f(std::fopen(path.c_str(), "rb"));
  if (!f) return reject(std::string("cannot open: ") + std::strerror(errno));
  const int fd = fileno(f.get());
  Layout layout;
  if (std::string why = read_layout(fd, actual_size, def, expected_source, layout); !why.empty()) return reject(why);
  const uint64_t rows = layout.rows;
  const std::vector<Descriptor>& descriptors = layout.descriptors;
  const std::vector<uint64_t>& column_offset = layout.column_offset;
  const auto ncols = static_cast<uint32_t>(descriptors.size());

  // The arrays sit at known offsets, so they are read concurrently, and so are the blocks of one
  // array: a query's first run often reads a handful of long columns (TPC-H q1: 7), more threads than
  // columns. Every wanted array is sized first without writing it (Values leaves numbers unwritten),
  // so its fresh pages are first touched, and zeroed by the kernel, by the block reads on every
  // thread rather than one thread per array; then every block of kBlockBytes is read by pread,
  // hashed and its rows checked while it is still in the core's cache; each column's checksum folds
  // its arrays' block hashes in file order.
  Table table;
  table.name = def.name;
  table.rows = rows;
  table.columns.resize(ncols);
  std::vector<Values<uint64_t>> dict_offsets(ncols);
  std::vector<std::string> dict_bytes(ncols);
  enum class BlockState : uint8_t { Ok, BadRows, Unreadable };  // worse last: a column keeps its worst
  std::vector<uint64_t> checksum_of(ncols, 0);
  std::vector<BlockState> state_of(ncols, BlockState::Ok);
  std::vector<bool> wanted(ncols, true);
  if (columns != nullptr)
    for (uint32_t c = 0; c < ncols; ++c) wanted[c] = columns->count(def.columns[c].name) > 0;

  // One array of a column: where it sits in the file, how its blocks' rows are checked, and how its
  // vector is sized (`size_up` returns its first byte).
  enum class RowCheck : uint8_t { None, NonDecreasing, CodesInRange };
  struct ArrayRead {
    uint32_t column = 0;
    uint64_t at = 0, bytes = 0;
    RowCheck check = RowCheck::None;
    std::function<char*()> size_up;
    char* data = nullptr;
  };
  std::vector<ArrayRead> arrays;
  for (uint32_t c = 0; c < ncols; ++c) {
    if (!wanted[c]) continue;
    const Descriptor& d = descriptors[c];
    Column& col = table.columns[c];
    col.name = def.columns[c].name;
    col.type = def.columns[c].type;
    col.encoding = def.columns[c].encoding;
    col.stats = d.stats;
    uint64_t at = column_offset[c];
    auto add = [&](auto& v, uint64_t bytes, RowCheck check) {
      using T = typename std::remove_reference_t<decltype(v)>::value_type;
      auto* target = &v;
      arrays.push_back({c, at, bytes, check, [target, bytes] {
                          target->reserve(bytes / sizeof(T));
                          advise_huge_pages(target->data(), bytes);
                          target->resize(bytes / sizeof(T));
                          return reinterpret_cast<char*>(target->data());
                        }});
      at += bytes;
    };
    switch (d.kind) {
      case Kind::Int32: add(col.i32, rows * 4, RowCheck::None); break;
      case Kind::Int64: add(col.i64, rows * 8, RowCheck::None); break;
      case Kind::Float64: add(col.f64, rows * 8, RowCheck::None); break;
      case Kind::Heap:
        add(col.offsets, (rows + 1) * 8, RowCheck::NonDecreasing);
        add(col.heap, d.heap_bytes, RowCheck::None);
        break;
      case Kind::Dictionary:
        add(dict_offsets[c], (d.dict_count + 1) * 8, RowCheck::NonDecreasing);
        add(dict_bytes[c], d.dict_bytes, RowCheck::None);
        add(col.i32, rows * 4, RowCheck::CodesInRange);
        break;
    }
  }
  for (ArrayRead& array : arrays) array.data = array.size_up();  // nothing written yet: cheap

  struct BlockRead {
    size_t array = 0;
    uint64_t offset = 0, bytes = 0;  // within the array
  };
  std::vector<BlockRead> blocks;
  for (size_t i = 0; i < arrays.size(); ++i) {
    for (uint64_t off = 0; off < arrays[i].bytes; off += kBlockBytes)
      blocks.push_back({i, off, std::min(kBlockBytes, arrays[i].bytes - off)});
  }
  std::vector<uint64_t> block_hashes(blocks.size());
  std::vector<BlockState> block_states(blocks.size(), BlockState::Ok);
  parallel_for(blocks.size(), threads, [&](size_t b) {
    const BlockRead& block = blocks[b];
    const ArrayRead& array = arrays[block.array];
    char* data = array.data + block.offset;
    if (!pread_all(fd, data, block.bytes, array.at + block.offset)) {
      block_states[b] = BlockState::Unreadable;
      return;
    }
    block_hashes[b] = block_hash(reinterpret_cast<const unsigned char*>(data), block.bytes);
    bool rows_ok = true;
    if (array.check == RowCheck::NonDecreasing) {  // within a block; edges checked below
      const auto* v = reinterpret_cast<const uint64_t*>(data);
      bool decreasing = false;
      for (uint64_t i = 1; i < block.bytes / 8; ++i) decreasing |= v[i] < v[i - 1];
      rows_ok = !decreasing;
    } else if (array.check == RowCheck::CodesInRange) {  // branch-free min/max, so it vectorises
      const auto* v = reinterpret_cast<const int32_t*>(data);
      int32_t lo = 0, hi = 0;
      for (uint64_t i = 0; i < block.bytes / 4; ++i) {
        lo = std::min(lo, v[i]);
        hi = std::max(hi, v[i]);
      }
      rows_ok = lo >= 0 && static_cast<uint64_t>(hi) < descriptors[array.column].dict_count;
    }
    if (!rows_ok) block_states[b] = BlockState::BadRows;
  });
  for (size_t b = 0; b < blocks.size(); ++b) {  // arrays in file order, so a column's blocks are too
    const uint32_t c = arrays[blocks[b].array].column;
    checksum_of[c] = fold_checksum(checksum_of[c], block_hashes[b]);
    state_of[c] = std::max(state_of[c], block_states[b]);
  }

  // Per column, in order: every block read, the checksum, then the invariants that span blocks.
  for (uint32_t c = 0; c < ncols; ++c) {
    if (!wanted[c]) continue;
    const Descriptor& d = descriptors[c];
    Column& col = table.columns[c];
    if (state_of[c] == BlockState::Unreadable) return reject("column " + col.name + " is damaged or truncated");
    if (checksum_of[c] != d.checksum && !kIgnoreChecksums) return reject("column " + col.name + " is damaged (checksum mismatch)");
    const std::string inconsistent = "inconsistent contents: column " + col.name + " (" + col.type.to_string() + ", " +
                                     encoding_name(col.encoding) + "): ";
    if (state_of[c] == BlockState::BadRows)
      return reject(inconsistent + (d.kind == Kind::Heap ? "offsets decrease" : "dictionary offsets decrease or codes outside the dictionary"));
    // Offsets across block edges (each block was checked within itself), then the ends.
    const Values<uint64_t>& offsets = d.kind == Kind::Heap ? col.offsets : dict_offsets[c];
    const uint64_t limit = d.kind == Kind::Heap ? d.heap_bytes : d.dict_bytes;
    constexpr uint64_t kPerBlock = kBlockBytes / 8;
    if (d.kind == Kind::Heap || d.kind == Kind::Dictionary) {
      for (uint64_t i = kPerBlock; i < offsets.size(); i += kPerBlock)
        if (offsets[i] < offsets[i - 1]) return reject(inconsistent + "offsets decrease at row " + std::to_string(i - 1));
      if (offsets.front() != 0 || offsets.back() != limit)
        return reject(inconsistent + "offsets must run from 0 to the heap size");
    }
    if (d.kind == Kind::Dictionary) {
      col.dictionary.reserve(d.dict_count);
      for (uint64_t i = 0; i < d.dict_count; ++i) {
        col.dictionary.emplace_back(dict_bytes[c], offsets[i], offsets[i + 1] - offsets[i]);
        if (i > 0 && !(col.dictionary[i - 1] < col.dictionary[i]))
          return reject(inconsistent + "dictionary not strictly ascending at entry " + std::to_string(i));
      }
    }
  }
  if (columns != nullptr) return keep_columns(std::move(table), *columns);  // the unread ones have no name
  return table;
}

// ---- range reads (ColumnarFile) ----

struct ColumnarFile::State {
  TableDef def;
  std::string name;  // the file name, for messages
  File file;
  int fd = -1;
  Layout layout;
};

ColumnarFile::ColumnarFile(std::unique_ptr<State> state) : state_(std::move(state)) {}
ColumnarFile::ColumnarFile(ColumnarFile&&) noexcept = default;
ColumnarFile& ColumnarFile::operator=(ColumnarFile&&) noexcept = default;
ColumnarFile::~ColumnarFile() = default;

std::optional<ColumnarFile> ColumnarFile::open(const TableDef& def, const std::filesystem::path& path,
                                               std::optional<SourceStamp> expected_source, std::string* why_not) {
  auto state = std::make_unique<State>();
  state->def = def;
  state->name = path.filename().string();
  auto reject = [&](const std::string& why) -> std::optional<ColumnarFile> {
    if (why_not) *why_not = state->name + ": " + why;
    return std::nullopt;
  };
  std::error_code ec;
  const uint64_t actual_size = std::filesystem::file_size(path, ec);
  if (ec) return reject("cannot read: " + ec.message());
  state->file.reset(std::fopen(path.c_str(), "rb"));
  if (!state->file) return reject(std::string("cannot open: ") + std::strerror(errno));
  state->fd = fileno(state->file.get());
  if (std::string why = read_layout(state->fd, actual_size, def, expected_source, state->layout); !why.empty()) return reject(why);
  return ColumnarFile(std::move(state));
}

uint64_t ColumnarFile::rows() const { return state_->layout.rows; }

int64_t ColumnarFile::int_at(size_t column, uint64_t row) const {
  const Layout& l = state_->layout;
  if (column >= l.descriptors.size())
    throw Error(ErrorKind::Internal, state_->name + ": no column " + std::to_string(column) + " in table " + state_->def.name);
  const Descriptor& d = l.descriptors[column];
  const std::string& column_name = state_->def.columns[column].name;
  if (row >= l.rows)
    throw Error(ErrorKind::Input, state_->name + ": row " + std::to_string(row) + " of column " + column_name +
                                      " asked, the file holds " + std::to_string(l.rows) + " rows");
  uint64_t at = l.column_offset[column];
  unsigned width = 0;
  switch (d.kind) {
    case Kind::Int32: at += row * 4; width = 4; break;
    case Kind::Int64: at += row * 8; width = 8; break;
    case Kind::Dictionary: at += (d.dict_count + 1) * 8 + d.dict_bytes + row * 4; width = 4; break;
    case Kind::Float64: case Kind::Heap:
      throw Error(ErrorKind::Internal, state_->name + ": column " + column_name + " is not integer-backed");
  }
  if (width == 4) {
    int32_t v;
    if (pread_all(state_->fd, &v, 4, at)) return v;
  } else {
    int64_t v;
    if (pread_all(state_->fd, &v, 8, at)) return v;
  }
  throw Error(ErrorKind::Input, state_->name + ": cannot read row " + std::to_string(row) + " of column " + column_name);
}

std::optional<Table> ColumnarFile::read_rows(uint64_t first_row, uint64_t rows, std::string* why_not, unsigned threads,
                                             const std::set<std::string>* columns) const {
  const Layout& l = state_->layout;
  const TableDef& def = state_->def;
  auto reject = [&](const std::string& why) -> std::optional<Table> {
    if (why_not) *why_not = state_->name + ": " + why;
    return std::nullopt;
  };
  if (first_row > l.rows || rows > l.rows - first_row)
    return reject("rows [" + std::to_string(first_row) + ", " + std::to_string(first_row + rows) + ") asked, the file holds " +
                  std::to_string(l.rows) + " rows of table " + def.name);
  const auto ncols = l.descriptors.size();
  Table table;
  table.name = def.name;
  table.rows = rows;
  table.partition = Table::Partition{first_row, l.rows};
  table.columns.resize(ncols);
  // Per column: "" or what is wrong with it (columns are read concurrently; the first bad one is reported).
  std::vector<std::string> problem(ncols);
  std::vector<size_t> read_these;
  for (size_t c = 0; c < ncols; ++c)
    if (columns == nullptr || columns->count(def.columns[c].name)) read_these.push_back(c);
  parallel_for(read_these.size(), threads, [&](size_t task) {
    const size_t c = read_these[task];
    const Descriptor& d = l.descriptors[c];
    Column& col = table.columns[c];
    col.name = def.columns[c].name;
    col.type = def.columns[c].type;
    col.encoding = def.columns[c].encoding;
    col.stats = d.stats;
    const uint64_t base = l.column_offset[c];
    bool readable = true;
    auto read = [&](auto& v, uint64_t count, uint64_t at) {
      using T = typename std::remove_reference_t<decltype(v)>::value_type;
      v.reserve(count);
      advise_huge_pages(v.data(), count * sizeof(T));
      v.resize(count);
      readable = readable && pread_all(state_->fd, v.data(), count * sizeof(T), at);
    };
    const std::string inconsistent = "inconsistent contents: column " + col.name + " (" + col.type.to_string() + ", " +
                                     encoding_name(col.encoding) + "): ";
    auto non_decreasing = [](const auto& v) { return std::is_sorted(v.begin(), v.end()); };
    switch (d.kind) {
      case Kind::Int32: read(col.i32, rows, base + first_row * 4); break;
      case Kind::Int64: read(col.i64, rows, base + first_row * 8); break;
      case Kind::Float64: read(col.f64, rows, base + first_row * 8); break;
      case Kind::Heap: {
        read(col.offsets, rows + 1, base + first_row * 8);
        if (!readable) break;
        if (!non_decreasing(col.offsets) || col.offsets.back() > d.heap_bytes) {
          problem[c] = inconsistent + "offsets decrease or pass the heap";
          return;
        }
        const uint64_t heap_from = col.offsets.front();
        read(col.heap, col.offsets.back() - heap_from, base + (l.rows + 1) * 8 + heap_from);
        for (uint64_t& o : col.offsets) o -= heap_from;
        break;
      }
      case Kind::Dictionary: {
        std::vector<uint64_t> offsets;
        std::string bytes;
        read(offsets, d.dict_count + 1, base);
        read(bytes, d.dict_bytes, base + (d.dict_count + 1) * 8);
        read(col.i32, rows, base + (d.dict_count + 1) * 8 + d.dict_bytes + first_row * 4);
        if (!readable) break;
        if (!non_decreasing(offsets) || offsets.front() != 0 || offsets.back() != d.dict_bytes) {
          problem[c] = inconsistent + "dictionary offsets decrease or do not run from 0 to the dictionary size";
          return;
        }
        col.dictionary.reserve(d.dict_count);
        for (uint64_t i = 0; i < d.dict_count; ++i) {
          col.dictionary.emplace_back(bytes, offsets[i], offsets[i + 1] - offsets[i]);
          if (i > 0 && !(col.dictionary[i - 1] < col.dictionary[i])) {
            problem[c] = inconsistent + "dictionary not strictly ascending at entry " + std::to_string(i);
            return;
          }
        }
        for (uint64_t r = 0; r < rows; ++r)
          if (col.i32[r] < 0 || static_cast<uint64_t>(col.i32[r]) >= d.dict_count) {
            problem[c] = inconsistent + "code outside the dictionary at row " + std::to_string(first_row + r);
            return;
          }
        break;
      }
    }
    if (!readable) problem[c] = "column " + col.name + " is damaged or truncated";
  });
  for (const std::string& p : problem)
    if (!p.empty()) return reject(p);
  if (columns != nullptr) return keep_columns(std::move(table), *columns);  // the unread ones have no name
  return table;
}

std::optional<Table> read_columnar_rows(const TableDef& def, const std::filesystem::path& path,
                                        std::optional<SourceStamp> expected_source, uint64_t first_row, uint64_t rows,
                                        std::string* why_not, unsigned threads) {
  const std::optional<ColumnarFile> file = ColumnarFile::open(def, path, expected_source, why_not);
  if (!file) return std::nullopt;
  return file->read_rows(first_row, rows, why_not, threads);
}

}  // namespace hqc

// Uploading host columns in their physical form; see device_columns.h.
#include "runtime/device/device_columns.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <iterator>
#include <limits>
#include <set>

#include "runtime/device/stable_hash.h"
#include "storage/error.h"
#include "storage/parallel.h"

namespace hqc::runtime {

namespace {

using HostView = HostColumnBytes;

}  // namespace

std::string DeviceColumnCache::entry_key(const std::string& table, const Column& column, unsigned stored_bytes) {
  const std::string key = table + "." + column.name;
  const unsigned narrowed = narrowed_width(column, stored_bytes);
  return narrowed != 0 ? key + "@" + std::to_string(narrowed) : key;
}

HostColumnBytes host_column_bytes(const Column& c) {
  if (c.type.is_string() && c.encoding == Encoding::Heap) {
    return {c.offsets.data(), c.offsets.size() * sizeof(uint64_t), c.offsets.empty() ? 0 : c.offsets.size() - 1};
  }
  switch (c.type.id) {
    case TypeId::Int32:
    case TypeId::Date:
    case TypeId::String:
      return {c.i32.data(), c.i32.size() * sizeof(int32_t), c.i32.size()};
    case TypeId::Int64:
    case TypeId::Decimal:
      return {c.i64.data(), c.i64.size() * sizeof(int64_t), c.i64.size()};
    case TypeId::Float64:
      return {c.f64.data(), c.f64.size() * sizeof(double), c.f64.size()};
    case TypeId::Bool:
      break;
  }
  throw Error(ErrorKind::Internal, "column " + c.name + " of type " + c.type.to_string() + " cannot be stored on a device");
}

// FNV-1a over 64 windows of 64 bytes spread evenly over the values (all of them when small), so a
// different data set loaded at the same address with the same size is noticed without hashing
// hundreds of megabytes on every query.
uint64_t sampled_fingerprint(const HostColumnBytes& view) {
  const auto* bytes = static_cast<const unsigned char*>(view.data);
  if (view.bytes <= 64 * 64) return fnv1a64(bytes, view.bytes);
  uint64_t h = kFnvOffsetBasis;
  const uint64_t step = (view.bytes - 64) / 63;
  for (uint64_t i = 0; i < 64; ++i) h = fnv1a64(bytes + i * step, 64, h);
  return h;
}

unsigned narrowed_width(const Column& column, unsigned stored_bytes) {
  if (stored_bytes == 0 || (column.type.is_string() && column.encoding == Encoding::Heap)) return 0;
  return stored_bytes < host_column_bytes(column).width() ? stored_bytes : 0;
}

uint64_t device_value_bytes(const Column& column, unsigned stored_bytes) {
  const unsigned narrowed = narrowed_width(column, stored_bytes);
  return narrowed != 0 ? column.size() * narrowed : host_column_bytes(column).bytes;
}

uint64_t device_bytes(const Column& column, unsigned stored_bytes) {
  const uint64_t values = device_value_bytes(column, stored_bytes);
  return column.type.is_string() && column.encoding == Encoding::Heap ? values + column.heap.size() : values;
}

namespace {

template <typename From, typename To>
void narrow_as(const From* in, uint64_t count, To* out, const std::string& what) {
  constexpr From lo = std::numeric_limits<To>::min(), hi = std::numeric_limits<To>::max();
  From seen_lo = 0, seen_hi = 0;  // the loop stays branch-free; the range is checked once after it
  for (uint64_t i = 0; i < count; ++i) {
    const From v = in[i];
    seen_lo = std::min(seen_lo, v);
    seen_hi = std::max(seen_hi, v);
    out[i] = static_cast<To>(v);
  }
  if (seen_lo < lo || seen_hi > hi) {
    throw Error(ErrorKind::Input, what + " holds " + std::to_string(seen_lo < lo ? seen_lo : seen_hi) +
                                      ", outside the " + std::to_string(8 * sizeof(To)) +
                                      "-bit range its kernels were compiled for from the data's statistics "
                                      "(the statistics do not describe this data)");
  }
}

template <typename From>
void narrow_from(const From* in, unsigned stored_bytes, uint64_t count, void* out, const std::string& what) {
  switch (stored_bytes) {
    case 1: return narrow_as(in, count, static_cast<int8_t*>(out), what);
    case 2: return narrow_as(in, count, static_cast<int16_t*>(out), what);
    case 4:
      if constexpr (sizeof(From) > 4) return narrow_as(in, count, static_cast<int32_t*>(out), what);
      break;
  }
  throw Error(ErrorKind::Internal, what + ": " + std::to_string(stored_bytes) + " bytes per value is no narrowing of " +
                                       std::to_string(sizeof(From)));
}

}  // namespace

void narrow_values(const HostColumnBytes& view, unsigned stored_bytes, uint64_t first, uint64_t count, void* out,
                   const std::string& what) {
  if (first + count > view.rows) throw Error(ErrorKind::Internal, what + ": rows past the column's end narrowed");
  if (view.width() == 4) return narrow_from(static_cast<const int32_t*>(view.data) + first, stored_bytes, count, out, what);
  if (view.width() == 8) return narrow_from(static_cast<const int64_t*>(view.data) + first, stored_bytes, count, out, what);
  throw Error(ErrorKind::Internal, what + ": values of " + std::to_string(view.width()) + " bytes cannot be narrowed");
}

void narrow_values_parallel(const HostColumnBytes& view, unsigned stored_bytes, uint64_t first, uint64_t count, void* out,
                            const std::string& what, unsigned threads) {
  constexpr uint64_t kPart = uint64_t{1} << 18;  // rows per task
  auto* bytes = static_cast<char*>(out);
  parallel_for((count + kPart - 1) / kPart, std::min(resolve_threads(threads), resolve_threads(0)), [&](size_t p) {
    const uint64_t begin = p * kPart;
    narrow_values(view, stored_bytes, first + begin, std::min(kPart, count - begin), bytes + begin * stored_bytes, what);
  });
}

void DeviceColumnCache::upload(DeviceBuffer& target, const void* host, uint64_t rows, unsigned width, unsigned stored_bytes,
                               const std::string& what) {
  const bool narrow = stored_bytes != 0 && stored_bytes < width;
  const unsigned out_width = narrow ? stored_bytes : width;
  const uint64_t bytes = rows * out_width;
  const HostColumnBytes view{host, rows * width, rows};
  // The host's bytes decide, narrowed or not: the host reads all of them either way.
  if (staging_.threshold == 0 || view.bytes < staging_.threshold || staging_.slot_bytes == 0 || staging_.slots == 0 ||
      (slots_.empty() && batch_bytes_ < staging_.batch_threshold)) {
    if (!narrow) {
      target.upload(host, bytes);
      return;
    }
    const uint64_t piece_rows = std::max<uint64_t>(1, std::min(rows, staging_.piece_bytes / out_width));
    if (piece_bytes_ < piece_rows * out_width) {
      piece_ = std::make_unique<char[]>(piece_rows * out_width);  // kept: touched once per process
      piece_bytes_ = piece_rows * out_width;
    }
    for (uint64_t row = 0; row < rows; row += piece_rows) {
      const uint64_t n = std::min(piece_rows, rows - row);
      narrow_values_parallel(view, stored_bytes, row, n, piece_.get(), what, staging_.threads);
      target.upload(piece_.get(), n * out_width, row * out_width);
    }
    return;
  }
  if (slots_.empty()) {
    for (unsigned s = 0; s < staging_.slots; ++s) slots_.push_back({backend_.allocate_pinned(staging_.slot_bytes), backend_.create_stream()});
  }
  backend_.synchronize();  // the default queue's earlier work comes first (see backend.h)
  const auto* source = static_cast<const char*>(host);
  const unsigned threads = std::min(resolve_threads(staging_.threads), resolve_threads(0));
  constexpr uint64_t kMinPiece = uint64_t{1} << 20;  // per thread: below this a thread costs more than it copies
  // On an error, no copy may still read a slot or write `target` once this returns.
  struct Drain {
    DeviceColumnCache& cache;
    bool done = false;
    ~Drain() {
      if (done) return;
      try {
        for (Slot& slot : cache.slots_) cache.backend_.synchronize(slot.stream);
      } catch (...) {  // already failing; the first error is the one reported
      }
    }
  } drain{*this};
  // Pieces of whole values: a slot holds slot_rows of them at the device's width.
  const uint64_t slot_rows = std::max<uint64_t>(1, staging_.slot_bytes / out_width);
  uint64_t piece = 0;
  for (uint64_t row = 0; row < rows; row += slot_rows, ++piece) {
    Slot& slot = slots_[piece % slots_.size()];
    backend_.synchronize(slot.stream);  // its previous piece has left the slot
    const uint64_t n = std::min(slot_rows, rows - row);
    auto* staged = static_cast<char*>(slot.host.data());
    const uint64_t parts = std::clamp<uint64_t>(n * out_width / kMinPiece, 1, threads);
    const uint64_t part = (n + parts - 1) / parts;
    parallel_for(parts, threads, [&](size_t p) {
      const uint64_t begin = p * part;
      if (begin >= n) return;
      const uint64_t count = std::min(part, n - begin);
      if (narrow) narrow_values(view, stored_bytes, row + begin, count, staged + begin * out_width, what);
      else std::memcpy(staged + begin * out_width, source + (row + begin) * width, count * width);
    });
    backend_.upload_async(slot.stream, target, row * out_width, slot.host, 0, n * out_width);
  }
  drain.done = true;
  for (Slot& slot : slots_) backend_.synchronize(slot.stream);
  staged_bytes_ += bytes;
}

void DeviceColumnCache::evict(const std::string& table) {
  const std::string prefix = table + ".";
  for (auto it = entries_.begin(); it != entries_.end();) {
    it = it->first.rfind(prefix, 0) == 0 ? entries_.erase(it) : std::next(it);
  }
}

uint64_t DeviceColumnCache::bytes_held() const {
  uint64_t bytes = 0;
  for (const auto& [key, entry] : entries_) bytes += entry.column.values.bytes() + entry.column.heap.bytes();
  return bytes;
}

bool DeviceColumnCache::resident(const std::string& key, const HostColumnBytes& view) const {
  auto it = entries_.find(key);
  return it != entries_.end() && it->second.host_data == view.data && it->second.host_bytes == view.bytes &&
         it->second.fingerprint == sampled_fingerprint(view);
}

void DeviceColumnCache::make_room(uint64_t needed, const std::set<std::string>& keep) {
  uint64_t free = backend_.free_memory();
  if (memory_limit_ > 0) {
    const uint64_t held = bytes_held();
    free = std::min(free, memory_limit_ > held ? memory_limit_ - held : 0);
  }
  while (free < needed) {
    auto victim = entries_.end();
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (keep.count(it->first) == 0 && (victim == entries_.end() || it->second.last_used < victim->second.last_used)) victim = it;
    }
    if (victim == entries_.end()) return;  // nothing left to free: the allocations say what is missing
    free += victim->second.column.values.bytes() + victim->second.column.heap.bytes();
    entries_.erase(victim);
    ++evictions_;
  }
}

std::map<std::pair<std::string, std::string>, const DeviceColumn*> DeviceColumnCache::get_all(const std::vector<Request>& requests,
                                                                                              uint64_t then_allocated) {
  uint64_t pending = 0;       // device bytes, to make room for
  uint64_t host_pending = 0;  // the host bytes they come from, to decide on staging
  std::set<std::string> counted;
  std::map<std::pair<std::string, std::string>, unsigned> widths;
  for (const Request& r : requests) {
    const auto [w, fresh] = widths.emplace(std::pair{r.table, r.column->name}, r.stored_bytes);
    if (!fresh && w->second != r.stored_bytes)
      throw Error(ErrorKind::Internal, r.table + "." + r.column->name + " asked for in " + std::to_string(w->second) + " and " +
                                           std::to_string(r.stored_bytes) + " bytes per value by one batch");
    const std::string key = entry_key(r.table, *r.column, r.stored_bytes);
    if (counted.insert(key).second && !resident(key, host_column_bytes(*r.column))) {
      pending += device_bytes(*r.column, r.stored_bytes);
      host_pending += device_bytes(*r.column);
    }
  }
  make_room(pending + then_allocated, counted);
  batch_bytes_ = host_pending;
  std::map<std::pair<std::string, std::string>, const DeviceColumn*> out;
  try {
    for (const Request& r : requests) out[{r.table, r.column->name}] = &get(r.table, *r.column, r.stored_bytes);
  } catch (...) {
    batch_bytes_ = 0;
    throw;
  }
  batch_bytes_ = 0;
  return out;
}

const DeviceColumn& DeviceColumnCache::get(const std::string& table, const Column& column, unsigned stored_bytes) {
  const std::string key = entry_key(table, column, stored_bytes);
  const HostView view = host_column_bytes(column);
  const bool heap = column.type.is_string() && column.encoding == Encoding::Heap;
  stored_bytes = narrowed_width(column, stored_bytes);
  if (resident(key, view)) {
    Entry& entry = entries_.at(key);
    entry.last_used = ++use_clock_;
    return entry.column;
  }
  const auto start = std::chrono::steady_clock::now();
  Entry entry;
  entry.host_data = view.data;
  entry.host_bytes = view.bytes;
  entry.fingerprint = sampled_fingerprint(view);
  entry.last_used = ++use_clock_;
  entry.column.rows = view.rows;
  const uint64_t value_bytes = device_value_bytes(column, stored_bytes);
  entry.column.values = backend_.allocate(value_bytes);
  if (stored_bytes != 0) upload(entry.column.values, view.data, view.rows, view.width(), stored_bytes, table + "." + column.name);
  else upload(entry.column.values, view.data, view.bytes, 1, 0, table + "." + column.name);
  uint64_t bytes = value_bytes;
  if (heap) {
    // A multiple of 8 bytes: LIKE reads the heap in aligned 8-byte words (hqc_find_byte,
    // templates/device/strings.h); the padding's bytes are never part of a match.
    entry.column.heap = backend_.allocate((column.heap.size() + 7) & ~size_t{7});
    upload(entry.column.heap, column.heap.data(), column.heap.size(), 1, 0, table + "." + column.name + " (heap)");
    bytes += column.heap.size();
  }
  transfer_ms_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  bytes_uploaded_ += bytes;
  ++uploads_;
  auto [pos, inserted] = entries_.insert_or_assign(key, std::move(entry));
  (void)inserted;
  return pos->second.column;
}

}  // namespace hqc::runtime

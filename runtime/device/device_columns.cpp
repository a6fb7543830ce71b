// Uploading host columns in their physical form; see device_columns.h.
#include "runtime/device/device_columns.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <iterator>
#include <set>

#include "runtime/device/stable_hash.h"
#include "storage/error.h"
#include "storage/parallel.h"

namespace hqc::runtime {

namespace {

using HostView = HostColumnBytes;

}  // namespace

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

uint64_t device_bytes(const Column& column) {
  uint64_t bytes = host_column_bytes(column).bytes;
  if (column.type.is_string() && column.encoding == Encoding::Heap) bytes += column.heap.size();
  return bytes;
}

void DeviceColumnCache::upload(DeviceBuffer& target, const void* host, uint64_t bytes) {
  if (staging_.threshold == 0 || bytes < staging_.threshold || staging_.slot_bytes == 0 || staging_.slots == 0 ||
      (slots_.empty() && batch_bytes_ < staging_.batch_threshold)) {
    target.upload(host, bytes);
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
  uint64_t piece = 0;
  for (uint64_t offset = 0; offset < bytes; offset += staging_.slot_bytes, ++piece) {
    Slot& slot = slots_[piece % slots_.size()];
    backend_.synchronize(slot.stream);  // its previous piece has left the slot
    const uint64_t n = std::min(staging_.slot_bytes, bytes - offset);
    auto* staged = static_cast<char*>(slot.host.data());
    const uint64_t parts = std::clamp<uint64_t>(n / kMinPiece, 1, threads);
    const uint64_t part = (n + parts - 1) / parts;
    parallel_for(parts, threads, [&](size_t p) {
      const uint64_t begin = p * part;
      if (begin < n) std::memcpy(staged + begin, source + offset + begin, std::min(part, n - begin));
    });
    backend_.upload_async(slot.stream, target, offset, slot.host, 0, n);
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
  uint64_t pending = 0;
  std::set<std::string> counted;
  for (const auto& [table, column] : requests) {
    const std::string key = table + "." + column->name;
    if (counted.insert(key).second && !resident(key, host_column_bytes(*column))) pending += device_bytes(*column);
  }
  make_room(pending + then_allocated, counted);
  batch_bytes_ = pending;
  std::map<std::pair<std::string, std::string>, const DeviceColumn*> out;
  try {
    for (const auto& [table, column] : requests) out[{table, column->name}] = &get(table, *column);
  } catch (...) {
    batch_bytes_ = 0;
    throw;
  }
  batch_bytes_ = 0;
  return out;
}

const DeviceColumn& DeviceColumnCache::get(const std::string& table, const Column& column) {
  const std::string key = table + "." + column.name;
  const HostView view = host_column_bytes(column);
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
  entry.column.values = backend_.allocate(view.bytes);
  upload(entry.column.values, view.data, view.bytes);
  uint64_t bytes = view.bytes;
  if (column.type.is_string() && column.encoding == Encoding::Heap) {
    // A multiple of 8 bytes: LIKE reads the heap in aligned 8-byte words (hqc_find_byte,
    // templates/device/strings.h); the padding's bytes are never part of a match.
    entry.column.heap = backend_.allocate((column.heap.size() + 7) & ~size_t{7});
    upload(entry.column.heap, column.heap.data(), column.heap.size());
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

// Merging one state object across ranks (state_merge.h).
#include "runtime/distributed/state_merge.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <optional>

#include "runtime/device/device_primitives.h"
#include "runtime/execution/device_top_k.h"
#include "runtime/execution/plan_state.h"
#include "storage/error.h"

namespace hqc::runtime {

namespace {

__extension__ typedef unsigned __int128 uint128;

AllocatedBuffer& buffer_of(std::map<std::string, AllocatedBuffer>& buffers, const std::string& name, const StateMerge& m) {
  auto it = buffers.find(name);
  if (it == buffers.end()) throw Error(ErrorKind::Internal, "merging " + m.what + ": buffer " + name + " is not allocated");
  return it->second;
}

uint64_t slots_of(const StateMerge& m, const std::map<std::string, int64_t>& params) {
  if (m.slots_param.empty()) return 1;
  auto it = params.find(m.slots_param);
  if (it == params.end()) throw Error(ErrorKind::Internal, "merging " + m.what + ": no parameter " + m.slots_param);
  return static_cast<uint64_t>(it->second);
}

// The words a buffer starts with (BufferSpec::init), widened like read_words.
int64_t initial_word(const BufferSpec& spec) {
  if (spec.init != BufferSpec::Init::Pattern) return 0;
  if (element_bytes(spec.element) == 8) return static_cast<int64_t>(spec.pattern);
  return spec.element == ElementType::U32 ? static_cast<int64_t>(static_cast<uint32_t>(spec.pattern))
                                          : static_cast<int64_t>(static_cast<int32_t>(spec.pattern));
}

double as_double(int64_t bits) {
  double d;
  std::memcpy(&d, &bits, 8);
  return d;
}
int64_t as_bits(double d) {
  int64_t bits;
  std::memcpy(&bits, &d, 8);
  return bits;
}

// Combines `v` (one slot's words of a lane) into `acc`.
void combine(const StateMerge::Lane& lane, ElementType type, const int64_t* v, int64_t* acc) {
  switch (lane.op) {
    case StateMerge::Op::Sum128: {
      // Two's complement: adding the unsigned 128-bit words is the signed sum, wrapping alike.
      const uint128 a = (static_cast<uint128>(static_cast<uint64_t>(acc[1])) << 64) | static_cast<uint64_t>(acc[0]);
      const uint128 b = (static_cast<uint128>(static_cast<uint64_t>(v[1])) << 64) | static_cast<uint64_t>(v[0]);
      const uint128 sum = a + b;
      acc[0] = static_cast<int64_t>(static_cast<uint64_t>(sum));
      acc[1] = static_cast<int64_t>(static_cast<uint64_t>(sum >> 64));
      return;
    }
    case StateMerge::Op::Sum:
      for (uint32_t w = 0; w < lane.words; ++w)
        acc[w] = type == ElementType::F64 ? as_bits(as_double(acc[w]) + as_double(v[w]))
                                          : static_cast<int64_t>(static_cast<uint64_t>(acc[w]) + static_cast<uint64_t>(v[w]));
      return;
    case StateMerge::Op::Min:
    case StateMerge::Op::Max: {
      const bool min = lane.op == StateMerge::Op::Min;
      for (uint32_t w = 0; w < lane.words; ++w) {
        const bool less = type == ElementType::F64 ? as_double(v[w]) < as_double(acc[w]) : v[w] < acc[w];
        const bool greater = type == ElementType::F64 ? as_double(v[w]) > as_double(acc[w]) : v[w] > acc[w];
        if (min ? less : greater) acc[w] = v[w];
      }
      return;
    }
  }
}

Reduction reduction_of(StateMerge::Op op) {
  return op == StateMerge::Op::Min ? Reduction::Min : op == StateMerge::Op::Max ? Reduction::Max : Reduction::Sum;
}

// Every rank's words, in rank order.
std::vector<std::vector<int64_t>> gather_words(Communicator& comm, const std::vector<int64_t>& mine) {
  std::vector<unsigned char> bytes(mine.size() * 8);
  if (!mine.empty()) std::memcpy(bytes.data(), mine.data(), bytes.size());
  std::vector<std::vector<int64_t>> out;
  for (const std::vector<unsigned char>& r : comm.all_gather(bytes)) {
    out.emplace_back(r.size() / 8);
    if (!r.empty()) std::memcpy(out.back().data(), r.data(), r.size());
  }
  return out;
}

void merge_elementwise(Communicator& comm, Backend& backend, const StateMerge& m, std::map<std::string, AllocatedBuffer>& buffers,
                       const std::map<std::string, int64_t>& params) {
  const uint64_t slots = slots_of(m, params);
  std::vector<Communicator::ReduceLane> reduced;  // every lane but 128-bit sums, in one collective
  for (const StateMerge::Lane& lane : m.lanes) {
    AllocatedBuffer& b = buffer_of(buffers, lane.buffer, m);
    const uint64_t count = slots * lane.words;
    if (count > b.elements) throw Error(ErrorKind::Internal, "merging " + m.what + ": " + lane.buffer + " is smaller than its slots");
    if (lane.op != StateMerge::Op::Sum128) reduced.push_back({&b.buffer, count, b.spec->element, reduction_of(lane.op)});
  }
  comm.all_reduce_many(backend, reduced);
  for (const StateMerge::Lane& lane : m.lanes) {
    if (lane.op != StateMerge::Op::Sum128) continue;
    AllocatedBuffer& b = buffer_of(buffers, lane.buffer, m);
    const uint64_t count = slots * lane.words;
    const std::vector<std::vector<int64_t>> all = gather_words(comm, read_words(b, count));
    std::vector<int64_t> sum(count, 0);
    for (const std::vector<int64_t>& r : all)
      for (uint64_t s = 0; s < slots; ++s) combine(lane, b.spec->element, &r[2 * s], &sum[2 * s]);
    write_words(b, sum);
  }
}

// Groups keyed by their key words, flat (one array of records, an open-addressing index over it):
// millions of groups combine in a few hundred milliseconds on the host.
class GroupIndex {
 public:
  GroupIndex(uint64_t key_words, uint64_t record_words, uint64_t expected)
      : key_words_(key_words), record_words_(record_words) {
    uint64_t capacity = 16;
    while (capacity < 2 * expected) capacity *= 2;
    slots_.assign(capacity, -1);
    records_.reserve(expected * record_words);
  }
  // The record of the group with `record`'s key: inserted (a copy of `record`) when new, else null
  // with `into` pointing at the existing record.
  bool insert(const int64_t* record, int64_t*& into) {
    if (2 * (size() + 1) > slots_.size()) grow();
    uint64_t at = hash(record) & (slots_.size() - 1);
    for (;; at = (at + 1) & (slots_.size() - 1)) {
      const int64_t g = slots_[at];
      if (g < 0) break;
      int64_t* existing = records_.data() + static_cast<uint64_t>(g) * record_words_;
      if (std::memcmp(existing, record, key_words_ * 8) == 0) {
        into = existing;
        return false;
      }
    }
    slots_[at] = static_cast<int64_t>(size());
    records_.insert(records_.end(), record, record + record_words_);
    into = records_.data() + records_.size() - record_words_;
    return true;
  }
  uint64_t size() const { return records_.size() / record_words_; }
  const int64_t* record(uint64_t g) const { return records_.data() + g * record_words_; }

 private:
  uint64_t hash(const int64_t* key) const {
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (uint64_t w = 0; w < key_words_; ++w) {
      h ^= static_cast<uint64_t>(key[w]) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
      h *= 0xff51afd7ed558ccdull;
    }
    return h ^ (h >> 33);
  }
  void grow() {
    std::vector<int64_t> old(slots_.size() * 2, -1);
    slots_.swap(old);
    for (uint64_t g = 0; g < size(); ++g) {
      uint64_t at = hash(record(g)) & (slots_.size() - 1);
      while (slots_[at] >= 0) at = (at + 1) & (slots_.size() - 1);
      slots_[at] = static_cast<int64_t>(g);
    }
  }
  uint64_t key_words_, record_words_;
  std::vector<int64_t> slots_;    // group index, -1 empty
  std::vector<int64_t> records_;  // key words, then lane words, per group
};

// Reallocates every buffer sized by `param` for its new value, initialised as the plan says.
void resize_by_param(Backend& backend, const std::string& param, std::map<std::string, AllocatedBuffer>& buffers,
                     std::map<std::string, int64_t>& params, uint64_t value, const std::string& label) {
  params[param] = static_cast<int64_t>(value);
  for (auto& [name, b] : buffers) {
    if (b.spec->elements_param == param) b = allocate_buffer(backend, *b.spec, params, label);
  }
}

void merge_hashed(Communicator& comm, Backend& backend, const ExecutablePlan& plan, const StateMerge& m,
                  std::map<std::string, AllocatedBuffer>& buffers, std::map<std::string, int64_t>& params) {
  const uint64_t slots = slots_of(m, params);
  // This rank's groups: per occupied slot, its key words then its lanes' words.
  uint64_t key_words = 0, lane_words = 0;
  for (const StateMerge::Lane& k : m.keys) key_words += k.words;
  for (const StateMerge::Lane& l : m.lanes) lane_words += l.words;
  const uint64_t record = key_words + lane_words;
  std::vector<std::vector<int64_t>> keys, lanes;
  for (const StateMerge::Lane& k : m.keys) keys.push_back(read_words(buffer_of(buffers, k.buffer, m), slots * k.words));
  for (const StateMerge::Lane& l : m.lanes) lanes.push_back(read_words(buffer_of(buffers, l.buffer, m), slots * l.words));
  const std::vector<int64_t> occupancy = read_words(buffer_of(buffers, m.occupancy_buffer, m), slots);
  std::vector<int64_t> mine;
  for (uint64_t s = 0; s < slots; ++s) {
    if (occupancy[s] == 0) continue;
    for (size_t k = 0; k < m.keys.size(); ++k)
      for (uint32_t w = 0; w < m.keys[k].words; ++w) mine.push_back(keys[k][s * m.keys[k].words + w]);
    for (size_t l = 0; l < m.lanes.size(); ++l)
      for (uint32_t w = 0; w < m.lanes[l].words; ++w) mine.push_back(lanes[l][s * m.lanes[l].words + w]);
  }
  // Every rank's groups combined by key, in the order they are first seen (rank order).
  const std::vector<std::vector<int64_t>> all = gather_words(comm, mine);
  uint64_t records = 0;
  for (const std::vector<int64_t>& r : all) records += r.size() / record;
  GroupIndex groups(key_words, record, records);
  for (const std::vector<int64_t>& r : all) {
    for (size_t at = 0; at + record <= r.size(); at += record) {
      int64_t* acc = nullptr;
      if (groups.insert(r.data() + at, acc)) continue;
      acc += key_words;
      const int64_t* v = r.data() + at + key_words;
      for (const StateMerge::Lane& l : m.lanes) {
        combine(l, buffer_of(buffers, l.buffer, m).spec->element, v, acc);
        acc += l.words;
        v += l.words;
      }
    }
  }
  uint64_t capacity = slots;
  if (groups.size() > slots) {
    capacity = groups.size();
    resize_by_param(backend, m.slots_param, buffers, params, capacity, plan.label);
  }
  // Written back from slot 0; the other slots as the table starts.
  auto write = [&](const StateMerge::Lane& lane, size_t offset) {
    AllocatedBuffer& b = buffer_of(buffers, lane.buffer, m);
    std::vector<int64_t> words(capacity * lane.words, initial_word(*b.spec));
    for (uint64_t g = 0; g < groups.size(); ++g)
      for (uint32_t w = 0; w < lane.words; ++w) words[g * lane.words + w] = groups.record(g)[offset + w];
    write_words(b, words);
  };
  size_t offset = 0;
  for (const StateMerge::Lane& k : m.keys) {
    write(k, offset);
    offset += k.words;
  }
  for (const StateMerge::Lane& l : m.lanes) {
    write(l, offset);
    offset += l.words;
  }
}

void merge_rows(Communicator& comm, Backend& backend, const StateMerge& m, std::map<std::string, AllocatedBuffer>& buffers) {
  AllocatedBuffer& counter = buffer_of(buffers, m.counter_buffer, m);
  uint64_t mine = 0;
  counter.buffer.download(&mine, 8);
  std::vector<uint64_t> rows;
  for (const std::vector<int64_t>& r : gather_words(comm, {static_cast<int64_t>(mine)})) rows.push_back(static_cast<uint64_t>(r.at(0)));
  uint64_t total = 0;
  for (uint64_t r : rows) total += r;
  // Gathered in place, every column in one collective. The output's buffers are sized by its
  // capacity, an estimate for the whole table (a two-phase aggregation's partial groups are sized
  // like the table), so they usually hold every rank's rows; one that does not is replaced by a
  // buffer of the rows first. Allocating, freeing or copying a capacity-sized buffer per merge cost
  // milliseconds per column on the H200 for kilobytes of rows.
  std::vector<Communicator::RowLane> lanes;
  for (const StateMerge::Lane& lane : m.lanes) {
    AllocatedBuffer& b = buffer_of(buffers, lane.buffer, m);
    const uint64_t width = element_bytes(b.spec->element) * lane.words;
    if (mine * lane.words > b.elements)
      throw Error(ErrorKind::Internal, "merging " + m.what + ": " + std::to_string(mine) + " rows counted, " + lane.buffer + " holds fewer");
    if (total * lane.words > b.elements) {
      DeviceBuffer larger = backend.allocate(total * width);
      if (mine > 0) backend.copy_device(larger, b.buffer, mine * width);
      b.buffer = std::move(larger);
      b.elements = total * lane.words;
    }
    lanes.push_back({&b.buffer, width});
  }
  comm.all_gather_rows(backend, lanes, rows);
  counter.buffer.upload(&total, 8);
}

// Element i of 4- or 8-byte elements of `type` at `data`, as a 64-bit word: integers widened (U32 as
// unsigned), doubles as their bits — the form merges exchange (read_words).
int64_t word_at(const unsigned char* data, ElementType type, uint64_t i) {
  if (element_bytes(type) == 8) {
    int64_t v;
    std::memcpy(&v, data + i * 8, 8);
    return v;
  }
  int32_t narrow;
  std::memcpy(&narrow, data + i * 4, 4);
  return type == ElementType::U32 ? static_cast<int64_t>(static_cast<uint32_t>(narrow)) : narrow;
}

// splitmix64's finalizer: spreads consecutive keys over the ranks.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

void merge_shuffle(Communicator& comm, Backend& backend, const StateMerge& m, std::map<std::string, AllocatedBuffer>& buffers) {
  AllocatedBuffer& counter = buffer_of(buffers, m.counter_buffer, m);
  uint64_t mine = 0;
  counter.buffer.download(&mine, 8);
  // The rank's rows, every lane, on the host.
  struct Lane {
    AllocatedBuffer* buffer;
    uint64_t width;  // bytes per row
    std::vector<unsigned char> rows;
  };
  std::vector<Lane> lanes;
  uint64_t row_bytes = 0;
  for (const StateMerge::Lane& lane : m.lanes) {
    AllocatedBuffer& b = buffer_of(buffers, lane.buffer, m);
    const uint64_t width = element_bytes(b.spec->element) * lane.words;
    if (mine * lane.words > b.elements)
      throw Error(ErrorKind::Internal, "merging " + m.what + ": " + std::to_string(mine) + " rows counted, " + lane.buffer + " holds fewer");
    Lane l{&b, width, std::vector<unsigned char>(mine * width)};
    if (mine > 0) b.buffer.download(l.rows.data(), l.rows.size());
    row_bytes += width;
    lanes.push_back(std::move(l));
  }
  // Each row's rank: its key values as 64-bit integers (an Int32 key and an Int64 key of equal
  // value hash alike, so both sides of the join agree), hashed in the join's key order.
  const auto ranks = static_cast<uint64_t>(comm.size());
  std::vector<uint64_t> hash(mine, 0);
  for (const StateMerge::Lane& key : m.keys) {
    const auto it = std::find_if(m.lanes.begin(), m.lanes.end(), [&](const StateMerge::Lane& l) { return l.buffer == key.buffer; });
    if (it == m.lanes.end() || key.words != 1)
      throw Error(ErrorKind::Internal, "merging " + m.what + ": key " + key.buffer + " is not one word of a lane");
    const Lane& l = lanes[static_cast<size_t>(it - m.lanes.begin())];
    for (uint64_t r = 0; r < mine; ++r) hash[r] = mix(hash[r] ^ static_cast<uint64_t>(word_at(l.rows.data(), l.buffer->spec->element, r)));
  }
  std::vector<uint64_t> count(ranks, 0);
  std::vector<uint32_t> dest(mine);
  for (uint64_t r = 0; r < mine; ++r) ++count[dest[r] = static_cast<uint32_t>(hash[r] % ranks)];
  // Per rank: its rows of the first lane, then of the second, ...
  std::vector<std::vector<unsigned char>> to(ranks);
  for (uint64_t d = 0; d < ranks; ++d) to[d].resize(count[d] * row_bytes);
  std::vector<uint64_t> at(ranks);
  uint64_t lane_start = 0;  // rows of the earlier lanes, per rank: count[d] x their widths
  for (const Lane& l : lanes) {
    for (uint64_t d = 0; d < ranks; ++d) at[d] = count[d] * lane_start;
    for (uint64_t r = 0; r < mine; ++r) {
      std::memcpy(to[dest[r]].data() + at[dest[r]], l.rows.data() + r * l.width, l.width);
      at[dest[r]] += l.width;
    }
    lane_start += l.width;
  }
  const std::vector<std::vector<unsigned char>> from = comm.all_to_all(to);
  std::vector<uint64_t> received;
  uint64_t total = 0;
  for (const std::vector<unsigned char>& part : from) {
    if (row_bytes == 0 || part.size() % row_bytes != 0)
      throw Error(ErrorKind::Internal, "merging " + m.what + ": received " + std::to_string(part.size()) + " bytes, not whole rows");
    received.push_back(part.size() / row_bytes);
    total += received.back();
  }
  // Every lane's received rows, in rank order, into the buffer (a larger one where they do not fit).
  lane_start = 0;
  for (size_t i = 0; i < lanes.size(); ++i) {
    const Lane& l = lanes[i];
    std::vector<unsigned char> rows(total * l.width);
    uint64_t filled = 0;
    for (size_t s = 0; s < from.size(); ++s) {
      if (received[s] == 0) continue;  // (an empty part's data() may be null)
      std::memcpy(rows.data() + filled, from[s].data() + received[s] * lane_start, received[s] * l.width);
      filled += received[s] * l.width;
    }
    const uint32_t words = m.lanes[i].words;
    if (total * words > l.buffer->elements) {
      l.buffer->buffer = backend.allocate(total * l.width);
      l.buffer->elements = total * words;
    }
    if (total > 0) l.buffer->buffer.upload(rows.data(), rows.size());
    lane_start += l.width;
  }
  counter.buffer.upload(&total, 8);
}

// StateMerge::top_k: the rank's rows that can be among the first k by the result's ORDER BY moved to
// the front of every lane, in row order, and the counter set to their number. Nothing changes where
// the device cannot order the first key (device_top_k_candidates: nullopt), where the rows are no
// more than k, or where a lane's elements are not 64-bit words or more than 2^32 of them.
void keep_top_k(Backend& backend, const Module& module, const ExecutablePlan& plan, const StateMerge& m,
                std::map<std::string, AllocatedBuffer>& buffers) {
  const ResultSpec& spec = plan.result;
  if (spec.order_by.empty()) return;
  const auto first = std::find_if(spec.columns.begin(), spec.columns.end(),
                                  [&](const ResultColumnSpec& c) { return c.name == spec.order_by.front().first; });
  if (first == spec.columns.end() || first->source != ResultColumnSpec::Source::Buffer) return;
  for (const StateMerge::Lane& lane : m.lanes)
    if (element_bytes(buffer_of(buffers, lane.buffer, m).spec->element) != 8) return;
  AllocatedBuffer& counter = buffer_of(buffers, m.counter_buffer, m);
  int64_t rows = 0;
  counter.buffer.download(&rows, 8);
  const std::optional<std::vector<uint64_t>> kept =
      device_top_k_candidates(backend, module, *first, buffer_of(buffers, first->buffer, m), spec.order_by.front().second,
                              static_cast<uint64_t>(std::max<int64_t>(rows, 0)), static_cast<uint64_t>(m.top_k));
  if (!kept) return;
  for (const StateMerge::Lane& lane : m.lanes)  // the gather's map holds 32-bit element indices
    if (static_cast<uint64_t>(std::max<int64_t>(rows, 0)) * lane.words > UINT32_MAX) return;
  for (const StateMerge::Lane& lane : m.lanes) {
    AllocatedBuffer& b = buffer_of(buffers, lane.buffer, m);
    const uint64_t n = kept->size() * lane.words;
    std::vector<uint32_t> map(n);
    for (size_t i = 0; i < kept->size(); ++i)
      for (uint32_t w = 0; w < lane.words; ++w) map[i * lane.words + w] = static_cast<uint32_t>((*kept)[i] * lane.words + w);
    DeviceBuffer indices = backend.acquire_scratch(n * 4);
    DeviceBuffer moved = backend.acquire_scratch(n * 8);
    indices.upload(map.data(), n * 4);
    backend.primitives().gather(indices, b.buffer, moved, n);
    backend.copy_device(b.buffer, moved, n * 8);
    backend.release_scratch(std::move(indices));
    backend.release_scratch(std::move(moved));
  }
  const auto count = static_cast<int64_t>(kept->size());
  counter.buffer.upload(&count, 8);
}

}  // namespace

std::vector<int64_t> read_words(const AllocatedBuffer& b, uint64_t count) {
  std::vector<int64_t> out(count);
  if (count == 0) return out;
  if (element_bytes(b.spec->element) == 8) {
    b.buffer.download(out.data(), count * 8);
  } else {
    std::vector<unsigned char> narrow(count * 4);
    b.buffer.download(narrow.data(), narrow.size());
    for (uint64_t i = 0; i < count; ++i) out[i] = word_at(narrow.data(), b.spec->element, i);
  }
  return out;
}

void write_words(AllocatedBuffer& b, const std::vector<int64_t>& words) {
  if (words.empty()) return;
  if (element_bytes(b.spec->element) == 8) {
    b.buffer.upload(words.data(), words.size() * 8);
  } else {
    std::vector<int32_t> narrow(words.size());
    for (size_t i = 0; i < words.size(); ++i) narrow[i] = static_cast<int32_t>(words[i]);
    b.buffer.upload(narrow.data(), narrow.size() * 4);
  }
}

double merge_state(Communicator& comm, Backend& backend, const ExecutablePlan& plan, const StateMerge& merge,
                   std::map<std::string, AllocatedBuffer>& buffers, std::map<std::string, int64_t>& params,
                   const Module* module) {
  const auto start = std::chrono::steady_clock::now();
  backend.synchronize();
  if (merge.kind == StateMerge::Kind::Rows && merge.top_k >= 0 && module != nullptr) keep_top_k(backend, *module, plan, merge, buffers);
  switch (merge.kind) {
    case StateMerge::Kind::Elementwise: merge_elementwise(comm, backend, merge, buffers, params); break;
    case StateMerge::Kind::HashedGroups: merge_hashed(comm, backend, plan, merge, buffers, params); break;
    case StateMerge::Kind::Rows: merge_rows(comm, backend, merge, buffers); break;
    case StateMerge::Kind::Shuffle: merge_shuffle(comm, backend, merge, buffers); break;
    case StateMerge::Kind::Local:
      throw Error(ErrorKind::Internal, "merging " + merge.what + ": a rank-local state is never merged (distribution.h)");
  }
  backend.synchronize();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace hqc::runtime

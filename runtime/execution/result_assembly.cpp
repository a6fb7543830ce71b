// Result assembly from device buffers; see result_assembly.h.
#include "runtime/execution/result_assembly.h"

#include <algorithm>
#include <cstring>
#include <chrono>
#include <limits>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "runtime/device/database_lookup.h"
#include "runtime/execution/device_top_k.h"
#include "runtime/execution/library_modules.h"
#include "runtime/execution/window_stage.h"
#include "storage/error.h"

namespace hqc::runtime {

std::vector<int64_t> read_ints(const AllocatedBuffer& b, uint64_t count, uint64_t first) {
  std::vector<int64_t> out(count);
  switch (b.spec->element) {
    case ElementType::I32: {
      std::vector<int32_t> raw(count);
      b.buffer.download(raw.data(), count * 4, first * 4);
      for (uint64_t i = 0; i < count; ++i) out[i] = raw[i];
      break;
    }
    case ElementType::U32: {
      std::vector<uint32_t> raw(count);
      b.buffer.download(raw.data(), count * 4, first * 4);
      for (uint64_t i = 0; i < count; ++i) out[i] = raw[i];
      break;
    }
    case ElementType::I64:
    case ElementType::U64:
      b.buffer.download(out.data(), count * 8, first * 8);
      break;
    case ElementType::F64:
      throw Error(ErrorKind::Internal, "buffer " + b.spec->name + " holds doubles but an integer column reads it");
  }
  return out;
}

std::vector<double> read_floats(const AllocatedBuffer& b, uint64_t count, uint64_t first) {
  std::vector<double> out(count);
  if (b.spec->element == ElementType::F64) {
    b.buffer.download(out.data(), count * 8, first * 8);
    return out;
  }
  auto ints = read_ints(b, count, first);
  for (uint64_t i = 0; i < count; ++i) out[i] = static_cast<double>(ints[i]);
  return out;
}

namespace {

// Row references of a heap-string column (ir/state.h, "Heap strings") → the texts of those rows.
ResultColumn decode_heap_rows(const ResultColumn& rows, const Column& column, DataType string_type, const std::string& where) {
  ResultColumn out;
  out.name = rows.name;
  out.type = string_type;
  out.valid = rows.valid;
  out.strings.reserve(rows.ints.size());
  for (uint64_t r = 0; r < rows.ints.size(); ++r) {
    if (rows.is_null(r)) {
      out.strings.emplace_back();
      continue;
    }
    const int64_t row = rows.ints[r];
    if (row < 0 || static_cast<uint64_t>(row) >= column.size())
      throw Error(ErrorKind::Internal, where + ": row reference " + std::to_string(row) + " outside the " +
                                           std::to_string(column.size()) + " rows of " + column.name);
    out.strings.emplace_back(column.string_at(static_cast<uint64_t>(row)));
  }
  return out;
}

// Row references of a heap-string column → each text's rank among the texts referenced (equal texts,
// equal ranks), Int64: it sorts as the texts do, without making them — only the rows an ORDER BY
// keeps are decoded later (TPC-H q20's output ordered by s_name).
ResultColumn rank_heap_rows(const ResultColumn& rows, const Column& column, const std::string& where) {
  ResultColumn out;
  out.name = rows.name;
  out.type = DataType::int64();
  out.valid = rows.valid;
  // The rows referenced, each once; indexed by row where the column is not much larger than the rows
  // read (a dimension's names: no search per row), else found by binary search.
  const bool direct = column.size() <= 8 * rows.ints.size() + 4096;
  std::vector<int64_t> distinct;
  std::vector<char> seen(direct ? column.size() : 0);
  for (uint64_t r = 0; r < rows.ints.size(); ++r) {
    if (rows.is_null(r)) continue;
    const int64_t row = rows.ints[r];
    if (row < 0 || static_cast<uint64_t>(row) >= column.size())
      throw Error(ErrorKind::Internal, where + ": row reference " + std::to_string(row) + " outside the " +
                                           std::to_string(column.size()) + " rows of " + column.name);
    if (!direct) {
      distinct.push_back(row);
    } else if (!seen[static_cast<size_t>(row)]) {
      seen[static_cast<size_t>(row)] = 1;
      distinct.push_back(row);
    }
  }
  if (!direct) {
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  }
  std::vector<std::string_view> texts(distinct.size());
  for (size_t i = 0; i < distinct.size(); ++i) texts[i] = column.string_at(static_cast<uint64_t>(distinct[i]));
  std::vector<size_t> by_text(distinct.size());
  for (size_t i = 0; i < by_text.size(); ++i) by_text[i] = i;
  std::sort(by_text.begin(), by_text.end(), [&](size_t x, size_t y) { return texts[x] < texts[y]; });
  std::vector<int64_t> rank(distinct.size());  // by position in `distinct`
  for (size_t k = 0; k < by_text.size(); ++k)
    rank[by_text[k]] = k > 0 && texts[by_text[k]] == texts[by_text[k - 1]] ? rank[by_text[k - 1]] : static_cast<int64_t>(k);
  std::vector<int64_t> rank_of_row(direct ? column.size() : 0);
  for (size_t i = 0; direct && i < distinct.size(); ++i) rank_of_row[static_cast<size_t>(distinct[i])] = rank[i];
  out.ints.assign(rows.ints.size(), 0);
  for (uint64_t r = 0; r < rows.ints.size(); ++r) {
    if (rows.is_null(r)) continue;
    const int64_t row = rows.ints[r];
    out.ints[r] = direct ? rank_of_row[static_cast<size_t>(row)]
                         : rank[static_cast<size_t>(std::lower_bound(distinct.begin(), distinct.end(), row) - distinct.begin())];
  }
  return out;
}

// Packed strings (ir/state.h, "Packed strings") → their texts.
ResultColumn decode_packed(const ResultColumn& packed, DataType string_type) {
  ResultColumn out;
  out.name = packed.name;
  string_type.packed = false;
  out.type = string_type;
  out.valid = packed.valid;
  out.strings.reserve(packed.ints.size());
  for (uint64_t r = 0; r < packed.ints.size(); ++r) out.strings.push_back(packed.is_null(r) ? std::string() : unpack_string(packed.ints[r]));
  return out;
}

__extension__ typedef unsigned __int128 uint128;

int128 int_value(const ResultColumn& c, uint64_t r) {
  if (c.highs.empty()) return c.ints[r];
  return static_cast<int128>((static_cast<uint128>(static_cast<uint64_t>(c.highs[r])) << 64) |
                             static_cast<uint64_t>(c.ints[r]));
}

// Groups formed per row reference of a heap-string key (ResultSpec::merge_groups): rows whose
// decoded keys are equal become one, their accumulators combined (sum / min / max), in first-seen
// order. Columns computed from others (AVG) are left for later.
void merge_equal_groups(Result& result, const ResultSpec& spec) {
  std::vector<size_t> keys;
  for (size_t i = 0; i < spec.columns.size(); ++i)
    if (spec.columns[i].merge == "key") keys.push_back(i);
  if (keys.empty()) throw Error(ErrorKind::Internal, "merging groups on the host without a key column");
  // Rows from a key column: an AVG's column is still empty here (finalized after the merge).
  const uint64_t rows = result.columns[keys.front()].rows();
  // The first row of each key tuple, found by the tuple's values in place (no key text is built:
  // TPC-H q21's 40 K supplier names at SF 100). A column holds one type, so equal values are equal texts.
  auto same = [&](uint64_t a, uint64_t b) {
    for (size_t i : keys) {
      const ResultColumn& c = result.columns[i];
      if (c.is_null(a) || c.is_null(b)) {
        if (c.is_null(a) != c.is_null(b)) return false;
        continue;
      }
      if (!c.strings.empty() ? c.strings[a] != c.strings[b]
          : !c.floats.empty() ? c.floats[a] != c.floats[b]
                              : c.ints[a] != c.ints[b] || (!c.highs.empty() && c.highs[a] != c.highs[b]))
        return false;
    }
    return true;
  };
  auto hash = [&](uint64_t r) {
    uint64_t h = 0;
    for (size_t i : keys) {
      const ResultColumn& c = result.columns[i];
      const uint64_t v = c.is_null(r)            ? 0x9e3779b97f4a7c15ULL
                         : !c.strings.empty()    ? std::hash<std::string>{}(c.strings[r])
                         : !c.floats.empty()     ? std::hash<double>{}(c.floats[r])
                         : c.highs.empty()       ? std::hash<int64_t>{}(c.ints[r])
                                                 : std::hash<int64_t>{}(c.ints[r]) * 31 + std::hash<int64_t>{}(c.highs[r]);
      h = h * 0x100000001b3ULL ^ v;
    }
    return h;
  };
  std::unordered_map<uint64_t, uint64_t, decltype(hash), decltype(same)> first(rows, hash, same);  // row -> its tuple's first row
  std::vector<uint64_t> kept, target(rows);
  for (uint64_t r = 0; r < rows; ++r) {
    auto [it, fresh] = first.emplace(r, r);
    if (fresh) kept.push_back(r);
    target[r] = it->second;
  }
  for (size_t i = 0; i < spec.columns.size(); ++i) {
    const std::string& how = spec.columns[i].merge;
    if (how != "sum" && how != "min" && how != "max") continue;
    ResultColumn& c = result.columns[i];
    if (c.type.id == TypeId::Float64) {
      for (uint64_t r = 0; r < c.rows(); ++r) {
        if (target[r] == r) continue;
        double& into = c.floats[target[r]];
        into = how == "sum" ? into + c.floats[r] : how == "min" ? std::min(into, c.floats[r]) : std::max(into, c.floats[r]);
      }
    } else if (c.type.id == TypeId::String) {
      for (uint64_t r = 0; r < c.rows(); ++r) {
        if (target[r] == r) continue;
        std::string& into = c.strings[target[r]];
        if ((how == "min" && c.strings[r] < into) || (how == "max" && c.strings[r] > into)) into = c.strings[r];
      }
    } else {
      std::vector<int128> v(c.rows());
      for (uint64_t r = 0; r < c.rows(); ++r) v[r] = int_value(c, r);
      for (uint64_t r = 0; r < c.rows(); ++r) {
        if (target[r] == r) continue;
        int128& into = v[target[r]];
        into = how == "sum" ? into + v[r] : how == "min" ? std::min(into, v[r]) : std::max(into, v[r]);
      }
      bool fits = true;
      for (uint64_t r : kept) fits = fits && v[r] >= INT64_MIN && v[r] <= INT64_MAX;
      c.highs.assign(fits ? 0 : c.rows(), 0);
      for (uint64_t r : kept) {
        c.ints[r] = static_cast<int64_t>(static_cast<uint64_t>(static_cast<uint128>(v[r])));
        if (!fits) c.highs[r] = static_cast<int64_t>(static_cast<uint128>(v[r]) >> 64);
      }
    }
  }
  result.select_rows(kept);
}

const AllocatedBuffer& find_buffer(const std::map<std::string, AllocatedBuffer>& buffers, const std::string& name,
                                   const std::string& context) {
  auto it = buffers.find(name);
  if (it == buffers.end()) throw Error(ErrorKind::Internal, context + ": buffer \"" + name + "\" was not allocated");
  return it->second;
}

struct ColumnReader {
  const std::map<std::string, AllocatedBuffer>& buffers;
  const std::map<std::string, int64_t>& params;
  const Database& database;
  const std::string& context;
  uint64_t extent;  // elements to read from each buffer
  bool no_input;    // a single-tuple aggregate that no row reached
  // Each integer buffer is copied back once, however many columns read it (the lanes of a key
  // buffer, a top-k's ORDER BY columns read again with the rest).
  mutable std::map<std::string, std::vector<int64_t>> downloaded;

  const std::vector<int64_t>& ints(const AllocatedBuffer& b, uint64_t count) const {
    auto it = downloaded.find(b.spec->name);
    if (it == downloaded.end() || it->second.size() < count) it = downloaded.insert_or_assign(b.spec->name, read_ints(b, count)).first;
    return it->second;
  }

  // A few slots of many (a top-k's k rows of a large group table): each selected slot's elements
  // are downloaded on their own instead of the buffer's extent — TPC-H q10 at SF 10 read 20 rows of
  // 7-word keys by downloading all ~21 MB of them. Only while the slots' downloads cost less than
  // the buffer's: each download has a fixed cost worth kBytesPerDownload bytes (an H200 host: ~4 µs
  // per download, TPC-H q2 at SF 30 spent 3.2 ms in 800 one-element downloads for 100 rows of a
  // 14 K-row output). Not when the buffer is downloaded whole already.
  static constexpr uint64_t kBytesPerDownload = 64 * 1024;
  bool sparse(const AllocatedBuffer& b, const std::vector<uint64_t>& selected, uint64_t stride) const {
    auto it = downloaded.find(b.spec->name);
    const bool whole = it != downloaded.end() && it->second.size() >= extent * stride;
    return !whole && selected.size() <= 4096 && selected.size() * kBytesPerDownload <= extent * stride * sizeof(int64_t);
  }

  // Element `lane` (of `stride` per slot) of every selected slot, in selection order.
  std::vector<int64_t> int_lane(const AllocatedBuffer& b, const std::vector<uint64_t>& selected, uint64_t stride,
                                uint64_t lane) const {
    std::vector<int64_t> out;
    out.reserve(selected.size());
    if (sparse(b, selected, stride)) {
      for (uint64_t s : selected) out.push_back(slot_ints(b, s, stride)[lane]);
    } else {
      const std::vector<int64_t>& all = ints(b, extent * stride);
      for (uint64_t s : selected) out.push_back(all[s * stride + lane]);
    }
    return out;
  }
  std::vector<double> float_lane(const AllocatedBuffer& b, const std::vector<uint64_t>& selected, uint64_t stride,
                                 uint64_t lane) const {
    std::vector<double> out;
    out.reserve(selected.size());
    if (sparse(b, selected, stride)) {
      for (uint64_t s : selected) out.push_back(read_floats(b, 1, s * stride + lane)[0]);
    } else {
      const std::vector<double> all = read_floats(b, extent * stride);
      for (uint64_t s : selected) out.push_back(all[s * stride + lane]);
    }
    return out;
  }

  // The `stride` elements of slot `s`, downloaded once per buffer, slot and stride.
  const std::vector<int64_t>& slot_ints(const AllocatedBuffer& b, uint64_t s, uint64_t stride) const {
    auto key = std::make_tuple(b.spec->name, s, stride);
    auto it = slots.find(key);
    if (it == slots.end()) it = slots.emplace(key, read_ints(b, stride, s * stride)).first;
    return it->second;
  }
  mutable std::map<std::tuple<std::string, uint64_t, uint64_t>, std::vector<int64_t>> slots;
};

size_t column_index(const ResultSpec& spec, const std::string& name, const std::string& context) {
  for (size_t i = 0; i < spec.columns.size(); ++i) {
    if (spec.columns[i].name == name) return i;
  }
  throw Error(ErrorKind::Internal, context + ": no result column named " + name);
}

// Column `c` for the rows (slot indices) in `selected`; an AverageOf column comes back empty, typed
// Float64 (read_columns fills it from its halves).
// With `codes`, a dictionary string stays its (order-preserving) codes, typed Int64: enough to sort;
// so does a packed string (its integer order is its byte order), and a heap string becomes its
// text's rank among the rows read (rank_heap_rows).
ResultColumn read_column(const ResultColumnSpec& c, const std::vector<uint64_t>& selected, const ColumnReader& in,
                         bool codes) {
  const std::string where = in.context + " column " + c.name;
  const uint64_t extent = in.extent;
  ResultColumn col;
  col.name = c.name;
  const bool decode = !c.dictionary_table.empty();
  const bool packed = c.type.is_string() && c.type.packed;
  col.type = decode || !c.heap_table.empty() ? DataType::int32() : c.type;
  if ((decode && codes) || packed) col.type = DataType::int64();
  if (c.source == ResultColumnSpec::Source::AverageOf) {
    col.type = DataType::float64();
    return col;
  }
  const AllocatedBuffer* source = nullptr;
  if (c.stride == 0 || c.lane >= c.stride) throw Error(ErrorKind::Internal, where + ": lane outside the stride");
  if (!c.buffer.empty()) {
    source = &find_buffer(in.buffers, c.buffer, where);
    if (extent * c.stride > source->elements) {
      throw Error(ErrorKind::Internal, where + ": " + std::to_string(extent) + " rows but buffer " + c.buffer +
                                           " holds only " + std::to_string(source->elements) +
                                           " (an output overflow the kernel did not flag)");
    }
  }
  const uint64_t stride = c.stride, lane = c.lane;
  col.ints.reserve(selected.size());
  if (c.source == ResultColumnSpec::Source::Buffer && c.wide) {
    if (extent * 2 > source->elements || col.type.id == TypeId::Float64)
      throw Error(ErrorKind::Internal, where + ": 128-bit column needs two integer words per slot");
    col.ints = in.int_lane(*source, selected, 2, 0);
    col.highs = in.int_lane(*source, selected, 2, 1);
  } else if (c.source == ResultColumnSpec::Source::Buffer) {
    if (col.type.id == TypeId::Float64) {
      col.floats = in.float_lane(*source, selected, stride, lane);
    } else {
      col.ints = in.int_lane(*source, selected, stride, lane);
    }
  } else {  // SlotKey
    const std::vector<int64_t> raw = source != nullptr ? in.int_lane(*source, selected, stride, lane) : std::vector<int64_t>{};
    const int64_t offset = c.offset_param.empty() ? 0 : in.params.at(c.offset_param);
    for (uint64_t r = 0; r < selected.size(); ++r) {
      const uint64_t s = selected[r];
      int64_t key = source != nullptr ? raw[r] : static_cast<int64_t>(s);
      key /= c.divisor;
      if (c.modulus > 0) key %= c.modulus;
      col.ints.push_back(key + offset);
    }
  }
  // Before decoding: the accumulator of an empty MIN/MAX holds its identity (INT64_MAX/MIN),
  // which is no dictionary code.
  if (in.no_input && c.null_without_input) {
    for (uint64_t r = 0; r < col.rows(); ++r) col.set_null(r);
  }
  // NULL build columns of a left outer join: rows whose validity element is 0.
  if (!c.valid_buffer.empty()) {
    const std::vector<int64_t> valid = in.int_lane(find_buffer(in.buffers, c.valid_buffer, where), selected, 1, 0);
    for (uint64_t r = 0; r < selected.size(); ++r)
      if (valid[r] == 0) col.set_null(r);
  }
  // Every value fits int64 (NULL rows, whose slots may hold a MIN's identity, are zeroed by now):
  // keep the plain representation.
  if (col.fits_int64()) col.highs.clear();
  if (decode && !codes) {
    const Column& dict = lookup_column(in.database, c.dictionary_table, c.dictionary_column, where);
    col = decode_dictionary(col, dict.dictionary, c.type);
  } else if (!c.heap_table.empty() && codes) {
    col = rank_heap_rows(col, lookup_column(in.database, c.heap_table, c.heap_column, where), where);
  } else if (!c.heap_table.empty()) {
    col = decode_heap_rows(col, lookup_column(in.database, c.heap_table, c.heap_column, where), c.type, where);
  } else if (packed && !codes) {
    col = decode_packed(col, c.type);
  }
  return col;
}

// The columns spec.columns[which[i]] for `selected`, in that order; an AVG's halves must be among them.
Result read_columns(const ResultSpec& spec, const std::vector<size_t>& which, const std::vector<uint64_t>& selected,
                    const ColumnReader& in, bool codes) {
  Result result;
  for (size_t i : which) result.columns.push_back(read_column(spec.columns[i], selected, in, codes));
  if (spec.merge_groups && which.size() == spec.columns.size()) merge_equal_groups(result, spec);
  for (size_t k = 0; k < which.size(); ++k) {
    const ResultColumnSpec& c = spec.columns[which[k]];
    if (c.source != ResultColumnSpec::Source::AverageOf) continue;
    result.columns[k] = finalize_average(c.name, result.columns[result.index_of(c.sum_column)],
                                         result.columns[result.index_of(c.count_column)]);
  }
  return result;
}

// What the first `count` ORDER BY keys (spec.columns[key_columns[k]]) read: the columns, an AVG key's
// halves before the keys, and each key as a SortKey over them.
struct KeyReads {
  std::vector<size_t> columns;
  std::vector<SortKey> keys;
};
KeyReads key_reads(const ResultSpec& spec, const std::vector<size_t>& key_columns, size_t count, const std::string& context) {
  KeyReads reads;
  auto need = [&](size_t i) {
    if (std::find(reads.columns.begin(), reads.columns.end(), i) == reads.columns.end()) reads.columns.push_back(i);
  };
  for (size_t k = 0; k < count; ++k) {
    const ResultColumnSpec& c = spec.columns[key_columns[k]];
    if (c.source == ResultColumnSpec::Source::AverageOf) {
      need(column_index(spec, c.sum_column, context));
      need(column_index(spec, c.count_column, context));
    }
  }
  for (size_t k = 0; k < count; ++k) need(key_columns[k]);
  for (size_t k = 0; k < count; ++k) {
    const auto at = std::find(reads.columns.begin(), reads.columns.end(), key_columns[k]) - reads.columns.begin();
    reads.keys.push_back({static_cast<size_t>(at), spec.order_by[k].second});
  }
  return reads;
}

// Row r and row s hold the same values in every key column (NULL equal to NULL; doubles bit for bit).
bool same_values(const Result& rows, const std::vector<SortKey>& keys, uint64_t r, uint64_t s) {
  for (const SortKey& k : keys) {
    const ResultColumn& c = rows.columns[k.column];
    if (c.is_null(r) != c.is_null(s)) return false;
    if (c.is_null(r)) continue;
    if (!c.ints.empty() && c.ints[r] != c.ints[s]) return false;
    if (!c.highs.empty() && c.highs[r] != c.highs[s]) return false;
    if (!c.floats.empty() && std::memcmp(&c.floats[r], &c.floats[s], sizeof(double)) != 0) return false;
    if (!c.strings.empty() && c.strings[r] != c.strings[s]) return false;
  }
  return true;
}

// ORDER BY ... LIMIT `fetch` whose keys include a heap string, over `selected` (more rows than
// `fetch`): the rows that can be among the first `fetch` — the first `fetch` by the keys before the
// first heap string, and every row tied with the last of them on those keys — in slot order (the
// stable order's ties). A heap string is ranked by its texts (rank_heap_rows) for these rows only:
// TPC-H q2's s_name, its third key, for ~100 of 14 K rows at SF 30 (its ORDER BY took 6.6-7.6 ms,
// most of it ranking every row's text). `selected` itself when the first key is a heap string.
std::vector<uint64_t> heap_key_candidates(const ResultSpec& spec, const std::vector<size_t>& key_columns,
                                          const std::vector<uint64_t>& selected, const ColumnReader& reader, uint64_t fetch,
                                          const std::string& context) {
  size_t prefix = 0;
  while (prefix < key_columns.size() && spec.columns[key_columns[prefix]].heap_table.empty()) ++prefix;
  if (prefix == 0 || prefix == key_columns.size()) return selected;
  const KeyReads reads = key_reads(spec, key_columns, prefix, context);
  const Result rows = read_columns(spec, reads.columns, selected, reader, /*codes=*/true);
  const std::vector<uint64_t> first = rows.top_k(reads.keys, fetch);
  if (first.empty()) return selected;
  std::vector<char> in(selected.size(), 0);
  for (uint64_t r : first) in[r] = 1;
  for (uint64_t r = 0; r < selected.size(); ++r)
    if (!in[r] && same_values(rows, reads.keys, r, first.back())) in[r] = 1;
  std::vector<uint64_t> candidates;
  for (uint64_t r = 0; r < selected.size(); ++r)
    if (in[r]) candidates.push_back(selected[r]);
  return candidates;
}

// ORDER BY from the keys alone, before the other columns are read — not when the host merges groups
// of equal texts (rows are final only after the merge), nor under window functions (they see every row).
bool orders_from_keys(const ResultSpec& spec) { return !spec.order_by.empty() && !spec.merge_groups && spec.windows.empty(); }

}  // namespace

bool may_narrow_top_k_on_device(const ExecutablePlan& plan) {
  // The module links the compaction module (hqc_order_words) only for a compacted result.
  return orders_from_keys(plan.result) && plan.result.limit >= 0 && !library_modules_of(plan).empty();
}

Result assemble_result(const ExecutablePlan& plan, const std::map<std::string, AllocatedBuffer>& buffers,
                       const std::map<std::string, int64_t>& params, const Database& database, Backend& backend,
                       KernelCache* cache, const AssemblyOptions& options) {
  const ResultSpec& spec = plan.result;
  const std::string context = plan.label + ": result";
  // OFFSET m LIMIT k keeps rows m .. m + k - 1 of the order: the first m + k are chosen, the first
  // m of them dropped last.
  const int64_t fetch = spec.limit < 0                                             ? -1
                        : spec.limit > std::numeric_limits<int64_t>::max() - spec.offset ? std::numeric_limits<int64_t>::max()
                                                                                          : spec.limit + spec.offset;
  const bool order_first = orders_from_keys(spec);
  FinalizeParts parts;
  auto lap = [&, last = std::chrono::steady_clock::now()](double& into) mutable {
    const auto now = std::chrono::steady_clock::now();
    into += std::chrono::duration<double, std::milli>(now - last).count();
    last = now;
  };

  // ---- which rows / slots make the result ----
  uint64_t extent = 0;               // elements to read from each buffer
  std::vector<uint64_t> selected;    // slot indices kept, in slot order
  if (spec.rows == ResultSpec::Rows::Counter) {
    const AllocatedBuffer& counter = find_buffer(buffers, spec.counter_buffer, context);
    const int64_t n = read_ints(counter, 1)[0];
    if (n < 0) throw Error(ErrorKind::Internal, context + ": output counter is negative (" + std::to_string(n) + ")");
    extent = static_cast<uint64_t>(n);
    // Many rows of a compacted table under ORDER BY ... LIMIT k: the device picks the rows that can
    // be among the first k (the module links the compaction module only for a compacted result).
    std::optional<std::vector<uint64_t>> candidates;
    if (may_narrow_top_k_on_device(plan) && options.module != nullptr && extent >= options.device_top_k_rows &&
        extent > static_cast<uint64_t>(fetch)) {
      const ResultColumnSpec& first = spec.columns[column_index(spec, spec.order_by.front().first, context)];
      if (first.source == ResultColumnSpec::Source::Buffer)
        candidates = device_top_k_candidates(backend, *options.module, first, find_buffer(buffers, first.buffer, context),
                                             spec.order_by.front().second, extent, static_cast<uint64_t>(fetch));
    }
    if (candidates) {
      selected = std::move(*candidates);
    } else {
      selected.resize(extent);
      for (uint64_t i = 0; i < extent; ++i) selected[i] = i;
    }
  } else {
    extent = spec.slots;
    if (extent == 0 && !spec.occupancy_buffer.empty()) extent = find_buffer(buffers, spec.occupancy_buffer, context).elements;
    if (extent == 0) {
      for (const ResultColumnSpec& c : spec.columns) {
        if (c.source == ResultColumnSpec::Source::Buffer) {
          extent = find_buffer(buffers, c.buffer, context).elements;
          break;
        }
      }
    }
    if (spec.occupancy_buffer.empty()) {
      selected.resize(extent);
      for (uint64_t i = 0; i < extent; ++i) selected[i] = i;
    } else {
      auto occupancy = read_ints(find_buffer(buffers, spec.occupancy_buffer, context), extent);
      for (uint64_t i = 0; i < extent; ++i) {
        if (occupancy[i] != spec.empty_value) selected.push_back(i);
      }
    }
  }

  parts.rows = extent;
  lap(parts.select_ms);

  // ---- SQL NULLs of a single-tuple aggregate that no row reached ----
  bool no_input = false;
  if (!spec.input_rows_buffer.empty()) {
    const int64_t n = read_ints(find_buffer(buffers, spec.input_rows_buffer, context), 1)[0];
    if (n < 0) throw Error(ErrorKind::Internal, context + ": input row count is negative (" + std::to_string(n) + ")");
    no_input = n == 0;
  }

  // ---- ORDER BY: the order from the keys alone (top-k under a LIMIT k of fewer rows) ----
  // Only the columns the ORDER BY compares (and an AVG key's halves) are read for every row, and
  // dictionary and packed strings compare as their codes (the dictionaries preserve order): the
  // rows in ORDER BY order (ties in slot order, as the stable sort orders them) become the
  // selection, and every other column — dictionary decoding included — is read in that order, for
  // the first k only under a LIMIT k. (TPC-H q16, 18,197 rows at SF 1: finalize 9.1-9.8 -> ~7 ms on
  // the development machine, the sort comparing codes instead of decoded strings.)
  ColumnReader reader{buffers, params, database, context, extent, no_input};
  bool ordered = false;  // `selected` is in ORDER BY order
  if (order_first && selected.size() > 1) {
    std::vector<size_t> key_columns;
    for (const auto& key : spec.order_by) key_columns.push_back(column_index(spec, key.first, context));
    const KeyReads reads = key_reads(spec, key_columns, key_columns.size(), context);
    const bool top = fetch >= 0 && selected.size() > static_cast<uint64_t>(fetch);
    if (top) selected = heap_key_candidates(spec, key_columns, selected, reader, static_cast<uint64_t>(fetch), context);
    const Result keys_only = read_columns(spec, reads.columns, selected, reader, /*codes=*/true);
    std::vector<uint64_t> chosen;
    for (uint64_t r : top ? keys_only.top_k(reads.keys, static_cast<uint64_t>(fetch)) : keys_only.sorted_order(reads.keys))
      chosen.push_back(selected[r]);
    selected = std::move(chosen);
    ordered = true;
  }
  lap(parts.order_ms);

  // ---- columns ----
  std::vector<size_t> all(spec.columns.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  Result result = read_columns(spec, all, selected, reader, /*codes=*/false);
  result.validate();
  parts.rows_read = selected.size();
  lap(parts.columns_ms);

  // ---- window functions, ORDER BY, LIMIT, then drop hidden columns ----
  apply_windows(backend, cache, spec.windows, result);
  std::vector<SortKey> keys;
  for (const auto& [name, descending] : spec.order_by) keys.push_back({result.index_of(name), descending});
  if (ordered) {
    if (fetch >= 0) result.limit(static_cast<uint64_t>(fetch));
  } else if (fetch >= 0 && !keys.empty() && result.rows() > static_cast<uint64_t>(fetch)) {
    // ORDER BY ... LIMIT k over rows read whole (window functions see every row): the first k in
    // O(n log k), exactly the rows and order the stable sort would give.
    result.select_rows(result.top_k(keys, static_cast<uint64_t>(fetch)));
  } else {
    result.sort(keys);
    if (fetch >= 0) result.limit(static_cast<uint64_t>(fetch));
  }
  if (spec.offset > 0) result.skip(static_cast<uint64_t>(spec.offset));
  std::vector<size_t> visible;
  for (size_t i = 0; i < spec.columns.size(); ++i) {
    if (!spec.columns[i].hidden) visible.push_back(i);
  }
  result.project(visible);
  lap(parts.rest_ms);
  if (options.parts != nullptr) *options.parts = parts;
  return result;
}

}  // namespace hqc::runtime

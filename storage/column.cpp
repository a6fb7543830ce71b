// Column accessors, invariant checks and dictionary construction. Statistics live in column_stats.cpp.
#include "storage/column.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

namespace hqc {

namespace {

enum class Storage { I32, I64, F64, Heap, None };

// Which value vector a (type, encoding) pair uses; the single source of truth for the mapping in
// column.h's header comment.
Storage storage_of(const DataType& type, Encoding encoding) {
  switch (type.id) {
    case TypeId::Int32:
    case TypeId::Date: return Storage::I32;
    case TypeId::Int64:
    case TypeId::Decimal: return Storage::I64;
    case TypeId::Float64: return Storage::F64;
    case TypeId::String:
      if (encoding == Encoding::Dictionary) return Storage::I32;
      if (encoding == Encoding::Heap) return Storage::Heap;
      return Storage::None;
    case TypeId::Bool: return Storage::None;
  }
  return Storage::None;
}

[[noreturn]] void broken(const Column& c, const std::string& what) {
  throw std::logic_error("column " + c.name + " (" + c.type.to_string() + ", " + encoding_name(c.encoding) +
                         "): " + what);
}

}  // namespace

uint64_t Column::size() const {
  switch (storage_of(type, encoding)) {
    case Storage::I32: return i32.size();
    case Storage::I64: return i64.size();
    case Storage::F64: return f64.size();
    case Storage::Heap: return offsets.empty() ? 0 : offsets.size() - 1;
    case Storage::None: return 0;
  }
  return 0;
}

int64_t Column::int_at(uint64_t r) const {
  switch (storage_of(type, encoding)) {
    case Storage::I32: return i32.at(r);
    case Storage::I64: return i64.at(r);
    default: broken(*this, "int_at() needs an integer-backed column");
  }
}

std::string_view Column::string_at(uint64_t r) const {
  if (!type.is_string()) broken(*this, "string_at() needs a string column");
  if (encoding == Encoding::Dictionary) {
    const int32_t code = i32.at(r);
    return dictionary.at(static_cast<size_t>(code));
  }
  const uint64_t begin = offsets.at(r), end = offsets.at(r + 1);
  return std::string_view(heap.data() + begin, end - begin);
}

uint64_t Column::device_bytes() const {
  switch (storage_of(type, encoding)) {
    case Storage::I32: return i32.size() * sizeof(int32_t);
    case Storage::I64: return i64.size() * sizeof(int64_t);
    case Storage::F64: return f64.size() * sizeof(double);
    case Storage::Heap: return offsets.size() * sizeof(uint64_t) + heap.size();
    case Storage::None: return 0;
  }
  return 0;
}

void Column::validate() const {
  const Storage s = storage_of(type, encoding);
  if (s == Storage::None) broken(*this, "no storage for this type/encoding combination");
  if (!type.is_string() && encoding != Encoding::Plain) broken(*this, "non-string columns must be plain");
  const bool want_i32 = s == Storage::I32, want_i64 = s == Storage::I64, want_f64 = s == Storage::F64,
             want_heap = s == Storage::Heap;
  if (!want_i32 && !i32.empty()) broken(*this, "unexpected int32 values");
  if (!want_i64 && !i64.empty()) broken(*this, "unexpected int64 values");
  if (!want_f64 && !f64.empty()) broken(*this, "unexpected float64 values");
  if (!want_heap && (!offsets.empty() || !heap.empty())) broken(*this, "unexpected heap storage");
  if (encoding != Encoding::Dictionary && !dictionary.empty()) broken(*this, "unexpected dictionary");
  if (encoding == Encoding::Dictionary) {
    for (size_t i = 1; i < dictionary.size(); ++i)
      if (!(dictionary[i - 1] < dictionary[i]))
        broken(*this, "dictionary not strictly ascending at entry " + std::to_string(i));
    const auto n = static_cast<int64_t>(dictionary.size());
    for (size_t r = 0; r < i32.size(); ++r)
      if (i32[r] < 0 || i32[r] >= n)
        broken(*this, "code " + std::to_string(i32[r]) + " at row " + std::to_string(r) + " outside the dictionary");
  }
  if (want_heap) {
    if (offsets.empty()) broken(*this, "heap column needs rows + 1 offsets (at least one)");
    if (offsets[0] != 0) broken(*this, "offsets[0] must be 0");
    for (size_t i = 1; i < offsets.size(); ++i)
      if (offsets[i] < offsets[i - 1]) broken(*this, "offsets decrease at row " + std::to_string(i - 1));
    if (offsets.back() != heap.size()) broken(*this, "last offset does not equal the heap size");
  }
}

Column make_dictionary_column(std::string name, DataType type, const std::vector<std::string>& values) {
  if (!type.is_string()) throw std::logic_error("make_dictionary_column: " + name + " is not a string type");
  Column c;
  c.name = std::move(name);
  c.type = type;
  c.encoding = Encoding::Dictionary;
  c.dictionary = values;
  std::sort(c.dictionary.begin(), c.dictionary.end());
  c.dictionary.erase(std::unique(c.dictionary.begin(), c.dictionary.end()), c.dictionary.end());
  std::unordered_map<std::string_view, int32_t> code_of;
  code_of.reserve(c.dictionary.size());
  for (size_t i = 0; i < c.dictionary.size(); ++i) code_of.emplace(c.dictionary[i], static_cast<int32_t>(i));
  c.i32.reserve(values.size());
  for (const std::string& v : values) c.i32.push_back(code_of.at(v));
  c.compute_stats();
  return c;
}

Column make_heap_column(std::string name, DataType type, const std::vector<std::string>& values) {
  if (!type.is_string()) throw std::logic_error("make_heap_column: " + name + " is not a string type");
  Column c;
  c.name = std::move(name);
  c.type = type;
  c.encoding = Encoding::Heap;
  c.offsets.reserve(values.size() + 1);
  c.offsets.push_back(0);
  for (const std::string& v : values) {
    c.heap.insert(c.heap.end(), v.begin(), v.end());
    c.offsets.push_back(c.heap.size());
  }
  c.compute_stats();
  return c;
}

}  // namespace hqc

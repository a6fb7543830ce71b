// A typed, host-resident column and the statistics gathered when it is loaded or generated.
//
// Invariants (checked by Column::validate()):
//   - exactly one of the value vectors is populated, the one that matches (type, encoding):
//       Int32, Date, String+Dictionary  -> i32   (dictionary codes for strings)
//       Int64, Decimal                  -> i64
//       Float64                         -> f64
//       String+Heap                     -> offsets (rows + 1, offsets[0] == 0) and heap
//   - a Dictionary column's `dictionary` is sorted ascending (byte order) without duplicates, so
//     comparing codes is comparing strings; every code is in [0, dictionary.size()).
//   - row counts and offsets are 64-bit.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "storage/types.h"

namespace hqc {

struct ColumnStats {
  // min/max are meaningful (integer-backed columns only; heap strings and Float64 leave it false).
  bool valid = false;
  int64_t min = 0;          // over the physical integer value (codes for dictionary strings)
  int64_t max = 0;
  // Exact for integer-backed columns with max - min < 2^27 (so always for dictionary codes) and for
  // heap strings / Float64 below 4096 rows; otherwise a HyperLogLog estimate (about 1% error).
  // Filled for every column type, also when `valid` is false.
  uint64_t distinct = 0;
  // The physical integer values never decrease in row order (integer-backed columns; false where
  // unknown: other types, or a columnar file written before this was recorded). Sorted input puts a
  // group key's rows side by side, which the CUDA kernels of a C2 GROUP BY combine per warp.
  bool sorted = false;
};

// The allocator of a column's value arrays. resize(n) leaves the new elements default-initialised --
// for numbers, unwritten -- so that sizing an array a loader reads into does not write it a first
// time: at TPC-H SF 10 that pass over fresh pages (one thread per array) was most of a first query's
// load. Whoever sizes one writes every new element, or says the value: resize(n, 0), assign(n, 0).
template <class T>
struct DefaultInitAllocator : std::allocator<T> {
  using value_type = T;
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() = default;
  template <class U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

// A column's values: a std::vector whose resize(n) leaves numbers unwritten (above).
template <class T>
using Values = std::vector<T, DefaultInitAllocator<T>>;

struct Column {
  std::string name;
  DataType type;
  Encoding encoding = Encoding::Plain;

  Values<int32_t> i32;
  Values<int64_t> i64;
  Values<double> f64;
  std::vector<std::string> dictionary;
  Values<uint64_t> offsets;
  Values<char> heap;

  ColumnStats stats;

  uint64_t size() const;
  // Integer view of row r for Int32/Int64/Decimal/Date and dictionary codes.
  int64_t int_at(uint64_t r) const;
  // String view of row r for String columns (either encoding).
  std::string_view string_at(uint64_t r) const;
  // Bytes the column occupies on a device (values, or codes, or offsets + heap).
  uint64_t device_bytes() const;
  // Recomputes `stats` from the values.
  void compute_stats();
  // Throws std::logic_error describing the first broken invariant.
  void validate() const;
};

// Builds an order-preserving dictionary column from strings (sorts the distinct values); stats computed.
Column make_dictionary_column(std::string name, DataType type, const std::vector<std::string>& values);
// Builds a heap string column (offsets + bytes) from strings; stats computed.
Column make_heap_column(std::string name, DataType type, const std::vector<std::string>& values);

}  // namespace hqc

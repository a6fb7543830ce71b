// The TPC-H generator's random streams: its stream tags and how a row keys its stream.
//
// Contract: RowRandom(seed, tag, row) is gen::RowRandom (storage/generation/row_random.h) keyed by a
// multiple of the row number, so it yields the same sequence for the same triple on any thread and in
// any order of construction. Tags and keying are part of the data: changing either changes every data set.
#pragma once

#include <cstdint>

#include "storage/generation/row_random.h"

namespace hqc::tpch {

// One tag per independent stream, so that row 7 of customer and row 7 of supplier draw unrelated
// values, and so that a text column can be generated on its own (it has its own stream per row).
enum class Stream : uint64_t {
  Part = 1, PartName, PartComment, PartSupp, PartSuppComment, Supplier, SupplierAddress, SupplierComment,
  SupplierPress, Customer, CustomerAddress, CustomerComment, Order, OrderLines, OrderComment, LineComment,
  NationComment, RegionComment, TextPool
};

// TPC-H's row streams: the row number is spread by an odd multiplier before keying the stream (what
// the data has always been drawn from; SSB keys by the plain row number).
class RowRandom : public gen::RowRandom {
 public:
  RowRandom(uint64_t seed, Stream tag, uint64_t row)
      : gen::RowRandom(seed, static_cast<uint64_t>(tag), row * 0x9E6C63D0676A9A99ULL) {}
};

}  // namespace hqc::tpch

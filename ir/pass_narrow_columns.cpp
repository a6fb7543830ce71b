// Pass narrow_columns: a base-table column is stored on the device in as few bytes as its values need.
// TPC-H keeps money, quantities and rates as 64-bit decimals and dates and dictionary codes as 32-bit
// integers, but l_discount holds 0..10, l_quantity 100..5,000 and l_extendedprice at most ~1.05e7:
// one, two and four bytes. A scan reads what the device holds, so Q1's 44 bytes per lineitem row
// become 12 — less to transfer, to keep resident and to read in every kernel that scans them.
//   expects: kernels built (fuse_pipelines, compact_result); Program::column_ranges from the
//     statistics the program was built with (build_program; empty without statistics).
//   guarantees: every Column argument of an integer element type (I32, I64) whose column has a range
//     in column_ranges that a signed integer of 1, 2 or 4 bytes holds, and fewer bytes than its type,
//     has KernelArg::stored_bytes = that width (the smallest); every other argument keeps 0. The
//     decision is the column's, not the kernel's: all arguments of one table.column agree, so one
//     device copy serves every kernel of the program (and every program built with the same
//     statistics). Heap-string offsets (U64), Float64 and the string bytes are never narrowed.
//   The kernel widens each value to its type as it loads it (codegen); the runtime narrows the host
//   values as it uploads them and fails the query, naming the column, where one does not fit — the
//   statistics and the data disagree — instead of truncating it (runtime/device/device_columns.h).
#include <cstdint>
#include <limits>

#include "ir/passes.h"

namespace hqc::ir {
namespace {

// The fewest bytes (1, 2, 4, 8) of a signed integer holding every value of [lo, hi].
uint8_t signed_bytes(int64_t lo, int64_t hi) {
  auto fits = [&](int64_t min, int64_t max) { return lo >= min && hi <= max; };
  if (fits(std::numeric_limits<int8_t>::min(), std::numeric_limits<int8_t>::max())) return 1;
  if (fits(std::numeric_limits<int16_t>::min(), std::numeric_limits<int16_t>::max())) return 2;
  if (fits(std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max())) return 4;
  return 8;
}

}  // namespace

void narrow_columns(Program& program) {
  for (Kernel& k : program.kernels) {
    for (KernelArg& a : k.args) {
      a.stored_bytes = 0;
      if (a.kind != KernelArg::Kind::Column || (a.type != ScalarType::I32 && a.type != ScalarType::I64)) continue;
      const auto range = program.column_ranges.find(a.table + "." + a.column);
      if (range == program.column_ranges.end() || range->second.first > range->second.second) continue;
      const uint8_t bytes = signed_bytes(range->second.first, range->second.second);
      if (bytes < scalar_bytes(a.type)) a.stored_bytes = bytes;
    }
  }
}

}  // namespace hqc::ir

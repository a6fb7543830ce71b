// Device buffers → Result, as a plan's ResultSpec describes: row selection (output counter or
// occupied slots), key decoding from slots / packed keys, SQL NULLs of a single-tuple aggregate over
// no rows, dictionary decoding (64-bit codes of MIN/MAX included), AVG, window functions (on the
// device, runtime/execution/window_stage.h), ORDER BY, LIMIT (the candidates of a top-k over many
// groups chosen on the device, runtime/execution/device_top_k.h).
//
// Contract: reads only buffers named by the spec; a row count above a buffer's capacity, a
// dictionary code outside its dictionary, or a type/element mismatch throws Error(Internal) —
// never a silently truncated or garbled result. Hidden columns are dropped last.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "runtime/device/backend.h"
#include "runtime/execution/executable_plan.h"
#include "runtime/execution/result.h"
#include "storage/table.h"

namespace hqc::runtime {

struct AllocatedBuffer {
  const BufferSpec* spec = nullptr;
  DeviceBuffer buffer;
  uint64_t elements = 0;
};

// Elements [first, first + count) of a device buffer widened to int64 (U64 reinterpreted) or, for
// F64, as doubles.
std::vector<int64_t> read_ints(const AllocatedBuffer& b, uint64_t count, uint64_t first = 0);
std::vector<double> read_floats(const AllocatedBuffer& b, uint64_t count, uint64_t first = 0);

class KernelCache;

// ORDER BY ... LIMIT k over at least this many rows of a compacted table is narrowed on the device
// (device_top_k.h); below it the host reads every row (a launch, a sort and a few copies cost more).
inline constexpr uint64_t kDeviceTopKRows = uint64_t{1} << 15;

// Whether assemble_result may narrow the plan's ORDER BY ... LIMIT on the device (device_top_k.h):
// a top-k ordered from its keys over a compacted table; whether it does depends on the rows.
bool may_narrow_top_k_on_device(const ExecutablePlan& plan);

// Where one assembly's time goes (AssemblyOptions::parts; `finalize_parts` in the stats JSON).
struct FinalizeParts {
  uint64_t rows = 0;       // rows (an output's) or occupied slots (a table's) the result is made from
  uint64_t rows_read = 0;  // rows whose every column the host read (the first k of ORDER BY ... LIMIT k)
  double select_ms = 0;    // which rows: the counter or the occupancy read, the device top-k
  double order_ms = 0;     // the ORDER BY keys read and the rows ordered (a top-k) before the columns
  double columns_ms = 0;   // every column of rows_read read: downloads, decoding, the merge of equal texts
  double rest_ms = 0;      // window functions, ORDER BY / LIMIT of rows read whole, OFFSET, projection
};

struct AssemblyOptions {
  // The plan's module with its library modules linked (the compaction module's hqc_order_words);
  // null: everything on the host.
  const Module* module = nullptr;
  uint64_t device_top_k_rows = kDeviceTopKRows;
  FinalizeParts* parts = nullptr;  // filled when given
};

// `backend` (and `cache`, which may be null) run the plan's window functions (runtime/execution/window_stage.h)
// and, with `options.module`, the device part of ORDER BY ... LIMIT k (device_top_k.h).
Result assemble_result(const ExecutablePlan& plan, const std::map<std::string, AllocatedBuffer>& buffers,
                       const std::map<std::string, int64_t>& params, const Database& database, Backend& backend,
                       KernelCache* cache, const AssemblyOptions& options = {});

}  // namespace hqc::runtime

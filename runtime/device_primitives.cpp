// Argument checks shared by the Boost.Compute and CUB implementations of DevicePrimitives.
#include "runtime/device_primitives.h"

#include "runtime/backend.h"
#include "storage/error.h"

namespace hqc::runtime {

namespace {

void require_supported_count(const char* operation, uint64_t n) {
  if (n > kMaxPrimitiveElements) {
    throw Error(ErrorKind::Unsupported, std::string(operation) + " of " + std::to_string(n) +
                                            " elements: device primitives handle at most " +
                                            std::to_string(kMaxPrimitiveElements));
  }
}

void require_elements(const char* operation, const char* role, const DeviceBuffer& buffer, uint64_t n,
                      uint64_t element_bytes) {
  const uint64_t needed = n * element_bytes;  // n <= kMaxPrimitiveElements: no overflow
  if (!buffer.valid() || buffer.bytes() < needed) {
    throw Error(ErrorKind::Internal, std::string(operation) + ": the " + role + " buffer holds " +
                                         std::to_string(buffer.bytes()) + " bytes, but " + std::to_string(n) +
                                         " elements of " + std::to_string(element_bytes) + " bytes need " +
                                         std::to_string(needed));
  }
}

}  // namespace

const char* scan_op_name(ScanOp op) {
  switch (op) {
    case ScanOp::Sum: return "sum";
    case ScanOp::Min: return "min";
    case ScanOp::Max: return "max";
  }
  return "?";
}

bool check_sort_arguments(const DeviceBuffer& keys, const DeviceBuffer& values, uint64_t n) {
  constexpr const char* op = "stable_sort_by_key";
  require_supported_count(op, n);
  require_elements(op, "keys", keys, n, 8);
  require_elements(op, "values", values, n, 4);
  return n > 0;
}

bool check_gather_arguments(const DeviceBuffer& map, const DeviceBuffer& in, const DeviceBuffer& out, uint64_t n) {
  constexpr const char* op = "gather";
  require_supported_count(op, n);
  require_elements(op, "map", map, n, 4);
  require_elements(op, "output", out, n, 8);
  // `in` is read at the positions map names, which the host does not know; it must hold something.
  require_elements(op, "input", in, n > 0 ? 1 : 0, 8);
  return n > 0;
}

bool check_scan_arguments(const DeviceBuffer& in, const DeviceBuffer& out, uint64_t n) {
  constexpr const char* op = "inclusive_scan";
  require_supported_count(op, n);
  require_elements(op, "input", in, n, 8);
  require_elements(op, "output", out, n, 8);
  return n > 0;
}

bool check_segmented_scan_arguments(const DeviceBuffer& heads, const DeviceBuffer& in, const DeviceBuffer& out,
                                    uint64_t n) {
  constexpr const char* op = "segmented_inclusive_scan";
  require_supported_count(op, n);
  require_elements(op, "heads", heads, n, 4);
  require_elements(op, "input", in, n, 8);
  require_elements(op, "output", out, n, 8);
  return n > 0;
}

}  // namespace hqc::runtime

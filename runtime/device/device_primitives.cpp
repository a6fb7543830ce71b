// Argument checks shared by the Boost.Compute and CUB implementations of DevicePrimitives.
#include "runtime/device/device_primitives.h"

#include <initializer_list>

#include "runtime/device/backend.h"
#include "storage/error.h"

namespace hqc::runtime {

namespace {

// One buffer an operation reads or writes: `count` elements of `element_bytes`, named `role`.
struct Operand {
  const char* role;
  const DeviceBuffer& buffer;
  uint64_t count;
  uint64_t element_bytes;
};

bool check_arguments(const char* operation, uint64_t n, std::initializer_list<Operand> operands) {
  if (n > kMaxPrimitiveElements) {
    throw Error(ErrorKind::Unsupported, std::string(operation) + " of " + std::to_string(n) +
                                            " elements: device primitives handle at most " +
                                            std::to_string(kMaxPrimitiveElements));
  }
  for (const Operand& o : operands) {
    const uint64_t needed = o.count * o.element_bytes;  // count <= kMaxPrimitiveElements: no overflow
    if (!o.buffer.valid() || o.buffer.bytes() < needed) {
      throw Error(ErrorKind::Internal, std::string(operation) + ": the " + o.role + " buffer holds " +
                                           std::to_string(o.buffer.bytes()) + " bytes, but " +
                                           std::to_string(o.count) + " elements of " +
                                           std::to_string(o.element_bytes) + " bytes need " + std::to_string(needed));
    }
  }
  return n > 0;
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

const char* value_type_name(ValueType t) {
  switch (t) {
    case ValueType::I64: return "i64";
    case ValueType::F64: return "f64";
  }
  return "?";
}

bool check_sort_arguments(const DeviceBuffer& keys, const DeviceBuffer& values, uint64_t n) {
  return check_arguments("stable_sort_by_key", n, {{"keys", keys, n, 8}, {"values", values, n, 4}});
}

bool check_gather_arguments(const DeviceBuffer& map, const DeviceBuffer& in, const DeviceBuffer& out, uint64_t n) {
  // `in` is read where map points, which the host does not know; it must hold one element at least.
  return check_arguments("gather", n, {{"map", map, n, 4}, {"output", out, n, 8}, {"input", in, n > 0 ? 1u : 0u, 8}});
}

bool check_scan_arguments(const DeviceBuffer& in, const DeviceBuffer& out, uint64_t n) {
  return check_arguments("inclusive_scan", n, {{"input", in, n, 8}, {"output", out, n, 8}});
}

bool check_segmented_scan_arguments(const DeviceBuffer& heads, const DeviceBuffer& in, const DeviceBuffer& out,
                                    uint64_t n) {
  return check_arguments("segmented_inclusive_scan", n,
                         {{"heads", heads, n, 4}, {"input", in, n, 8}, {"output", out, n, 8}});
}

bool check_exclusive_scan_arguments(const DeviceBuffer& in, const DeviceBuffer& out, uint64_t n) {
  return check_arguments("exclusive_scan", n, {{"input", in, n, 8}, {"output", out, n, 8}});
}

bool check_reduce_arguments(const DeviceBuffer& in, const DeviceBuffer& out, uint64_t n) {
  return check_arguments("reduce", n, {{"input", in, n, 8}, {"output", out, n > 0 ? 1u : 0u, 8}});
}

bool check_reduce_by_key_arguments(const DeviceBuffer& keys, const DeviceBuffer& values, const DeviceBuffer& out_keys,
                                   const DeviceBuffer& out_values, uint64_t n) {
  return check_arguments("reduce_by_key", n,
                         {{"keys", keys, n, 8},
                          {"values", values, n, 8},
                          {"output keys", out_keys, n, 8},
                          {"output values", out_values, n, 8}});
}

}  // namespace hqc::runtime

// LibraryStep → DevicePrimitives call (see library_steps.h).
#include "runtime/execution/library_steps.h"

#include <algorithm>
#include <chrono>

#include "runtime/device/device_primitives.h"

namespace hqc::runtime {

namespace {

// The last of n int64 elements (the total of an inclusive scan); 0 when n is 0.
int64_t last_element(const AllocatedBuffer& b, uint64_t n) {
  if (n == 0) return 0;
  int64_t value = 0;
  b.buffer.download(&value, sizeof value, (n - 1) * sizeof value);
  return value;
}

}  // namespace

double run_library_step(Backend& backend, const LibraryStep& step, std::map<std::string, AllocatedBuffer>& buffers,
                        std::map<std::string, int64_t>& params) {
  const uint64_t n = static_cast<uint64_t>(std::max<int64_t>(0, params.at(step.count_param)));
  auto buffer = [&](size_t i) -> DeviceBuffer& { return buffers.at(step.buffers.at(i)).buffer; };
  DevicePrimitives& library = backend.primitives();
  const auto start = std::chrono::steady_clock::now();
  int64_t result = 0;
  switch (step.op) {
    case LibraryStep::Op::InclusiveScan:
      library.inclusive_scan(buffer(0), buffer(0), n, ScanOp::Sum);
      result = last_element(buffers.at(step.buffers[0]), n);
      if (!step.limit_param.empty()) result = std::min(result, params.at(step.limit_param));
      break;
    case LibraryStep::Op::SortByKey: library.stable_sort_by_key(buffer(0), buffer(1), n); break;
    case LibraryStep::Op::Gather: library.gather(buffer(0), buffer(1), buffer(2), n); break;
    case LibraryStep::Op::Reduce:
      library.reduce(buffer(0), buffer(1), n, step.reduce, step.type);
      result = n > 0 ? 1 : 0;
      break;
    case LibraryStep::Op::ReduceByKey:
      result = static_cast<int64_t>(library.reduce_by_key(buffer(0), buffer(1), buffer(2), buffer(3), n, step.reduce, step.type));
      break;
  }
  if (!step.result_param.empty()) params[step.result_param] = result;
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace hqc::runtime

// ORDER BY ... LIMIT k narrowed on the device; see device_top_k.h.
#include "runtime/execution/device_top_k.h"

#include <algorithm>

#include "ir/state.h"
#include "runtime/device/device_primitives.h"
#include "storage/error.h"

namespace hqc::runtime {

namespace {

// hqc_order_words' mode bits (templates/compact/compact.h).
constexpr int64_t kDescending = 1, kDoubles = 2, kWide = 4, kNarrow = 8;

// The mode for `key` read from `buffer`, or nullopt when the words could not follow its order.
std::optional<int64_t> mode_of(const ResultColumnSpec& key, const AllocatedBuffer& buffer) {
  if (key.source != ResultColumnSpec::Source::Buffer || !key.heap_table.empty() || !key.valid_buffer.empty() ||
      key.null_without_input || key.stride == 0 || key.lane >= key.stride)
    return std::nullopt;
  const ElementType element = buffer.spec->element;
  if (key.wide) return element == ElementType::I64 ? std::optional<int64_t>(kWide) : std::nullopt;
  if (key.type.id == TypeId::Float64) return element == ElementType::F64 ? std::optional<int64_t>(kDoubles) : std::nullopt;
  switch (element) {
    case ElementType::I64: return 0;
    case ElementType::I32: return kNarrow;
    default: return std::nullopt;  // unsigned or floating words of an integer key: the host compares them
  }
}

}  // namespace

std::optional<std::vector<uint64_t>> device_top_k_candidates(Backend& backend, const Module& module, const ResultColumnSpec& key,
                                                             const AllocatedBuffer& buffer, bool descending, uint64_t rows,
                                                             uint64_t k) {
  std::optional<int64_t> mode = mode_of(key, buffer);
  if (!mode || k == 0 || rows <= k || rows > kMaxPrimitiveElements) return std::nullopt;
  const uint64_t stride = key.wide ? 2 : key.stride, lane = key.wide ? 0 : key.lane;
  if (rows * stride > buffer.elements) {
    throw Error(ErrorKind::Internal, "ORDER BY on the device: " + std::to_string(rows) + " rows but buffer " + buffer.spec->name +
                                         " holds only " + std::to_string(buffer.elements) + " elements");
  }
  if (descending) *mode |= kDescending;

  DeviceBuffer words = backend.acquire_scratch(rows * 8);
  DeviceBuffer order = backend.acquire_scratch(rows * 4);
  const Kernel& kernel = module.kernel(ir::kOrderWordsKernel);
  LaunchConfig config;
  config.block_size = 256;
  config.grid_blocks = std::min<uint64_t>((rows + config.block_size - 1) / config.block_size, 4096);
  backend.launch(kernel,
                 {KernelArg::buf(buffer.buffer), KernelArg::int64(static_cast<int64_t>(rows)), KernelArg::int64(static_cast<int64_t>(stride)),
                  KernelArg::int64(static_cast<int64_t>(lane)), KernelArg::int64(*mode), KernelArg::buf(words), KernelArg::buf(order)},
                 config);
  backend.primitives().stable_sort_by_key(words, order, rows);

  // The first k words, then on while they tie with the k-th: every row that can be among the first k.
  std::vector<uint64_t> sorted(k);
  words.download(sorted.data(), k * 8);
  const uint64_t kth = sorted.back();
  uint64_t candidates = k;
  for (uint64_t piece = 1024; candidates < rows; piece *= 2) {
    std::vector<uint64_t> more(std::min(piece, rows - candidates));
    words.download(more.data(), more.size() * 8, candidates * 8);
    const auto past = std::find_if(more.begin(), more.end(), [&](uint64_t w) { return w != kth; });
    candidates += static_cast<uint64_t>(past - more.begin());
    if (past != more.end()) break;
  }
  std::vector<uint32_t> chosen(candidates);
  order.download(chosen.data(), candidates * 4);
  backend.release_scratch(std::move(words));
  backend.release_scratch(std::move(order));
  std::sort(chosen.begin(), chosen.end());
  return std::vector<uint64_t>(chosen.begin(), chosen.end());
}

}  // namespace hqc::runtime

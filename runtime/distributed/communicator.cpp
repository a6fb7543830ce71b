// What every transport shares (communicator.h): the failure agreement, and device collectives
// through host memory for transports without device-to-device ones.
#include "runtime/distributed/communicator.h"

#include <algorithm>
#include <cstring>

#include "storage/error.h"

namespace hqc::runtime {

const char* reduction_name(Reduction r) {
  switch (r) {
    case Reduction::Sum: return "sum";
    case Reduction::Min: return "min";
    case Reduction::Max: return "max";
  }
  return "?";
}

std::optional<RankFailure> Communicator::agree(const std::optional<RankFailure>& mine, std::vector<int64_t>* maxima) {
  // Each rank's outcome as bytes: a value count (u32), the values, then — failed only — the exit
  // code (i32) and the message.
  const uint32_t n = maxima != nullptr ? static_cast<uint32_t>(maxima->size()) : 0;
  std::vector<unsigned char> bytes(4 + 8 * n);
  std::memcpy(bytes.data(), &n, 4);
  if (n > 0) std::memcpy(bytes.data() + 4, maxima->data(), 8 * n);
  if (mine) {
    const int32_t code = mine->exit_code;
    const size_t at = bytes.size();
    bytes.resize(at + 4 + mine->message.size());
    std::memcpy(bytes.data() + at, &code, 4);
    std::memcpy(bytes.data() + at + 4, mine->message.data(), mine->message.size());
  }
  const std::vector<std::vector<unsigned char>> all = all_gather(bytes);
  std::optional<RankFailure> failure;
  for (size_t r = 0; r < all.size(); ++r) {
    uint32_t count = 0;
    std::memcpy(&count, all[r].data(), 4);
    const size_t values_end = 4 + 8 * static_cast<size_t>(count);
    if (maxima != nullptr && count == n) {
      for (uint32_t i = 0; i < n; ++i) {
        int64_t v;
        std::memcpy(&v, all[r].data() + 4 + 8 * i, 8);
        (*maxima)[i] = std::max((*maxima)[i], v);
      }
    }
    if (all[r].size() == values_end || failure) continue;
    int32_t code = 0;
    std::memcpy(&code, all[r].data() + values_end, 4);
    failure = RankFailure{static_cast<int>(r), code, std::string(all[r].begin() + static_cast<std::ptrdiff_t>(values_end + 4), all[r].end())};
  }
  return failure;
}

void Communicator::all_reduce_many(Backend& backend, const std::vector<ReduceLane>& lanes) {
  for (const ReduceLane& l : lanes) all_reduce(backend, *l.buffer, l.count, l.type, l.op);
}

void Communicator::all_reduce(Backend& /*backend*/, DeviceBuffer& buffer, uint64_t count, ElementType type, Reduction op) {
  const uint64_t bytes = count * element_bytes(type);
  if (bytes > buffer.bytes()) throw Error(ErrorKind::Internal, "all_reduce: more elements than the buffer holds");
  std::vector<unsigned char> host(bytes);
  if (bytes > 0) buffer.download(host.data(), bytes);
  all_reduce_host(host.data(), count, type, op);
  if (bytes > 0) buffer.upload(host.data(), bytes);
}

void Communicator::all_gather_rows(Backend& /*backend*/, const DeviceBuffer& local, const std::vector<uint64_t>& bytes,
                                   DeviceBuffer& target) {
  uint64_t total = 0;
  for (uint64_t b : bytes) total += b;
  if (total > target.bytes()) throw Error(ErrorKind::Internal, "all_gather_rows: the target is smaller than the rows");
  const uint64_t mine = bytes.at(static_cast<size_t>(rank()));
  std::vector<unsigned char> local_host(mine);
  if (mine > 0) local.download(local_host.data(), mine);
  std::vector<unsigned char> all(total);
  all_gather_host(local_host.data(), bytes, all.data());
  if (total > 0) target.upload(all.data(), total);
}

}  // namespace hqc::runtime

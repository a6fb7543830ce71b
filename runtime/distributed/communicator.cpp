// What every transport shares (communicator.h): the failure agreement, and device collectives
// through host memory for transports without device-to-device ones.
#include "runtime/distributed/communicator.h"

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

std::optional<RankFailure> Communicator::agree(const std::optional<RankFailure>& mine) {
  // Each rank's outcome as bytes: empty = fine; else the exit code (4 bytes) and the message.
  std::vector<unsigned char> bytes;
  if (mine) {
    const int32_t code = mine->exit_code;
    bytes.resize(4 + mine->message.size());
    std::memcpy(bytes.data(), &code, 4);
    std::memcpy(bytes.data() + 4, mine->message.data(), mine->message.size());
  }
  const std::vector<std::vector<unsigned char>> all = all_gather(bytes);
  for (size_t r = 0; r < all.size(); ++r) {
    if (all[r].empty()) continue;
    int32_t code = 0;
    std::memcpy(&code, all[r].data(), 4);
    return RankFailure{static_cast<int>(r), code, std::string(all[r].begin() + 4, all[r].end())};
  }
  return std::nullopt;
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

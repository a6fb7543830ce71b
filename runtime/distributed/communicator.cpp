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

uint64_t Communicator::check_row_lanes(const std::vector<RowLane>& lanes, const std::vector<uint64_t>& rows) const {
  if (rows.size() != static_cast<size_t>(size())) throw Error(ErrorKind::Internal, "all_gather_rows: one row count per rank expected");
  uint64_t total = 0;
  for (uint64_t r : rows) total += r;
  for (const RowLane& l : lanes) {
    if (l.buffer == nullptr || l.width == 0) throw Error(ErrorKind::Internal, "all_gather_rows: a lane without a buffer or a width");
    if (total * l.width > l.buffer->bytes()) throw Error(ErrorKind::Internal, "all_gather_rows: a lane's buffer is smaller than every rank's rows");
  }
  return total;
}

void Communicator::all_gather_rows(Backend& /*backend*/, const std::vector<RowLane>& lanes, const std::vector<uint64_t>& rows) {
  const uint64_t total = check_row_lanes(lanes, rows);
  if (total == 0 || lanes.empty()) return;
  // One host all-gather for every lane: a rank's piece is its rows of lane 0, then of lane 1, ...
  uint64_t row_bytes = 0;
  for (const RowLane& l : lanes) row_bytes += l.width;
  const uint64_t mine = rows.at(static_cast<size_t>(rank()));
  std::vector<unsigned char> piece(mine * row_bytes);
  uint64_t at = 0;
  for (const RowLane& l : lanes) {
    if (mine > 0) l.buffer->download(piece.data() + at, mine * l.width);
    at += mine * l.width;
  }
  std::vector<uint64_t> bytes;
  for (uint64_t r : rows) bytes.push_back(r * row_bytes);
  std::vector<unsigned char> all(total * row_bytes);
  all_gather_host(piece.data(), bytes, all.data());
  // Rank r's piece starts at the pieces before it; its lane l part after its lanes before l.
  std::vector<unsigned char> column;
  uint64_t lane_at = 0;
  for (const RowLane& l : lanes) {
    column.resize(total * l.width);
    uint64_t piece_at = 0, out = 0;
    for (uint64_t n : rows) {
      std::memcpy(column.data() + out, all.data() + piece_at + n * lane_at, n * l.width);
      out += n * l.width;
      piece_at += n * row_bytes;
    }
    l.buffer->upload(column.data(), column.size());
    lane_at += l.width;
  }
}

}  // namespace hqc::runtime

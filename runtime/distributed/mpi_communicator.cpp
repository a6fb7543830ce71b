// MPI transport (mpi_communicator.h).
#include "runtime/distributed/mpi_communicator.h"

#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "storage/error.h"

namespace hqc::runtime {

namespace {

MPI_Datatype datatype_of(ElementType type) {
  switch (type) {
    case ElementType::I32: return MPI_INT32_T;
    case ElementType::U32: return MPI_UINT32_T;
    case ElementType::I64: return MPI_INT64_T;
    case ElementType::U64: return MPI_UINT64_T;
    case ElementType::F64: return MPI_DOUBLE;
  }
  return MPI_BYTE;
}

MPI_Op op_of(Reduction r) {
  switch (r) {
    case Reduction::Sum: return MPI_SUM;
    case Reduction::Min: return MPI_MIN;
    case Reduction::Max: return MPI_MAX;
  }
  return MPI_SUM;
}

// MPI counts are int: large transfers go in pieces of at most this many elements.
constexpr uint64_t kMaxPiece = static_cast<uint64_t>(std::numeric_limits<int>::max() / 8);

}  // namespace

void check_mpi(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw Error(ErrorKind::Device, std::string(call) + " failed: " + std::string(text, static_cast<size_t>(length)));
}

bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "MPI_LOCALNRANKS"})
    if (std::getenv(v) != nullptr) return true;
  return false;
}

MpiCommunicator::MpiCommunicator() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) check_mpi(MPI_Init(nullptr, nullptr), "MPI_Init");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  check_mpi(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
  MPI_Comm local;
  check_mpi(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local), "MPI_Comm_split_type");
  MPI_Comm_rank(local, &local_rank_);
  MPI_Comm_free(&local);
}

MpiCommunicator::~MpiCommunicator() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

std::string MpiCommunicator::transport() const {
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(version, &length);
  std::string v(version, static_cast<size_t>(length));
  if (const auto comma = v.find(','); comma != std::string::npos) v.resize(comma);  // "Open MPI v4.1.4"
  return "MPI (" + v + ")";
}

void MpiCommunicator::barrier() { check_mpi(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }

std::vector<std::vector<unsigned char>> MpiCommunicator::all_gather(const std::vector<unsigned char>& bytes) {
  std::vector<uint64_t> sizes(static_cast<size_t>(size_));
  const uint64_t mine = bytes.size();
  check_mpi(MPI_Allgather(&mine, 1, MPI_UINT64_T, sizes.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD), "MPI_Allgather");
  uint64_t total = 0;
  for (uint64_t s : sizes) total += s;
  std::vector<unsigned char> all(total);
  all_gather_host(bytes.data(), sizes, all.data());
  std::vector<std::vector<unsigned char>> out;
  uint64_t at = 0;
  for (uint64_t s : sizes) {
    out.emplace_back(all.begin() + static_cast<std::ptrdiff_t>(at), all.begin() + static_cast<std::ptrdiff_t>(at + s));
    at += s;
  }
  return out;
}

std::vector<std::vector<unsigned char>> MpiCommunicator::all_to_all(const std::vector<std::vector<unsigned char>>& to) {
  if (to.size() != static_cast<size_t>(size_))
    throw Error(ErrorKind::Internal, "all_to_all: " + std::to_string(to.size()) + " parts for " + std::to_string(size_) + " ranks");
  // Sizes first (one MPI_Alltoall), then every part as non-blocking sends and receives in pieces of
  // at most INT_MAX bytes (a part may exceed 2 GiB): both ends cut a part of a known size alike.
  std::vector<uint64_t> sizes_out, sizes_in(static_cast<size_t>(size_));
  for (const std::vector<unsigned char>& part : to) sizes_out.push_back(part.size());
  check_mpi(MPI_Alltoall(sizes_out.data(), 1, MPI_UINT64_T, sizes_in.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD), "MPI_Alltoall");
  std::vector<std::vector<unsigned char>> from(static_cast<size_t>(size_));
  from[static_cast<size_t>(rank_)] = to[static_cast<size_t>(rank_)];
  std::vector<MPI_Request> requests;
  constexpr uint64_t piece = kMaxPiece * 8;
  for (int r = 0; r < size_; ++r) {
    if (r == rank_) continue;
    std::vector<unsigned char>& in = from[static_cast<size_t>(r)];
    in.resize(sizes_in[static_cast<size_t>(r)]);
    for (uint64_t at = 0; at < in.size(); at += piece) {
      requests.emplace_back();
      check_mpi(MPI_Irecv(in.data() + at, static_cast<int>(std::min(piece, in.size() - at)), MPI_BYTE, r, 7, MPI_COMM_WORLD, &requests.back()),
                "MPI_Irecv");
    }
    const std::vector<unsigned char>& out = to[static_cast<size_t>(r)];
    for (uint64_t at = 0; at < out.size(); at += piece) {
      requests.emplace_back();
      check_mpi(MPI_Isend(out.data() + at, static_cast<int>(std::min(piece, out.size() - at)), MPI_BYTE, r, 7, MPI_COMM_WORLD, &requests.back()),
                "MPI_Isend");
    }
  }
  check_mpi(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  return from;
}

void MpiCommunicator::all_gather_host(const void* mine, const std::vector<uint64_t>& bytes, void* all) {
  auto* out = static_cast<unsigned char*>(all);
  // One MPI_Allgatherv where its int counts and displacements hold every size (the exchanges of a
  // query: agreement, flags, groups); else one broadcast per rank (a rank's rows may exceed 2 GiB).
  uint64_t total = 0;
  for (uint64_t b : bytes) total += b;
  if (total <= static_cast<uint64_t>(std::numeric_limits<int>::max())) {
    std::vector<int> counts, offsets;
    for (uint64_t b : bytes) {
      offsets.push_back(counts.empty() ? 0 : offsets.back() + counts.back());
      counts.push_back(static_cast<int>(b));
    }
    check_mpi(MPI_Allgatherv(mine, counts[static_cast<size_t>(rank_)], MPI_BYTE, out, counts.data(), offsets.data(), MPI_BYTE,
                             MPI_COMM_WORLD),
              "MPI_Allgatherv");
    return;
  }
  uint64_t at = 0;
  for (int r = 0; r < size_; ++r) {
    const uint64_t n = bytes[static_cast<size_t>(r)];
    if (r == rank_ && n > 0) std::memcpy(out + at, mine, n);
    for (uint64_t done = 0; done < n;) {
      const uint64_t piece = std::min<uint64_t>(n - done, kMaxPiece * 8);
      check_mpi(MPI_Bcast(out + at + done, static_cast<int>(piece), MPI_BYTE, r, MPI_COMM_WORLD), "MPI_Bcast");
      done += piece;
    }
    at += n;
  }
}

void MpiCommunicator::all_reduce_host(void* data, uint64_t count, ElementType type, Reduction op) {
  auto* bytes = static_cast<unsigned char*>(data);
  const uint64_t width = element_bytes(type);
  for (uint64_t done = 0; done < count;) {
    const uint64_t piece = std::min(count - done, kMaxPiece);
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, bytes + done * width, static_cast<int>(piece), datatype_of(type), op_of(op), MPI_COMM_WORLD),
          "MPI_Allreduce");
    done += piece;
  }
}

void MpiCommunicator::abort(int exit_code) {
  MPI_Abort(MPI_COMM_WORLD, exit_code);
  std::_Exit(exit_code);
}

}  // namespace hqc::runtime

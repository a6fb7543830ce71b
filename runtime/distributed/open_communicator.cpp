// The transport decision and the ranks' devices (open_communicator.h).
#include "runtime/distributed/open_communicator.h"

#include <mpi.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "runtime/device/cuda_backend.h"
#include "runtime/device/cuda_driver.h"
#include "runtime/distributed/mpi_communicator.h"
#include "runtime/distributed/nccl_communicator.h"
#include "storage/error.h"

namespace hqc::runtime {

namespace {

// Why this rank cannot use NCCL; empty when it can. NCCL is loaded only for a CUDA backend.
std::string why_not_nccl(const Backend& backend) {
  if (cuda_device_ordinal(backend) < 0) return "it runs the " + backend.name() + " backend, not CUDA";
  try {
    nccl_version();
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

// Every rank's text, in rank order (MPI directly: no communicator exists yet).
std::vector<std::string> all_gather_text(const std::string& mine) {
  int size = 1;
  check_mpi(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");
  const int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<size_t>(size));
  check_mpi(MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, MPI_COMM_WORLD), "MPI_Allgather");
  std::vector<int> offsets(static_cast<size_t>(size), 0);
  int total = 0;
  for (int r = 0; r < size; ++r) {
    offsets[static_cast<size_t>(r)] = total;
    total += lengths[static_cast<size_t>(r)];
  }
  std::string all(static_cast<size_t>(total), '\0');
  check_mpi(MPI_Allgatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, MPI_COMM_WORLD),
        "MPI_Allgatherv");
  std::vector<std::string> out;
  for (int r = 0; r < size; ++r) out.push_back(all.substr(static_cast<size_t>(offsets[static_cast<size_t>(r)]),
                                                          static_cast<size_t>(lengths[static_cast<size_t>(r)])));
  return out;
}

}  // namespace

TransportChoice parse_transport(std::string_view text) {
  if (text == "auto") return TransportChoice::Auto;
  if (text == "mpi") return TransportChoice::Mpi;
  if (text == "nccl") return TransportChoice::Nccl;
  throw Error(ErrorKind::Usage, "unknown transport \"" + std::string(text) + "\": expected auto, mpi or nccl");
}

const char* transport_choice_name(TransportChoice choice) {
  switch (choice) {
    case TransportChoice::Auto: return "auto";
    case TransportChoice::Mpi: return "mpi";
    case TransportChoice::Nccl: return "nccl";
  }
  return "?";
}

std::unique_ptr<Communicator> open_communicator(Backend& backend, TransportChoice choice) {
  if (choice == TransportChoice::Mpi) return std::make_unique<MpiCommunicator>();

  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) check_mpi(MPI_Init(nullptr, nullptr), "MPI_Init");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const std::vector<std::string> reasons = all_gather_text(why_not_nccl(backend));
  int first = -1;
  int cannot = 0;
  for (size_t r = 0; r < reasons.size(); ++r) {
    if (reasons[r].empty()) continue;
    if (first < 0) first = static_cast<int>(r);
    ++cannot;
  }
  if (first < 0) return std::make_unique<NcclCommunicator>(backend);
  if (choice == TransportChoice::Auto) return std::make_unique<MpiCommunicator>();

  // Every rank is here (they agreed), and no communicator owns MPI yet.
  MPI_Finalize();
  std::string message = "--transport nccl is not possible: rank " + std::to_string(first) + " of " +
                        std::to_string(reasons.size()) + " cannot use NCCL: " + reasons[static_cast<size_t>(first)];
  if (cannot > 1) message += " (and " + std::to_string(cannot - 1) + " more rank(s))";
  throw Error(ErrorKind::Device, message);
}

int device_ordinal_for(int local_rank, int device_count) {
  if (device_count <= 0 || local_rank < 0) return 0;
  return local_rank % device_count;
}

int launcher_local_rank() {
  for (const char* variable : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"}) {
    if (const char* value = std::getenv(variable); value != nullptr && *value != '\0') return std::atoi(value);
  }
  return 0;
}

int cuda_device_count() {
  try {
    const CudaDriver& driver = cuda_driver();
    int count = 0;
    return driver.device_get_count(&count) == CUDA_SUCCESS ? count : 0;
  } catch (const Error&) {
    return 0;
  }
}

}  // namespace hqc::runtime

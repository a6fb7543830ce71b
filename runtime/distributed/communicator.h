// The ranks of a distributed run (one process per device, started by `mpirun`) and the collectives
// the distributed layer needs, behind one interface so that nothing above it knows the transport:
//   - MpiCommunicator (mpi_communicator.h): MPI for everything; device buffers travel through host
//     memory (PoCL/OpenCL ranks, the tests);
//   - NcclCommunicator (nccl_communicator.h): NCCL moves device buffers between GPUs when every rank
//     runs CUDA; MPI still starts the ranks, places them and carries the host collectives.
//
// Contract:
//   - every rank calls the same collectives in the same order with the same shapes (element counts
//     and types; all_gather_rows' row counts are every rank's, known to all from an all_gather).
//   - agree() is how a failure becomes the whole run's: every rank passes its own outcome (nullopt:
//     fine) and receives the first failure by rank, or nullopt when all succeeded. A rank that fails
//     between two agreement points goes straight to the next agree() (the distributed layer places
//     one before every exchange), so no rank waits forever in a collective the failed one skipped.
//   - collectives throw Error(Device) naming the transport's error text; they never return half done.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/device/backend.h"
#include "runtime/execution/executable_plan.h"

namespace hqc::runtime {

enum class Reduction { Sum, Min, Max };
const char* reduction_name(Reduction r);  // "sum", "min", "max"

// A rank's failure, as every rank learns it from agree().
struct RankFailure {
  int rank = 0;
  int exit_code = 70;   // the failing rank's exit code (docs/cli.md)
  std::string message;  // its error message
};

class Communicator {
 public:
  virtual ~Communicator() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Rank among the ranks on this host: the device a rank drives (one rank per device).
  virtual int local_rank() const = 0;
  // "MPI (Open MPI 4.1.4)", "NCCL 2.27.3 (MPI for host collectives)".
  virtual std::string transport() const = 0;

  // ---- host collectives ----
  virtual void barrier() = 0;
  // Every rank's bytes, in rank order.
  virtual std::vector<std::vector<unsigned char>> all_gather(const std::vector<unsigned char>& bytes) = 0;
  // Personalized all-to-all of host bytes: `to[r]` goes to rank r (to.size() == size(); any sizes,
  // none known to the receiver beforehand); returns what each rank sent this one, by rank (this
  // rank's own `to[rank()]` among them).
  virtual std::vector<std::vector<unsigned char>> all_to_all(const std::vector<std::vector<unsigned char>>& to) = 0;
  // Element-wise reduction of `count` host elements, in place on every rank.
  virtual void all_reduce_host(void* data, uint64_t count, ElementType type, Reduction op) = 0;
  // The first failure by rank among every rank's `mine`, or nullopt when no rank failed. With
  // `maxima`, the same collective also takes the element-wise maximum of every rank's values (a
  // rank that failed may pass none): what the distributed run's overflow flags ride on.
  std::optional<RankFailure> agree(const std::optional<RankFailure>& mine, std::vector<int64_t>* maxima = nullptr);
  // Ends every rank at once (MPI_Abort): the last resort of a rank that failed inside a collective.
  [[noreturn]] virtual void abort(int exit_code) = 0;

  // ---- device collectives (the default implementations travel through host memory) ----
  // Element-wise reduction of the first `count` elements of `buffer`, in place on every rank.
  virtual void all_reduce(Backend& backend, DeviceBuffer& buffer, uint64_t count, ElementType type, Reduction op);
  // Several all_reduce()s at once (NCCL: one group, one wait).
  struct ReduceLane {
    DeviceBuffer* buffer = nullptr;
    uint64_t count = 0;
    ElementType type = ElementType::I64;
    Reduction op = Reduction::Sum;
  };
  virtual void all_reduce_many(Backend& backend, const std::vector<ReduceLane>& lanes);
  // Every rank's rows concatenated in rank order, in place, for several columns at once. Each lane's
  // buffer holds this rank's rows (rows[rank()] rows of `width` bytes) from offset 0 and at least
  // sum(rows) x width bytes; on return it holds rank 0's rows, then rank 1's, ... on every rank, and
  // its bytes past them are untouched. Every rank passes the same `rows` and the same lanes' widths.
  struct RowLane {
    DeviceBuffer* buffer = nullptr;
    uint64_t width = 0;  // bytes per row
  };
  virtual void all_gather_rows(Backend& backend, const std::vector<RowLane>& lanes, const std::vector<uint64_t>& rows);

 protected:
  // Checks lanes and row counts against all_gather_rows' contract; returns every rank's rows together.
  uint64_t check_row_lanes(const std::vector<RowLane>& lanes, const std::vector<uint64_t>& rows) const;
  // Host all-gather of variable sizes into one buffer (rank order); `bytes` every rank's size.
  virtual void all_gather_host(const void* mine, const std::vector<uint64_t>& bytes, void* all) = 0;
};

}  // namespace hqc::runtime

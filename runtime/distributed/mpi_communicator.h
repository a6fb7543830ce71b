// MPI as the distributed runs' transport (communicator.h): the ranks `mpirun` started, host
// collectives on MPI_COMM_WORLD, device buffers through host memory. Also what NcclCommunicator
// builds on (it starts from MPI's ranks and keeps MPI for the host collectives).
//
// Contract:
//   - launched_by_mpi() says whether this process was started by an MPI launcher (mpirun / mpiexec
//     set their rank variables); a plain start never initialises MPI.
//   - MpiCommunicator initialises MPI in its constructor (once per process) and finalises it in its
//     destructor; errors are Error(Device) with MPI's error string.
#pragma once

#include <memory>

#include "runtime/distributed/communicator.h"

namespace hqc::runtime {

bool launched_by_mpi();

// Throws Error(Device) "<call> failed: <MPI's error string>" unless `code` is MPI_SUCCESS.
void check_mpi(int code, const char* call);

class MpiCommunicator : public Communicator {
 public:
  MpiCommunicator();
  ~MpiCommunicator() override;
  MpiCommunicator(const MpiCommunicator&) = delete;
  MpiCommunicator& operator=(const MpiCommunicator&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }
  std::string transport() const override;

  void barrier() override;
  std::vector<std::vector<unsigned char>> all_gather(const std::vector<unsigned char>& bytes) override;
  std::vector<std::vector<unsigned char>> all_to_all(const std::vector<std::vector<unsigned char>>& to) override;
  void all_reduce_host(void* data, uint64_t count, ElementType type, Reduction op) override;
  [[noreturn]] void abort(int exit_code) override;

 protected:
  void all_gather_host(const void* mine, const std::vector<uint64_t>& bytes, void* all) override;

 private:
  int rank_ = 0;
  int size_ = 1;
  int local_rank_ = 0;
};

}  // namespace hqc::runtime

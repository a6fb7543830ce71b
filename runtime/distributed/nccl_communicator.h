// NCCL as the transport of device buffers between GPUs (communicator.h), when every rank runs the
// CUDA backend. MPI still starts the ranks, places them and carries the host collectives (the base
// class); NCCL carries all_reduce and all_gather_rows from device memory to device memory.
//
// Contract:
//   - NCCL is loaded at run time with dlopen, never linked (like libcuda, runtime/device/cuda_driver.h):
//     horseqc builds and runs without it. <nccl.h> gives types and constants only. Where it looks,
//     in order: $HORSEQC_NCCL_LIBRARY (when set, that file only: asking for one library never loads
//     another), "libnccl.so.2" through the loader's path, /usr/local/cuda/lib{,64}/libnccl.so.2, and
//     PyTorch's NCCL wheel (/opt/torch/.venv/lib/python3*/site-packages/nvidia/{nccl,cu13}/lib/).
//   - nccl_version() loads it (once per process) and returns "2.28.9", or throws Error(Device)
//     naming every place tried.
//   - NVLink multicast (NVLS) is always off: NCCL_NVLS_ENABLE is forced to "0" before NCCL's first
//     call. A program using NVLink SHARP multicast can put a shared host's GPUs out of service for
//     a day or more, and the merges here (aggregation tables, outputs) gain nothing from it.
//   - The constructor is collective (every rank constructs one, after MPI started the ranks):
//     `backend` must be the CUDA backend; the NCCL communicator is bound to its device and works on
//     that device's primary context (the backend's), which every collective makes current on the
//     calling thread. Rank 0's ncclUniqueId reaches the others by MPI. Failures are agreed (every
//     rank throws the same Error(Device) naming the failing rank) where NCCL returns at all.
//   - Device collectives run on a stream of the communicator's own that orders against the
//     backend's default stream both ways (a blocking stream), and are complete on return; errors
//     are Error(Device) with ncclGetErrorString's (and ncclGetLastError's) text.
//   - all_gather_rows is one NCCL group of point-to-point transfers for every lane, each rank's rows
//     received straight into their place. A rank whose rows move (any rank after one with rows)
//     first copies them into a scratch buffer of its own rows' size, allocated from the backend and
//     kept for the next call (it is the only device memory the communicator holds).
//   - The communicator must go before its backend; MPI is finalised by the base class, after NCCL.
#pragma once

#include <string>

#include "runtime/device/backend.h"
#include "runtime/distributed/mpi_communicator.h"

struct ncclComm;   // ncclComm_t (nccl.h)
struct CUctx_st;   // CUcontext (cuda.h)
struct CUstream_st;  // CUstream

namespace hqc::runtime {

std::string nccl_version();

class NcclCommunicator final : public MpiCommunicator {
 public:
  explicit NcclCommunicator(Backend& backend);
  ~NcclCommunicator() override;

  // "NCCL 2.28.9 (MPI for host collectives)"
  std::string transport() const override;

  void all_reduce(Backend& backend, DeviceBuffer& buffer, uint64_t count, ElementType type, Reduction op) override;
  void all_reduce_many(Backend& backend, const std::vector<ReduceLane>& lanes) override;
  void all_gather_rows(Backend& backend, const std::vector<RowLane>& lanes, const std::vector<uint64_t>& rows) override;
  // Aborts the NCCL communicator (so that no kernel waits for a peer that is gone), then MPI_Abort.
  [[noreturn]] void abort(int exit_code) override;

 private:
  // Destroys the NCCL communicator and the stream, releases the context (destructor, failed constructor).
  void release() noexcept;
  void make_current() const;
  // Checks that `backend` drives this communicator's device; makes its context current.
  void enter(const Backend& backend, const char* collective) const;
  // Waits for the stream, then asks NCCL for asynchronous errors.
  void finish(const char* call);

  int ordinal_ = -1;
  CUctx_st* context_ = nullptr;    // the device's primary context, retained
  CUstream_st* stream_ = nullptr;  // blocking stream on it
  ncclComm* comm_ = nullptr;
  // This rank's rows while all_gather_rows receives over them; grows, kept between calls.
  DeviceBuffer scratch_;
};

}  // namespace hqc::runtime

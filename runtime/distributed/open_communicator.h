// Choosing a distributed run's transport and each rank's device: the one place that decides between
// NCCL and MPI (communicator.h), as the CLI's --transport asks.
//
// Contract:
//   - open_communicator() is collective: every rank calls it with the same choice, after opening
//     its backend. Mpi → MpiCommunicator. Nccl → NcclCommunicator when every rank runs the CUDA
//     backend and loads NCCL, else Error(Device) on every rank naming the first rank that cannot
//     and why (never a silent fallback). Auto → NCCL under the same condition, else MPI. Once NCCL
//     is chosen, a failure to start it (ncclCommInitRank) is an Error(Device), not a fallback.
//   - The ranks agree before any communicator exists (an MPI all-gather of each rank's reason not to
//     use NCCL): a communicator finalises MPI when it goes, and MPI cannot start twice, so none is
//     opened only to be replaced. MPI is initialised here once; the communicator returned finalises
//     it; on the forced-NCCL error every rank finalises it before throwing.
//   - Devices: one rank per device. The backend opens before the communicator, so a rank learns its
//     local rank from the launcher's environment (launcher_local_rank()) and drives device
//     device_ordinal_for(local rank, device count); ranks beyond the device count share devices
//     round-robin.
#pragma once

#include <memory>
#include <string_view>

#include "runtime/distributed/communicator.h"

namespace hqc::runtime {

enum class TransportChoice { Auto, Mpi, Nccl };

// "auto", "mpi", "nccl" (as the CLI spells it); throws Error(Usage) listing the choices otherwise.
TransportChoice parse_transport(std::string_view text);
const char* transport_choice_name(TransportChoice choice);

std::unique_ptr<Communicator> open_communicator(Backend& backend, TransportChoice choice);

// local_rank modulo device_count (0 when there is no device to count).
int device_ordinal_for(int local_rank, int device_count);
// This process's rank among the ranks on its host, from the launcher's environment before MPI
// starts: Open MPI's OMPI_COMM_WORLD_LOCAL_RANK, MPICH's MPI_LOCALRANKID, Slurm's SLURM_LOCALID;
// 0 when none is set (a plain start). The communicator's local_rank() is the same number.
int launcher_local_rank();
// The CUDA devices this process sees (cuDeviceGetCount); 0 when CUDA is not available.
int cuda_device_count();

}  // namespace hqc::runtime

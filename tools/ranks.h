// horseqc-run under mpirun: what the command line does around the distributed runtime
// (runtime/distributed/): each rank's share of the data, the line saying which device every rank
// runs on, and a failure turned into the one every rank agrees on.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "runtime/distributed/distributed_run.h"
#include "storage/catalog.h"
#include "storage/load_options.h"
#include "storage/table.h"
#include "storage/tbl_loader.h"

namespace hqc::cli {

// This rank's share of the tables in `dir` (storage/partition.h): rank 0 loads first — creating the
// columnar caches the others then read their ranges from — and every rank agrees the load went well.
// `weights`: "W,W,..." (--partition-weights), one per rank; nullopt: equal shares.
Database load_rank_share(runtime::Communicator& comm, const Catalog& catalog, const std::filesystem::path& dir,
                         const LoadOptions& options, const std::optional<std::string>& weights, std::vector<LoadReport>& reports);

// "4 ranks over MPI (Open MPI v4.1.4): rank 0 <device>; rank 1 <device>; ..." (every rank's device).
std::string describe_ranks(runtime::Communicator& comm, const std::string& device);

// The failure every rank agrees on, given this rank's `local` error (itself when already agreed).
runtime::AgreedFailure agree_on(runtime::Communicator& comm, const Error& local);

}  // namespace hqc::cli

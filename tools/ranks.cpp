// horseqc-run under mpirun (tools/ranks.h).
#include "tools/ranks.h"

#include <cstdlib>

#include "storage/error.h"
#include "storage/partition.h"

namespace hqc::cli {

namespace {

std::vector<double> parse_weights(const std::string& text, int ranks) {
  std::vector<double> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    char* end = nullptr;
    const double w = std::strtod(item.c_str(), &end);
    if (item.empty() || end != item.c_str() + item.size() || !(w >= 0))
      throw Error(ErrorKind::Usage, "--partition-weights: expected non-negative numbers separated by commas, got \"" + text + "\"");
    out.push_back(w);
    start = comma + 1;
  }
  if (static_cast<int>(out.size()) != ranks)
    throw Error(ErrorKind::Usage, "--partition-weights: " + std::to_string(out.size()) + " weights for " + std::to_string(ranks) + " ranks");
  return out;
}

}  // namespace

Database load_rank_share(runtime::Communicator& comm, const Catalog& catalog, const std::filesystem::path& dir,
                         const LoadOptions& options, const std::optional<std::string>& weights, std::vector<LoadReport>& reports) {
  PartitionRequest request;
  request.rank = comm.rank();
  request.ranks = comm.size();
  if (weights) request.weights = parse_weights(*weights, comm.size());
  std::optional<Database> db;
  std::optional<runtime::RankFailure> failed;
  // Rank 0 first: a table without a columnar copy is parsed once and its cache written there.
  for (int turn = 0; turn < 2; ++turn) {
    if ((turn == 0) == (comm.rank() == 0)) {
      try {
        db = load_partition(catalog, dir, options, request, &reports);
      } catch (const Error& e) {
        failed = runtime::RankFailure{comm.rank(), e.exit_code(), e.what()};
      }
    }
    runtime::agree_or_throw(comm, failed);
  }
  return std::move(*db);
}

std::string describe_ranks(runtime::Communicator& comm, const std::string& device) {
  const std::vector<std::vector<unsigned char>> all = comm.all_gather(std::vector<unsigned char>(device.begin(), device.end()));
  std::string out = std::to_string(comm.size()) + " rank(s) over " + comm.transport() + ":";
  for (size_t r = 0; r < all.size(); ++r)
    out += "\n  rank " + std::to_string(r) + ": " + std::string(all[r].begin(), all[r].end());
  return out;
}

runtime::AgreedFailure agree_on(runtime::Communicator& comm, const Error& local) {
  if (const auto* agreed = dynamic_cast<const runtime::AgreedFailure*>(&local)) return *agreed;
  try {
    runtime::agree_or_throw(comm, runtime::RankFailure{comm.rank(), local.exit_code(), local.what()});
  } catch (const runtime::AgreedFailure& f) {
    return f;
  }
  throw Error(ErrorKind::Internal, "a failure no rank agreed on");
}

}  // namespace hqc::cli

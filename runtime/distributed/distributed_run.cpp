// One rank's hooks into the executor (distributed_run.h).
#include "runtime/distributed/distributed_run.h"

#include <algorithm>
#include <cstdio>

#include "runtime/distributed/state_merge.h"

namespace hqc::runtime {

namespace {

ErrorKind kind_of(int exit_code) {
  switch (exit_code) {
    case 2: return ErrorKind::Usage;
    case 3: return ErrorKind::Input;
    case 4: return ErrorKind::Unsupported;
    case 5: return ErrorKind::Device;
    default: return ErrorKind::Internal;
  }
}

}  // namespace

AgreedFailure::AgreedFailure(const RankFailure& f) : Error(kind_of(f.exit_code), f.message), failure_(f) {}

void agree_or_throw(Communicator& comm, const std::optional<RankFailure>& mine, std::vector<int64_t>* maxima) {
  if (std::optional<RankFailure> f = comm.agree(mine, maxima)) {
    if (f->rank != comm.rank()) f->message = "rank " + std::to_string(f->rank) + ": " + f->message;
    throw AgreedFailure(*f);
  }
}

bool RankHooks::runs_launch(size_t pipeline, size_t launch) {
  return !(d_.rank0_only[pipeline] && comm_.rank() != 0 && launch < plan_.pipelines[pipeline].sink_launches);
}

std::vector<std::string> RankHooks::flag_buffers(const PipelineSpec& pipeline) {
  std::vector<std::string> names;
  for (const CheckSpec& c : pipeline.checks) {
    names.push_back(c.flag_buffer);
    if (!c.need_buffer.empty()) names.push_back(c.need_buffer);
  }
  return names;
}

std::vector<int64_t> RankHooks::flag_values(const std::vector<std::string>& names, const std::map<std::string, AllocatedBuffer>& buffers) {
  std::vector<int64_t> values;
  for (const std::string& n : names) values.push_back(read_words(buffers.at(n), 1)[0]);
  return values;
}

bool RankHooks::write_flags(const PipelineSpec& pipeline, const std::vector<std::string>& names, const std::vector<int64_t>& mine,
                            const std::vector<int64_t>& maxima, std::map<std::string, AllocatedBuffer>& buffers) {
  bool raised = false;
  for (const CheckSpec& c : pipeline.checks) {
    const auto at = static_cast<size_t>(std::find(names.begin(), names.end(), c.flag_buffer) - names.begin());
    raised = raised || maxima[at] != 0;
  }
  if (!raised) return false;
  for (size_t i = 0; i < names.size(); ++i) {
    if (maxima[i] == mine[i]) continue;
    write_words(buffers.at(names[i]), {maxima[i]});
  }
  return true;
}

std::vector<LaunchStats> RankHooks::after_launch(size_t p, size_t launch, std::map<std::string, AllocatedBuffer>& buffers,
                                                 std::map<std::string, int64_t>& params) {
  const PipelineSpec& pipeline = plan_.pipelines[p];
  if (launch != d_.exchange_after[p] || comm_.size() == 1) return {};  // one rank holds everything
  if (!d_.partitioned[p] && !d_.rank0_only[p] && d_.merges_after[p].empty()) return {};
  // One collective: whether every rank got here, and the maximum of each overflow flag over ranks.
  const std::vector<std::string> names = flag_buffers(pipeline);
  std::vector<int64_t> mine;
  std::optional<RankFailure> failed;
  try {
    backend_.synchronize();
    mine = flag_values(names, buffers);
  } catch (const Error& e) {
    failed = RankFailure{comm_.rank(), e.exit_code(), e.what()};
  }
  std::vector<int64_t> maxima = mine;
  if (failed) maxima.clear();
  agree_or_throw(comm_, failed, failed ? nullptr : &maxima);
  std::vector<LaunchStats> done;
  try {
    if (write_flags(pipeline, names, mine, maxima, buffers)) return {};  // the executor's checks restart or fail on every rank
    for (const StateMerge* m : d_.merges_after[p]) {
      const double ms = merge_state(comm_, backend_, plan_, *m, buffers, params, module_);
      LaunchStats l;
      l.kernel = std::string("merge ") + m->what + " (" + state_merge_kind_name(m->kind) + ", " + std::to_string(comm_.size()) + " ranks)";
      l.library = comm_.transport();
      l.ms = ms;
      done.push_back(std::move(l));
    }
  } catch (const std::exception& e) {
    // The other ranks wait inside the exchange: nothing but ending them all is left.
    std::fprintf(stderr, "horseqc: rank %d: error during the exchange after %s: %s\n", comm_.rank(), pipeline.name.c_str(), e.what());
    std::fflush(stderr);
    comm_.abort(5);
  }
  return done;
}

}  // namespace hqc::runtime

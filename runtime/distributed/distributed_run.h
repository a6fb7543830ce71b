// One rank's part of a distributed query run: the executor's PipelineHooks (executor.h) that skip what
// only rank 0 runs and, after the sink launches of a pipeline over the rank's partition, agree on
// failures, make the overflow flags every rank's, and merge the state the pipeline completed
// (distribution.h, state_merge.h).
//
// Contract:
//   - every exchange starts with Communicator::agree() — which also carries the overflow flags — : a
//     rank that failed anywhere before it (and
//     went to its own agree()) ends the query on every rank with AgreedFailure, carrying that rank's
//     exit code and message; a failure inside an exchange (after agree) aborts every rank with the
//     message on stderr, since the others already wait in a collective;
//   - overflow flags and their need counters are the maximum over ranks before the executor reads
//     them, so every rank restarts (or fails) together and grows its capacities alike;
//   - merges run only when no flag was raised anywhere (a restart discards the state anyway).
//   - a run of one rank exchanges nothing (its state is already whole).
#pragma once

#include "runtime/distributed/communicator.h"
#include "runtime/distributed/distribution.h"
#include "runtime/execution/executor.h"
#include "storage/error.h"

namespace hqc::runtime {

// A failure every rank agreed on (Communicator::agree): on the failing rank the original error, on
// the others "rank R: <its message>" with its exit code. Whoever catches it must not agree again.
class AgreedFailure : public Error {
 public:
  explicit AgreedFailure(const RankFailure& f);
  const RankFailure& failure() const { return failure_; }

 private:
  RankFailure failure_;
};

// agree(mine, maxima) and, when any rank failed, throw AgreedFailure.
void agree_or_throw(Communicator& comm, const std::optional<RankFailure>& mine = std::nullopt, std::vector<int64_t>* maxima = nullptr);

class RankHooks final : public PipelineHooks {
 public:
  // `plan` and `distribution` (distribute(plan, ...)) must outlive the hooks.
  RankHooks(Communicator& comm, Backend& backend, const ExecutablePlan& plan, const Distribution& distribution)
      : comm_(comm), backend_(backend), plan_(plan), d_(distribution) {}

  bool runs_launch(size_t pipeline, size_t launch) override;
  std::vector<LaunchStats> after_launch(size_t pipeline, size_t launch, std::map<std::string, AllocatedBuffer>& buffers,
                                        std::map<std::string, int64_t>& params) override;
  void module_loaded(const Module& module) override { module_ = &module; }

 private:
  // The buffers of the pipeline's overflow checks (flags and need counters), element 0 of each.
  static std::vector<std::string> flag_buffers(const PipelineSpec& pipeline);
  static std::vector<int64_t> flag_values(const std::vector<std::string>& names, const std::map<std::string, AllocatedBuffer>& buffers);
  // The maximum over ranks written where this rank's differs; whether any flag is raised anywhere.
  static bool write_flags(const PipelineSpec& pipeline, const std::vector<std::string>& names, const std::vector<int64_t>& mine,
                          const std::vector<int64_t>& maxima, std::map<std::string, AllocatedBuffer>& buffers);

  Communicator& comm_;
  Backend& backend_;
  const ExecutablePlan& plan_;
  const Distribution& d_;
  const Module* module_ = nullptr;  // for the device top-k before a merge (StateMerge::top_k)
};

}  // namespace hqc::runtime

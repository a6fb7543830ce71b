// The per-run state of an ExecutablePlan, shared by the sequential Executor and the concurrent /
// streamed one: state buffers sized by the resolved parameters and initialised, scalar kernel
// arguments, and the overflow checks after a pipeline.
//
// Contract:
//   - allocate_state() frees nothing itself: the caller clears its previous state first. It throws
//     Error(Device) naming the plan when the buffers need more than the device's global memory.
//     Fills are issued on the backend's default queue (asynchronous); call Backend::synchronize()
//     before streams use the buffers.
//   - check_pipeline() reads each CheckSpec's flag: a raised Fail flag throws (Unsupported for an
//     exactness limit, Internal for a compiler or statistics error); the first raised Grow flag is
//     returned (nullptr when none), so the caller doubles its capacities and restarts.
//   - OverflowRestarts is THE overflow restart loop of every executor: before each attempt every
//     plan's previous state is freed and the state for its current parameters allocated and filled
//     (the device synchronised, so streams see the fills); an attempt that throws OverflowRestart
//     (after check_pipeline() returned a Grow check) spends that plan's rebuild budget, doubles the
//     capacities the check names (grow_for_rerun) and runs again from the first pipeline.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "runtime/device/backend.h"
#include "runtime/execution/executable_plan.h"
#include "runtime/execution/result_assembly.h"

namespace hqc::runtime {

// fixed_elements + multiplier · params[elements_param], at least 1.
uint64_t buffer_elements(const BufferSpec& buffer, const std::map<std::string, int64_t>& params, const std::string& label);
// Device bytes of the state buffers of `plan` under `params`, but those sized by a `deferred`
// parameter (a counted capacity not known yet, CountedCapacity).
uint64_t state_bytes(const ExecutablePlan& plan, const std::map<std::string, int64_t>& params,
                     const std::set<std::string>& deferred = {});

// One buffer of `spec` sized by `params` and initialised as it says (Zero, Pattern, Contents; None
// left as allocated). `label` names the plan in errors.
AllocatedBuffer allocate_buffer(Backend& backend, const BufferSpec& spec, const std::map<std::string, int64_t>& params,
                                const std::string& label);

// Every state buffer but those sized by a `deferred` parameter (allocated by the executor once the
// count that bounds it is read, allocate_counted).
std::map<std::string, AllocatedBuffer> allocate_state(Backend& backend, const ExecutablePlan& plan,
                                                      const std::map<std::string, int64_t>& params,
                                                      const std::set<std::string>& deferred = {});

// The parameters whose buffers wait for a count (every CountedCapacity's deferred_params): the
// `deferred` set an executor starts a run with.
std::set<std::string> counted_params(const ExecutablePlan& plan);

// For each counted capacity of `plan` still in `deferred` whose first use is pipeline `pipeline` or
// earlier: its count read (the counting build has run), the parameter lowered to the slots the
// count needs where that is smaller, the buffers it sizes allocated and initialised, and the
// parameter taken out of `deferred` (later attempts allocate it up front). Returns whether it
// allocated anything (fills on the default queue: synchronise before streams use them).
bool allocate_counted(Backend& backend, const ExecutablePlan& plan, size_t pipeline, std::map<std::string, int64_t>& params,
                      std::map<std::string, AllocatedBuffer>& buffers, std::set<std::string>& deferred);

// F64 values arrive as their bit pattern (the parameter maps hold int64).
KernelArg scalar_arg(int64_t value, ScalarKind kind);

// The value a ParamFromBuffer names, read after the pipeline that wrote it: element f.element of f.buffer
// (integers widened, doubles as their bits). Throws Error(Unsupported) when f.nonzero_buffer says
// the single-tuple aggregate behind the value saw no rows (the value is SQL NULL).
int64_t param_from_buffer(const ExecutablePlan& plan, const ParamFromBuffer& f, const std::map<std::string, AllocatedBuffer>& buffers);

// The values of a Grow check's grow_params for the re-run: doubled, and at least what its
// need_buffer says the pipeline needed.
void grow_for_rerun(const CheckSpec& check, const std::map<std::string, AllocatedBuffer>& buffers,
                    std::map<std::string, int64_t>& params);

// How often each structure (a Grow check, by its flag buffer) was grown: each may double
// `max_rebuilds` times — several underestimated structures of one query grow in turn, none of
// them starved by the others' rebuilds. spend() throws Error(Device) once one has used its share.
class RebuildBudget {
 public:
  explicit RebuildBudget(int max_rebuilds) : max_(max_rebuilds) {}
  void spend(const CheckSpec& check, const std::string& label);

 private:
  int max_;
  std::map<std::string, int> used_;
};

const CheckSpec* check_pipeline(const ExecutablePlan& plan, const PipelineSpec& pipeline,
                                const std::map<std::string, AllocatedBuffer>& buffers);

// Thrown by an attempt when a Grow check of plan `plan` (its index in the run) fired.
struct OverflowRestart {
  size_t plan = 0;
  const CheckSpec* check = nullptr;
};

// One run's plans with their parameters and state, restarted until no Grow check fires.
class OverflowRestarts {
 public:
  // `params` and `buffers` hold one entry per plan and outlive this object; the budgets last as long
  // as it does (across repetitions of the query).
  // `deferred` (optional, one set per plan): parameters whose buffers an attempt allocates itself
  // (allocate_counted); the attempt takes a parameter out once it has, so a re-run sizes it up front.
  OverflowRestarts(Backend& backend, std::vector<const ExecutablePlan*> plans, std::vector<std::map<std::string, int64_t>>& params,
                   std::vector<std::map<std::string, AllocatedBuffer>>& buffers, int max_rebuilds,
                   std::vector<std::set<std::string>>* deferred = nullptr);
  // Runs `attempt` until it returns without an OverflowRestart. `label` names the run in the
  // watchdog; the time spent allocating and filling state is added to `setup_ms`, every restart to
  // `rebuilds`.
  void run(const std::string& label, const std::function<void()>& attempt, double& setup_ms, int& rebuilds);

 private:
  Backend& backend_;
  std::vector<const ExecutablePlan*> plans_;
  std::vector<std::map<std::string, int64_t>>& params_;
  std::vector<std::map<std::string, AllocatedBuffer>>& buffers_;
  std::vector<RebuildBudget> budgets_;
  std::vector<std::set<std::string>>* deferred_;
};

}  // namespace hqc::runtime

// State buffers, scalar arguments and overflow checks of one run; see plan_state.h.
#include "runtime/execution/plan_state.h"

#include <algorithm>
#include <bit>
#include <chrono>

#include "runtime/execution/watchdog.h"
#include "storage/error.h"

namespace hqc::runtime {

uint64_t buffer_elements(const BufferSpec& b, const std::map<std::string, int64_t>& params, const std::string& label) {
  uint64_t elements = b.fixed_elements;
  if (!b.elements_param.empty()) {
    const int64_t p = params.at(b.elements_param);
    if (p < 0) {
      throw Error(ErrorKind::Internal, label + ": buffer " + b.name + " sized by parameter " + b.elements_param +
                                           " = " + std::to_string(p) + " (negative)");
    }
    elements += b.multiplier * static_cast<uint64_t>(p);
  }
  return std::max<uint64_t>(elements, 1);  // kernels may take the address of an empty output
}

uint64_t state_bytes(const ExecutablePlan& plan, const std::map<std::string, int64_t>& params, const std::set<std::string>& deferred) {
  uint64_t bytes = 0;
  for (const BufferSpec& spec : plan.buffers)
    if (!deferred.count(spec.elements_param)) bytes += buffer_elements(spec, params, plan.label) * element_bytes(spec.element);
  return bytes;
}

AllocatedBuffer allocate_buffer(Backend& backend, const BufferSpec& spec, const std::map<std::string, int64_t>& params,
                                const std::string& label) {
  AllocatedBuffer allocated;
  allocated.spec = &spec;
  allocated.elements = buffer_elements(spec, params, label);
  allocated.buffer = backend.allocate(allocated.elements * element_bytes(spec.element));
  if (spec.init == BufferSpec::Init::Zero) {
    allocated.buffer.fill_u32(0);
  } else if (spec.init == BufferSpec::Init::Contents) {
    const uint64_t bytes = allocated.elements * element_bytes(spec.element);
    if (spec.contents.size() < bytes) {
      throw Error(ErrorKind::Internal, label + ": buffer " + spec.name + " needs " + std::to_string(bytes) +
                                           " bytes of contents, the plan has " + std::to_string(spec.contents.size()));
    }
    allocated.buffer.upload(spec.contents.data(), bytes);
  } else if (spec.init == BufferSpec::Init::Pattern) {
    if (element_bytes(spec.element) == 4) {
      allocated.buffer.fill_u32(static_cast<uint32_t>(spec.pattern));
    } else {
      allocated.buffer.fill_u64(spec.pattern);
    }
  }
  return allocated;
}

std::map<std::string, AllocatedBuffer> allocate_state(Backend& backend, const ExecutablePlan& plan,
                                                      const std::map<std::string, int64_t>& params,
                                                      const std::set<std::string>& deferred) {
  const uint64_t needed = state_bytes(plan, params, deferred);
  if (needed > backend.properties().global_memory) {
    // The library models materialize intermediates (their lanes, offsets and operator outputs).
    const bool materializes = plan.model == "multi_pass" || plan.model == "operator_at_a_time";
    throw Error(ErrorKind::Device, plan.label + (plan.model.empty() ? "" : " (" + plan.model + " model)") + ": state buffers" +
                                       (materializes ? " and materialized intermediates" : "") + " need " +
                                       std::to_string(needed) + " bytes (" + std::to_string(needed >> 20) + " MiB) but " +
                                       backend.properties().name + " has " +
                                       std::to_string(backend.properties().global_memory >> 20) + " MiB" +
                                       (materializes ? "; the resolution and pipelined models materialize none" : ""));
  }
  std::map<std::string, AllocatedBuffer> buffers;
  for (const BufferSpec& spec : plan.buffers)
    if (!deferred.count(spec.elements_param)) buffers.emplace(spec.name, allocate_buffer(backend, spec, params, plan.label));
  return buffers;
}

std::set<std::string> counted_params(const ExecutablePlan& plan) {
  std::set<std::string> out;
  for (const CountedCapacity& c : plan.counted)
    for (const std::string& p : c.deferred_params()) out.insert(p);
  return out;
}

bool allocate_counted(Backend& backend, const ExecutablePlan& plan, size_t pipeline, std::map<std::string, int64_t>& params,
                      std::map<std::string, AllocatedBuffer>& buffers, std::set<std::string>& deferred) {
  bool allocated = false;
  for (const CountedCapacity& c : plan.counted) {
    if (c.first_use > pipeline || !deferred.count(c.param)) continue;
    const int64_t count = read_ints(buffers.at(c.count_buffer), 1)[0];
    int64_t& value = params.at(c.param);
    value = std::min(value, c.slots(count));
    for (const std::string& p : c.same) params.at(p) = value;
    const std::vector<std::string> names = c.deferred_params();
    const std::set<std::string> sizing(names.begin(), names.end());
    for (const BufferSpec& spec : plan.buffers) {
      if (!sizing.count(spec.elements_param)) continue;
      buffers.insert_or_assign(spec.name, allocate_buffer(backend, spec, params, plan.label));
      allocated = true;
    }
    for (const std::string& p : sizing) deferred.erase(p);
  }
  return allocated;
}

KernelArg scalar_arg(int64_t value, ScalarKind kind) {
  switch (kind) {
    case ScalarKind::I32: return KernelArg::int32(static_cast<int32_t>(value));
    case ScalarKind::I64: return KernelArg::int64(value);
    case ScalarKind::U64: return KernelArg::uint64(static_cast<uint64_t>(value));
    case ScalarKind::F64: return KernelArg::float64(std::bit_cast<double>(value));
  }
  return KernelArg::int64(value);
}

int64_t param_from_buffer(const ExecutablePlan& plan, const ParamFromBuffer& f, const std::map<std::string, AllocatedBuffer>& buffers) {
  if (!f.nonzero_buffer.empty() && read_ints(buffers.at(f.nonzero_buffer), 1)[0] == 0) {
    throw Error(ErrorKind::Unsupported,
                plan.label + ": " + f.what + " is NULL (its aggregate saw no rows); NULL values are not supported yet");
  }
  const AllocatedBuffer& b = buffers.at(f.buffer);
  if (b.spec->element != ElementType::F64) return read_ints(b, f.element + 1)[f.element];
  return std::bit_cast<int64_t>(read_floats(b, f.element + 1)[f.element]);
}

void grow_for_rerun(const CheckSpec& check, const std::map<std::string, AllocatedBuffer>& buffers,
                    std::map<std::string, int64_t>& params) {
  const int64_t need = check.need_buffer.empty() ? 0 : read_ints(buffers.at(check.need_buffer), 1)[0];
  for (const std::string& p : check.grow_params) params[p] = std::max<int64_t>({1, params[p] * 2, need});
}

void RebuildBudget::spend(const CheckSpec& check, const std::string& label) {
  if (++used_[check.flag_buffer] > max_)
    throw Error(ErrorKind::Device, label + ": " + check.what + " still overflows after " + std::to_string(max_) +
                                       " rebuilds with doubled capacity");
}

const CheckSpec* check_pipeline(const ExecutablePlan& plan, const PipelineSpec& pipeline,
                                const std::map<std::string, AllocatedBuffer>& buffers) {
  for (const CheckSpec& check : pipeline.checks) {
    if (read_ints(buffers.at(check.flag_buffer), 1)[0] == 0) continue;
    if (check.action == CheckSpec::Action::Fail) {
      throw Error(check.fail_kind, plan.label + ": " + pipeline.name + ": " + check.what + " overflowed" +
                                       (check.fail_kind == ErrorKind::Unsupported
                                            ? "; horseqc cannot compute this result exactly"
                                            : " (a bug: please report it with the query)"));
    }
    return &check;
  }
  return nullptr;
}

OverflowRestarts::OverflowRestarts(Backend& backend, std::vector<const ExecutablePlan*> plans,
                                   std::vector<std::map<std::string, int64_t>>& params,
                                   std::vector<std::map<std::string, AllocatedBuffer>>& buffers, int max_rebuilds,
                                   std::vector<std::set<std::string>>* deferred)
    : backend_(backend), plans_(std::move(plans)), params_(params), buffers_(buffers),
      budgets_(plans_.size(), RebuildBudget(max_rebuilds)), deferred_(deferred) {}

void OverflowRestarts::run(const std::string& label, const std::function<void()>& attempt, double& setup_ms, int& rebuilds) {
  for (;;) {
    const auto setup_start = std::chrono::steady_clock::now();
    {
      Watchdog::Phase phase(label, "transfer", rebuilds ? "state after a rebuild" : "state");
      for (size_t q = 0; q < plans_.size(); ++q) {
        buffers_[q].clear();  // frees the previous attempt's state before allocating the grown one
        buffers_[q] = allocate_state(backend_, *plans_[q], params_[q], deferred_ ? deferred_->at(q) : std::set<std::string>{});
      }
      backend_.synchronize();  // the fills ran on the default queue; streams must see them
    }
    setup_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - setup_start).count();
    try {
      attempt();
      return;  // every pipeline ran and no flag was raised
    } catch (const OverflowRestart& restart) {
      backend_.synchronize();
      ++rebuilds;
      budgets_.at(restart.plan).spend(*restart.check, plans_[restart.plan]->label);
      grow_for_rerun(*restart.check, buffers_[restart.plan], params_[restart.plan]);
    }
  }
}

}  // namespace hqc::runtime

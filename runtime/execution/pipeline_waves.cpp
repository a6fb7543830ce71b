// The dependency DAG of a plan's pipelines and its waves; see pipeline_waves.h.
#include "runtime/execution/pipeline_waves.h"

#include <algorithm>
#include <set>
#include <string>

namespace hqc::runtime {

namespace {

struct Touches {
  std::set<std::string> buffers;
  std::set<std::string> writes;  // buffers a launch may write (ArgSpec::written)
  std::set<std::string> sets;  // parameters set by its params_from_buffers
  std::set<std::string> uses;  // parameters its launches read
};

Touches touches_of(const PipelineSpec& pipeline) {
  Touches t;
  for (const LaunchSpec& launch : pipeline.launches) {
    for (const ArgSpec& a : launch.args) {
      if (a.kind == ArgSpec::Kind::Buffer) t.buffers.insert(a.name);
      if (a.kind == ArgSpec::Kind::Buffer && a.written) t.writes.insert(a.name);
      if (a.kind == ArgSpec::Kind::Param) t.uses.insert(a.name);
    }
    if (!launch.tuples_param.empty()) t.uses.insert(launch.tuples_param);
    for (const auto& [param, bytes] : launch.scratch_bytes_per_param) {
      (void)bytes;
      t.uses.insert(param);
    }
    for (const LaunchSpec::ScratchSlotBound& bound : launch.scratch_slot_bounds) t.uses.insert(bound.param);
  }
  for (const ParamFromBuffer& f : pipeline.params_from_buffers) {
    t.buffers.insert(f.buffer);
    if (!f.nonzero_buffer.empty()) t.buffers.insert(f.nonzero_buffer);
    t.sets.insert(f.param);
  }
  for (const CheckSpec& check : pipeline.checks) {
    // Checked after its wave, and reset by the host when the pipeline restarts: as good as written.
    t.buffers.insert(check.flag_buffer);
    t.writes.insert(check.flag_buffer);
  }
  return t;
}

bool intersects(const std::set<std::string>& a, const std::set<std::string>& b) {
  for (const std::string& x : a) {
    if (b.contains(x)) return true;
  }
  return false;
}

}  // namespace

PipelineWaves pipeline_waves(const ExecutablePlan& plan) {
  const size_t n = plan.pipelines.size();
  std::vector<Touches> touches;
  touches.reserve(n);
  for (const PipelineSpec& pipeline : plan.pipelines) touches.push_back(touches_of(pipeline));

  PipelineWaves result;
  result.wave.assign(n, 0);
  result.after.resize(n);
  for (size_t q = 0; q < n; ++q) {
    for (size_t p = 0; p < q; ++p) {
      const Touches& a = touches[p];
      const Touches& b = touches[q];
      const bool buffer = intersects(a.writes, b.buffers) || intersects(a.buffers, b.writes);
      const bool param = intersects(a.sets, b.uses) || intersects(a.sets, b.sets) || intersects(a.uses, b.sets);
      if (!buffer && !param) continue;
      result.after[q].push_back(p);
      result.wave[q] = std::max(result.wave[q], result.wave[p] + (buffer ? 1 : 0));
    }
    result.waves = std::max(result.waves, result.wave[q] + 1);
  }
  return result;
}

}  // namespace hqc::runtime

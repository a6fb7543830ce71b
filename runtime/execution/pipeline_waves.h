// Which pipelines of one plan may run at the same time: the dependency DAG of its pipelines, from
// the state buffers and run-time parameters they touch, layered into waves.
//
// Contract:
//   - A pipeline touches a state buffer when one of its launches takes it as an argument
//     (ArgSpec::Kind::Buffer), one of its ParamFromBuffers reads it (buffer, nonzero_buffer) or one
//     of its CheckSpecs reads it as a flag; it writes it when a launch takes it with
//     ArgSpec::written (the generated kernels declare the others const; other launches count as
//     writing) or checks it (the host resets a flag when the pipeline restarts). A buffer two pipelines share orders them as the plan does — q (later in the plan)
//     runs in a later wave than p — unless neither writes it: two probes of one hash table (TPC-H
//     Q21's EXISTS builds, both reduced by the orders table) run at once.
//   - A pipeline sets a parameter through its params_from_buffers and uses one as a launch argument,
//     a tuple count, a scratchpad size or a scratchpad bound. When p and q (p earlier) both touch a
//     parameter and one of them sets it, q runs in p's wave or later: the executor reads the values
//     of a wave's ParamFromBuffers on the host before issuing the wave and assigns them pipeline by
//     pipeline in plan order, so every launch sees the value it sees when the pipelines run one
//     after the other.
//   - Columns are read only and never order pipelines.
//   - wave[q] = the least wave meeting every constraint (0 without any): the pipelines of a wave
//     are independent; running the waves in order, each wave's pipelines at the same time, with
//     the device synchronised between waves, computes what the plan's order computes.
//   - after[q] lists the earlier pipelines q depends on (shared buffer or parameter), ascending.
#pragma once

#include <cstddef>
#include <vector>

#include "runtime/execution/executable_plan.h"

namespace hqc::runtime {

struct PipelineWaves {
  std::vector<size_t> wave;                 // per pipeline
  std::vector<std::vector<size_t>> after;   // per pipeline: the earlier pipelines it depends on
  size_t waves = 0;                         // number of waves (max wave + 1; 0 without pipelines)
};

PipelineWaves pipeline_waves(const ExecutablePlan& plan);

}  // namespace hqc::runtime

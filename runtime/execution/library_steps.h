// The library primitives between a pipeline's launches (multi-pass model: PipelineSpec::
// library_steps), run on the backend's DevicePrimitives (CUB on CUDA, Boost.Compute on OpenCL).
//
// Contract:
//   - run_library_step() starts after all work issued on the backend's default queue/stream and has
//     completed when it returns (device_primitives.h); launches on other streams must have been
//     synchronised by the caller (the Executor runs plans with library steps one pipeline after the
//     other, each launch synchronised).
//   - the step processes params[count_param] elements (a negative value is 0); its outcome goes to
//     params[result_param] when that is set: InclusiveScan the last element (the total; 0 without
//     elements) capped at params[limit_param], Reduce 1 when it saw values (else 0), ReduceByKey the
//     number of runs.
//   - returns the step's wall time in ms (measured on the host around the synchronised call).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "runtime/device/backend.h"
#include "runtime/execution/executable_plan.h"
#include "runtime/execution/result_assembly.h"

namespace hqc::runtime {

double run_library_step(Backend& backend, const LibraryStep& step, std::map<std::string, AllocatedBuffer>& buffers,
                        std::map<std::string, int64_t>& params);

}  // namespace hqc::runtime

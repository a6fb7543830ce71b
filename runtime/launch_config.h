// Launch geometry of one kernel launch under the run's parameters: block size, grid and dynamic
// scratchpad, checked against the compiled kernel and the device before anything is launched.
//
// Contract:
//   - expects a LaunchSpec from a validated plan (every parameter it names is in `params`);
//   - the block size is the plan's, lowered when the compiled kernel cannot run that many threads
//     (register pressure) or when the per-thread part of the scratchpad does not fit the device's
//     per-block shared memory at that size; a lowered size keeps the kernel's block multiple /
//     power-of-two constraint, so the local-resolution primitives stay correct;
//   - never returns a configuration whose scratchpad overruns what the kernel was compiled for or
//     what the device offers: a slot count above a LaunchSpec::ScratchSlotBound, or a scratchpad
//     that no allowed block size fits, throws Error(Unsupported) naming the query, the kernel and
//     the numbers; a kernel that cannot run even its required block multiple throws Error(Device);
//   - pure: reads only its arguments (tests call it with made-up DeviceProperties).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "runtime/backend.h"
#include "runtime/executable_plan.h"

namespace hqc::runtime {

// `label` is the query's name for messages (ExecutablePlan::label).
LaunchConfig choose_launch_config(const std::string& label, const LaunchSpec& launch, const KernelAttributes& kernel,
                                  const std::map<std::string, int64_t>& params, const DeviceProperties& device);

// Dynamic scratchpad bytes per block of `launch` at `block_size` threads under `params`.
uint64_t scratch_bytes_for(const LaunchSpec& launch, uint32_t block_size, const std::map<std::string, int64_t>& params);

}  // namespace hqc::runtime

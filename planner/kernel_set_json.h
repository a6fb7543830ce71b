// The JSON description of a set of kernels (and optionally a streamed input) that horseqc-plan
// reads; docs/planner.md shows the format.
//
// Contract:
//   {"kernels": [{"name": "q1", "threads": N, "registers": R,
//                 "shared_bytes": S, "shared_bytes_per_thread": P}, ...],
//    "stream": {"bytes_in": X, "bytes_out": Y, "h2d_gb_per_s": A, "d2h_gb_per_s": B,
//               "kernel_gb_per_s": C, "chunk_overhead_us": O, "max_chunks": M,
//               "engines": "three" | "one"}}
//   "name" defaults to "k<index>"; "shared_bytes" and "shared_bytes_per_thread" default to 0 and
//   make s(T) = S + P·T; "threads" ≥ 1 and "registers" are required; "stream" is optional and
//   every field in it is required except "max_chunks" (default 1024) and "engines" (default
//   "three"). Unknown keys are errors. Every error is Error(Input) "<source>: $.path: expected ...".
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "planner/knapsack.h"
#include "planner/stream_model.h"

namespace hqc::planner {

struct StreamInput {
  StreamRates rates;
  uint64_t max_chunks = 1024;
  Engines engines = Engines::ThreeEngines;
};

struct KernelSet {
  std::vector<KernelDemand> kernels;
  // The constants of each kernel's s(T) = fixed + per_thread·T, for printing.
  std::vector<std::pair<uint64_t, uint64_t>> shared_terms;
  std::optional<StreamInput> stream;
};

KernelSet kernel_set_from_json(const nlohmann::json& json, const std::string& source);
KernelSet load_kernel_set(const std::string& path);

}  // namespace hqc::planner

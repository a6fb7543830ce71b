// Seed 002's synthetic kernel mix (Table I): five kernels with deliberately irregular resource
// needs — the fewer registers, the more shared memory — built from templates/bench/synthetic.h.
//
// Contract:
//   - table_one() is Table I as the paper gives it (registers per thread, shared memory per block)
//     plus what the paper leaves open, chosen here and documented in bench/README.md: whether the
//     kernel is compute- or memory-intensive (I, III, V memory; II, IV compute) and the elements it
//     processes at scale 1 (memory kernels 2^22, compute kernels 2^18; the mix scales them).
//   - synthetic_module() is the kernel's complete module for a dialect: prelude + the template's
//     parameters + the template; on CUDA the options cap registers at Table I's count
//     (-maxrregcount; ptxas may still use fewer, and never goes below its own minimum: the
//     benchmarks report the compiled kernel's real count).
//   - synthetic_reference() is the kernel's output for one input word, computed on the host.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "codegen/dialect.h"
#include "runtime/device/backend.h"

namespace hqc::bench {

struct SyntheticKind {
  const char* name;            // "I" ... "V"
  uint32_t registers;          // Table I: registers per thread
  uint32_t shared_bytes;       // Table I: shared memory per block
  bool compute_intensive;
  uint64_t elements;           // at scale 1
  uint32_t accumulators() const { return registers > 8 ? registers - 8 : 1; }
  uint32_t rounds() const { return compute_intensive ? 48 : 1; }
  uint32_t lut_words() const { return shared_bytes / 4; }
  // The schedule model's view (planner/schedule_model.h): bytes moved per element (a word read and
  // a word written) and lane operations per element, an estimate from the template's loops:
  // accumulators × (rounds × 8 + 3) + 8 — 8 instructions per round of the inner loop (shift, modulo
  // by a constant: 3, table address, shared load, multiply-add, add), 3 per accumulator to set up
  // and fold, 8 per element for the load, the store and the grid-stride loop. Not measured:
  // synthetic-mix prints each kind's predicted and measured time alone to check it.
  uint64_t bytes_per_element() const { return 8; }
  double ops_per_element() const { return accumulators() * (rounds() * 8.0 + 3.0) + 8.0; }
  std::string kernel_name() const { return std::string("hqc_synthetic_") + name; }
};

const std::array<SyntheticKind, 5>& table_one();

runtime::ModuleSource synthetic_module(const SyntheticKind& kind, codegen::Dialect dialect);

uint32_t synthetic_reference(const SyntheticKind& kind, uint32_t x);

}  // namespace hqc::bench

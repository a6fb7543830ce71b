// One state object made whole across ranks (executable_plan.h, StateMerge): after it, every rank
// holds the state as one process over all the rows would have filled it.
//
// Contract:
//   - every rank calls merge_state() for the same merge at the same point (distribution.h);
//   - Elementwise: each lane reduced slot by slot (device collectives: NCCL's all-reduce where the
//     transport has it); a 128-bit sum gathered and added exactly on the host;
//   - HashedGroups: each rank's occupied slots (keys, accumulators, occupancy) gathered, combined by
//     key on the host, written back one group per slot from slot 0, the other slots empty as the
//     table starts; a table too small for the union of the groups is reallocated with the slots it
//     needs (the slots parameter and every buffer sized by it: the compaction's too);
//   - Rows: every rank's rows concatenated in rank order into new buffers of exactly that many rows
//     (not the output's capacity: nothing writes an output after its merge), the counter set to
//     their number. A table split across ranks (StateMerge::after_compaction) merges so its
//     compaction's dense rows, after the compaction: the ranks' groups are disjoint; under ORDER BY
//     ... LIMIT (StateMerge::top_k) only the rows of each rank that can be among the first k, chosen
//     on the device, are concatenated;
//   - Shuffle: each of the rank's rows sent to the rank its key lanes hash to (their values as 64-bit
//     integers, splitmix64-mixed in key order, modulo the ranks), through host memory on every
//     transport; afterwards the buffers hold the rows every rank sent this one, in rank order (a
//     larger buffer where they do not fit), and the counter their number;
//   - floating-point sums are added in another order than one process adds them: equal up to rounding.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "runtime/distributed/communicator.h"
#include "runtime/execution/result_assembly.h"

namespace hqc::runtime {

// The first `count` elements of a state buffer as 64-bit words: integers widened (U32 as unsigned),
// doubles as their bits — what merges and the overflow-flag agreement exchange.
std::vector<int64_t> read_words(const AllocatedBuffer& b, uint64_t count);
// `words` into the buffer from element 0 on, narrowed where its elements are 4 bytes.
void write_words(AllocatedBuffer& b, const std::vector<int64_t>& words);

// Returns the host-measured time of the merge in milliseconds.
// `module`: the query's, for the device top-k of StateMerge::top_k (null: every row is concatenated).
double merge_state(Communicator& comm, Backend& backend, const ExecutablePlan& plan, const StateMerge& merge,
                   std::map<std::string, AllocatedBuffer>& buffers, std::map<std::string, int64_t>& params,
                   const Module* module = nullptr);

}  // namespace hqc::runtime

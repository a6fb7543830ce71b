// IR verifier: checks the invariants every pass must keep (see ir/program.h, ir/pipeline.h).
//
// Contract: verify() throws Error(Internal) with a message naming the pipeline/op/state object
// and the broken invariant ("pipeline p1 op 3: probe of unknown hash table ht7"); it never
// modifies the program. Run by the pass driver after every pass.
#pragma once

#include <string>

#include "ir/program.h"

namespace hqc::ir {

void verify(const Program& program);

}  // namespace hqc::ir

// The pass driver (ir/passes.h): the ordered pass list and the loop that runs, verifies, times,
// skips and dumps.
#include "ir/passes.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>

#include "ir/explain.h"
#include "ir/verifier.h"
#include "storage/error.h"

namespace hqc::ir {

std::vector<Pass> default_passes() {
  return {
      {"shared_aggregations", shared_aggregations},
      {"shared_builds", shared_builds},
      {"reduce_builds", reduce_builds},
      {"order_probes", order_probes},
      {"split_combine", split_combine},
      {"output_bounds", output_bounds},
      {"dictionary_tables", dictionary_tables},
      {"assign_parameters", assign_parameters},
      {"flag_arithmetic", flag_arithmetic},
      {"fuse_pipelines", fuse_pipelines},
      {"compact_result", compact_result},
      {"rank_key_ranges", rank_key_ranges},
      {"narrow_columns", narrow_columns},
      {"launch_constraints", launch_constraints},
  };
}

std::vector<PassTiming> run_passes(Program& program, const std::vector<Pass>& passes, const PassOptions& options) {
  for (const std::string& s : options.skip) {
    if (std::none_of(passes.begin(), passes.end(), [&](const Pass& p) { return p.name == s; })) {
      std::string names;
      for (const Pass& p : passes) names += (names.empty() ? "" : ", ") + p.name;
      throw Error(ErrorKind::Usage, "cannot skip unknown pass \"" + s + "\" (passes: " + names + ")");
    }
  }
  const char* env = std::getenv("HORSEQC_DUMP_IR");
  bool dump = options.dump || (env && *env && std::string(env) != "0");
  if (dump) std::cerr << "=== IR after build_program ===\n" << explain(program);  // also when it fails to verify
  verify(program);  // the builder's output, before any pass
  std::vector<PassTiming> timings;
  for (const Pass& pass : passes) {
    PassTiming t;
    t.name = pass.name;
    if (std::find(options.skip.begin(), options.skip.end(), pass.name) != options.skip.end()) {
      t.skipped = true;
      timings.push_back(t);
      continue;
    }
    auto start = std::chrono::steady_clock::now();
    pass.run(program);
    t.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    try {
      verify(program);
    } catch (const Error& e) {
      throw Error(ErrorKind::Internal, "after pass " + pass.name + ": " + e.what());
    }
    if (dump) std::cerr << "=== IR after " << pass.name << " (" << t.milliseconds << " ms) ===\n" << explain(program);
    timings.push_back(t);
  }
  return timings;
}

}  // namespace hqc::ir

// horseqc-plan: launch parameters for a set of kernels on a device profile, from the planner's
// models (occupancy, kernel-level knapsack, batch packing, stream/chunk model). Needs no GPU.
//
//   horseqc-plan KERNELS.json [--device h100|ccXY|FILE.json] [--stream] [--json]
//   horseqc-plan --device NAME --dump-profile
//
// Thin main: options → planner::load_kernel_set() → plan_concurrent() / optimal_chunks() → print.
// Exit codes as in docs/cli.md (0 ok, 2 usage, 3 bad input file, 4 unsupported compute capability).
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "planner/concurrent_plan.h"
#include "planner/device_profile.h"
#include "planner/kernel_set_json.h"
#include "planner/occupancy.h"
#include "planner/stream_model.h"
#include "storage/error.h"
#include "tools/cli/args.h"

namespace {

using hqc::Error;
using hqc::ErrorKind;
using namespace hqc::planner;

constexpr const char* kUsage = R"(usage: horseqc-plan KERNELS.json [--device h100|ccXY|FILE.json] [--stream] [--json]
       horseqc-plan [--device NAME|FILE.json] --dump-profile

Plans launch parameters for kernels that should run at the same time (one compound kernel per query,
say) on one GPU, without a GPU: the kernel-level knapsack picks blocks per SM and block size for each
kernel; when they cannot all be resident, batch packing (column generation) splits them into the
fewest batches. Prints each kernel's blocks per SM, block size, grid, shared memory per block, its
occupancy alone, and each batch's use of the SM. KERNELS.json (docs/planner.md):

  {"kernels": [{"name": "q1.1", "threads": 270336, "registers": 40,
                "shared_bytes": 2048, "shared_bytes_per_thread": 8}, ...],
   "stream": {"bytes_in": 4.8e9, "bytes_out": 1e6, "h2d_gb_per_s": 55, "d2h_gb_per_s": 55,
              "kernel_gb_per_s": 900, "chunk_overhead_us": 20, "max_chunks": 1024, "engines": "three"}}

"threads": threads the kernel wants over the whole device; shared memory per block is
shared_bytes + shared_bytes_per_thread * block size.

options:
  --device D       built-in profile h100 (default), cc70, cc75, cc80, cc86, cc89, cc90, or a JSON
                   profile file (write one to start from with --dump-profile)
  --stream         also plan chunks for the "stream" section: predicted time and optimal chunk count
                   (engines "three": H->D, kernels and D->H overlap, as on an H100; "one": only H->D
                   overlaps the kernels, seed 001's model)
  --json           print the plan as JSON instead of text
  --dump-profile   print the device profile as JSON and exit
  --help           this text
  --version        the version and the git commit it was built from

exit codes: 0 success, 2 usage error, 3 malformed kernel set or profile, 4 unknown compute capability
)";

DeviceProfile resolve_device(const std::string& spec) {
  const bool is_file = spec.size() > 5 && spec.substr(spec.size() - 5) == ".json";
  return is_file ? load_profile(spec) : named_profile(spec);
}

std::string bytes(uint64_t b) {
  char buf[32];
  if (b >= 1024 && b % 1024 == 0) {
    std::snprintf(buf, sizeof buf, "%llu KiB", static_cast<unsigned long long>(b / 1024));
  } else {
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(b));
  }
  return buf;
}

nlohmann::json plan_json(const DeviceProfile& device, const KernelSet& set, const ConcurrentPlan& plan) {
  nlohmann::json out{{"device", device.name}, {"batches", nlohmann::json::array()}};
  if (!plan.packing.batches.empty()) {
    out["packing"] = {{"method", to_string(plan.packing.method)},
                      {"lp_bound", plan.packing.lp_bound},
                      {"ffd_batches", plan.packing.ffd_batches},
                      {"columns", plan.packing.columns}};
  }
  for (const Batch& b : plan.batches) {
    nlohmann::json kernels = nlohmann::json::array();
    for (size_t j = 0; j < b.kernels.size(); ++j) {
      const KernelDemand& k = set.kernels[b.kernels[j]];
      const KernelLaunch& l = b.plan.launches[j];
      const Occupancy alone = compute_occupancy(device, {l.block_size, k.registers_per_thread, l.shared_per_block});
      kernels.push_back({{"name", k.name},
                         {"blocks_per_sm", l.blocks_per_sm},
                         {"block_size", l.block_size},
                         {"grid_blocks", l.grid_blocks},
                         {"shared_per_block", l.shared_per_block},
                         {"occupancy_alone", alone.occupancy}});
    }
    out["batches"].push_back({{"kernels", kernels},
                              {"warps_per_sm", b.plan.warps_per_sm},
                              {"blocks_per_sm", b.plan.blocks_per_sm},
                              {"shared_per_sm", b.plan.shared_per_sm},
                              {"occupancy", static_cast<double>(b.plan.warps_per_sm) / device.max_warps_per_sm()}});
  }
  return out;
}

void print_plan(const DeviceProfile& device, const KernelSet& set, const ConcurrentPlan& plan) {
  std::printf("device %s: CC %d.%d, %u SMs, %u warps / %u blocks / %u registers / %s shared per SM\n", device.name.c_str(),
              device.cc_major, device.cc_minor, device.sm_count, device.max_warps_per_sm(), device.max_blocks_per_sm,
              device.registers_per_sm, bytes(device.shared_per_sm).c_str());
  if (plan.packing.batches.empty()) {
    std::printf("%zu kernel(s) fit one SM at once: 1 batch (kernel-level knapsack)\n", set.kernels.size());
  } else {
    std::printf("%zu kernels do not fit at once: %zu batches by %s (LP bound %.2f, first-fit-decreasing %zu, %zu columns)\n",
                set.kernels.size(), plan.batches.size(), to_string(plan.packing.method), plan.packing.lp_bound,
                plan.packing.ffd_batches, plan.packing.columns);
  }
  for (size_t bi = 0; bi < plan.batches.size(); ++bi) {
    const Batch& b = plan.batches[bi];
    std::printf("\nbatch %zu: %llu/%u warps, %llu/%u blocks, %s/%s shared per SM, occupancy %.2f\n", bi + 1,
                static_cast<unsigned long long>(b.plan.warps_per_sm), device.max_warps_per_sm(),
                static_cast<unsigned long long>(b.plan.blocks_per_sm), device.max_blocks_per_sm,
                bytes(b.plan.shared_per_sm).c_str(), bytes(device.shared_per_sm).c_str(),
                static_cast<double>(b.plan.warps_per_sm) / device.max_warps_per_sm());
    std::printf("  %-16s %12s %5s %10s %10s %8s %12s %9s  %s\n", "kernel", "threads", "regs", "blocks/SM", "block size",
                "grid", "shared/block", "occ.alone", "limited by (alone)");
    for (size_t j = 0; j < b.kernels.size(); ++j) {
      const KernelDemand& k = plan.capped[b.kernels[j]];
      const KernelLaunch& l = b.plan.launches[j];
      const Occupancy alone = compute_occupancy(device, {l.block_size, k.registers_per_thread, l.shared_per_block});
      std::printf("  %-16s %12llu %5u %10u %10u %8llu %12s %9.2f  %s\n", k.name.c_str(), static_cast<unsigned long long>(k.threads),
                  k.registers_per_thread, l.blocks_per_sm, l.block_size, static_cast<unsigned long long>(l.grid_blocks),
                  bytes(l.shared_per_block).c_str(), alone.occupancy, to_string(alone.limiting));
    }
  }
}

nlohmann::json stream_json(const StreamInput& s, const StreamTimes& t, const ChunkPlan& c) {
  return {{"engines", s.engines == Engines::ThreeEngines ? "three" : "one"},
          {"h2d_s", t.host_to_device},
          {"kernel_s", t.kernel},
          {"d2h_s", t.device_to_host},
          {"chunks", c.chunks},
          {"continuous_optimum", c.continuous_optimum},
          {"predicted_s", c.seconds},
          {"serial_s", c.serial_seconds}};
}

int plan_main(int argc, char** argv) {
  const hqc::cli::Args args =
      hqc::cli::parse(argc, argv, {{"device"}, {"stream", false}, {"json", false}, {"dump-profile", false}});
  if (args.has("help")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  const DeviceProfile device = resolve_device(args.get_or("device", "h100"));
  if (args.has("dump-profile")) {
    std::printf("%s\n", to_json(device).dump(2).c_str());
    return 0;
  }
  if (args.positionals.size() != 1) {
    throw Error(ErrorKind::Usage, "expected one kernel set file: horseqc-plan KERNELS.json [--device D] (see --help)");
  }
  const KernelSet set = load_kernel_set(args.positionals[0]);
  const ConcurrentPlan plan = plan_concurrent(device, set.kernels);
  nlohmann::json json = plan_json(device, set, plan);
  if (!args.has("json")) print_plan(device, set, plan);

  if (args.has("stream")) {
    if (!set.stream) throw Error(ErrorKind::Input, args.positionals[0] + ": $.stream: missing (--stream needs it)");
    const StreamTimes t = from_rates(set.stream->rates);
    const ChunkPlan c = optimal_chunks(t, set.stream->engines, set.stream->max_chunks);
    json["stream"] = stream_json(*set.stream, t, c);
    if (!args.has("json")) {
      std::printf("\nstream, %s: H->D %.6f s, kernels %.6f s, D->H %.6f s, %.1f us per chunk\n", to_string(set.stream->engines),
                  t.host_to_device, t.kernel, t.device_to_host, t.per_chunk_overhead * 1e6);
      std::printf("  chunks %llu (continuous optimum %.2f, at most %llu): predicted %.6f s, without streaming %.6f s\n",
                  static_cast<unsigned long long>(c.chunks), c.continuous_optimum,
                  static_cast<unsigned long long>(set.stream->max_chunks), c.seconds, c.serial_seconds);
    }
  }
  if (args.has("json")) std::printf("%s\n", json.dump(2).c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return hqc::cli::run_main("horseqc-plan", plan_main, argc, argv); }

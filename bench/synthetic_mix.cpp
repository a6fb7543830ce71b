// synthetic-mix: seed 002's synthetic kernel experiment (Table I, Figs. 10–11). Mixes of Table I's
// five kernels (bench/synthetic_kernels.h), one kernel per stream, run with
//   knapsack    launch parameters from planner::plan_concurrent for demands capped, as the runtime
//               caps them (runtime/execution/concurrent_executor.cpp), at an equal share of each SM's warps
//               (⌊W_SM / K⌋ warps on every SM; without the cap every kernel asks for whole SMs and
//               the batch-level model runs them one per batch), batches one after the other,
//   sequential  one kernel at a time, each with the launcher's full-device parameters (decide_launch),
//   random      a random launchable block size and grid per kernel (several seeds),
// checks that every mode's outputs are identical (and equal the host reference on a sample), and
// prints each run's times next to the schedule model's predictions (planner/schedule_model.h with
// the runtime's calibration: read bandwidth, compute throughput, launch overhead; Table I's bytes
// and ops per element from synthetic_kernels.h), the totals, the share of runs the knapsack wins,
// and whether the model's choice (--launch-params auto) was the faster. Before the mixes, each kind
// alone: measured and predicted, to check the model's per-kernel inputs.
//
// Batches (a sequential run has one kernel per batch) follow each other on the device: each stream
// of a batch waits on events recorded after the previous batch's kernels; the host waits once, at
// the end.
//
//   synthetic-mix [--device auto|cuda|opencl] [--set random|fixed] [--streams K] [--runs R]
//                 [--seeds S] [--scale X] [--repeat N] [--csv FILE]
//
// --set fixed: the five kernels in order, repeated to fill K streams (the paper's fixed set);
// random: K kernels drawn uniformly (a different mix each run). Times: wall clock from the first
// launch to the device synchronised, best of --repeat. Exit codes as docs/cli.md; 1 when the
// outputs of two modes differ. Not a test: timings depend on the machine (bench/results/).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench/synthetic_kernels.h"
#include "codegen/dialect.h"
#include "planner/concurrent_plan.h"
#include "planner/occupancy.h"
#include "planner/schedule_model.h"
#include "runtime/device/backend.h"
#include "runtime/execution/concurrent_executor.h"
#include "runtime/execution/executor.h"
#include "runtime/device/kernel_cache.h"
#include "runtime/execution/launch_config.h"
#include "storage/error.h"
#include "tools/cli/args.h"

namespace {

using namespace hqc;
using Clock = std::chrono::steady_clock;

struct Kind {
  bench::SyntheticKind spec;
  std::shared_ptr<runtime::Module> module;
  const runtime::Kernel* kernel = nullptr;
  uint64_t elements = 0;
  runtime::DeviceBuffer input;
  std::vector<uint32_t> host_input;
};

struct Instance {
  size_t kind = 0;
  runtime::DeviceBuffer output;
};

struct Launch {
  runtime::LaunchConfig config;
  uint32_t blocks_per_sm = 0;
  size_t batch = 0;
};

runtime::LaunchSpec launch_spec(const Kind& k) {
  runtime::LaunchSpec spec;
  spec.kernel = k.spec.kernel_name();
  spec.tuples_param = "n";
  spec.items_per_thread = 1;
  spec.strides_over_tiles = true;
  return spec;
}

uint32_t splitmix32(uint64_t i) {
  uint64_t z = i + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return static_cast<uint32_t>(z ^ (z >> 31));
}

int run(int argc, char** argv) {
  const cli::Args args = cli::parse(argc, argv, {{"device"}, {"set"}, {"streams"}, {"runs"}, {"seeds"}, {"scale"},
                                                 {"repeat"}, {"csv"}, {"help", false}});
  if (args.has("help")) {
    std::puts("usage: synthetic-mix [--device auto|cuda|opencl] [--set random|fixed] [--streams K] [--runs R] "
              "[--seeds S] [--scale X] [--repeat N] [--csv FILE]");
    return 0;
  }
  const std::string set = args.get_choice("set", {"random", "fixed"}, "random");
  const long streams = args.get_long("streams", 16);
  const long runs = args.get_long("runs", 10);
  const long seeds = args.get_long("seeds", 5);
  const double scale = args.get_double("scale", 1.0);
  const long repeat = args.get_long("repeat", 3);
  if (streams < 1 || runs < 1 || seeds < 0 || repeat < 1 || !(scale > 0)) {
    throw Error(ErrorKind::Usage, "--streams, --runs, --repeat: at least 1; --seeds: at least 0; --scale: positive");
  }

  auto backend = runtime::open_backend(
      runtime::parse_device_choice(args.get_choice("device", {"auto", "cuda", "opencl"}, "auto")));
  auto cache = runtime::KernelCache::open_default();
  const runtime::DeviceProperties& device = backend->properties();
  const planner::DeviceProfile profile = runtime::device_profile_for(device);
  const codegen::Dialect dialect = backend->dialect();
  std::printf("device: %s\n", backend->device_description().c_str());

  // ---- the five kernels, their inputs and host references ----
  std::vector<Kind> kinds;
  uint64_t salt = 0;
  for (const bench::SyntheticKind& spec : bench::table_one()) {
    ++salt;
    Kind k;
    k.spec = spec;
    k.module = backend->compile(bench::synthetic_module(spec, dialect), cache.get()).module;
    k.kernel = &k.module->kernel(spec.kernel_name());
    k.elements = std::max<uint64_t>(1, static_cast<uint64_t>(static_cast<double>(spec.elements) * scale));
    k.host_input.resize(k.elements);
    for (uint64_t i = 0; i < k.elements; ++i) k.host_input[i] = splitmix32(i * 5 + salt);
    k.input = backend->allocate(k.elements * 4);
    k.input.upload(k.host_input);
    const runtime::KernelAttributes& a = k.kernel->attributes;
    std::printf("kernel %-3s %s: Table I %2u registers, %5u B shared; compiled %2d registers, %5llu B static shared, "
                "%llu B local/thread; %llu elements\n",
                spec.name, spec.compute_intensive ? "compute" : "memory ", spec.registers, spec.shared_bytes,
                a.registers_per_thread, static_cast<unsigned long long>(a.static_shared_bytes),
                static_cast<unsigned long long>(a.local_bytes_per_thread), static_cast<unsigned long long>(k.elements));
    kinds.push_back(std::move(k));
  }

  runtime::Executor executor(*backend, cache.get());
  const auto& cal = executor.calibration();
  const planner::ScheduleDevice sd =
      planner::schedule_device(profile, cal.kernel_bytes_per_s, cal.compute_ops_per_s, cal.per_chunk_overhead_s);
  std::printf("schedule model: read bandwidth %.1f GB/s, compute %.2f T ops/s, launch overhead %.1f us\n",
              sd.bandwidth_bytes_per_s / 1e9, sd.compute_ops_per_s / 1e12, sd.launch_overhead_s * 1e6);

  // Launches issued batch after batch, ordered on the device by events; best wall time of `repeat`.
  struct Issue {
    const Kind* kind;
    const runtime::DeviceBuffer* output;
    const runtime::Stream* stream;
    runtime::LaunchConfig config;
    size_t batch;
  };
  auto timed = [&](const std::vector<Issue>& issues, const std::function<void()>& reset) {
    size_t batches = 0;
    for (const Issue& is : issues) batches = std::max(batches, is.batch + 1);
    double best = 1e300;
    for (long rep = 0; rep < repeat; ++rep) {
      reset();
      backend->synchronize();
      const auto start = Clock::now();
      std::vector<runtime::Event> previous;
      for (size_t b = 0; b < batches; ++b) {
        std::vector<runtime::Event> current;
        for (const Issue& is : issues) {
          if (is.batch != b) continue;
          for (const runtime::Event& e : previous) backend->wait(*is.stream, e);
          backend->launch_on(*is.stream, *is.kind->kernel,
                             {runtime::KernelArg::buf(is.kind->input), runtime::KernelArg::buf(*is.output),
                              runtime::KernelArg::int64(static_cast<int64_t>(is.kind->elements))},
                             is.config);
          current.push_back(backend->record(*is.stream));
        }
        previous = std::move(current);
      }
      backend->synchronize();
      best = std::min(best, std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    }
    return best;
  };

  // ---- each kind alone: the model's per-kernel inputs against a measurement ----
  {
    runtime::Stream stream = backend->create_stream();
    for (const Kind& k : kinds) {
      const runtime::LaunchDecision d =
          runtime::decide_launch(k.spec.name, launch_spec(k), k.kernel->attributes,
                                 {{"n", static_cast<int64_t>(k.elements)}}, device);
      runtime::DeviceBuffer out = backend->allocate(k.elements * 4);
      const double ms = timed({{&k, &out, &stream, d.config, 0}}, [] {});
      const planner::SchedulePrediction p = planner::predict_schedule(
          sd, {{k.spec.name, k.elements * k.spec.bytes_per_element(), d.config.block_size, d.config.grid_blocks,
                std::max<uint32_t>(1, d.blocks_per_sm), 0, static_cast<double>(k.elements) * k.spec.ops_per_element()}});
      std::printf("alone %-3s: block %u, grid %llu; predicted %.3f ms (memory %.3f, compute %.3f, + %.3f overhead), "
                  "measured %.3f ms\n",
                  k.spec.name, d.config.block_size, static_cast<unsigned long long>(d.config.grid_blocks), p.seconds * 1e3,
                  p.kernels[0].memory_finish_s * 1e3, p.kernels[0].compute_finish_s * 1e3, sd.launch_overhead_s * 1e3, ms);
    }
    std::puts("");
  }

  std::ofstream csv_file;
  if (auto path = args.get("csv")) csv_file.open(*path);
  auto csv = [&](const std::string& line) {
    std::puts(line.c_str());
    if (csv_file) csv_file << line << "\n";
  };
  csv("run,set,kernels,mode,seed,ms,predicted_ms");

  double total_knapsack = 0, total_sequential = 0, total_random = 0;
  double predicted_knapsack = 0, predicted_sequential = 0;
  long knapsack_beats_sequential = 0, knapsack_beats_random = 0, random_runs = 0, model_right = 0;
  bool identical = true;
  for (long r = 0; r < runs; ++r) {
    std::mt19937_64 pick(static_cast<uint64_t>(r) + 1);
    std::vector<Instance> instances;
    std::string names;
    for (long s = 0; s < streams; ++s) {
      Instance in;
      in.kind = set == "fixed" ? static_cast<size_t>(s) % kinds.size()
                               : std::uniform_int_distribution<size_t>(0, kinds.size() - 1)(pick);
      in.output = backend->allocate(kinds[in.kind].elements * 4);
      names += (names.empty() ? "" : " ") + std::string(kinds[in.kind].spec.name);
      instances.push_back(std::move(in));
    }
    std::vector<runtime::Stream> queues;
    for (size_t i = 0; i < instances.size(); ++i) queues.push_back(backend->create_stream());

    // ---- launch parameters of each mode ----
    auto params_of = [&](const Instance& in) {
      return std::map<std::string, int64_t>{{"n", static_cast<int64_t>(kinds[in.kind].elements)}};
    };
    std::vector<Launch> sequential;
    for (const Instance& in : instances) {
      const Kind& k = kinds[in.kind];
      const runtime::LaunchDecision d = runtime::decide_launch(k.spec.name, launch_spec(k), k.kernel->attributes,
                                                               params_of(in), device);
      sequential.push_back({d.config, d.blocks_per_sm, sequential.size()});
    }
    // The runtime's equal share: ⌊W_SM / K⌋ warps on every SM (whole warps, so the shares fit W_SM).
    const uint64_t share = uint64_t{std::max<uint32_t>(1, profile.max_warps_per_sm() / static_cast<uint32_t>(streams))} *
                           profile.warp_size * profile.sm_count;
    std::vector<planner::KernelDemand> demands;
    for (const Instance& in : instances) {
      const Kind& k = kinds[in.kind];
      planner::KernelDemand d;
      d.name = k.spec.name;
      d.threads = std::min<uint64_t>(k.elements, share);
      d.registers_per_thread = static_cast<uint32_t>(std::max(0, k.kernel->attributes.registers_per_thread));
      const uint64_t shared = k.kernel->attributes.static_shared_bytes;
      d.shared_per_block = [shared](uint32_t) { return shared; };
      d.max_block_size = std::min<uint32_t>(planner::kMaxBlockSize, k.kernel->attributes.max_threads_per_block > 0
                                                                        ? k.kernel->attributes.max_threads_per_block
                                                                        : planner::kMaxBlockSize);
      demands.push_back(std::move(d));
    }
    const planner::ConcurrentPlan plan = planner::plan_concurrent(profile, demands);
    std::vector<Launch> knapsack(instances.size());
    for (size_t b = 0; b < plan.batches.size(); ++b) {
      for (size_t j = 0; j < plan.batches[b].kernels.size(); ++j) {
        const planner::KernelLaunch& l = plan.batches[b].plan.launches[j];
        Launch& launch = knapsack[plan.batches[b].kernels[j]];
        launch.config.block_size = l.block_size;
        launch.config.grid_blocks = std::max<uint64_t>(1, l.grid_blocks);
        launch.blocks_per_sm = l.blocks_per_sm;
        launch.batch = b;
      }
    }
    auto random_launches = [&](uint64_t seed) {
      std::mt19937_64 rng(seed * 1000003 + static_cast<uint64_t>(r));
      std::vector<Launch> out;
      for (const Instance& in : instances) {
        const Kind& k = kinds[in.kind];
        const std::vector<uint32_t> sizes = runtime::launchable_block_sizes(launch_spec(k), k.kernel->attributes,
                                                                            params_of(in), device);
        if (sizes.empty()) throw Error(ErrorKind::Device, std::string("kernel ") + k.spec.name + " cannot be launched");
        Launch l;
        l.config.block_size = sizes[std::uniform_int_distribution<size_t>(0, sizes.size() - 1)(rng)];
        const planner::Occupancy occ = planner::compute_occupancy(
            profile, {l.config.block_size, static_cast<uint32_t>(std::max(0, k.kernel->attributes.registers_per_thread)),
                      k.kernel->attributes.static_shared_bytes});
        l.blocks_per_sm = occ.blocks_per_sm;
        l.config.grid_blocks = std::uniform_int_distribution<uint64_t>(
            1, std::max<uint64_t>(1, uint64_t{2} * occ.blocks_per_sm * profile.sm_count))(rng);
        out.push_back(l);
      }
      return out;
    };

    // ---- the schedule model's view ----
    auto scheduled = [&](const std::vector<Launch>& launches) {
      std::vector<planner::ScheduledKernel> out;
      for (size_t i = 0; i < instances.size(); ++i) {
        const Kind& k = kinds[instances[i].kind];
        out.push_back({k.spec.name, k.elements * k.spec.bytes_per_element(), launches[i].config.block_size,
                       launches[i].config.grid_blocks, std::max<uint32_t>(1, launches[i].blocks_per_sm), launches[i].batch,
                       static_cast<double>(k.elements) * k.spec.ops_per_element()});
      }
      return out;
    };
    const planner::ScheduleDecision model = planner::choose_schedule(sd, scheduled(knapsack), scheduled(sequential));

    // ---- run a mode: best wall time, outputs downloaded ----
    std::vector<std::vector<uint32_t>> reference;
    auto run_mode = [&](const std::vector<Launch>& launches, const char* mode, long seed) {
      std::vector<Issue> issues;
      for (size_t i = 0; i < instances.size(); ++i) {
        issues.push_back({&kinds[instances[i].kind], &instances[i].output, &queues[i], launches[i].config, launches[i].batch});
      }
      const double best = timed(issues, [&] {
        for (Instance& in : instances) in.output.fill_u32(0);
      });
      for (size_t i = 0; i < instances.size(); ++i) {
        std::vector<uint32_t> got = instances[i].output.download_as<uint32_t>(kinds[instances[i].kind].elements);
        if (reference.size() <= i) {
          reference.push_back(std::move(got));
        } else if (got != reference[i]) {
          identical = false;
          std::fprintf(stderr, "run %ld: %s (seed %ld): output of stream %zu (kernel %s) differs from sequential\n", r,
                       mode, seed, i, kinds[instances[i].kind].spec.name);
        }
      }
      return best;
    };

    const double seq_ms = run_mode(sequential, "sequential", 0);
    // The sequential outputs against the host on a sample of elements.
    for (size_t i = 0; i < instances.size(); ++i) {
      const Kind& k = kinds[instances[i].kind];
      for (uint64_t e = 0; e < k.elements; e += std::max<uint64_t>(1, k.elements / 4096)) {
        if (reference[i][e] != bench::synthetic_reference(k.spec, k.host_input[e])) {
          identical = false;
          std::fprintf(stderr, "run %ld: kernel %s element %llu: device %u, host %u\n", r, k.spec.name,
                       static_cast<unsigned long long>(e), reference[i][e], bench::synthetic_reference(k.spec, k.host_input[e]));
          break;
        }
      }
    }
    const double knap_ms = run_mode(knapsack, "knapsack", 0);
    char line[256];
    std::snprintf(line, sizeof line, "%ld,%s,%s,sequential,0,%.3f,%.3f", r, set.c_str(), names.c_str(), seq_ms,
                  model.sequential.seconds * 1e3);
    csv(line);
    std::snprintf(line, sizeof line, "%ld,%s,%s,knapsack,0,%.3f,%.3f", r, set.c_str(), names.c_str(), knap_ms,
                  model.concurrent.seconds * 1e3);
    csv(line);
    total_sequential += seq_ms;
    total_knapsack += knap_ms;
    predicted_sequential += model.sequential.seconds * 1e3;
    predicted_knapsack += model.concurrent.seconds * 1e3;
    if (knap_ms < seq_ms) ++knapsack_beats_sequential;
    if ((model.choice == planner::ScheduleChoice::Concurrent) == (knap_ms < seq_ms)) ++model_right;
    for (long s = 1; s <= seeds; ++s) {
      const double ms = run_mode(random_launches(static_cast<uint64_t>(s)), "random", s);
      std::snprintf(line, sizeof line, "%ld,%s,%s,random,%ld,%.3f,", r, set.c_str(), names.c_str(), s, ms);
      csv(line);
      total_random += ms;
      ++random_runs;
      if (knap_ms < ms) ++knapsack_beats_random;
    }
  }

  std::printf("\nsummary: %ld runs of %ld kernels (%s set), best of %ld\n", runs, streams, set.c_str(), repeat);
  std::printf("  total ms: knapsack %.3f, sequential %.3f (knapsack speedup %.2fx), random %.3f (mean over seeds)\n",
              total_knapsack, total_sequential, total_sequential / total_knapsack,
              seeds > 0 ? total_random / static_cast<double>(seeds) : 0.0);
  std::printf("  predicted total ms: knapsack %.3f, sequential %.3f (predicted speedup %.2fx); the model chose %s\n",
              predicted_knapsack, predicted_sequential, predicted_sequential / predicted_knapsack,
              predicted_knapsack < predicted_sequential ? "knapsack overall" : "sequential overall");
  std::printf("  knapsack faster than sequential in %ld/%ld runs (%.0f%%)\n", knapsack_beats_sequential, runs,
              100.0 * static_cast<double>(knapsack_beats_sequential) / static_cast<double>(runs));
  if (random_runs > 0) {
    std::printf("  knapsack faster than random parameters in %ld/%ld (run, seed) pairs (%.0f%%)\n", knapsack_beats_random,
                random_runs, 100.0 * static_cast<double>(knapsack_beats_random) / static_cast<double>(random_runs));
  }
  std::printf("  schedule model (auto) picked the faster of knapsack and sequential in %ld/%ld runs\n", model_right, runs);
  std::printf("  outputs identical across modes: %s\n", identical ? "yes" : "NO");
  return identical ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return hqc::cli::run_main("synthetic-mix", run, argc, argv); }

// The executor: runs an ExecutablePlan on a Backend against a Database and returns a Result with
// per-phase timings.
//
// Contract:
//   - Compiles the plan's module once per process and source (in memory) and through the on-disk
//     KernelCache (when given): a repeated query compiles nothing.
//   - The library modules a plan's launches name (library_modules.h: the compaction module) are
//     loaded once per Executor — on CUDA from the fatbin built ahead, else compiled like a module —
//     and linked to the plan's module; ExecutionStats::compile_ms counts their compile too.
//   - Uploads each scanned column once (DeviceColumnCache, shared across pipelines and queries run
//     by the same Executor). Columns stay resident for later queries only while there is room: a
//     query whose columns and state do not fit beside them frees those it does not read, least
//     recently used first.
//   - Resolves run-time parameters from the Database (row counts, statistics, dictionary codes of
//     string literals) — the same compiled source serves every data set.
//   - Pipelines (ExecutorOptions::pipelines):
//       Concurrent (the default): in waves of independent pipelines (pipeline_waves.h: the
//         dependency DAG from the state buffers and parameters each pipeline touches); the
//         pipelines of a wave are issued each on its own stream (CUDA stream / OpenCL command
//         queue) and run at the same time, the device is synchronised after each wave, then the
//         wave's overflow flags are read. The ParamFromBuffer values of a wave are read before it
//         is issued and assigned pipeline by pipeline in plan order.
//       Sequential: one pipeline after the other in the plan's order, each launch synchronised,
//         its overflow flags read right after it (wave = the pipeline's index).
//     Either way a raised flag acts the same: Grow doubles the named capacities and re-runs
//     everything from the first pipeline with fresh buffers; Fail throws. A result is only
//     assembled from a run in which no flag was raised; both schedules give identical results.
//   - Timings: each launch is device-timed (events / profiling info) on its stream; a pipeline's
//     kernel_ms is the sum of its launches' device times. The query's kernel_ms is the sum over
//     waves of each wave's device span (first start to last end of its launches), so pipelines that
//     overlapped count once; sequentially that is the sum of the pipelines' times.
//   - `repeat` > 1 re-runs the pipelines (fresh state each time) and reports the best kernel time;
//     the result of the last repetition is returned.
//   - Block size and grid of every launch come from the planner's occupancy model with the compiled
//     kernel's attributes (decide_launch, launch_config.h); the decision is in stats.pipelines.
//   - Never launches a kernel whose scratchpad overruns what it was compiled for or what the device
//     offers (decide_launch, launch_config.h): Error(Unsupported) instead, or a smaller block.
//   - Never falls back to another device: stats.device says which one ran.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/device/backend.h"
#include "runtime/device/device_columns.h"
#include "runtime/execution/executable_plan.h"
#include "runtime/execution/result_assembly.h"
#include "runtime/device/kernel_cache.h"
#include "runtime/execution/result.h"
#include "storage/table.h"

namespace hqc::runtime {

// How the pipelines of one query are scheduled (see the contract on top).
enum class PipelineSchedule { Concurrent, Sequential };
// "concurrent", "sequential" (as the CLI spells it); Error(Usage) listing them otherwise.
PipelineSchedule parse_pipeline_schedule(std::string_view text);
const char* to_string(PipelineSchedule schedule);

class PipelineHooks;  // below

struct ExecutorOptions {
  int repeat = 1;
  PipelineSchedule pipelines = PipelineSchedule::Concurrent;
  int max_rebuilds = 12;      // capacity doublings before giving up with Error(Device)
  bool time_kernels = true;   // device-timed launches (events / profiling)
  // Distributed runs: the rank's hooks; the pipelines then run one after the other (Sequential).
  PipelineHooks* hooks = nullptr;
  // ORDER BY ... LIMIT k over at least this many groups: candidates chosen on the device (AssemblyOptions).
  uint64_t device_top_k_rows = kDeviceTopKRows;
};

// One launch as the launcher decided it (LaunchDecision, launch_config.h).
struct LaunchStats {
  std::string kernel;
  uint32_t block_size = 0;
  uint64_t grid_blocks = 0;
  uint32_t blocks_per_sm = 0;      // predicted resident blocks per SM / compute unit
  double occupancy = 0;            // predicted active warps / warps per SM
  std::string limited_by;          // "warps", "registers", "shared memory", "blocks"
  // A library call between launches (multi-pass): the library ("CUB 3.0.1 (CCCL)") and the call's
  // host-measured time; `kernel` then names the call, the launch fields are 0.
  std::string library;
  double ms = 0;
};

// What a distributed run adds to the sequential schedule (runtime/distributed/distributed_run.h):
// launches this rank skips (a pipeline only rank 0 runs), and the exchange after a launch — the
// state a pipeline filled made whole across ranks before its overflow checks read it. The executor
// calls these and knows nothing of ranks or transports.
class PipelineHooks {
 public:
  virtual ~PipelineHooks() = default;
  virtual bool runs_launch(size_t pipeline, size_t launch) = 0;
  // After launch `launch` of `pipeline` (run or skipped): may replace buffers and change parameters.
  // Returns what it did, for the pipeline's timings (LaunchStats with `library` set; none: nothing).
  virtual std::vector<LaunchStats> after_launch(size_t pipeline, size_t launch, std::map<std::string, AllocatedBuffer>& buffers,
                                                std::map<std::string, int64_t>& params) = 0;
  // The query's module, once compiled or loaded and before any launch (it outlives the run).
  virtual void module_loaded(const Module& module) { (void)module; }
};

struct PipelineTiming {
  std::string name;
  double kernel_ms = 0;   // sum of its launches' device times (without time_kernels: its wave's wall time)
  size_t wave = 0;        // pipelines of one wave ran at the same time
  // Device start and end of its launches, ms after the start of its wave (0 without time_kernels).
  double start_ms = 0;
  double end_ms = 0;
  std::vector<LaunchStats> launches;
};

// What every run measures, whichever schedule ran it: the phases of one query's end-to-end time.
// ExecutionStats (one query) and ConcurrentStats (several at once, concurrent_executor.h) add what
// their schedule has on top.
struct RunTimes {
  std::string device;               // Backend::device_description()
  double compile_ms = 0;            // compile or cache load (0 when the module was already loaded)
  double transfer_ms = 0;           // column uploads + state buffer allocation/initialisation
  uint64_t transfer_bytes = 0;      // column bytes uploaded by this run
  double kernel_ms = 0;             // one query: its best repetition; several: the phases' wall times
  double finalize_ms = 0;           // read-back, decoding, ORDER BY / LIMIT
  FinalizeParts finalize_parts;     // where finalize_ms went
  int rebuilds = 0;                 // re-runs caused by overflow flags
};

struct ExecutionStats : RunTimes {
  bool compile_cache_hit = false;   // disk cache hit or module already loaded in this process
  // "concurrent" or "sequential" (ExecutorOptions::pipelines); "phases" from the concurrent executor
  // (Executor::run(plans): a wave is a phase of several queries)
  std::string pipeline_schedule = "sequential";
  size_t waves = 0;                 // waves the pipelines ran in (sequential: one per pipeline)
  // kernel_ms (RunTimes): the best repetition, the sum over waves of their device spans
  std::vector<double> kernel_ms_per_repeat;
  std::vector<PipelineTiming> pipelines;  // of the best repetition
  std::map<std::string, int64_t> params;  // resolved parameters of the final run (capacities grown)
  // Capacities a build's count bounded (CountedCapacity): the statistics' value, the run's.
  std::map<std::string, std::pair<int64_t, int64_t>> counted;

  // Multi-line human summary ("device: ...\ncompile: 12.3 ms (cache hit)\n...").
  std::string summary() const;
  // The same as a JSON object (for --format json and bench/results): {"device":..,"compile_ms":..,
  // "compile_cache_hit":..,"transfer_ms":..,"transfer_bytes":..,"pipeline_schedule":..,"waves":..,"kernel_ms":..,
  // "kernel_ms_per_repeat":[..],"pipelines":[{"name":..,"kernel_ms":..,"wave":..,"start_ms":..,"end_ms":..,
  // "launches":[{"kernel":..,"block_size":..,"grid_blocks":..,
  // "blocks_per_sm":..,"occupancy":..,"limited_by":..}]}],"finalize_ms":..,"finalize_parts":{"rows":..,
  // "rows_read":..,"select_ms":..,"order_ms":..,"columns_ms":..,"rest_ms":..},"rebuilds":..,"params":{..},
  // "counted":{param:{"statistics":..,"run":..}} (only where a capacity was counted)}
  std::string to_json() const;
};

struct Execution {
  Result result;
  ExecutionStats stats;
};

struct ConcurrentOptions;  // concurrent_executor.h: the several-queries schedule's options, results
struct ConcurrentRun;      // and calibration
struct Calibration;
class ConcurrentQueriesRun;

// Runs compiled plans on one backend. Two schedules, one restart loop (OverflowRestarts):
//   - one query (run(plan)): its pipelines wave by wave on streams, or one after the other
//     (SingleQueryRun in executor.cpp);
//   - several queries at once (run(plans), concurrent_executor.h): one stream each, pipelines aligned
//     in phases, the planner's concurrent launches, the fact table streamed in chunks when it does not
//     fit (ConcurrentQueriesRun in concurrent_executor.cpp).
class Executor {
 public:
  // `cache` may be null (no disk cache). Both must outlive the Executor. A streamed run keeps the
  // fact table's columns page-locked (in place) until the Executor is destroyed, so the Database a
  // streamed run read must outlive it.
  Executor(Backend& backend, KernelCache* cache);
  ~Executor();

  Execution run(const ExecutablePlan& plan, const Database& database, const ExecutorOptions& options = {});
  ConcurrentRun run(const std::vector<const ExecutablePlan*>& plans, const Database& database, const ConcurrentOptions& options);
  // Whether run(plans) would stream these plans under `options` (Auto: the working set exceeds the limit).
  bool would_stream(const std::vector<const ExecutablePlan*>& plans, const Database& database, const ConcurrentOptions& options);
  // Measured on the first call (concurrent_executor.h, Calibration).
  const Calibration& calibration();

  DeviceColumnCache& device_columns() { return columns_; }
  Backend& backend() { return backend_; }
  KernelCache* kernel_cache() { return cache_; }
  // The loaded module of `source`: from memory, else the disk cache, else the compiler; records
  // compile_ms / compile_cache_hit in `stats` (the concurrent executor loads its plans' modules here).
  std::shared_ptr<Module> module_for(const ModuleSource& source, ExecutionStats& stats);
  // module_for in two steps (Backend::begin_compile / end_compile): run() uploads a query's columns
  // between them, while a CUDA compile runs on its own thread.
  struct PendingModule {
    std::string key;
    std::shared_ptr<Module> loaded;        // already in memory
    // A prefetched compile's own copy of its source, which the compile reads; declared before
    // `compile` so that a pending compile is waited for (its future's destructor) before it goes.
    std::shared_ptr<const ModuleSource> source;
    std::optional<PendingCompile> compile;  // else the backend's compile
  };
  PendingModule begin_module(const ModuleSource& source);
  std::shared_ptr<Module> end_module(PendingModule pending, ExecutionStats& stats);
  // Starts compiling `source` now where the backend compiles off the calling thread (CUDA), so that
  // the begin_module of a later run() finds that compile and waits for it instead of starting one:
  // horseqc-run compiles the next queries while it runs the current one. A no-op for a module that is
  // loaded or already in flight, and where the backend compiles on the calling thread (OpenCL). A
  // compile error surfaces in the run that uses the module. Returns whether a compile started.
  bool prefetch_module(const ModuleSource& source);
  // A plan's module with the library modules its launches name (LaunchSpec::module: the compaction
  // module) linked to it: module_for of each, compiles begun together (on CUDA they overlap); `stats`
  // gets the sum of their compile_ms and a cache hit only when every one was.
  std::shared_ptr<Module> plan_module(const ExecutablePlan& plan, ExecutionStats& stats);
  struct PendingPlanModules {
    PendingModule module;
    std::vector<PendingModule> libraries;
  };
  PendingPlanModules begin_plan_modules(const ExecutablePlan& plan);
  std::shared_ptr<Module> end_plan_modules(PendingPlanModules pending, ExecutionStats& stats);
  // prefetch_module of a plan's module and of the library modules it names.
  void prefetch_plan_modules(const ExecutablePlan& plan);
  // Compiles started by prefetch_module that no run has collected yet.
  size_t modules_in_flight() const { return in_flight_.size(); }
  // Compiles the modules of `plans` as few programs (`group` plans each): one copy of their shared
  // prelude and library, then every plan's kernels — a compiler's fixed cost per program (PoCL:
  // ~0.3 s) paid once per group; run() then finds each plan's module loaded. Plans whose modules
  // cannot be combined (no shared prefix, other options, a kernel name twice) and groups that fail
  // to compile are left to run(), which compiles them one by one and reports their errors. Returns
  // the compile time spent.
  double precompile(const std::vector<const ExecutablePlan*>& plans, size_t group = 24);

 private:
  friend class ConcurrentQueriesRun;
  struct PinnedColumn {
    PinnedBuffer buffer;
    const void* host = nullptr;
    uint64_t bytes = 0;
    uint64_t fingerprint = 0;
  };
  // A column's bytes (`view`: its values, or a heap string's heap) in page-locked host memory,
  // registered in place where the backend can (CUDA), else copied; cached under `key` while the
  // memory and contents stay the same. With `stored_bytes` (a narrowed column's width: narrowed_width,
  // never 0 but for full-width values) the copy holds the values narrowed (narrow_values_parallel;
  // Error(Input) where one does not fit).
  const PinnedBuffer& pinned(const std::string& key, const HostColumnBytes& view, double& pin_ms, uint64_t& registered_bytes,
                             uint64_t& copied_bytes, unsigned stored_bytes = 0);

  Backend& backend_;
  KernelCache* cache_;
  DeviceColumnCache columns_;
  // The sources of the library modules, by name, built once. Declared before in_flight_: a pending
  // compile reads its source until it ends, and members are destroyed in reverse order.
  std::map<std::string, ModuleSource> library_sources_;
  std::set<std::string> prebuilt_tried_;  // library modules whose prebuilt binary was offered to the backend
  std::map<std::string, std::shared_ptr<Module>> modules_;
  std::map<std::string, PendingModule> in_flight_;  // prefetch_module's compiles, by module key
  const ModuleSource& library_source(const std::string& name);
  // begin_module of a library module, its prebuilt binary loaded first where there is one
  // (library_modules.h: CUDA's fatbin), so that it needs no compile.
  PendingModule begin_library(const std::string& name);
  std::unique_ptr<Calibration> calibration_;
  std::map<std::string, PinnedColumn> pinned_;
};


}  // namespace hqc::runtime

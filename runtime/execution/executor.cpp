// Executor::run: compile → resolve parameters → upload columns → (allocate state, run pipelines —
// wave by wave on streams, or one after the other — check overflow flags, grow and restart if
// needed) × repeat → assemble the result.
// Waves are separated by a device synchronisation rather than only by events between streams:
// after a wave the host reads its overflow flags (a probe must not run over a table whose build
// overflowed) and the values of materialised outputs (ParamFromBuffer) that size later launches.
// See executor.h for the guarantees; the restart-from-scratch policy is deliberate: a grown hash
// table changes the state every later pipeline reads, so re-running only one pipeline would need
// the plan to describe every dependency, and an overflow is rare once capacities come from
// statistics.
#include "runtime/execution/executor.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>
#include <sstream>
#include <string_view>
#include <thread>

#include <nlohmann/json.hpp>

#include "runtime/device/database_lookup.h"
#include "runtime/execution/concurrent_executor.h"
#include "runtime/execution/launch_config.h"
#include "runtime/execution/library_modules.h"
#include "runtime/execution/library_steps.h"
#include "runtime/execution/pipeline_waves.h"
#include "runtime/execution/plan_state.h"
#include "runtime/execution/result_assembly.h"
#include "runtime/execution/watchdog.h"
#include "storage/error.h"

namespace hqc::runtime {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

}  // namespace

PipelineSchedule parse_pipeline_schedule(std::string_view text) {
  if (text == "concurrent") return PipelineSchedule::Concurrent;
  if (text == "sequential") return PipelineSchedule::Sequential;
  throw Error(ErrorKind::Usage, "--pipelines: expected concurrent or sequential, got \"" + std::string(text) + "\"");
}

const char* to_string(PipelineSchedule schedule) {
  return schedule == PipelineSchedule::Concurrent ? "concurrent" : "sequential";
}

std::string ExecutionStats::summary() const {
  std::ostringstream out;
  char line[256];
  out << "device: " << device << "\n";
  std::snprintf(line, sizeof(line), "compile: %.2f ms (%s)\n", compile_ms, compile_cache_hit ? "cache hit" : "compiled");
  out << line;
  std::snprintf(line, sizeof(line), "transfer: %.2f ms (%llu bytes of columns uploaded)\n", transfer_ms,
                static_cast<unsigned long long>(transfer_bytes));
  out << line;
  std::snprintf(line, sizeof(line), "kernels: %.3f ms (best of %zu; pipelines %s, %zu wave(s))\n", kernel_ms,
                kernel_ms_per_repeat.size(), pipeline_schedule.c_str(), waves);
  out << line;
  for (const PipelineTiming& p : pipelines) {
    std::snprintf(line, sizeof(line), "  %s: %.3f ms (wave %zu)\n", p.name.c_str(), p.kernel_ms, p.wave);
    out << line;
    for (const LaunchStats& l : p.launches) {
      if (!l.library.empty()) {
        std::snprintf(line, sizeof(line), "    library %s: %.3f ms (%s)\n", l.kernel.c_str(), l.ms, l.library.c_str());
        out << line;
        continue;
      }
      std::snprintf(line, sizeof(line), "    %s: block %u, grid %llu, %u blocks/SM, occupancy %.0f%% (limited by %s)\n",
                    l.kernel.c_str(), l.block_size, static_cast<unsigned long long>(l.grid_blocks), l.blocks_per_sm,
                    100 * l.occupancy, l.limited_by.c_str());
      out << line;
    }
  }
  std::snprintf(line, sizeof(line), "finalize: %.2f ms\n", finalize_ms);
  out << line;
  if (rebuilds > 0) out << "rebuilds after overflow: " << rebuilds << "\n";
  for (const auto& [param, values] : counted)
    out << "counted at run time: " << param << " " << values.second << " slots (statistics: " << values.first << ")\n";
  return out.str();
}

std::string ExecutionStats::to_json() const {
  nlohmann::json j;
  j["device"] = device;
  j["compile_ms"] = compile_ms;
  j["compile_cache_hit"] = compile_cache_hit;
  j["transfer_ms"] = transfer_ms;
  j["transfer_bytes"] = transfer_bytes;
  j["pipeline_schedule"] = pipeline_schedule;
  j["waves"] = waves;
  j["kernel_ms"] = kernel_ms;
  j["kernel_ms_per_repeat"] = kernel_ms_per_repeat;
  j["pipelines"] = nlohmann::json::array();
  for (const PipelineTiming& p : pipelines) {
    nlohmann::json launches = nlohmann::json::array();
    for (const LaunchStats& l : p.launches) {
      if (!l.library.empty()) {
        launches.push_back({{"library_call", l.kernel}, {"library", l.library}, {"ms", l.ms}});
        continue;
      }
      launches.push_back({{"kernel", l.kernel},
                          {"block_size", l.block_size},
                          {"grid_blocks", l.grid_blocks},
                          {"blocks_per_sm", l.blocks_per_sm},
                          {"occupancy", l.occupancy},
                          {"limited_by", l.limited_by}});
    }
    j["pipelines"].push_back({{"name", p.name},
                              {"kernel_ms", p.kernel_ms},
                              {"wave", p.wave},
                              {"start_ms", p.start_ms},
                              {"end_ms", p.end_ms},
                              {"launches", launches}});
  }
  j["finalize_ms"] = finalize_ms;
  j["finalize_parts"] = {{"rows", finalize_parts.rows},          {"rows_read", finalize_parts.rows_read},
                         {"select_ms", finalize_parts.select_ms}, {"order_ms", finalize_parts.order_ms},
                         {"columns_ms", finalize_parts.columns_ms}, {"rest_ms", finalize_parts.rest_ms}};
  j["rebuilds"] = rebuilds;
  j["params"] = params;
  for (const auto& [param, values] : counted) j["counted"][param] = {{"statistics", values.first}, {"run", values.second}};
  return j.dump();
}

namespace {
std::string module_key(const Backend& backend, const ModuleSource& source) {
  std::string key = KernelCache::key_for(backend.cache_identity(), source.source, source.options);
  for (const std::string& k : source.kernel_names) key += "|" + k;
  return key;
}
}  // namespace

Executor::Executor(Backend& backend, KernelCache* cache) : backend_(backend), cache_(cache), columns_(backend) {}
Executor::~Executor() = default;

std::shared_ptr<Module> Executor::module_for(const ModuleSource& source, ExecutionStats& stats) {
  return end_module(begin_module(source), stats);
}

Executor::PendingModule Executor::begin_module(const ModuleSource& source) {
  PendingModule pending;
  pending.key = module_key(backend_, source);
  if (auto it = modules_.find(pending.key); it != modules_.end()) {
    pending.loaded = it->second;
  } else if (auto started = in_flight_.find(pending.key); started != in_flight_.end()) {
    pending = std::move(started->second);
    in_flight_.erase(started);
  } else {
    pending.compile = backend_.begin_compile(source, cache_);
  }
  return pending;
}

bool Executor::prefetch_module(const ModuleSource& source) {
  if (!backend_.compiles_off_thread()) return false;
  PendingModule pending;
  pending.key = module_key(backend_, source);
  if (modules_.count(pending.key) || in_flight_.count(pending.key)) return false;
  // The compile reads its source on another thread until end_compile: a copy of its own, since the
  // caller's plan may move or go before the run that collects it.
  pending.source = std::make_shared<const ModuleSource>(source);
  pending.compile = backend_.begin_compile(*pending.source, cache_);
  std::string key = pending.key;
  in_flight_.emplace(std::move(key), std::move(pending));
  return true;
}

std::shared_ptr<Module> Executor::end_module(PendingModule pending, ExecutionStats& stats) {
  if (pending.loaded) {
    stats.compile_cache_hit = true;
    stats.compile_ms = 0;
    return pending.loaded;
  }
  CompileResult compiled = backend_.end_compile(std::move(*pending.compile));
  stats.compile_cache_hit = compiled.cache_hit;
  stats.compile_ms = compiled.compile_ms;
  modules_[pending.key] = compiled.module;
  return compiled.module;
}

const ModuleSource& Executor::library_source(const std::string& name) {
  auto it = library_sources_.find(name);
  if (it == library_sources_.end()) it = library_sources_.emplace(name, library_module_source(name, backend_)).first;
  return it->second;
}

Executor::PendingModule Executor::begin_library(const std::string& name) {
  const ModuleSource& source = library_source(name);
  const std::string key = module_key(backend_, source);
  if (!modules_.count(key) && prebuilt_tried_.insert(name).second) {
    // Built ahead where the build could (CUDA: nvcc's fatbin); else, or where this device cannot
    // run it, compiled like any module (offered once: a device that refused it is not asked again).
    const std::vector<char> prebuilt = prebuilt_library_module(name, backend_);
    if (!prebuilt.empty()) {
      if (std::shared_ptr<Module> loaded = backend_.load_binary(prebuilt, source)) modules_[key] = std::move(loaded);
    }
  }
  return begin_module(source);
}

Executor::PendingPlanModules Executor::begin_plan_modules(const ExecutablePlan& plan) {
  PendingPlanModules pending;
  pending.module = begin_module(plan.module);
  for (const std::string& name : library_modules_of(plan)) pending.libraries.push_back(begin_library(name));
  return pending;
}

std::shared_ptr<Module> Executor::end_plan_modules(PendingPlanModules pending, ExecutionStats& stats) {
  std::shared_ptr<Module> module = end_module(std::move(pending.module), stats);
  for (PendingModule& library : pending.libraries) {
    ExecutionStats own;
    std::shared_ptr<Module> loaded = end_module(std::move(library), own);
    module->link(std::move(loaded));
    stats.compile_ms += own.compile_ms;
    stats.compile_cache_hit = stats.compile_cache_hit && own.compile_cache_hit;
  }
  return module;
}

std::shared_ptr<Module> Executor::plan_module(const ExecutablePlan& plan, ExecutionStats& stats) {
  return end_plan_modules(begin_plan_modules(plan), stats);
}

void Executor::prefetch_plan_modules(const ExecutablePlan& plan) {
  prefetch_module(plan.module);
  if (!backend_.compiles_off_thread()) return;
  for (const std::string& name : library_modules_of(plan)) {
    PendingModule library = begin_library(name);  // a prebuilt one loads here; else it compiles
    if (library.loaded) continue;
    std::string key = library.key;
    in_flight_.emplace(std::move(key), std::move(library));
  }
}

double Executor::precompile(const std::vector<const ExecutablePlan*>& plans, size_t group) {
  double ms = 0;
  std::vector<std::pair<const ModuleSource*, std::string>> pending;  // with its module key
  std::set<std::string> names;
  auto flush = [&] {
    if (pending.size() > 1) {
      ModuleSource combined;
      const ModuleSource& first = *pending[0].first;
      combined.source = first.source.substr(0, first.shared_prefix);
      combined.options = first.options;
      combined.label = "batch of " + std::to_string(pending.size()) + " queries (" + first.label + ", ...)";
      combined.shared_prefix = first.shared_prefix;
      for (const auto& [m, key] : pending) {
        combined.source += "\n";
        combined.source += m->source.substr(m->shared_prefix);
        combined.kernel_names.insert(combined.kernel_names.end(), m->kernel_names.begin(), m->kernel_names.end());
      }
      try {
        Watchdog::Phase phase(combined.label, "compile");
        CompileResult compiled = backend_.compile(combined, cache_);
        ms += compiled.compile_ms;
        for (const auto& [m, key] : pending) modules_[key] = compiled.module;
      } catch (const Error&) {
        // One query's kernels do not compile: run() compiles each alone and names the failing one.
      }
    }
    pending.clear();
    names.clear();
  };
  for (const ExecutablePlan* plan : plans) {
    const ModuleSource& m = plan->module;
    if (m.shared_prefix == 0 || m.shared_prefix > m.source.size()) continue;
    std::string key = module_key(backend_, m);
    if (modules_.count(key)) continue;
    const std::string_view prefix(m.source.data(), m.shared_prefix);
    const bool joins = pending.empty() || (m.options == pending[0].first->options &&
                                           prefix == std::string_view(pending[0].first->source.data(), pending[0].first->shared_prefix));
    if (!joins) continue;
    bool unique = true;
    for (const std::string& k : m.kernel_names) unique = unique && !names.count(k);
    if (!unique || pending.size() >= group) flush();
    pending.emplace_back(&m, std::move(key));
    names.insert(m.kernel_names.begin(), m.kernel_names.end());
  }
  flush();
  return ms;
}

namespace {

// One query's run on the Executor's backend: the steps of Executor::run, each a method, sharing the
// run's module, parameters, device columns and state.
class SingleQueryRun {
 public:
  SingleQueryRun(Backend& backend, const ExecutablePlan& plan, const ExecutorOptions& options, ExecutionStats& stats)
      : backend_(backend), plan_(plan), options_(options), stats_(stats), params_{param_values(plan)}, buffers_(1),
        deferred_{counted_params(plan)} {}

  // Columns first: they do not depend on capacities and survive restarts and repetitions.
  void upload_columns(DeviceColumnCache& columns, const Database& database);
  // The pipelines' order: waves of the dependency DAG (concurrent) or one per wave (sequential).
  void plan_waves();
  // repeat × (allocate state, run every pipeline, restart on a Grow overflow); the best repetition's
  // pipeline timings are kept.
  void run_repeated(std::shared_ptr<Module> module);

  std::map<std::string, int64_t>& params() { return params_[0]; }
  std::map<std::string, AllocatedBuffer>& buffers() { return buffers_[0]; }
  const Module* module() const { return module_.get(); }

 private:
  std::vector<KernelArg> args_for(const LaunchSpec& launch);
  // Before pipeline p is issued: the counted capacities it is the first to use, sized and allocated.
  void ready_counted(size_t p);
  LaunchConfig decide(const LaunchSpec& launch, std::vector<LaunchStats>& launch_stats);
  double run_sequential(std::vector<PipelineTiming>& timings);
  void after_launch(size_t p, size_t i, PipelineTiming& timing);
  double run_waves(std::vector<PipelineTiming>& timings);
  // The device times of one wave's launches on one clock, into the pipelines' timings; the wave's span.
  double time_wave(const std::vector<size_t>& wave, const std::vector<std::pair<size_t, TimedLaunch>>& issued,
                   std::vector<PipelineTiming>& timings);

  Backend& backend_;
  const ExecutablePlan& plan_;
  const ExecutorOptions& options_;
  ExecutionStats& stats_;
  std::vector<std::map<std::string, int64_t>> params_;          // one plan's, as OverflowRestarts keeps them
  std::vector<std::map<std::string, AllocatedBuffer>> buffers_;
  // Counted capacities whose buffers wait for their count (allocate_counted), as OverflowRestarts keeps them.
  std::vector<std::set<std::string>> deferred_;
  std::map<std::pair<std::string, std::string>, const DeviceColumn*> columns_;
  std::shared_ptr<Module> module_;
  PipelineWaves waves_;
  std::vector<std::vector<size_t>> members_;  // pipelines of each wave, in plan order
  std::vector<Stream> streams_;               // one per pipeline of the widest wave (concurrent)
  std::string library_;                       // the primitives' library when the plan has library steps
};

void SingleQueryRun::upload_columns(DeviceColumnCache& columns, const Database& database) {
  columns.reset_counters();
  std::vector<DeviceColumnCache::Request> requests;
  for (const PipelineSpec& pipeline : plan_.pipelines) {
    for (const LaunchSpec& launch : pipeline.launches) {
      for (const ArgSpec& a : launch.args) {
        if (a.kind != ArgSpec::Kind::Column && a.kind != ArgSpec::Kind::ColumnHeap) continue;
        const std::string context = plan_.label + ": " + pipeline.name + ", kernel " + launch.kernel;
        const Column& column = lookup_column(database, a.table, a.column, context);
        if (a.kind == ArgSpec::Kind::ColumnHeap && column.encoding != Encoding::Heap) {
          throw Error(ErrorKind::Internal, context + ": " + a.table + "." + a.column + " has no string heap");
        }
        requests.push_back({a.table, &column, a.kind == ArgSpec::Kind::Column ? a.stored_bytes : 0});
      }
    }
  }
  Watchdog::Phase phase(plan_.label, "transfer");
  columns_ = columns.get_all(requests, state_bytes(plan_, params_[0], deferred_[0]));  // room for the state allocated next
  stats_.transfer_ms = columns.transfer_ms();
  stats_.transfer_bytes = columns.bytes_uploaded();
}

void SingleQueryRun::plan_waves() {
  // Library steps synchronise the device around each call: such a plan runs one pipeline after the other.
  const bool library = std::any_of(plan_.pipelines.begin(), plan_.pipelines.end(), [](const PipelineSpec& p) { return !p.library_steps.empty(); });
  if (library) library_ = backend_.primitives().library();
  const bool concurrent = options_.pipelines == PipelineSchedule::Concurrent && !library && options_.hooks == nullptr;
  stats_.pipeline_schedule = options_.hooks != nullptr ? "sequential (distributed: state merged across ranks between pipelines)"
                              : library && options_.pipelines == PipelineSchedule::Concurrent
                                  ? "sequential (library calls between kernels synchronise the device)"
                                  : to_string(options_.pipelines);
  const size_t n = plan_.pipelines.size();
  if (concurrent) {
    waves_ = pipeline_waves(plan_);
  } else {
    waves_.wave.resize(n);
    for (size_t p = 0; p < n; ++p) waves_.wave[p] = p;
    waves_.waves = n;
  }
  stats_.waves = waves_.waves;
  members_.assign(waves_.waves, {});
  for (size_t p = 0; p < n; ++p) members_[waves_.wave[p]].push_back(p);
  if (concurrent) {
    size_t widest = 0;
    for (const auto& m : members_) widest = std::max(widest, m.size());
    for (size_t i = 0; i < widest; ++i) streams_.push_back(backend_.create_stream());
  }
}

// The arguments of one launch under the current parameters.
std::vector<KernelArg> SingleQueryRun::args_for(const LaunchSpec& launch) {
  std::vector<KernelArg> args;
  args.reserve(launch.args.size());
  for (const ArgSpec& a : launch.args) {
    switch (a.kind) {
      case ArgSpec::Kind::Column: args.push_back(KernelArg::buf(columns_.at({a.table, a.column})->values)); break;
      case ArgSpec::Kind::ColumnHeap: args.push_back(KernelArg::buf(columns_.at({a.table, a.column})->heap)); break;
      case ArgSpec::Kind::Buffer: args.push_back(KernelArg::buf(buffers().at(a.name).buffer)); break;
      case ArgSpec::Kind::Param: args.push_back(scalar_arg(params().at(a.name), a.scalar)); break;
      case ArgSpec::Kind::Scratch: args.push_back(KernelArg::scratch()); break;
    }
  }
  return args;
}

void SingleQueryRun::ready_counted(size_t p) {
  for (const CountedCapacity& c : plan_.counted) {
    if (c.first_use != p || !deferred_[0].count(c.param)) continue;
    if (waves_.wave.at(c.counted_by) >= waves_.wave.at(p))
      throw Error(ErrorKind::Internal, plan_.label + ": capacity " + c.param + " is counted by " + plan_.pipelines[c.counted_by].name +
                                           ", which does not run before " + plan_.pipelines[p].name);
  }
  if (allocate_counted(backend_, plan_, p, params(), buffers(), deferred_[0])) backend_.synchronize();  // fills before streams
}

// The planner's launch decision under the current parameters, recorded in `launch_stats`.
LaunchConfig SingleQueryRun::decide(const LaunchSpec& launch, std::vector<LaunchStats>& launch_stats) {
  const Kernel& kernel = module_->kernel(launch.kernel);
  const LaunchDecision decision = decide_launch(plan_.label, launch, kernel.attributes, params(), backend_.properties());
  launch_stats.push_back({launch.kernel, decision.config.block_size, decision.config.grid_blocks, decision.blocks_per_sm,
                          decision.occupancy, planner::to_string(decision.limiting)});
  return decision.config;
}

// Sequential: each pipeline's launches synchronised one after the other, flags read after it.
double SingleQueryRun::run_sequential(std::vector<PipelineTiming>& timings) {
  Watchdog::Phase phase(plan_.label, "kernels");
  double total = 0;
  for (size_t p = 0; p < plan_.pipelines.size(); ++p) {
    const PipelineSpec& pipeline = plan_.pipelines[p];
    for (const ParamFromBuffer& f : pipeline.params_from_buffers) params()[f.param] = param_from_buffer(plan_, f, buffers());
    ready_counted(p);
    PipelineTiming timing{pipeline.name, 0, p, 0, 0, {}};
    for (size_t i = 0; i < pipeline.launches.size(); ++i) {
      const LaunchSpec& launch = pipeline.launches[i];
      if (options_.hooks != nullptr && !options_.hooks->runs_launch(p, i)) {
        after_launch(p, i, timing);
        continue;
      }
      const std::vector<KernelArg> args = args_for(launch);
      const LaunchConfig config = decide(launch, timing.launches);
      const Kernel& kernel = module_->kernel(launch.kernel);
      phase.detail("kernel " + launch.kernel);
      if (options_.time_kernels) {
        timing.kernel_ms += backend_.launch_timed(kernel, args, config);
      } else {
        const auto start = Clock::now();
        backend_.launch(kernel, args, config);
        backend_.synchronize();
        timing.kernel_ms += ms_since(start);
      }
      for (const LibraryStep& step : pipeline.library_steps) {
        if (step.after_launch != i) continue;
        phase.detail(std::string("library ") + library_step_name(step.op) + ": " + step.what);
        const double ms = run_library_step(backend_, step, buffers(), params());
        timing.kernel_ms += ms;
        timing.launches.push_back({std::string(library_step_name(step.op)) + " (" + step.what + ")", 0, 0, 0, 0, "", library_, ms});
      }
      after_launch(p, i, timing);
    }
    timing.end_ms = timing.kernel_ms;
    total += timing.kernel_ms;
    timings.push_back(std::move(timing));
    if (const CheckSpec* grow = check_pipeline(plan_, pipeline, buffers())) throw OverflowRestart{0, grow};
  }
  return total;
}

// A distributed run's exchange after launch i of pipeline p, timed among the pipeline's launches.
void SingleQueryRun::after_launch(size_t p, size_t i, PipelineTiming& timing) {
  if (options_.hooks == nullptr) return;
  for (LaunchStats& l : options_.hooks->after_launch(p, i, buffers(), params())) {
    timing.kernel_ms += l.ms;
    timing.launches.push_back(std::move(l));
  }
}

// Concurrent: wave by wave, each pipeline of a wave on its own stream, flags read after the wave.
double SingleQueryRun::run_waves(std::vector<PipelineTiming>& timings) {
  Watchdog::Phase phase(plan_.label, "kernels");
  timings.assign(plan_.pipelines.size(), {});
  double total = 0;
  for (const std::vector<size_t>& wave : members_) {
    // Values of earlier waves, read before anything of this wave is issued (a host read waits).
    std::vector<std::vector<std::pair<std::string, int64_t>>> values(wave.size());
    for (size_t i = 0; i < wave.size(); ++i) {
      for (const ParamFromBuffer& f : plan_.pipelines[wave[i]].params_from_buffers)
        values[i].emplace_back(f.param, param_from_buffer(plan_, f, buffers()));
      ready_counted(wave[i]);
    }
    std::vector<std::pair<size_t, TimedLaunch>> issued;  // (pipeline, launch)
    std::string kernels;
    for (size_t p : wave)
      for (const LaunchSpec& launch : plan_.pipelines[p].launches) kernels += (kernels.empty() ? "" : ", ") + launch.kernel;
    phase.detail("wave " + std::to_string(&wave - members_.data()) + ": " + kernels);
    const auto wave_start = Clock::now();
    for (size_t i = 0; i < wave.size(); ++i) {
      const PipelineSpec& pipeline = plan_.pipelines[wave[i]];
      for (const auto& [param, value] : values[i]) params()[param] = value;
      PipelineTiming& timing = timings[wave[i]];
      timing.name = pipeline.name;
      timing.wave = waves_.wave[wave[i]];
      for (const LaunchSpec& launch : pipeline.launches) {
        const std::vector<KernelArg> args = args_for(launch);
        const LaunchConfig config = decide(launch, timing.launches);
        const Kernel& kernel = module_->kernel(launch.kernel);
        if (options_.time_kernels) issued.emplace_back(wave[i], backend_.launch_on_timed(streams_[i], kernel, args, config));
        else backend_.launch_on(streams_[i], kernel, args, config);
      }
    }
    backend_.synchronize();
    if (options_.time_kernels && !issued.empty()) {
      total += time_wave(wave, issued, timings);
    } else {
      const double wall = ms_since(wave_start);
      for (size_t p : wave) timings[p].kernel_ms = wall;
      total += wall;
    }
    for (size_t p : wave) {
      if (const CheckSpec* grow = check_pipeline(plan_, plan_.pipelines[p], buffers())) throw OverflowRestart{0, grow};
    }
  }
  return total;
}

double SingleQueryRun::time_wave(const std::vector<size_t>& wave, const std::vector<std::pair<size_t, TimedLaunch>>& issued,
                                 std::vector<PipelineTiming>& timings) {
  // Device times of the wave's launches on one clock, relative to its first issued launch.
  std::vector<Backend::Interval> spans;
  double first = 0;
  double last = 0;
  for (size_t k = 0; k < issued.size(); ++k) {
    spans.push_back(backend_.launch_interval_ms(issued[k].second, issued[0].second));
    first = k == 0 ? spans[k].start_ms : std::min(first, spans[k].start_ms);
    last = k == 0 ? spans[k].end_ms : std::max(last, spans[k].end_ms);
  }
  for (size_t p : wave) {
    PipelineTiming& timing = timings[p];
    bool seen = false;
    for (size_t k = 0; k < issued.size(); ++k) {
      if (issued[k].first != p) continue;
      timing.kernel_ms += spans[k].end_ms - spans[k].start_ms;
      timing.start_ms = seen ? std::min(timing.start_ms, spans[k].start_ms - first) : spans[k].start_ms - first;
      timing.end_ms = seen ? std::max(timing.end_ms, spans[k].end_ms - first) : spans[k].end_ms - first;
      seen = true;
    }
  }
  return last - first;
}

void SingleQueryRun::run_repeated(std::shared_ptr<Module> module) {
  module_ = std::move(module);
  if (options_.hooks != nullptr) options_.hooks->module_loaded(*module_);
  const bool concurrent = options_.pipelines == PipelineSchedule::Concurrent && library_.empty() && options_.hooks == nullptr;
  OverflowRestarts restarts(backend_, {&plan_}, params_, buffers_, options_.max_rebuilds, &deferred_);
  const std::map<std::string, int64_t> resolved = params();
  double best = -1;
  for (int rep = 0; rep < std::max(1, options_.repeat); ++rep) {
    std::vector<PipelineTiming> timings;
    double total = 0;
    restarts.run(plan_.label, [&] {
      timings.clear();
      total = concurrent ? run_waves(timings) : run_sequential(timings);
    }, stats_.transfer_ms, stats_.rebuilds);
    stats_.kernel_ms_per_repeat.push_back(total);
    if (best < 0 || total < best) {
      best = total;
      stats_.pipelines = timings;
    }
  }
  stats_.kernel_ms = best;
  stats_.params = params();
  for (const CountedCapacity& c : plan_.counted) stats_.counted[c.param] = {resolved.at(c.param), params().at(c.param)};
}

}  // namespace

Execution Executor::run(const ExecutablePlan& plan, const Database& database, const ExecutorOptions& options) {
  check_plan_runs_on(plan, backend_);
  Execution execution;
  ExecutionStats& stats = execution.stats;
  stats.device = backend_.device_description();
  // The compiler (CUDA: on its own thread) overlaps the column uploads; a compile error surfaces
  // when the module is needed.
  PendingPlanModules pending = [&] {
    Watchdog::Phase phase(plan.label, "compile");
    return begin_plan_modules(plan);
  }();
  // A library sort that builds at its first call (Boost.Compute) builds beside the module's compile
  // and the uploads when the finalize may narrow a top-k with it, not inside the finalize; nothing
  // else uses the primitives before the join. A failure here is the real sort's to report.
  std::jthread sort_build;
  if (may_narrow_top_k_on_device(plan) && backend_.library_sort_builds_at_first_use()) {
    sort_build = std::jthread([&primitives = backend_.primitives()] {
      try {
        primitives.prepare_sort();
      } catch (const std::exception&) {
      }
    });
  }
  SingleQueryRun run(backend_, plan, options, stats);
  run.upload_columns(columns_, database);
  std::shared_ptr<Module> module = [&] {
    Watchdog::Phase phase(plan.label, "compile");
    std::shared_ptr<Module> compiled = end_plan_modules(std::move(pending), stats);
    if (sort_build.joinable()) sort_build.join();
    return compiled;
  }();
  run.plan_waves();
  run.run_repeated(std::move(module));

  const auto finalize_start = Clock::now();
  Watchdog::Phase phase(plan.label, "finalize");
  execution.result = assemble_result(plan, run.buffers(), run.params(), database, backend_, cache_,
                                     AssemblyOptions{run.module(), options.device_top_k_rows, &stats.finalize_parts});
  stats.finalize_ms = ms_since(finalize_start);
  return execution;
}

}  // namespace hqc::runtime

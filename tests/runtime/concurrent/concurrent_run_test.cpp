// Concurrent and streamed execution (runtime/execution/concurrent_executor.h) on OpenCL (PoCL here; CUDA too
// where a GPU is present): all 13 SSB queries at SF 0.01, compiled from their SQL text, run
//   - sequentially and resident through Executor::run (the reference, itself checked against
//     DuckDB by the ssb_queries tests),
//   - concurrently with knapsack, random and sequential launch parameters,
//   - one at a time streamed in chunks under a small device memory limit,
//   - all at once streamed with a shared scan (auto placement under the limit, and forced chunks),
// and every result must equal the reference exactly (CSV text). A recording backend wraps the
// device and logs every launch and asynchronous upload, so the tests check that the knapsack's
// parameters are the ones launched (recomputed here with planner::plan_concurrent from the plans'
// own launch specs and the compiled kernels' attributes), that the chunk count is the stream model's
// (recomputed with planner::optimal_chunks from the reported inputs), and that a shared scan
// transfers each chunk once.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "codegen/dialect.h"
#include "frontend/sql/sql_frontend.h"
#include "planner/concurrent_plan.h"
#include "planner/statistics.h"
#include "planner/stream_model.h"
#include "runtime/device/backend.h"
#include "runtime/execution/concurrent_executor.h"
#include "runtime/device/database_lookup.h"
#include "runtime/execution/executor.h"
#include "runtime/execution/launch_config.h"
#include "ssb/benchmark_queries.h"
#include "ssb/generator.h"
#include "storage/catalog.h"
#include "storage/error.h"
#include "tests/runtime/forwarding_backend.h"
#include "tools/driver/query_driver.h"

using namespace hqc;
using namespace hqc::runtime;

namespace {

const Database& ssb_data() {
  static const Database db = [] {
    ssb::GenOptions o;
    o.sf = 0.01;
    o.threads = 2;
    return ssb::generate(o);
  }();
  return db;
}

// Forwards everything to a real backend and records launches on streams and asynchronous uploads.
class RecordingBackend final : public test::ForwardingBackend {
 public:
  struct Launch {
    uint64_t stream;
    std::string kernel;
    LaunchConfig config;
  };
  explicit RecordingBackend(std::unique_ptr<Backend> inner) : ForwardingBackend(std::move(inner)) {}

  std::vector<Launch> launches;
  uint64_t uploads = 0;
  uint64_t upload_bytes = 0;
  void clear() {
    launches.clear();
    uploads = 0;
    upload_bytes = 0;
  }

  void launch_on(const Stream& s, const Kernel& k, const std::vector<KernelArg>& a, const LaunchConfig& c) override {
    launches.push_back({s.handle(), k.name, c});
    ForwardingBackend::launch_on(s, k, a, c);
  }
  TimedLaunch launch_on_timed(const Stream& s, const Kernel& k, const std::vector<KernelArg>& a, const LaunchConfig& c) override {
    launches.push_back({s.handle(), k.name, c});
    return ForwardingBackend::launch_on_timed(s, k, a, c);
  }
  void raw_upload_async(uint64_t s, uint64_t t, uint64_t o, const void* h, uint64_t b) override {
    ++uploads;
    upload_bytes += b;
    ForwardingBackend::raw_upload_async(s, t, o, h, b);
  }
};

struct Fixture {
  std::unique_ptr<RecordingBackend> backend;
  std::unique_ptr<Executor> executor;
  std::vector<std::string> names;
  std::vector<ExecutablePlan> plans;
  std::vector<std::string> reference;  // sequential resident results, CSV
};

Fixture& fixture(DeviceChoice choice) {
  static std::map<DeviceChoice, std::unique_ptr<Fixture>> all;
  auto& slot = all[choice];
  if (slot) return *slot;
  slot = std::make_unique<Fixture>();
  Fixture& f = *slot;
  f.backend = std::make_unique<RecordingBackend>(open_backend(choice));
  f.executor = std::make_unique<Executor>(*f.backend, nullptr);
  const Database& db = ssb_data();
  const Catalog catalog = Catalog::ssb();
  const planner::DatabaseStatistics stats(db);
  driver::CompileOptions options;
  options.dialect = f.backend->dialect();
  options.stats = &stats;
  for (const std::string& name : ssb::query_names()) {
    auto plan = std::make_shared<const plan::LogicalPlan>(parse_sql(ssb::query_sql(name), name, catalog));
    const driver::CompiledQuery compiled = driver::compile_query(plan, catalog, options);
    f.names.push_back(name);
    f.plans.push_back(driver::lower_query(compiled, db));
    f.plans.back().label = name;
    f.reference.push_back(f.executor->run(f.plans.back(), db).result.format(ResultFormat::Csv));
  }
  return f;
}

std::vector<DeviceChoice> devices() {
  std::vector<DeviceChoice> out{DeviceChoice::OpenCL};
  try {
    open_backend(DeviceChoice::Cuda);
    out.push_back(DeviceChoice::Cuda);
  } catch (const Error&) {
    // no CUDA device here: the OpenCL run covers the logic
  }
  return out;
}

std::vector<const ExecutablePlan*> all_plans(const Fixture& f) {
  std::vector<const ExecutablePlan*> out;
  for (const ExecutablePlan& p : f.plans) out.push_back(&p);
  return out;
}

void check_results(const Fixture& f, const ConcurrentRun& run, const std::vector<size_t>& which) {
  REQUIRE(run.executions.size() == which.size());
  for (size_t i = 0; i < which.size(); ++i) {
    INFO(f.names[which[i]]);
    CHECK(run.executions[i].result.format(ResultFormat::Csv) == f.reference[which[i]]);
  }
}

std::vector<size_t> every(const Fixture& f) {
  std::vector<size_t> out(f.plans.size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = i;
  return out;
}

// Recomputes the knapsack of one phase from the plans (as concurrent_executor.h describes it) and
// checks it is what the stats report and what was launched.
void check_knapsack_phase(Fixture& f, const PhaseStats& phase, uint64_t chunk_rows) {
  const planner::DeviceProfile profile = device_profile_for(f.backend->properties());
  const uint64_t share =
      std::max<uint64_t>(1, profile.max_warps_per_sm() / phase.kernels.size()) * profile.warp_size * profile.sm_count;
  std::vector<planner::KernelDemand> demands;
  for (const PhaseKernel& k : phase.kernels) {
    const auto it = std::find(f.names.begin(), f.names.end(), k.query);
    REQUIRE(it != f.names.end());
    const ExecutablePlan& plan = f.plans[static_cast<size_t>(it - f.names.begin())];
    const LaunchSpec* main = nullptr;
    for (const PipelineSpec& p : plan.pipelines) {
      if (p.name == k.pipeline) main = &p.launches.front();
    }
    REQUIRE(main != nullptr);
    ExecutionStats es;
    const KernelAttributes attrs = f.executor->module_for(plan.module, es)->kernel(main->kernel).attributes;
    const std::map<std::string, int64_t> params = param_values(plan);
    const uint64_t rows = k.chunked ? chunk_rows : static_cast<uint64_t>(params.at(main->tuples_param));
    planner::KernelDemand d;
    d.name = k.query;
    d.threads = std::min<uint64_t>(std::max<uint64_t>(1, rows / std::max<uint32_t>(1, main->items_per_thread) +
                                                            (rows % std::max<uint32_t>(1, main->items_per_thread) ? 1 : 0)),
                                   share);
    d.registers_per_thread = static_cast<uint32_t>(std::max(0, attrs.registers_per_thread));
    const LaunchSpec spec = *main;
    const uint64_t static_shared = attrs.static_shared_bytes;
    d.shared_per_block = [spec, params, static_shared](uint32_t t) { return scratch_bytes_for(spec, t, params) + static_shared; };
    d.power_of_two_block = main->power_of_two_block;
    d.max_block_size = std::min<uint32_t>(planner::kMaxBlockSize, attrs.max_threads_per_block > 0 ? attrs.max_threads_per_block : planner::kMaxBlockSize);
    d.min_block_size = std::max<uint32_t>(1, main->block_size_multiple);
    demands.push_back(d);
  }
  const planner::ConcurrentPlan expected = planner::plan_concurrent(profile, demands);
  CHECK(phase.batches == expected.batches.size());
  for (size_t b = 0; b < expected.batches.size(); ++b) {
    for (size_t j = 0; j < expected.batches[b].kernels.size(); ++j) {
      const size_t i = expected.batches[b].kernels[j];
      const planner::KernelLaunch& l = expected.batches[b].plan.launches[j];
      INFO(phase.kernels[i].query << " " << phase.kernels[i].kernel);
      CHECK(phase.kernels[i].batch == b);
      CHECK(phase.kernels[i].demand_threads == expected.capped[i].threads);
      CHECK(phase.kernels[i].block_size == l.block_size);
      CHECK(phase.kernels[i].blocks_per_sm == l.blocks_per_sm);
      CHECK(phase.kernels[i].grid_blocks == l.grid_blocks);
    }
  }
  // What was launched: every recorded launch of these kernels used the planned block size, and a
  // grid of at most the planned one (a chunk's launch is capped at its tiles).
  for (const PhaseKernel& k : phase.kernels) {
    bool seen = false;
    for (const RecordingBackend::Launch& l : f.backend->launches) {
      if (l.kernel != k.kernel || l.config.block_size != k.block_size) continue;
      seen = true;
      CHECK(l.config.grid_blocks <= k.grid_blocks);
    }
    INFO(k.query << " " << k.kernel << " block " << k.block_size);
    CHECK(seen);
  }
}

uint64_t model_chunks(const StreamStats& s) {
  return planner::optimal_chunks(s.model, planner::Engines::ThreeEngines, std::min<uint64_t>(s.rows, 4096)).chunks;
}

// A device memory limit that leaves room for about `chunks` chunks of lineorder's needed columns
// beyond the resident dimension columns and state.
uint64_t limit_for(Fixture& f, const std::vector<const ExecutablePlan*>& plans, uint64_t chunks) {
  ConcurrentOptions probe;
  probe.placement = Placement::Stream;
  const ConcurrentRun run = f.executor->run(plans, ssb_data(), probe);
  const StreamStats& s = run.stats.stream;
  return s.resident_bytes + kStagingSlots * ((s.rows + chunks - 1) / chunks) * s.bytes_per_row;
}

}  // namespace

TEST_CASE("concurrent SSB queries with knapsack launch parameters equal sequential runs") {
  for (DeviceChoice choice : devices()) {
    Fixture& f = fixture(choice);
    f.backend->clear();
    ConcurrentOptions options;
    options.placement = Placement::Resident;
    options.launch_params = LaunchParams::Knapsack;
    const ConcurrentRun run = f.executor->run(all_plans(f), ssb_data(), options);
    check_results(f, run, every(f));
    CHECK_FALSE(run.stats.stream.streamed);
    CHECK(run.stats.launch_params == "knapsack");
    CHECK(run.stats.schedule == "concurrent");
    // Every plan's lineorder pipeline is in the last phase, with all 13 kernels planned together.
    REQUIRE_FALSE(run.stats.phases.empty());
    const PhaseStats& last = run.stats.phases.back();
    CHECK(last.kernels.size() == 13);
    for (const PhaseStats& phase : run.stats.phases) check_knapsack_phase(f, phase, 0);
    // Each query ran on its own stream.
    std::vector<uint64_t> streams;
    for (const auto& l : f.backend->launches) streams.push_back(l.stream);
    std::sort(streams.begin(), streams.end());
    CHECK(std::unique(streams.begin(), streams.end()) - streams.begin() == 13);
  }
}

TEST_CASE("concurrent SSB queries with random and sequential launch parameters equal sequential runs") {
  for (DeviceChoice choice : devices()) {
    Fixture& f = fixture(choice);
    for (LaunchParams lp : {LaunchParams::Random, LaunchParams::Sequential}) {
      ConcurrentOptions options;
      options.placement = Placement::Resident;
      options.launch_params = lp;
      options.seed = 7;
      const ConcurrentRun run = f.executor->run(all_plans(f), ssb_data(), options);
      INFO(to_string(lp));
      check_results(f, run, every(f));
      CHECK(run.stats.launch_params == to_string(lp));
      if (lp == LaunchParams::Sequential) {
        CHECK(run.stats.phases.back().batches == 13);
        CHECK(run.stats.schedule == "sequential");
        // Both schedules are predicted even when one is forced.
        for (const PhaseStats& phase : run.stats.phases) {
          CHECK(phase.predicted_knapsack_ms > 0);
          CHECK(phase.predicted_sequential_ms > 0);
        }
      }
    }
  }
}

TEST_CASE("auto launch parameters run the schedule the model predicts faster, phase by phase") {
  for (DeviceChoice choice : devices()) {
    Fixture& f = fixture(choice);
    f.backend->clear();
    ConcurrentOptions options;
    options.placement = Placement::Resident;
    CHECK(options.launch_params == LaunchParams::Auto);  // the default
    const ConcurrentRun run = f.executor->run(all_plans(f), ssb_data(), options);
    check_results(f, run, every(f));
    CHECK(run.stats.launch_params == "auto");
    CHECK(run.stats.schedule_bandwidth_bytes_per_s > 0);
    CHECK(run.stats.schedule_compute_ops_per_s > 0);
    CHECK(run.stats.schedule_launch_overhead_s > 0);
    double knapsack = 0;
    double sequential = 0;
    std::set<std::string> schedules;
    for (const PhaseStats& phase : run.stats.phases) {
      INFO("phase " << phase.index);
      REQUIRE(phase.predicted_knapsack_ms > 0);
      REQUIRE(phase.predicted_sequential_ms > 0);
      knapsack += phase.predicted_knapsack_ms;
      sequential += phase.predicted_sequential_ms;
      schedules.insert(phase.schedule);
      if (phase.predicted_knapsack_ms < phase.predicted_sequential_ms) {
        CHECK(phase.schedule == "concurrent");
        check_knapsack_phase(f, phase, 0);
      } else {
        CHECK(phase.schedule == "sequential");
        CHECK(phase.planner == "sequential");
        CHECK(phase.batches == phase.kernels.size());
        for (size_t i = 0; i < phase.kernels.size(); ++i) CHECK(phase.kernels[i].batch == i);
      }
    }
    CHECK(run.stats.predicted_knapsack_ms == doctest::Approx(knapsack));
    CHECK(run.stats.predicted_sequential_ms == doctest::Approx(sequential));
    CHECK(run.stats.schedule == (schedules.size() == 1 ? *schedules.begin() : std::string("mixed")));
  }
}

// Bytes per row of `table` as a plan's kernels read it: each column it reads in the fewest bytes (1,
// 2, 4) a signed integer needs for the column's values (ir pass narrow_columns), derived here from
// the values themselves, never more than the column's own width.
uint64_t stored_bytes_per_row(const ExecutablePlan& plan, const Database& db, const std::string& table) {
  std::set<std::string> read;
  for (const PipelineSpec& p : plan.pipelines)
    for (const LaunchSpec& l : p.launches)
      for (const ArgSpec& a : l.args)
        if (a.kind == ArgSpec::Kind::Column && a.table == table) read.insert(a.column);
  uint64_t bytes = 0;
  for (const std::string& c : read) {
    const Column& column = lookup_column(db, table, c, "test");
    const uint64_t width = column.i64.empty() ? 4 : 8;
    int64_t lo = 0, hi = 0;
    for (uint64_t r = 0; r < column.size(); ++r) lo = std::min(lo, column.int_at(r)), hi = std::max(hi, column.int_at(r));
    const uint64_t need = lo >= -128 && hi <= 127 ? 1 : lo >= -32768 && hi <= 32767 ? 2 : lo >= INT32_MIN && hi <= INT32_MAX ? 4 : 8;
    bytes += std::min(need, width);
  }
  return bytes;
}

TEST_CASE("each SSB query streamed in chunks under a small memory limit equals its resident run") {
  for (DeviceChoice choice : devices()) {
    Fixture& f = fixture(choice);
    for (size_t q = 0; q < f.plans.size(); ++q) {
      INFO(f.names[q]);
      const std::vector<const ExecutablePlan*> one{&f.plans[q]};
      ConcurrentOptions options;
      options.launch_params = LaunchParams::Knapsack;
      options.memory_limit = limit_for(f, one, 6);  // auto placement: the working set does not fit
      f.backend->clear();
      const ConcurrentRun run = f.executor->run(one, ssb_data(), options);
      check_results(f, run, {q});
      const StreamStats& s = run.stats.stream;
      REQUIRE(s.streamed);
      CHECK(s.table == "lineorder");
      CHECK(s.rows == row_count(lookup_table(ssb_data(), "lineorder", "test")));
      // The chunk count follows the stream model, raised to the fewest chunks whose staging fits.
      CHECK(s.model_chunks == model_chunks(s));
      CHECK(s.min_chunks >= 6);
      CHECK(s.chunks == std::max(s.model_chunks, s.min_chunks));
      CHECK(s.staging_bytes + s.resident_bytes <= s.memory_limit);
      CHECK(s.bytes_transferred == s.rows * s.bytes_per_row);
      CHECK(f.backend->upload_bytes >= s.bytes_transferred);
      // lineorder streams at its columns' stored widths (narrowed from the statistics).
      CHECK(s.bytes_per_row == stored_bytes_per_row(f.plans[q], ssb_data(), "lineorder"));
      // One launch of the lineorder kernel per chunk.
      const PhaseStats& last = run.stats.phases.back();
      REQUIRE(last.kernels.size() == 1);
      CHECK(last.kernels[0].chunked);
      const auto per_chunk = std::count_if(f.backend->launches.begin(), f.backend->launches.end(),
                                           [&](const auto& l) { return l.kernel == last.kernels[0].kernel; });
      CHECK(static_cast<uint64_t>(per_chunk) == s.chunks);
      check_knapsack_phase(f, last, s.chunk_rows);
    }
  }
}

TEST_CASE("concurrent streamed SSB queries share one scan of lineorder") {
  for (DeviceChoice choice : devices()) {
    Fixture& f = fixture(choice);
    const std::vector<const ExecutablePlan*> plans = all_plans(f);
    ConcurrentOptions options;
    options.launch_params = LaunchParams::Knapsack;
    options.memory_limit = limit_for(f, plans, 4);
    f.backend->clear();
    const ConcurrentRun run = f.executor->run(plans, ssb_data(), options);
    check_results(f, run, every(f));
    const StreamStats& s = run.stats.stream;
    REQUIRE(s.streamed);
    CHECK(s.reason.find("exceeds the limit") != std::string::npos);
    CHECK(s.consumers == 13);
    CHECK(s.chunks == std::max(s.model_chunks, s.min_chunks));
    CHECK(s.model_chunks == model_chunks(s));
    // Each chunk transferred once, whatever the number of queries reading it.
    CHECK(s.bytes_transferred == s.rows * s.bytes_per_row);
    const uint64_t column_count = s.bytes_per_row > 0 ? f.backend->uploads : 0;
    CHECK(column_count % s.chunks == 0);
    check_knapsack_phase(f, run.stats.phases.back(), s.chunk_rows);

    SUBCASE("forced chunk counts") {
      ConcurrentOptions forced = options;
      forced.placement = Placement::Stream;
      forced.chunks = s.min_chunks + 3;
      const ConcurrentRun more = f.executor->run(plans, ssb_data(), forced);
      check_results(f, more, every(f));
      CHECK(more.stats.stream.chunks == s.min_chunks + 3);
      forced.chunks = s.min_chunks - 1;
      CHECK_THROWS_WITH_AS(f.executor->run(plans, ssb_data(), forced), doctest::Contains("use at least"), Error);
    }
  }
}

TEST_CASE("a memory limit below the resident dimension tables is a clear device error") {
  Fixture& f = fixture(DeviceChoice::OpenCL);
  ConcurrentOptions options;
  options.placement = Placement::Stream;
  options.memory_limit = 1024;
  CHECK_THROWS_WITH_AS(f.executor->run(all_plans(f), ssb_data(), options),
                       doctest::Contains("dimension columns and state buffers alone need"), Error);
}

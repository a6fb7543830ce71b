// Executor::run(plans): analyse the plans' scans (fact table, anchors, phases) → resolve
// parameters → decide placement and chunks → (allocate state, run the phases on streams, check
// overflow flags, grow and restart if needed) → assemble every plan's result.
// See concurrent_executor.h for the guarantees.
#include "runtime/execution/concurrent_executor.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "codegen/dialect.h"
#include "planner/concurrent_launch.h"
#include "planner/occupancy.h"
#include "planner/schedule_model.h"
#include "runtime/device/database_lookup.h"
#include "runtime/device/probes.h"
#include "runtime/execution/launch_config.h"
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

const ParamSpec* find_param(const ExecutablePlan& plan, const std::string& name) {
  for (const ParamSpec& p : plan.params) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

// The table whose rows a launch scans: its tuple count is that table's row count.
std::string scanned_table(const ExecutablePlan& plan, const LaunchSpec& launch) {
  if (launch.tuples_param.empty()) return "";
  const ParamSpec* p = find_param(plan, launch.tuples_param);
  return p != nullptr ? p->rows_of : "";
}

// ---- which table streams, which pipeline of each plan scans it, which launches run per chunk ----

struct PlanLayout {
  int anchor = -1;  // the first pipeline scanning the fact table; -1: none (aligned on its last pipeline)
  // Per pipeline scanning the fact table (the anchor and any later one: each streams it once), per
  // launch: whether the launch scans it (runs once per chunk).
  std::map<size_t, std::vector<bool>> chunked;
};

struct ScanLayout {
  std::string table;                 // empty: no launch scans a table by its rows
  uint64_t rows = 0;
  std::vector<std::string> columns;  // the fact table's columns some plan reads
  std::set<std::string> heaps;       // those of them whose string bytes a chunked launch reads
  uint64_t bytes_per_row = 0;        // of `columns`, a heap's bytes averaged over the rows
  std::vector<PlanLayout> plans;
  std::string blocker;               // why the table cannot be streamed (empty: it can)
  std::map<std::string, unsigned> stored;  // of `columns`: ArgSpec::stored_bytes (all plans agree, else a blocker)
  unsigned stored_bytes(const std::string& column) const {
    const auto it = stored.find(column);
    return it == stored.end() ? 0 : it->second;
  }
  size_t phases = 0;
  std::vector<size_t> shift;         // phase(q, p) = p + shift[q]
};

// Bytes per value of a column on the device: its physical width, or a narrowed one (narrowed_width).
uint64_t stored_width(const Column& column, unsigned stored_bytes) {
  const unsigned narrowed = narrowed_width(column, stored_bytes);
  return narrowed != 0 ? narrowed : host_column_bytes(column).width();
}

ScanLayout analyse(const std::vector<const ExecutablePlan*>& plans, const Database& db, const std::set<std::string>& among) {
  ScanLayout layout;
  // The table most bytes are scanned of, by row count × the widths of its columns a launch reads.
  std::map<std::string, uint64_t> weight;
  for (const ExecutablePlan* plan : plans) {
    for (const PipelineSpec& pipeline : plan->pipelines) {
      for (const LaunchSpec& launch : pipeline.launches) {
        const std::string table = scanned_table(*plan, launch);
        if (table.empty()) continue;
        for (const ArgSpec& a : launch.args) {
          if (a.kind != ArgSpec::Kind::Column || a.table != table) continue;
          const Column& c = lookup_column(db, a.table, a.column, plan->label);
          weight[table] += device_value_bytes(c, a.stored_bytes);
        }
      }
    }
  }
  const bool preferred = std::any_of(weight.begin(), weight.end(), [&](const auto& tw) { return among.count(tw.first) != 0; });
  for (const auto& [table, w] : weight) {
    if (preferred && among.count(table) == 0) continue;
    if (layout.table.empty() || w > weight[layout.table]) layout.table = table;
  }

  std::set<std::string> columns;
  for (const ExecutablePlan* plan : plans) {
    PlanLayout pl;
    const std::string who = plan->label;
    for (size_t p = 0; p < plan->pipelines.size() && !layout.table.empty(); ++p) {
      const PipelineSpec& pipeline = plan->pipelines[p];
      for (const LaunchSpec& launch : pipeline.launches) {
        bool reads = false;
        for (const ArgSpec& a : launch.args) {
          if (a.table != layout.table) continue;
          if (a.kind == ArgSpec::Kind::ColumnHeap) layout.heaps.insert(a.column);
          if (a.kind == ArgSpec::Kind::Column || a.kind == ArgSpec::Kind::ColumnHeap) {
            reads = true;
            columns.insert(a.column);
          }
          if (a.kind == ArgSpec::Kind::Column) {
            const auto [w, fresh] = layout.stored.emplace(a.column, a.stored_bytes);
            if (!fresh && w->second != a.stored_bytes)
              layout.blocker = who + ": " + pipeline.name + " reads " + layout.table + "." + a.column + " in " +
                               std::to_string(a.stored_bytes) + " bytes per value, another plan in " + std::to_string(w->second);
          }
        }
        if (!reads) continue;
        if (scanned_table(*plan, launch) != layout.table) {
          layout.blocker = who + ": " + pipeline.name + " reads " + layout.table + " over " +
                           (launch.tuples_param.empty() ? "a fixed grid" : launch.tuples_param) + ", not over its rows";
        } else {
          if (pl.anchor < 0) pl.anchor = static_cast<int>(p);
          pl.chunked.emplace(p, std::vector<bool>{});
        }
      }
    }
    for (auto& [p, chunked] : pl.chunked) {
      const PipelineSpec& scan = plan->pipelines[p];
      int state = 0;  // 0 before the chunked launches, 1 among them, 2 after
      for (const LaunchSpec& launch : scan.launches) {
        const bool chunk = scanned_table(*plan, launch) == layout.table;
        chunked.push_back(chunk);
        if (chunk && state == 2) {
          layout.blocker = who + ": " + scan.name + " has a launch that does not scan " + layout.table +
                           " between launches that do";
        }
        if (chunk) state = 1;
        else if (state == 1) state = 2;
      }
    }
    layout.plans.push_back(std::move(pl));
  }
  if (!layout.table.empty()) {
    const Table& t = lookup_table(db, layout.table, "fact table");
    layout.rows = row_count(t);
    for (const std::string& c : columns) {
      layout.columns.push_back(c);
      const Column& column = lookup_column(db, layout.table, c, "fact table");
      layout.bytes_per_row += stored_width(column, layout.stored_bytes(c));
      if (layout.heaps.count(c) != 0 && layout.rows > 0) layout.bytes_per_row += (column.heap.size() + layout.rows - 1) / layout.rows;
    }
  }

  size_t anchor_max = 0;
  for (size_t q = 0; q < plans.size(); ++q) {
    const size_t n = plans[q]->pipelines.size();
    const size_t a = layout.plans[q].anchor >= 0 ? static_cast<size_t>(layout.plans[q].anchor) : (n == 0 ? 0 : n - 1);
    anchor_max = std::max(anchor_max, a);
  }
  for (size_t q = 0; q < plans.size(); ++q) {
    const size_t n = plans[q]->pipelines.size();
    const size_t a = layout.plans[q].anchor >= 0 ? static_cast<size_t>(layout.plans[q].anchor) : (n == 0 ? 0 : n - 1);
    layout.shift.push_back(anchor_max - a);
    layout.phases = std::max(layout.phases, n + anchor_max - a);
  }
  return layout;
}

// ---- placement ----

struct Footprint {
  uint64_t state = 0;
  uint64_t other_columns = 0;  // columns not of the fact table
  uint64_t fact = 0;           // the fact table's columns read, whole
  uint64_t limit = 0;
  uint64_t working_set() const { return state + other_columns + fact; }
};

// State counts without the buffers of counted capacities (`deferred`): they are allocated, for the
// rows their count gives, only once that count exists (CountedCapacity).
Footprint footprint(Backend& backend, DeviceColumnCache& columns, const std::vector<const ExecutablePlan*>& plans,
                    const std::vector<std::map<std::string, int64_t>>& params, const std::vector<std::set<std::string>>& deferred,
                    const ScanLayout& layout, const Database& db, uint64_t memory_limit) {
  Footprint f;
  std::set<std::pair<std::string, std::string>> seen;
  for (size_t q = 0; q < plans.size(); ++q) {
    f.state += state_bytes(*plans[q], params[q], deferred[q]);
    for (const PipelineSpec& pipeline : plans[q]->pipelines) {
      for (const LaunchSpec& launch : pipeline.launches) {
        for (const ArgSpec& a : launch.args) {
          if (a.kind != ArgSpec::Kind::Column && a.kind != ArgSpec::Kind::ColumnHeap) continue;
          if (!seen.insert({a.table, a.column}).second) continue;
          const Column& c = lookup_column(db, a.table, a.column, plans[q]->label);
          (a.table == layout.table ? f.fact : f.other_columns) += device_bytes(c, a.kind == ArgSpec::Kind::Column ? a.stored_bytes : 0);
        }
      }
    }
  }
  f.limit = memory_limit > 0 ? memory_limit : backend.free_memory() + columns.bytes_held();
  return f;
}

std::string mib(uint64_t bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / 1048576.0);
  return buf;
}

// ---- launch parameters of one phase ----

// Rows a launch covers: its tuple count (none for a fixed grid).
uint64_t launch_rows(const ExecutablePlan& plan, const LaunchSpec& launch, const std::map<std::string, int64_t>& params) {
  (void)plan;
  if (launch.tuples_param.empty()) return 0;
  return static_cast<uint64_t>(std::max<int64_t>(0, params.at(launch.tuples_param)));
}

// Bytes a launch reads over `rows` rows of the table it scans (the columns of that table among its
// arguments); 0 when it scans no table by its rows. Lookups into other tables and state are not
// counted: they touch a fraction of their bytes.
uint64_t read_bytes(const ExecutablePlan& plan, const LaunchSpec& launch, const Database& db, uint64_t rows) {
  const std::string table = scanned_table(plan, launch);
  if (table.empty()) return 0;
  std::set<std::string> seen;
  uint64_t width = 0;
  for (const ArgSpec& a : launch.args) {
    if (a.kind != ArgSpec::Kind::Column || a.table != table || !seen.insert(a.column).second) continue;
    width += stored_width(lookup_column(db, a.table, a.column, plan.label), a.stored_bytes);
  }
  return rows * width;
}

struct Item {
  size_t plan = 0;
  size_t pipeline = 0;
  size_t main = 0;              // index of the main launch in the pipeline
  bool streamed = false;        // the anchor pipeline of a streamed run
};

struct Decided {
  std::vector<LaunchConfig> configs;   // per launch of the item's pipeline
  PhaseKernel stats;
};

}  // namespace

LaunchParams parse_launch_params(std::string_view text) {
  if (text == "auto") return LaunchParams::Auto;
  if (text == "knapsack") return LaunchParams::Knapsack;
  if (text == "random") return LaunchParams::Random;
  if (text == "sequential") return LaunchParams::Sequential;
  throw Error(ErrorKind::Usage, "unknown launch parameters \"" + std::string(text) +
                                    "\": expected auto, knapsack, random or sequential");
}

const char* to_string(LaunchParams params) {
  switch (params) {
    case LaunchParams::Auto: return "auto";
    case LaunchParams::Knapsack: return "knapsack";
    case LaunchParams::Random: return "random";
    case LaunchParams::Sequential: return "sequential";
  }
  return "?";
}

std::string ConcurrentStats::summary() const {
  std::ostringstream out;
  char line[512];
  out << "device: " << device << "\n";
  std::snprintf(line, sizeof line, "concurrent: %zu queries, launch parameters %s, kernels %.3f ms (wall), "
                "transfer %.2f ms, compile %.2f ms, finalize %.2f ms\n",
                queries.size(), launch_params.c_str(), kernel_ms, transfer_ms, compile_ms, finalize_ms);
  out << line;
  if (predicted_knapsack_ms > 0 || predicted_sequential_ms > 0) {
    std::snprintf(line, sizeof line, "schedule: %s (predicted knapsack %.3f ms, one kernel at a time %.3f ms; "
                  "measured %.3f ms; read bandwidth %.1f GB/s, compute %.2f T ops/s, launch overhead %.1f us)\n",
                  schedule.c_str(), predicted_knapsack_ms, predicted_sequential_ms, kernel_ms,
                  schedule_bandwidth_bytes_per_s / 1e9, schedule_compute_ops_per_s / 1e12, schedule_launch_overhead_s * 1e6);
    out << line;
  }
  for (const PhaseStats& p : phases) {
    std::snprintf(line, sizeof line, "  phase %zu%s: %s, %s, %zu batch(es)%s, %.3f ms", p.index,
                  p.streamed ? " (streamed)" : "", p.planner.c_str(), p.schedule.c_str(), p.batches,
                  p.knapsack_feasible ? ", all co-resident" : "", p.wall_ms);
    out << line;
    if (p.predicted_knapsack_ms > 0 || p.predicted_sequential_ms > 0) {
      std::snprintf(line, sizeof line, " (predicted knapsack %.3f ms, sequential %.3f ms)", p.predicted_knapsack_ms,
                    p.predicted_sequential_ms);
      out << line;
    }
    out << "\n";
    for (const PhaseKernel& k : p.kernels) {
      std::snprintf(line, sizeof line, "    %s %s: batch %zu, block %u, grid %llu (%u/SM), demand %llu threads%s\n",
                    k.query.c_str(), k.kernel.c_str(), k.batch, k.block_size,
                    static_cast<unsigned long long>(k.grid_blocks), k.blocks_per_sm,
                    static_cast<unsigned long long>(k.demand_threads), k.chunked ? ", per chunk" : "");
      out << line;
    }
  }
  const StreamStats& s = stream;
  if (s.streamed) {
    std::snprintf(line, sizeof line,
                  "stream: %s in %llu chunks of <= %llu rows (model %llu, at least %llu), %s transferred, "
                  "%zu consumer(s), %llu pass(es), predicted %.3f ms (first pass), measured %.3f ms (%s)\n",
                  s.table.c_str(), static_cast<unsigned long long>(s.chunks), static_cast<unsigned long long>(s.chunk_rows),
                  static_cast<unsigned long long>(s.model_chunks), static_cast<unsigned long long>(s.min_chunks),
                  mib(s.bytes_transferred).c_str(), s.consumers, static_cast<unsigned long long>(s.passes), s.predicted_ms,
                  s.measured_ms, s.reason.c_str());
  } else {
    std::snprintf(line, sizeof line, "placement: resident (%s)\n", s.reason.c_str());
  }
  out << line;
  if (rebuilds > 0) out << "rebuilds after overflow: " << rebuilds << "\n";
  return out.str();
}

std::string ConcurrentStats::to_json() const {
  nlohmann::json j;
  j["device"] = device;
  j["launch_params"] = launch_params;
  j["queries"] = queries;
  j["compile_ms"] = compile_ms;
  j["transfer_ms"] = transfer_ms;
  j["transfer_bytes"] = transfer_bytes;
  j["kernels_ms"] = kernel_ms;
  j["finalize_ms"] = finalize_ms;
  j["rebuilds"] = rebuilds;
  j["schedule"] = schedule;
  j["schedule_bandwidth_bytes_per_s"] = schedule_bandwidth_bytes_per_s;
  j["schedule_compute_ops_per_s"] = schedule_compute_ops_per_s;
  j["schedule_launch_overhead_s"] = schedule_launch_overhead_s;
  j["predicted_knapsack_ms"] = predicted_knapsack_ms;
  j["predicted_sequential_ms"] = predicted_sequential_ms;
  j["phases"] = nlohmann::json::array();
  for (const PhaseStats& p : phases) {
    nlohmann::json kernels = nlohmann::json::array();
    for (const PhaseKernel& k : p.kernels) {
      kernels.push_back({{"query", k.query}, {"pipeline", k.pipeline}, {"kernel", k.kernel}, {"batch", k.batch},
                         {"demand_threads", k.demand_threads}, {"blocks_per_sm", k.blocks_per_sm},
                         {"block_size", k.block_size}, {"grid_blocks", k.grid_blocks},
                         {"dynamic_shared_bytes", k.dynamic_shared_bytes}, {"chunked", k.chunked}});
    }
    j["phases"].push_back({{"index", p.index}, {"streamed", p.streamed}, {"planner", p.planner},
                           {"schedule", p.schedule}, {"predicted_knapsack_ms", p.predicted_knapsack_ms},
                           {"predicted_sequential_ms", p.predicted_sequential_ms}, {"batches", p.batches},
                           {"knapsack_feasible", p.knapsack_feasible}, {"wall_ms", p.wall_ms}, {"kernels", kernels}});
  }
  const StreamStats& s = stream;
  j["stream"] = {{"streamed", s.streamed}, {"reason", s.reason}, {"table", s.table}, {"rows", s.rows},
                 {"bytes_per_row", s.bytes_per_row}, {"working_set_bytes", s.working_set_bytes},
                 {"memory_limit", s.memory_limit}, {"resident_bytes", s.resident_bytes},
                 {"staging_bytes", s.staging_bytes}, {"chunks", s.chunks}, {"chunk_rows", s.chunk_rows},
                 {"min_chunks", s.min_chunks}, {"model_chunks", s.model_chunks}, {"consumers", s.consumers}, {"passes", s.passes},
                 {"bytes_transferred", s.bytes_transferred}, {"h2d_bytes_per_s", s.h2d_bytes_per_s},
                 {"kernel_bytes_per_s", s.kernel_bytes_per_s}, {"per_chunk_overhead_s", s.per_chunk_overhead_s},
                 {"t_h2d_s", s.model.host_to_device}, {"t_kernel_s", s.model.kernel},
                 {"t_d2h_s", s.model.device_to_host}, {"t_overhead_s", s.model.per_chunk_overhead},
                 {"predicted_ms", s.predicted_ms}, {"serial_predicted_ms", s.serial_predicted_ms},
                 {"measured_ms", s.measured_ms}, {"pin_ms", s.pin_ms},
                 {"pinned_in_place_bytes", s.pinned_in_place_bytes}, {"pinned_copied_bytes", s.pinned_copied_bytes}};
  return j.dump();
}

const Calibration& Executor::calibration() {
  if (calibration_) return *calibration_;
  Backend& backend = backend_;
  // 16 MiB: large enough to reach the copy engines' bandwidth, small enough for any memory cap.
  constexpr uint64_t kProbe = uint64_t{16} << 20;
  Calibration c;
  {
    PinnedBuffer host = backend.allocate_pinned(kProbe);
    std::memset(host.data(), 1, kProbe);
    DeviceBuffer a = backend.allocate(kProbe);
    Stream stream = backend.create_stream();
    backend.synchronize();
    double best_h2d = 0;
    for (int rep = 0; rep < 3; ++rep) {
      const auto start = Clock::now();
      backend.upload_async(stream, a, 0, host, 0, kProbe);
      backend.synchronize(stream);
      best_h2d = std::max(best_h2d, static_cast<double>(kProbe) / std::max(1e-9, ms_since(start) / 1e3));
    }
    // Per-chunk overhead: an event, a wait and a small copy through a stream, round trip; the median
    // of several rounds (one slow round must not decide the chunk count).
    constexpr int kRounds = 9;
    std::vector<double> rounds;
    for (int i = 0; i < kRounds; ++i) {
      const auto start = Clock::now();
      Event e = backend.record(stream);
      backend.wait(stream, e);
      backend.upload_async(stream, a, 0, host, 0, 4);
      backend.synchronize(stream);
      rounds.push_back(ms_since(start) / 1e3);
    }
    std::nth_element(rounds.begin(), rounds.begin() + kRounds / 2, rounds.end());
    c.h2d_bytes_per_s = best_h2d;
    c.per_chunk_overhead_s = rounds[kRounds / 2];
  }
  // Read bandwidth and compute throughput from kernels (a copy's rate is well below what kernels
  // read: 1.5–1.8 TB/s against 4.6 TB/s on an H200). The probe buffer is freed before any staging.
  ExecutionStats compile_stats;
  const codegen::Dialect dialect = backend.dialect();
  const std::shared_ptr<Module> probes =
      module_for(probe_module(codegen::dialect_prelude(dialect), codegen::compile_options(dialect)), compile_stats);
  const DeviceProperties& device = backend.properties();
  c.kernel_bytes_per_s = measure_read_bandwidth(backend, *probes, read_probe_bytes(device), 3);
  c.compute_ops_per_s = measure_compute_throughput(backend, *probes, compute_probe_iterations(device), 3);
  calibration_ = std::make_unique<Calibration>(c);
  return *calibration_;
}

const PinnedBuffer& Executor::pinned(const std::string& name, const HostColumnBytes& view, double& pin_ms,
                                     uint64_t& registered_bytes, uint64_t& copied_bytes, unsigned stored_bytes) {
  const bool narrow = stored_bytes != 0;
  const std::string key = narrow ? name + "@" + std::to_string(stored_bytes) : name;
  const uint64_t fingerprint = sampled_fingerprint(view);
  auto it = pinned_.find(key);
  if (it != pinned_.end() && it->second.host == view.data && it->second.bytes == view.bytes &&
      it->second.fingerprint == fingerprint) {
    return it->second.buffer;
  }
  const auto start = Clock::now();
  PinnedColumn entry;
  if (narrow) {
    entry.buffer = backend_.allocate_pinned(std::max<uint64_t>(1, view.rows * stored_bytes));
    narrow_values_parallel(view, stored_bytes, 0, view.rows, entry.buffer.data(), name, 0);
    copied_bytes += view.rows * stored_bytes;
  } else if (std::optional<PinnedBuffer> in_place = backend_.register_host(view.data, view.bytes)) {
    entry.buffer = std::move(*in_place);
    registered_bytes += view.bytes;
  } else {
    entry.buffer = backend_.allocate_pinned(view.bytes);
    if (view.bytes > 0) std::memcpy(entry.buffer.data(), view.data, view.bytes);
    copied_bytes += view.bytes;
  }
  entry.host = view.data;
  entry.bytes = view.bytes;
  entry.fingerprint = fingerprint;
  pin_ms += ms_since(start);
  auto [pos, inserted] = pinned_.insert_or_assign(key, std::move(entry));
  (void)inserted;
  return pos->second.buffer;
}

bool Executor::would_stream(const std::vector<const ExecutablePlan*>& plans, const Database& database,
                                      const ConcurrentOptions& options) {
  if (options.placement != Placement::Auto) return options.placement == Placement::Stream;
  const ScanLayout layout = analyse(plans, database, options.stream_among);
  if (layout.table.empty()) return false;
  std::vector<std::map<std::string, int64_t>> params;
  std::vector<std::set<std::string>> deferred;
  for (const ExecutablePlan* p : plans) {
    params.push_back(param_values(*p));
    deferred.push_back(counted_params(*p));
  }
  const Footprint f = footprint(backend_, columns_, plans, params, deferred, layout, database, options.memory_limit);
  return f.working_set() > f.limit;
}

// One staging buffer set: a chunk of each streamed column, by column; a heap string column's
// `values` are the chunk's offsets (rows + 1 of them, positions in the whole heap) and its `heaps`
// entry the chunk's bytes of the heap from heap_base() on.
struct StagingSlot {
  std::map<std::string, DeviceBuffer> values;
  std::map<std::string, DeviceBuffer> heaps;
};

// The heap position a chunk starting at `first_row` copies a heap string column's bytes from: the
// first string's offset rounded down to 8, so that the words LIKE reads (templates/device/strings.h,
// hqc_find_start) stay aligned as they are in the whole heap.
uint64_t heap_base(const Column& column, uint64_t first_row) {
  return first_row < column.offsets.size() ? column.offsets[first_row] & ~uint64_t{7} : 0;
}
// The bytes of the chunk [first_row, first_row + rows) from heap_base() on.
uint64_t heap_span(const Column& column, uint64_t first_row, uint64_t rows) {
  if (first_row + rows >= column.offsets.size()) return 0;
  return column.offsets[first_row + rows] - heap_base(column, first_row);
}

// Where the chunk [first_row, first_row + rows) of a column's values lies in its host bytes
// (host_column_bytes): a heap string's chunk holds its rows' offsets and the one after the last
// (their end), clamped to the offsets there are (an empty share may have none).
struct ChunkValues {
  uint64_t offset = 0;
  uint64_t bytes = 0;
};
// A narrowed column (`stored_bytes`): in its pinned narrowed copy (Executor::pinned).
ChunkValues chunk_values(const Column& column, uint64_t first_row, uint64_t rows, unsigned stored_bytes) {
  const HostColumnBytes view = host_column_bytes(column);
  const bool heap = column.encoding == Encoding::Heap;
  const uint64_t width = heap ? sizeof(uint64_t) : stored_width(column, stored_bytes);
  const uint64_t total = view.rows * width + (heap && !column.offsets.empty() ? width : 0);
  const uint64_t offset = std::min(total, first_row * width);
  return {offset, std::min((rows + (heap ? 1 : 0)) * width, total - offset)};
}

// One run of several plans at once (Executor::run(plans)): its steps as methods sharing the
// run's modules, parameters, placement, device columns, staging buffers, streams and state.
class ConcurrentQueriesRun {
 public:
  ConcurrentQueriesRun(Executor& owner, const std::vector<const ExecutablePlan*>& plans, const Database& database,
                       const ConcurrentOptions& options, ConcurrentRun& out)
      : owner_(owner), backend_(owner.backend_), columns_(owner.columns_),
        device_(backend_.properties()), profile_(device_profile_for(device_)), plans_(plans), database_(database),
        options_(options), out_(out), stats_(out.stats), ss_(out.stats.stream), rng_(options.seed) {
    stats_.device = backend_.device_description();
    stats_.launch_params = to_string(options.launch_params);
    out_.executions.resize(plans.size());
    for (const ExecutablePlan* p : plans) labels_ += (labels_.empty() ? "" : ", ") + p->label;
  }

  void compile();     // every plan's module and parameter values
  void place();       // resident or streamed (ScanLayout, footprint), and the chunks
  void upload();      // resident columns, staging buffers, streams
  void run_phases();  // every phase, restarted from the first on a Grow overflow
  void finish();      // results and per-plan statistics

 private:
  void plan_chunks(const Footprint& fp);
  std::vector<Item> phase_items(size_t phase);
  // Each item's launches as decide_launch() takes them alone (`stand_alone`), and with the phase's
  // other kernels (`decided`: the knapsack's or random parameters for the main launches).
  void decide_launches(PhaseStats& ps, const std::vector<Item>& items, std::vector<Decided>& decided,
                       std::vector<Decided>& stand_alone);
  // Predicts both schedules (unless random) and returns whether the phase runs one kernel at a time.
  bool one_at_a_time(PhaseStats& ps, const std::vector<Item>& items, const std::vector<Decided>& decided,
                     const std::vector<Decided>& stand_alone);
  void issue_phase(const PhaseStats& ps, const std::vector<Item>& items, const std::vector<Decided>& decided, size_t batches);
  // With hooks: the device synchronised, then after_launch for launches [from, to) of the item's
  // pipeline, in order; what they did is kept for the pipeline's statistics (exchanges_).
  void exchange_after(const Item& it, size_t from, size_t to);
  std::vector<KernelArg> args_for(const Item& it, const LaunchSpec& launch, const StagingSlot* slot, uint64_t first_row,
                                  uint64_t rows);
  // Launches [from, to) of an item's pipeline on its stream; chunk launches see `slot` and the
  // chunk's rows [first_row, first_row + rows).
  void issue(const Item& it, const Decided& d, size_t from, size_t to, const StagingSlot* slot, uint64_t first_row,
             uint64_t rows);
  // A staging slot's buffer for a streamed column's chunk (a heap string's offsets: rows + 1 of
  // them), and for its heap bytes (the largest heap_span() over the chunks, rounded up to 8 as
  // resident heaps are: LIKE reads whole words; 0 unless a chunked launch reads the bytes).
  uint64_t staging_values_bytes(const std::string& column) const;
  uint64_t staging_heap_bytes(const std::string& column) const;

  Executor& owner_;
  Backend& backend_;
  DeviceColumnCache& columns_;
  const DeviceProperties& device_;
  const planner::DeviceProfile profile_;
  const std::vector<const ExecutablePlan*>& plans_;
  const Database& database_;
  const ConcurrentOptions& options_;
  ConcurrentRun& out_;
  ConcurrentStats& stats_;
  StreamStats& ss_;
  std::mt19937_64 rng_;
  std::string labels_;

  std::vector<std::shared_ptr<Module>> modules_;
  std::vector<std::map<std::string, int64_t>> params_;
  std::vector<std::map<std::string, AllocatedBuffer>> buffers_;
  // Per plan, the counted capacities whose buffers wait for their count (allocate_counted before
  // the phase of their first use), as OverflowRestarts keeps them.
  std::vector<std::set<std::string>> deferred_;
  ScanLayout layout_;
  bool stream_ = false;
  std::vector<PinnedBuffer const*> pinned_columns_;              // per layout_.columns
  std::map<std::string, PinnedBuffer const*> pinned_heaps_;      // per layout_.heaps
  uint64_t chunk_rows_ = 0;
  std::vector<std::pair<uint64_t, uint64_t>> chunk_ranges_;  // [first row, rows)
  std::map<std::pair<std::string, std::string>, const DeviceColumn*> device_columns_;
  std::vector<StagingSlot> staging_;
  std::vector<Stream> streams_;
  Stream copy_stream_;
  bool host_sync_ = false;  // forced Sequential: the host waits after every kernel
  std::map<size_t, std::vector<LaunchStats>> exchanges_;  // with hooks: per pipeline, the last attempt's exchanges
};

void ConcurrentQueriesRun::compile() {
  if (options_.hooks != nullptr && plans_.size() != 1)
    throw Error(ErrorKind::Internal, "a distributed run streams one query at a time (ConcurrentOptions::hooks)");
  for (size_t q = 0; q < plans_.size(); ++q) {
    const ExecutablePlan& plan = *plans_[q];
    check_plan_runs_on(plan, backend_);
    for (const PipelineSpec& p : plan.pipelines)
      if (!p.library_steps.empty())
        throw Error(ErrorKind::Unsupported, plan.label + ": " + p.name + " has library calls between its kernels (the multi_pass and operator_at_a_time models), which "
                                            "synchronise the device; concurrent queries run the resolution and pipelined models");
    stats_.queries.push_back(plan.label);
    ExecutionStats& es = out_.executions[q].stats;
    es.device = stats_.device;
    {
      Watchdog::Phase phase(plan.label, "compile");
      modules_.push_back(owner_.plan_module(plan, es));
      if (options_.hooks != nullptr) options_.hooks->module_loaded(*modules_.back());
    }
    stats_.compile_ms += es.compile_ms;
    params_.push_back(param_values(plan));
    deferred_.push_back(counted_params(plan));
  }
}

void ConcurrentQueriesRun::place() {
  layout_ = analyse(plans_, database_, options_.stream_among);
  ss_.table = layout_.table;
  ss_.rows = layout_.rows;
  ss_.bytes_per_row = layout_.bytes_per_row;
  const Footprint fp = footprint(backend_, columns_, plans_, params_, deferred_, layout_, database_, options_.memory_limit);
  ss_.working_set_bytes = fp.working_set();
  ss_.memory_limit = fp.limit;
  if (options_.placement == Placement::Stream) {
    stream_ = true;
    ss_.reason = "streaming forced";
  } else if (options_.placement == Placement::Auto && !layout_.table.empty() && fp.working_set() > fp.limit) {
    stream_ = true;
    ss_.reason = "working set " + mib(fp.working_set()) + " exceeds the limit of " + mib(fp.limit);
  } else {
    ss_.reason = "working set " + mib(fp.working_set()) + " within the limit of " + mib(fp.limit);
  }
  if (stream_ && layout_.table.empty()) {
    throw Error(ErrorKind::Unsupported, "cannot stream: no pipeline of " + stats_.queries.front() +
                                            (plans_.size() > 1 ? " (and the others)" : "") + " scans a table by its rows");
  }
  if (stream_ && !layout_.blocker.empty()) throw Error(ErrorKind::Unsupported, "cannot stream " + layout_.table + ": " + layout_.blocker);
  if (stream_ && options_.hooks != nullptr) {
    // The rank's exchange follows the chunked launches only after the last chunk: it must not be
    // due between two of them.
    for (const auto& [p, chunked] : layout_.plans[0].chunked) {
      const PipelineSpec& scan = plans_[0]->pipelines[p];
      const size_t first = static_cast<size_t>(std::find(chunked.begin(), chunked.end(), true) - chunked.begin());
      size_t end = first;
      while (end < chunked.size() && chunked[end]) ++end;
      if (scan.sink_launches > first && scan.sink_launches < end)
        throw Error(ErrorKind::Unsupported, "cannot stream " + layout_.table + " under mpirun: " + stats_.queries.front() + "'s " +
                                                scan.name + " exchanges state between two launches that scan it");
    }
  }
  if (!stream_ && options_.chunks > 0) {
    throw Error(ErrorKind::Usage, "a chunk count was given but the run is resident (" + ss_.reason + "); add --stream");
  }
  if (stream_) plan_chunks(fp);
}

void ConcurrentQueriesRun::plan_chunks(const Footprint& fp) {
  ss_.streamed = true;
  columns_.evict(layout_.table);  // the fact table lives in pinned host memory now
  for (const std::string& c : layout_.columns) {
    const Column& column = lookup_column(database_, layout_.table, c, "fact table");
    pinned_columns_.push_back(&owner_.pinned(layout_.table + "." + c, host_column_bytes(column), ss_.pin_ms,
                                             ss_.pinned_in_place_bytes, ss_.pinned_copied_bytes,
                                             narrowed_width(column, layout_.stored_bytes(c))));
    if (layout_.heaps.count(c) != 0) {
      pinned_heaps_[c] = &owner_.pinned(layout_.table + "." + c + " heap", {column.heap.data(), column.heap.size(), layout_.rows},
                                        ss_.pin_ms, ss_.pinned_in_place_bytes, ss_.pinned_copied_bytes);
    }
  }
  ss_.resident_bytes = fp.state + fp.other_columns;
  if (ss_.resident_bytes >= fp.limit) {
    throw Error(ErrorKind::Device, "cannot stream " + layout_.table + ": the dimension columns and state buffers alone need " +
                                       mib(ss_.resident_bytes) + " but the device memory limit is " + mib(fp.limit));
  }
  const uint64_t rows = std::max<uint64_t>(1, layout_.rows);
  const uint64_t budget_rows = (fp.limit - ss_.resident_bytes) / (kStagingSlots * std::max<uint64_t>(1, layout_.bytes_per_row));
  if (budget_rows == 0) {
    throw Error(ErrorKind::Device, "cannot stream " + layout_.table + ": " + mib(fp.limit - ss_.resident_bytes) +
                                       " left under the limit of " + mib(fp.limit) + " is less than " +
                                       std::to_string(kStagingSlots) + " rows of staging");
  }
  ss_.min_chunks = (rows + budget_rows - 1) / budget_rows;
  const Calibration& cal = owner_.calibration();
  ss_.h2d_bytes_per_s = cal.h2d_bytes_per_s;
  ss_.kernel_bytes_per_s = cal.kernel_bytes_per_s;
  ss_.per_chunk_overhead_s = cal.per_chunk_overhead_s;
  uint64_t consumed_bytes = 0;  // Σ over consumers of the bytes of the fact table each reads
  // The model is the anchor phase's (the shared scan); a plan's later passes over the table reuse its chunks.
  for (size_t q = 0; q < plans_.size(); ++q) {
    if (layout_.plans[q].anchor < 0) continue;
    ++ss_.consumers;
    std::set<std::string> mine;
    for (const LaunchSpec& l : plans_[q]->pipelines[static_cast<size_t>(layout_.plans[q].anchor)].launches) {
      for (const ArgSpec& a : l.args) {
        if (a.kind == ArgSpec::Kind::Column && a.table == layout_.table) mine.insert(a.column);
      }
    }
    for (const std::string& c : mine)
      consumed_bytes += device_value_bytes(lookup_column(database_, layout_.table, c, "fact table"), layout_.stored_bytes(c));
  }
  ss_.model.host_to_device = static_cast<double>(layout_.rows * layout_.bytes_per_row) / cal.h2d_bytes_per_s;
  ss_.model.kernel = static_cast<double>(consumed_bytes) / cal.kernel_bytes_per_s;
  ss_.model.device_to_host = 0;
  ss_.model.per_chunk_overhead = cal.per_chunk_overhead_s;
  const planner::ChunkPlan model = planner::optimal_chunks(ss_.model, planner::Engines::ThreeEngines, std::min<uint64_t>(rows, 4096));
  ss_.model_chunks = model.chunks;
  if (options_.chunks > 0) {
    if (options_.chunks < ss_.min_chunks) {
      throw Error(ErrorKind::Usage, std::to_string(options_.chunks) + " chunks of " + layout_.table + " need " +
                                        mib(kStagingSlots * ((rows + options_.chunks - 1) / options_.chunks) * layout_.bytes_per_row) +
                                        " of staging, but the limit of " + mib(fp.limit) + " leaves " +
                                        mib(fp.limit - ss_.resident_bytes) + ": use at least " +
                                        std::to_string(ss_.min_chunks) + " chunks");
    }
    // Under mpirun the count is each rank's, whatever its share: a smaller share (an empty one
    // streams one chunk of no rows) takes a chunk per row.
    if (options_.chunks > rows && options_.hooks == nullptr) {
      throw Error(ErrorKind::Usage, std::to_string(options_.chunks) + " chunks for " + std::to_string(rows) + " rows of " +
                                        layout_.table + ": at most one chunk per row");
    }
    ss_.chunks = std::min(options_.chunks, rows);
  } else {
    ss_.chunks = std::min(rows, std::max(model.chunks, ss_.min_chunks));
  }
  // Staging per slot: each column's chunk (a heap string's offsets: one more) and each heap's largest
  // span. The budget took a heap at its average bytes per row: where a chunk's span is larger, more
  // chunks (the count given by --chunks is kept, and must fit).
  const uint64_t budget = fp.limit - ss_.resident_bytes;
  for (;;) {
    chunk_ranges_.clear();
    chunk_rows_ = 0;
    for (uint64_t i = 0; i < ss_.chunks; ++i) {
      const uint64_t first = layout_.rows * i / ss_.chunks;
      const uint64_t last = layout_.rows * (i + 1) / ss_.chunks;
      chunk_ranges_.push_back({first, last - first});
      chunk_rows_ = std::max(chunk_rows_, last - first);
    }
    uint64_t per_slot = 0;
    for (const std::string& c : layout_.columns) per_slot += staging_values_bytes(c) + staging_heap_bytes(c);
    ss_.staging_bytes = kStagingSlots * per_slot;
    if (ss_.staging_bytes <= budget || ss_.chunks >= rows || options_.chunks > 0) break;
    ss_.chunks = std::min(rows, ss_.chunks + std::max<uint64_t>(1, ss_.chunks / 8));
  }
  if (ss_.staging_bytes > budget) {
    throw Error(ErrorKind::Device, "cannot stream " + layout_.table + ": " + std::to_string(ss_.chunks) + " chunks need " +
                                       mib(ss_.staging_bytes) + " of staging (the string heaps' largest chunks), but the limit of " +
                                       mib(fp.limit) + " leaves " + mib(budget) + (options_.chunks > 0 ? ": use more chunks" : ""));
  }
  ss_.chunk_rows = chunk_rows_;
  ss_.predicted_ms = 1e3 * planner::streamed_seconds(ss_.model, ss_.chunks, planner::Engines::ThreeEngines);
  ss_.serial_predicted_ms = 1e3 * planner::serial_seconds(ss_.model);
}

uint64_t ConcurrentQueriesRun::staging_values_bytes(const std::string& column) const {
  const Column& c = lookup_column(database_, layout_.table, column, "fact table");
  uint64_t bytes = 0;
  for (const auto& [first, rows] : chunk_ranges_) bytes = std::max(bytes, chunk_values(c, first, rows, layout_.stored_bytes(column)).bytes);
  return bytes;
}

uint64_t ConcurrentQueriesRun::staging_heap_bytes(const std::string& column) const {
  if (layout_.heaps.count(column) == 0) return 0;
  const Column& c = lookup_column(database_, layout_.table, column, "fact table");
  uint64_t span = 0;
  for (const auto& [first, rows] : chunk_ranges_) span = std::max(span, heap_span(c, first, rows));
  return (span + 7) & ~uint64_t{7};
}

void ConcurrentQueriesRun::upload() {
  columns_.reset_counters();
  std::vector<DeviceColumnCache::Request> requests;
  for (size_t q = 0; q < plans_.size(); ++q) {
    for (const PipelineSpec& pipeline : plans_[q]->pipelines) {
      for (const LaunchSpec& launch : pipeline.launches) {
        for (const ArgSpec& a : launch.args) {
          if (a.kind != ArgSpec::Kind::Column && a.kind != ArgSpec::Kind::ColumnHeap) continue;
          if (stream_ && a.table == layout_.table) continue;
          const Column& c = lookup_column(database_, a.table, a.column, plans_[q]->label + ": " + pipeline.name);
          requests.push_back({a.table, &c, a.kind == ArgSpec::Kind::Column ? a.stored_bytes : 0});
        }
      }
    }
  }
  {
    Watchdog::Phase phase(labels_, "transfer");
    uint64_t state = 0;  // allocated next; room is made for it too (DeviceColumnCache::get_all)
    for (size_t q = 0; q < plans_.size(); ++q) state += state_bytes(*plans_[q], params_[q], deferred_[q]);
    device_columns_ = columns_.get_all(requests, state);
  }
  stats_.transfer_ms = columns_.transfer_ms();
  stats_.transfer_bytes = columns_.bytes_uploaded();
  // Staging buffers: allocated once; every attempt reuses them.
  staging_.resize(stream_ ? kStagingSlots : 0);
  for (StagingSlot& slot : staging_) {
    for (const std::string& c : layout_.columns) {
      slot.values.emplace(c, backend_.allocate(std::max<uint64_t>(1, staging_values_bytes(c))));
      if (layout_.heaps.count(c) != 0) slot.heaps.emplace(c, backend_.allocate(std::max<uint64_t>(8, staging_heap_bytes(c))));
    }
  }
  for (size_t q = 0; q < plans_.size(); ++q) streams_.push_back(backend_.create_stream());
  if (stream_) copy_stream_ = backend_.create_stream();
}

// The pipelines that run in `phase` (one per plan at most), their parameters from earlier pipelines
// set and the counted capacities they are the first to use allocated (for the rows counted so far:
// a plan's pipelines run one phase after the other, so the count's build or output ran before).
std::vector<Item> ConcurrentQueriesRun::phase_items(size_t phase) {
  std::vector<Item> items;
  bool allocated = false;
  for (size_t q = 0; q < plans_.size(); ++q) {
    if (phase < layout_.shift[q]) continue;
    const size_t p = phase - layout_.shift[q];
    if (p >= plans_[q]->pipelines.size()) continue;
    Item it;
    it.plan = q;
    it.pipeline = p;
    const auto scan = layout_.plans[q].chunked.find(p);
    it.streamed = stream_ && scan != layout_.plans[q].chunked.end();
    if (scan != layout_.plans[q].chunked.end())
      it.main = static_cast<size_t>(std::find(scan->second.begin(), scan->second.end(), true) - scan->second.begin());
    items.push_back(it);
    for (const ParamFromBuffer& f : plans_[q]->pipelines[p].params_from_buffers)
      params_[q][f.param] = param_from_buffer(*plans_[q], f, buffers_[q]);
    allocated = allocate_counted(backend_, *plans_[q], p, params_[q], buffers_[q], deferred_[q]) || allocated;
  }
  if (allocated) backend_.synchronize();  // the fills ran on the default queue; streams must see them
  return items;
}

void ConcurrentQueriesRun::decide_launches(PhaseStats& ps, const std::vector<Item>& items, std::vector<Decided>& decided,
                                           std::vector<Decided>& stand_alone) {
  // Knapsack, Sequential and Auto phases plan the knapsack and predict both schedules.
  const bool predict = options_.launch_params != LaunchParams::Random;
  std::vector<size_t> planned;  // items whose main launch the knapsack plans
  std::vector<planner::ConcurrentKernel> planned_kernels;
  decided.assign(items.size(), {});
  for (size_t i = 0; i < items.size(); ++i) {
    const Item& it = items[i];
    const ExecutablePlan& plan = *plans_[it.plan];
    const PipelineSpec& pipeline = plan.pipelines[it.pipeline];
    Decided& d = decided[i];
    for (const LaunchSpec& launch : pipeline.launches) {
      const LaunchDecision ld =
          decide_launch(plan.label, launch, modules_[it.plan]->kernel(launch.kernel).attributes, params_[it.plan], device_);
      d.configs.push_back(ld.config);
      if (d.configs.size() == it.main + 1) d.stats.blocks_per_sm = ld.blocks_per_sm;
    }
    const LaunchSpec& main = pipeline.launches[it.main];
    d.stats.query = plan.label;
    d.stats.pipeline = pipeline.name;
    d.stats.kernel = main.kernel;
    d.stats.chunked = it.streamed;
    d.stats.batch = 0;
    // The planner's view of the main launch: the rows it covers in this phase.
    planner::ConcurrentKernel ck{plan.label + "/" + main.kernel, launch_request(plan.label, main, params_[it.plan]),
                                 compiled_kernel(modules_[it.plan]->kernel(main.kernel).attributes)};
    if (main.strides_over_tiles) ck.request.tuples = it.streamed ? chunk_rows_ : launch_rows(plan, main, params_[it.plan]);
    if (planner::knapsack_can_plan(ck.request, profile_) && predict) {
      planned.push_back(i);
      planned_kernels.push_back(ck);
    }
    if (main.strides_over_tiles && options_.launch_params == LaunchParams::Random) {
      if (const std::optional<planner::ConcurrentChoice> r = planner::random_launch(ck, profile_, rng_)) {
        d.configs[it.main] = {.grid_blocks = r->grid_blocks, .block_size = r->block_size, .dynamic_shared_bytes = r->dynamic_shared_bytes};
        d.stats.blocks_per_sm = r->blocks_per_sm;
      }
    }
  }
  stand_alone = decided;  // decide_launch()'s full-device launches
  if (planned.empty()) {
    ps.planner = options_.launch_params == LaunchParams::Auto ? "knapsack" : to_string(options_.launch_params);
    return;
  }
  const planner::ConcurrentLaunches cl = planner::plan_concurrent_launches(planned_kernels, profile_);
  ps.batches = cl.batches;
  ps.knapsack_feasible = cl.batches == 1;
  ps.planner = cl.planner;
  for (size_t j = 0; j < planned.size(); ++j) {
    const planner::ConcurrentChoice& c = cl.kernels[j];
    Decided& d = decided[planned[j]];
    d.configs[items[planned[j]].main] = {.grid_blocks = c.grid_blocks, .block_size = c.block_size, .dynamic_shared_bytes = c.dynamic_shared_bytes};
    d.stats.batch = c.batch;
    d.stats.blocks_per_sm = c.blocks_per_sm;
    d.stats.demand_threads = c.demand_threads;
  }
}

bool ConcurrentQueriesRun::one_at_a_time(PhaseStats& ps, const std::vector<Item>& items, const std::vector<Decided>& decided,
                                         const std::vector<Decided>& stand_alone) {
  bool sequential = options_.launch_params == LaunchParams::Sequential;
  if (options_.launch_params == LaunchParams::Random) return sequential;
  const Calibration& cal = owner_.calibration();
  const planner::ScheduleDevice sd =
      planner::schedule_device(profile_, cal.kernel_bytes_per_s, cal.compute_ops_per_s, cal.per_chunk_overhead_s);
  stats_.schedule_bandwidth_bytes_per_s = sd.bandwidth_bytes_per_s;
  stats_.schedule_compute_ops_per_s = sd.compute_ops_per_s;
  stats_.schedule_launch_overhead_s = sd.launch_overhead_s;
  std::vector<planner::ScheduledKernel> together;
  std::vector<planner::ScheduledKernel> alone;
  for (size_t i = 0; i < items.size(); ++i) {
    const Item& it = items[i];
    const ExecutablePlan& plan = *plans_[it.plan];
    const LaunchSpec& main = plan.pipelines[it.pipeline].launches[it.main];
    const uint64_t rows = it.streamed ? chunk_rows_ : launch_rows(plan, main, params_[it.plan]);
    const uint64_t bytes = read_bytes(plan, main, database_, rows);
    auto scheduled = [&](const LaunchConfig& cfg, uint32_t per_sm, size_t batch) {
      uint64_t grid = cfg.grid_blocks;
      if (it.streamed && main.strides_over_tiles) {
        const uint64_t per_block = uint64_t{cfg.block_size} * planner::tuples_per_thread(rows);
        grid = std::min(grid, std::max<uint64_t>(1, (rows + per_block - 1) / per_block));
      }
      return planner::ScheduledKernel{plan.label + "/" + main.kernel, bytes, cfg.block_size, grid, std::max<uint32_t>(1, per_sm), batch};
    };
    together.push_back(scheduled(decided[i].configs[it.main], decided[i].stats.blocks_per_sm, decided[i].stats.batch));
    alone.push_back(scheduled(stand_alone[i].configs[it.main], stand_alone[i].stats.blocks_per_sm, i));
  }
  const planner::ScheduleDecision sched = planner::choose_schedule(sd, together, alone);
  const double repeats = ps.streamed ? static_cast<double>(chunk_ranges_.size()) : 1.0;
  ps.predicted_knapsack_ms = 1e3 * sched.concurrent.seconds * repeats;
  ps.predicted_sequential_ms = 1e3 * sched.sequential.seconds * repeats;
  stats_.predicted_knapsack_ms += ps.predicted_knapsack_ms;
  stats_.predicted_sequential_ms += ps.predicted_sequential_ms;
  if (options_.launch_params == LaunchParams::Auto) sequential = sched.choice == planner::ScheduleChoice::Sequential;
  return sequential;
}

std::vector<KernelArg> ConcurrentQueriesRun::args_for(const Item& it, const LaunchSpec& launch, const StagingSlot* slot,
                                                      uint64_t first_row, uint64_t rows) {
  std::vector<KernelArg> args;
  const std::map<std::string, int64_t>& p = params_[it.plan];
  const bool chunk = slot != nullptr && scanned_table(*plans_[it.plan], launch) == layout_.table;
  for (const ArgSpec& a : launch.args) {
    switch (a.kind) {
      case ArgSpec::Kind::Column:
        if (chunk && a.table == layout_.table) args.push_back(KernelArg::buf(slot->values.at(a.column)));
        else args.push_back(KernelArg::buf(device_columns_.at({a.table, a.column})->values));
        break;
      case ArgSpec::Kind::ColumnHeap:
        if (chunk && a.table == layout_.table) args.push_back(KernelArg::buf(slot->heaps.at(a.column)));
        else args.push_back(KernelArg::buf(device_columns_.at({a.table, a.column})->heap));
        break;
      case ArgSpec::Kind::Buffer: args.push_back(KernelArg::buf(buffers_[it.plan].at(a.name).buffer)); break;
      case ArgSpec::Kind::Param: {
        int64_t value = p.at(a.name);
        if (chunk && a.name == launch.tuples_param) value = static_cast<int64_t>(rows);
        for (const LaunchSpec::ChunkBase& base : launch.chunk_bases) {
          if (!chunk || base.param != a.name) continue;
          value = static_cast<int64_t>(
              base.heap ? heap_base(lookup_column(database_, layout_.table, base.column, "fact table"), first_row) : first_row);
        }
        args.push_back(scalar_arg(value, a.scalar));
        break;
      }
      case ArgSpec::Kind::Scratch: args.push_back(KernelArg::scratch()); break;
    }
  }
  return args;
}

void ConcurrentQueriesRun::issue(const Item& it, const Decided& d, size_t from, size_t to, const StagingSlot* slot,
                                 uint64_t first_row, uint64_t rows) {
  const PipelineSpec& pipeline = plans_[it.plan]->pipelines[it.pipeline];
  for (size_t l = from; l < to; ++l) {
    if (options_.hooks != nullptr && !options_.hooks->runs_launch(it.pipeline, l)) continue;
    const LaunchSpec& launch = pipeline.launches[l];
    LaunchConfig cfg = d.configs[l];
    if (slot != nullptr && launch.strides_over_tiles) {
      const uint64_t per_block = uint64_t{cfg.block_size} * planner::tuples_per_thread(rows);
      cfg.grid_blocks = std::min(cfg.grid_blocks, std::max<uint64_t>(1, (rows + per_block - 1) / per_block));
    }
    backend_.launch_on(streams_[it.plan], modules_[it.plan]->kernel(launch.kernel), args_for(it, launch, slot, first_row, rows), cfg);
  }
}

void ConcurrentQueriesRun::exchange_after(const Item& it, size_t from, size_t to) {
  if (options_.hooks == nullptr) return;
  backend_.synchronize();
  for (size_t l = from; l < to; ++l) {
    std::vector<LaunchStats> done = options_.hooks->after_launch(it.pipeline, l, buffers_[it.plan], params_[it.plan]);
    std::vector<LaunchStats>& into = exchanges_[it.pipeline];
    into.insert(into.end(), done.begin(), done.end());
  }
}

void ConcurrentQueriesRun::issue_phase(const PhaseStats& ps, const std::vector<Item>& items, const std::vector<Decided>& decided,
                                       size_t batches) {
  auto launches = [&](size_t i) { return plans_[items[i].plan]->pipelines[items[i].pipeline].launches.size(); };
  // Launches [from, to) of item i as they come; with hooks (one plan) one at a time, each followed
  // by the rank's exchange once the device is idle.
  auto once = [&](size_t i, size_t from, size_t to) {
    if (options_.hooks == nullptr) return issue(items[i], decided[i], from, to, nullptr, 0, 0);
    for (size_t l = from; l < to; ++l) {
      issue(items[i], decided[i], l, l + 1, nullptr, 0, 0);
      exchange_after(items[i], l, l + 1);
    }
  };
  // Issues every item batch by batch; a later batch's streams wait for the earlier batch.
  // `body(i)` issues item i's launches. Returns the last batch's events (every earlier batch
  // completed before them).
  auto issue_batches = [&](const std::function<void(size_t)>& body, const std::vector<Event>* after) {
    std::vector<Event> previous;
    for (size_t b = 0; b < batches; ++b) {
      std::vector<Event> current;
      for (size_t i = 0; i < items.size(); ++i) {
        if (decided[i].stats.batch != b) continue;
        const Stream& s = streams_[items[i].plan];
        if (after != nullptr) {
          for (const Event& e : *after) backend_.wait(s, e);
        }
        for (const Event& e : previous) backend_.wait(s, e);
        body(i);
        current.push_back(backend_.record(s));
        if (host_sync_) backend_.synchronize(s);
      }
      previous = std::move(current);
    }
    return previous;
  };
  if (!ps.streamed) {
    issue_batches([&](size_t i) { once(i, 0, launches(i)); }, nullptr);
    return;
  }
  // Launches before the chunked ones, once.
  std::vector<std::pair<size_t, size_t>> ranges(items.size());  // chunked launches [first, end)
  for (size_t i = 0; i < items.size(); ++i) {
    const size_t n = launches(i);
    if (!items[i].streamed) {
      ranges[i] = {n, n};
      continue;
    }
    const std::vector<bool>& chunked = layout_.plans[items[i].plan].chunked.at(items[i].pipeline);
    size_t end = items[i].main;
    while (end < n && chunked[end]) ++end;
    ranges[i] = {items[i].main, end};
    once(i, 0, items[i].main);
  }
  // Non-streamed items of this phase (plans without a fact-table scan) run once, alongside.
  for (size_t i = 0; i < items.size(); ++i) {
    if (!items[i].streamed) once(i, 0, launches(i));
  }
  // The fact table's columns this phase's chunked launches read: only they move (a heap string's
  // bytes only where a launch reads them).
  auto read = [&](const std::string& column, ArgSpec::Kind kind) {
    for (size_t i = 0; i < items.size(); ++i) {
      const PipelineSpec& pipeline = plans_[items[i].plan]->pipelines[items[i].pipeline];
      for (size_t l = ranges[i].first; l < ranges[i].second; ++l)
        for (const ArgSpec& a : pipeline.launches[l].args)
          if (a.kind == kind && a.table == layout_.table && a.column == column) return true;
    }
    return false;
  };
  std::vector<size_t> moved, moved_heaps;
  for (size_t k = 0; k < layout_.columns.size(); ++k) {
    if (read(layout_.columns[k], ArgSpec::Kind::Column)) moved.push_back(k);
    if (read(layout_.columns[k], ArgSpec::Kind::ColumnHeap)) moved_heaps.push_back(k);
  }
  std::vector<std::vector<Event>> consumed(kStagingSlots);
  for (size_t c = 0; c < chunk_ranges_.size(); ++c) {
    // Named variables, not a structured binding: the lambda below captures `rows`, which
    // clang before 16 refuses for a binding (the sanitizer and fuzz build use clang 14).
    const uint64_t first_row = chunk_ranges_[c].first, rows = chunk_ranges_[c].second;
    const size_t slot = c % kStagingSlots;
    for (const Event& e : consumed[slot]) backend_.wait(copy_stream_, e);
    consumed[slot].clear();
    for (size_t k : moved) {
      const std::string& name = layout_.columns[k];
      const ChunkValues part = chunk_values(lookup_column(database_, layout_.table, name, "fact table"), first_row, rows,
                                            layout_.stored_bytes(name));
      backend_.upload_async(copy_stream_, staging_[slot].values.at(name), 0, *pinned_columns_[k], part.offset, part.bytes);
      ss_.bytes_transferred += part.bytes;
    }
    for (size_t k : moved_heaps) {
      const std::string& name = layout_.columns[k];
      const Column& column = lookup_column(database_, layout_.table, name, "fact table");
      const uint64_t span = heap_span(column, first_row, rows);
      if (span > 0) backend_.upload_async(copy_stream_, staging_[slot].heaps.at(name), 0, *pinned_heaps_.at(name), heap_base(column, first_row), span);
      ss_.bytes_transferred += span;
    }
    std::vector<Event> ready;
    ready.push_back(backend_.record(copy_stream_));
    consumed[slot] = issue_batches(
        [&](size_t i) {
          if (items[i].streamed) issue(items[i], decided[i], ranges[i].first, ranges[i].second, &staging_[slot], first_row, rows);
        },
        &ready);
  }
  // Launches after the chunked ones, once, after the last chunk (the rank's exchanges after the
  // chunked ones first: their state is whole only now).
  for (size_t i = 0; i < items.size(); ++i) {
    if (!items[i].streamed) continue;
    exchange_after(items[i], ranges[i].first, ranges[i].second);
    once(i, ranges[i].second, launches(i));
  }
}

void ConcurrentQueriesRun::run_phases() {
  buffers_.resize(plans_.size());
  // Forced Sequential (seed 002's baseline) also waits on the host after every kernel; a
  // sequential schedule chosen by Auto orders its one-kernel batches by events only, so a
  // streamed phase keeps overlapping the next chunk's copy with the current kernel.
  host_sync_ = options_.launch_params == LaunchParams::Sequential;
  OverflowRestarts restarts(backend_, plans_, params_, buffers_, options_.max_rebuilds, &deferred_);
  restarts.run(labels_, [&] {  // one attempt: every plan from its first pipeline
    stats_.phases.clear();
    exchanges_.clear();
    stats_.kernel_ms = 0;
    ss_.bytes_transferred = 0;
    ss_.measured_ms = 0;
    ss_.passes = 0;
    for (size_t phase = 0; phase < layout_.phases; ++phase) {
      const std::vector<Item> items = phase_items(phase);
      if (items.empty()) continue;
      PhaseStats ps;
      ps.index = phase;
      ps.streamed = std::any_of(items.begin(), items.end(), [](const Item& i) { return i.streamed; });
      std::vector<Decided> decided, stand_alone;
      decide_launches(ps, items, decided, stand_alone);
      const bool sequential = one_at_a_time(ps, items, decided, stand_alone);
      if (sequential) {
        decided = stand_alone;
        for (size_t i = 0; i < items.size(); ++i) decided[i].stats.batch = i;
        ps.planner = "sequential";
        ps.knapsack_feasible = false;
      }
      ps.schedule = sequential ? "sequential" : "concurrent";
      if (stats_.schedule.empty()) stats_.schedule = ps.schedule;
      else if (stats_.schedule != ps.schedule) stats_.schedule = "mixed";
      size_t batches = 1;
      for (size_t i = 0; i < items.size(); ++i) {
        Decided& d = decided[i];
        const LaunchConfig& cfg = d.configs[items[i].main];
        d.stats.block_size = cfg.block_size;
        d.stats.grid_blocks = cfg.grid_blocks;
        d.stats.dynamic_shared_bytes = cfg.dynamic_shared_bytes;
        batches = std::max(batches, d.stats.batch + 1);
        ps.kernels.push_back(d.stats);
      }
      ps.batches = batches;

      const auto phase_start = Clock::now();
      std::string running;
      for (const Item& it : items) running += (running.empty() ? "" : ", ") + plans_[it.plan]->pipelines[it.pipeline].name;
      Watchdog::Phase watch(labels_, "kernels", "phase " + std::to_string(stats_.phases.size()) + ": " + running +
                                                    (ps.streamed ? ", streamed in chunks" : ""));
      issue_phase(ps, items, decided, batches);
      backend_.synchronize();
      ps.wall_ms = ms_since(phase_start);
      if (ps.streamed) {
        ss_.measured_ms += ps.wall_ms;
        ++ss_.passes;
      }
      stats_.kernel_ms += ps.wall_ms;
      stats_.phases.push_back(std::move(ps));
      for (const Item& it : items) {
        if (const CheckSpec* grow = check_pipeline(*plans_[it.plan], plans_[it.plan]->pipelines[it.pipeline], buffers_[it.plan]))
          throw OverflowRestart{it.plan, grow};
      }
    }
  }, stats_.transfer_ms, stats_.rebuilds);
}

void ConcurrentQueriesRun::finish() {
  const auto finalize_start = Clock::now();
  for (size_t q = 0; q < plans_.size(); ++q) {
    Execution& e = out_.executions[q];
    Watchdog::Phase phase(plans_[q]->label, "finalize");
    const auto start = Clock::now();
    e.result = assemble_result(*plans_[q], buffers_[q], params_[q], database_, backend_, owner_.cache_,
                               AssemblyOptions{modules_[q].get(), kDeviceTopKRows, &e.stats.finalize_parts});
    e.stats.finalize_ms = ms_since(start);
    e.stats.transfer_ms = stats_.transfer_ms;
    e.stats.transfer_bytes = stats_.transfer_bytes;
    e.stats.kernel_ms = stats_.kernel_ms;
    e.stats.kernel_ms_per_repeat = {stats_.kernel_ms};
    e.stats.rebuilds = stats_.rebuilds;
    e.stats.params = params_[q];
    const std::map<std::string, int64_t> resolved = param_values(*plans_[q]);
    for (const CountedCapacity& c : plans_[q]->counted) e.stats.counted[c.param] = {resolved.at(c.param), params_[q].at(c.param)};
    // Its pipelines ran one per phase (the phase is the wave; the kernel time is the phase's).
    e.stats.pipeline_schedule = "phases";
    e.stats.waves = stats_.phases.size();
    for (const PhaseStats& p : stats_.phases) {
      for (const PhaseKernel& k : p.kernels) {
        if (k.query != plans_[q]->label) continue;
        e.stats.pipelines.push_back(
            {k.pipeline, p.wall_ms, p.index, 0.0, p.wall_ms, {{k.kernel, k.block_size, k.grid_blocks, k.blocks_per_sm, 0.0, ""}}});
        // A distributed run's exchanges after this pipeline (hooks: one plan, pipeline = phase).
        const auto x = exchanges_.find(p.index);
        if (x != exchanges_.end())
          e.stats.pipelines.back().launches.insert(e.stats.pipelines.back().launches.end(), x->second.begin(), x->second.end());
      }
    }
  }
  stats_.finalize_ms = ms_since(finalize_start);
}

ConcurrentRun Executor::run(const std::vector<const ExecutablePlan*>& plans, const Database& database,
                                      const ConcurrentOptions& options) {
  if (plans.empty()) throw Error(ErrorKind::Usage, "no queries to run");
  ConcurrentRun out;
  ConcurrentQueriesRun run(*this, plans, database, options, out);
  run.compile();
  run.place();
  run.upload();
  run.run_phases();
  run.finish();
  return out;
}

}  // namespace hqc::runtime

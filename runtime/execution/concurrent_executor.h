// The Executor's second schedule, Executor::run(plans, database, ConcurrentOptions) (its steps are
// ConcurrentQueriesRun's methods in concurrent_executor.cpp): several queries' compound kernels at the same time in
// separate streams (CUDA streams / OpenCL command queues) with launch parameters from the
// kernel-level knapsack, and a fact table larger than the device memory horseqc may use streamed
// through the device in chunks from pinned host memory, each chunk shared by every query's kernel.
//
// Contract:
//   - Results are those of Executor::run on each plan alone: the same kernels, the same state
//     buffers, the same overflow checks (a raised Grow flag doubles that plan's capacities and
//     restarts every plan from scratch; a Fail flag throws); only launch geometry, timing and
//     placement differ. Compound kernels stride over tiles, so any grid is correct.
//   - Phases. Each plan has an anchor pipeline: the one that scans the fact table (the table whose
//     rows the plans' launches scan most bytes of), else its last pipeline. Pipelines are aligned on
//     their anchors: phase(q, p) = p − anchor(q) + max anchor, so every plan's fact-table pipeline
//     runs in the same phase and the dimension builds run in the phases before. Within a phase
//     each plan's pipeline is issued on the plan's own stream; the device runs them concurrently.
//     Between phases all streams are synchronised, overflow flags are read and row counts of
//     materialised outputs (ParamFromBuffer) are taken.
//   - Launch parameters of a phase (LaunchParams):
//       Knapsack: one KernelDemand per pipeline from its main launch (the chunked launch of the
//         anchor pipeline, else the pipeline's first launch): thread demand = its tiles' threads,
//         capped at an equal share of each SM's warps (⌊W_SM / kernels⌋ warps on every SM) among
//         the phase's kernels; registers and static
//         shared bytes of the compiled kernel; scratchpad as a function of the block size; the
//         kernel's block rules. planner::plan_concurrent() gives blocks per SM b_i and block size;
//         grid = b_i · #SM (at most the tiles' blocks). When the kernels do not all fit, its
//         batches run one after the other (later batches wait on events of earlier ones). Other
//         launches of a pipeline and kernels that do not stride over tiles use decide_launch().
//       Random: a random launchable block size and a random grid in [1, 2 · β · #SM] (seed given).
//       Sequential: decide_launch() for every kernel and one kernel at a time (the baseline).
//       Auto (the default): planner::choose_schedule() predicts the phase's time with the knapsack's
//         launches (batch by batch) and one kernel at a time with decide_launch()'s, from each main
//         launch's bytes read of the table it scans (no compute term: compound kernels are
//         memory-bound), its resident blocks and its grid's rounds, with the calibration's read
//         bandwidth and compute throughput and its per-chunk round trip as the launch overhead;
//         the faster runs (ties: sequential). A sequential schedule chosen so runs
//         one kernel per batch, batches ordered by events (forced Sequential also waits on the host
//         after each kernel). Knapsack and Sequential phases record both predictions too (Random
//         records none).
//   - Placement. The working set is the state buffers of all plans + every column they read. It is
//     streamed when Placement::Stream, or Placement::Auto and the working set exceeds the memory
//     limit (ConcurrentOptions::memory_limit, else the free device memory plus what the column
//     cache already holds). Streaming keeps dimension columns and state resident, page-locks the
//     fact table's needed columns once (cached per executor: registered in place under CUDA, so
//     no second copy of the table; copied into pinned buffers under OpenCL or where the driver
//     refuses, counted in the stats), and runs the
//     anchor phase in chunks of consecutive rows: chunk i is uploaded on a copy stream into one of
//     kStagingSlots staging buffer sets while the kernels of chunk i − 1 run on the query streams;
//     a slot is overwritten only after every kernel that read it completed. Each chunk is
//     transferred once and consumed by every plan (shared scan). The chunked launch sees the
//     chunk's rows as its row count; aggregation state persists across chunks.
//   - Chunk count: ConcurrentOptions::chunks when given (Error(Usage) if it needs more staging than
//     the limit leaves), else max(stream model's optimum, the fewest chunks whose staging fits):
//     planner::optimal_chunks(ThreeEngines) with t_H = fact bytes / measured H→D bandwidth,
//     t_E = bytes the consumers read / measured read bandwidth, t_D = 0 (results are read once,
//     after the last chunk) and t_o = measured per-chunk round trip; the inputs are in the stats.
//   - A later pipeline of a plan that scans the fact table again (TPC-H Q17, Q18, Q21) streams it
//     again in its own phase, in the same chunks, moving only the columns its launches read.
//   - A heap string column of the fact table streams as its chunk's offsets (rows + 1, positions in
//     the whole heap) and, where a chunked launch reads its bytes, the chunk's slice of the heap from
//     its first offset rounded down to 8 (the Param::ChunkBase heap base the kernel subtracts); its
//     row references start at the chunk's first row (the Row chunk base), so the texts decoded on
//     the host are the right rows'. The staging holds the largest slice of any chunk (more chunks
//     when the average bytes per row under-estimated it).
//   - A plan that reads the fact table over another row count cannot be streamed:
//     Error(Unsupported) saying so when streaming is needed.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "planner/stream_model.h"
#include "runtime/device/backend.h"
#include "runtime/execution/executable_plan.h"
#include "runtime/execution/executor.h"
#include "storage/table.h"

namespace hqc::runtime {

enum class LaunchParams { Auto, Knapsack, Random, Sequential };
// "auto", "knapsack", "random", "sequential"; Error(Usage) listing them otherwise.
LaunchParams parse_launch_params(std::string_view text);
const char* to_string(LaunchParams params);

enum class Placement { Auto, Resident, Stream };

// Staging buffer sets a streamed run cycles through (double buffering: copy one, compute the other).
inline constexpr uint64_t kStagingSlots = 2;

struct ConcurrentOptions {
  LaunchParams launch_params = LaunchParams::Auto;
  uint64_t seed = 1;              // LaunchParams::Random
  Placement placement = Placement::Auto;
  uint64_t memory_limit = 0;      // bytes of device memory horseqc may use; 0: the free memory
  uint64_t chunks = 0;            // streamed: forced chunk count; 0: from the stream model
  int max_rebuilds = 12;
  // Distributed runs (one plan only: a rank's share streamed, mpirun): the rank's hooks. Every
  // launch is then issued on its own and followed by after_launch once the device is idle; the
  // chunked launches of the streamed pipeline are followed by it after the last chunk, so an
  // exchange may only follow the last of them (PipelineSpec::sink_launches; Error(Unsupported)
  // otherwise). Launches the hooks do not run are skipped.
  PipelineHooks* hooks = nullptr;
  // Non-empty (under mpirun: the tables each rank holds a share of): the table streamed is the most
  // scanned of these when a plan scans one — a replicated table must fit every device anyway (TPC-H
  // Q22: orders, not customer, whose share is the whole table).
  std::set<std::string> stream_among;
};

// One pipeline of a phase as it was launched (its main launch).
struct PhaseKernel {
  std::string query;
  std::string pipeline;
  std::string kernel;
  size_t batch = 0;               // batches of a phase run one after the other
  uint64_t demand_threads = 0;    // c_i given to the knapsack (0 when not planned by it)
  uint32_t blocks_per_sm = 0;     // b_i (knapsack), β (sequential / random)
  uint32_t block_size = 0;
  uint64_t grid_blocks = 0;       // of a whole-table launch; a chunk's launch is capped at its tiles
  uint32_t dynamic_shared_bytes = 0;
  bool chunked = false;           // launched once per chunk
};

struct PhaseStats {
  size_t index = 0;
  bool streamed = false;
  std::string planner;            // "knapsack", "knapsack+column generation", "random", "sequential"
  std::string schedule;           // what ran: "concurrent" or "sequential" (one kernel at a time)
  double predicted_knapsack_ms = 0;    // planner::choose_schedule (0 with random parameters)
  double predicted_sequential_ms = 0;
  size_t batches = 0;
  bool knapsack_feasible = false; // all kernels of the phase co-resident in one batch
  std::vector<PhaseKernel> kernels;
  double wall_ms = 0;             // first issue to the end of the phase (device synchronised)
};

struct StreamStats {
  bool streamed = false;
  std::string reason;             // why streamed / why resident
  std::string table;              // the fact table (empty: none)
  uint64_t rows = 0;
  uint64_t bytes_per_row = 0;     // of the fact table's columns any query reads
  uint64_t working_set_bytes = 0; // state + all columns read, resident
  uint64_t memory_limit = 0;
  uint64_t resident_bytes = 0;    // state + non-streamed columns
  uint64_t staging_bytes = 0;     // kStagingSlots chunk buffers
  uint64_t chunks = 0;
  uint64_t chunk_rows = 0;        // rows of the largest chunk
  uint64_t min_chunks = 0;        // fewest chunks whose staging fits the limit
  uint64_t model_chunks = 0;      // the stream model's optimum
  size_t consumers = 0;           // queries reading each chunk of the anchor phase (shared scan)
  uint64_t passes = 0;            // streamed phases: the anchor phase, and each later pipeline
                                  // scanning the table again (TPC-H Q17's two scans of lineitem)
  uint64_t bytes_transferred = 0; // host → device bytes of the streamed columns, every pass (a pass
                                  // moves the columns its pipelines read)
  double h2d_bytes_per_s = 0;     // calibration
  double kernel_bytes_per_s = 0;  // the read probe's bandwidth
  double per_chunk_overhead_s = 0;
  planner::StreamTimes model;     // inputs of the stream model, seconds
  double predicted_ms = 0;        // the model at `chunks`
  double serial_predicted_ms = 0; // the model without overlap
  double measured_ms = 0;         // wall time of the streamed phases
  double pin_ms = 0;              // page-locking the columns (0 when cached)
  uint64_t pinned_in_place_bytes = 0;  // columns registered where they are (CUDA cuMemHostRegister)
  uint64_t pinned_copied_bytes = 0;    // columns copied into pinned buffers (OpenCL, or registration refused)
};

// RunTimes of the whole run (transfer: resident columns + state; kernel_ms: the sum of the phases'
// wall times of the final attempt, "kernels_ms" in the JSON), and the concurrent schedule's own.
struct ConcurrentStats : RunTimes {
  std::string launch_params;
  std::vector<std::string> queries;
  // The schedule model's inputs and, summed over the phases, its predictions; `schedule` is
  // "concurrent", "sequential" or "mixed" (phases differ).
  std::string schedule;
  double schedule_bandwidth_bytes_per_s = 0;
  double schedule_compute_ops_per_s = 0;
  double schedule_launch_overhead_s = 0;
  double predicted_knapsack_ms = 0;
  double predicted_sequential_ms = 0;
  std::vector<PhaseStats> phases;
  StreamStats stream;

  std::string summary() const;
  // {"device","launch_params","queries":[..],"compile_ms","transfer_ms","transfer_bytes","kernels_ms",
  //  "finalize_ms","rebuilds","schedule","schedule_bandwidth_bytes_per_s","schedule_compute_ops_per_s",
  //  "schedule_launch_overhead_s",
  //  "predicted_knapsack_ms","predicted_sequential_ms","phases":[{"index","streamed","planner",
  //  "schedule","predicted_knapsack_ms","predicted_sequential_ms","batches","knapsack_feasible",
  //  "wall_ms","kernels":[{"query","pipeline","kernel","batch","demand_threads","blocks_per_sm",
  //  "block_size","grid_blocks","dynamic_shared_bytes","chunked"}]}],"stream":{"streamed","reason",
  //  "table","rows","bytes_per_row","working_set_bytes","memory_limit","resident_bytes","staging_bytes",
  //  "chunks","chunk_rows","min_chunks","model_chunks","consumers","bytes_transferred","h2d_bytes_per_s",
  //  "kernel_bytes_per_s","per_chunk_overhead_s","t_h2d_s","t_kernel_s","t_d2h_s","t_overhead_s",
  //  "predicted_ms","serial_predicted_ms","measured_ms","pin_ms"}}
  std::string to_json() const;
};

struct ConcurrentRun {
  std::vector<Execution> executions;  // one per plan, in input order (stats: this run's, per plan)
  ConcurrentStats stats;
};

// Measured once per Executor (the first run that needs it): H→D bandwidth (a pinned 16 MiB upload),
// the read bandwidth and compute throughput of the probes (runtime/device/probes.h), per-chunk
// overhead (an event, a wait and a small copy, round trip; median of 9). Executor::calibration().
struct Calibration {
  double h2d_bytes_per_s = 0;
  double kernel_bytes_per_s = 0;   // read bandwidth: what a streaming read kernel reaches
  double compute_ops_per_s = 0;    // lane multiply-adds per second, whole device
  double per_chunk_overhead_s = 0;
};

}  // namespace hqc::runtime

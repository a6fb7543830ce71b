// horseqc-run: load (or generate) benchmark data and run queries on a device.
// Options and exit codes: docs/cli.md. This main parses options and calls the libraries; the query
// path itself is tools/driver/query_driver.h.
#include <algorithm>
#include <chrono>
#include <map>
#include <cstdio>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "codegen/dialect.h"
#include "frontend/json_plan.h"
#include "frontend/sql/sql_frontend.h"
#include "ir/kernel.h"
#include "planner/statistics.h"
#include "runtime/device/backend.h"
#include "runtime/device/cuda_backend.h"
#include "runtime/execution/concurrent_executor.h"
#include "runtime/device/kernel_cache.h"
#include "runtime/distributed/distributed_run.h"
#include "runtime/distributed/mpi_communicator.h"
#include "runtime/distributed/open_communicator.h"
#include "runtime/execution/launch_config.h"
#include "runtime/execution/watchdog.h"
#include "ssb/benchmark_queries.h"
#include "ssb/generator.h"
#include "tpch/benchmark_queries.h"
#include "tpch/generator.h"
#include "storage/catalog.h"
#include "storage/error.h"
#include "storage/generation/gen_options.h"
#include "storage/load_options.h"
#include "storage/partition.h"
#include "storage/progress.h"
#include "storage/table.h"
#include "storage/tbl_loader.h"
#include "tools/cli/args.h"
#include "tools/cli/byte_size.h"
#include "tools/data_source.h"
#include "tools/ranks.h"
#include "tools/driver/plan_input.h"
#include "tools/driver/query_driver.h"
#include "tools/table_stats.h"

namespace {

constexpr const char* kUsage = R"(usage: horseqc-run ssb|tpch [QUERY...] [options]

Runs benchmark queries from their SQL text, built into the binary:
  ssb   the Star Schema Benchmark, default all 13 (q1.1 ... q4.3, ssb/queries); --from-plan runs
        their JSON plans (ssb/plans) instead
  tpch  TPC-H, default all 22 (q1 ... q22, or 1 ... 22; tpch/queries)
With no --data, the benchmark's data is generated once at --sf into
$XDG_CACHE_HOME/horseqc/<ssb|tpch>/sf<X> (default ~/.cache/horseqc/<ssb|tpch>/sf0.01) and reused.
Prints each result on stdout and, on stderr, the device that ran the queries and the time of every
phase: load, plan, codegen, compile (or cache hit), transfer, kernels, finalize, total.
When several queries run and one uses a construct horseqc does not support yet, it says so for that
query and goes on with the others; the exit code is then 4.

options:
  --sf X                          scale factor of generated data (default 0.01)
  --data DIR                      use the .tbl files in DIR instead of generated data
  --device auto|cuda|opencl       auto: CUDA, else an OpenCL GPU, else OpenCL on the CPU (default auto)
  --model resolution|pipelined|multi_pass|operator_at_a_time
                                  micro execution model (default resolution): one compound kernel
                                  per pipeline with local resolution + one atomic per CTA, or one
                                  atomic per tuple; multi_pass: count kernel, library prefix sum,
                                  write kernel, library reductions (CUB / Boost.Compute);
                                  operator_at_a_time: every operator's result materialized, each
                                  operator run multi-pass. The last two run their pipelines one
                                  after the other and not with --concurrent
  --local-resolution work-efficient|simd
                                  the resolution model's CTA prefix sums and reductions (A3, B3):
                                  a tree in scratchpad with barriers (default), or warp votes and
                                  shuffles (CUDA; OpenCL has no SIMD level: work-efficient, said in
                                  the kernel banner)
  --from-sql | --from-plan        compile the SQL text (default) or the JSON plan of each query (ssb)
  --sql "SELECT ..."              run this query instead of the benchmark's (against its data)
  --plan FILE                     run this JSON plan (or SQL file) instead of the benchmark's
  --sql-file FILE                 run every query of this SQL script (statements separated by ';';
                                  CREATE VIEW / DROP VIEW apply to the queries after them), named
                                  FILE:LINE; their kernels are compiled together (fewer compiler
                                  runs). A query that fails is reported and the others run; the
                                  exit code is then the highest class among the failures
  --repeat N                      run each query's kernels N times, report the best (default 1)
  --pipelines concurrent|sequential
                                  a query's pipelines: independent ones (e.g. the dimension
                                  builds) at the same time, each on its own stream, in waves of
                                  the dependency DAG (default concurrent); or one after the other.
                                  Results are identical; the stats say each pipeline's wave
  --concurrent Q1,Q2,...|all      run these queries at the same time, each in its own stream (CUDA
                                  stream / OpenCL command queue); results are those of
                                  sequential runs
  --launch-params auto|knapsack|random|sequential
                                  with --concurrent: auto (default: per phase, the faster of the
                                  knapsack's concurrent launches and one kernel at a time, as the
                                  schedule model predicts; both predictions are reported),
                                  knapsack, random block sizes and grids (--seed N, default 1), or
                                  one kernel at a time
  --stream                        stream the fact table through the device in chunks from pinned
                                  host memory (chosen automatically when the working set does not
                                  fit the device memory horseqc may use); with --concurrent every
                                  chunk is transferred once and read by every query (shared scan);
                                  a pipeline that scans it again streams it again. Under mpirun each
                                  rank streams its own share
  --chunks N                      with --stream: N chunks instead of the stream model's choice
                                  (under mpirun: of each rank's share, fewer where it has fewer rows)
  --gpu-memory-limit SIZE         device memory horseqc may use, e.g. 4GiB, 512MiB (default: the
                                  free device memory); a larger working set is streamed
  --format table|csv|json         result format on stdout (default table)
  --stats                         print table statistics of the loaded data first
  --no-statistics                 compile without the data's statistics, as horseqc-compile does
                                  (layouts chosen without sizes, every decimal SUM 128-bit, every
                                  column at its full width on the device); for testing those paths
  --in-memory                     with --sf: generate the data straight into memory instead of
                                  files, keeping only the columns the queries read (for scale
                                  factors whose files or full tables would not fit)
  --threads N                     loader / generator threads (default: all hardware threads)
  --watchdog SECONDS              stop with exit 5, naming the query, the phase and the kernel,
                                  when one phase (compile, transfer, kernels, finalize) of a query
                                  runs longer than this (default 600; 0: never)
  --quiet                         nothing on stderr but errors: no progress bars, device or phase
                                  lines (--format json still records the device and phases)
  --partition-weights W,W,...     under mpirun: each rank's share of the partitioned tables (default
                                  equal shares; a 0 gives a rank an empty partition)
  --join-exchange auto|broadcast|shuffle
                                  under mpirun: how a join whose build side scans a partitioned table
                                  on another key meets its probe rows — the build's rows gathered to
                                  every rank, or both sides' rows sent to the rank their key hashes to
                                  (default auto: whichever moves fewer bytes by the data's estimates;
                                  EXPLAIN, horseqc-compile --distributed, shows the choice)
  --transport auto|mpi|nccl       under mpirun: how partial state moves between ranks (default auto:
                                  NCCL between GPUs when every rank runs CUDA, else MPI through host
                                  memory; nccl where that is not possible is an error, exit 5)
  -h, --help                      this text
  --version                       the version and the git commit it was built from

Under mpirun (`mpirun -np N horseqc-run ...`, one rank per device) the large tables are
range-partitioned across the ranks (SSB lineorder; TPC-H orders and lineitem, co-partitioned by
order key, and partsupp by part key) and the other tables replicated; every rank runs each
query's pipelines on its share and the partial state is merged across ranks between pipelines (docs/distributed.md). Rank 0 prints the
results, which are the same as one process gives. Data comes from a data directory (the columnar
files or caches); --in-memory and --concurrent run in one process only. With --stream (or a share
larger than --gpu-memory-limit) each rank streams its share of the fact table through its device.

Environment: HORSEQC_KERNEL_CACHE=DIR|off (default $XDG_CACHE_HOME/horseqc/kernels),
             HORSEQC_OPENCL_DEVICE=substring (pick an OpenCL device by name),
             HORSEQC_BLOCK_SIZE=N (experiments: N threads per block for every kernel).
exit codes: 0 ok, 2 usage, 3 bad input data, 4 unsupported, 5 device, 70 internal (docs/cli.md)
)";

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

struct QueryReport {
  std::string name;
  hqc::runtime::Execution execution;
  double plan_ms = 0, codegen_ms = 0, total_ms = 0;
};

nlohmann::json phases_json(const QueryReport& r, double load_ms) {
  const auto& s = r.execution.stats;
  return {{"load_ms", load_ms},
          {"plan_ms", r.plan_ms},
          {"codegen_ms", r.codegen_ms},
          {"compile_ms", s.compile_ms},
          {"compile_cache_hit", s.compile_cache_hit},
          {"transfer_ms", s.transfer_ms},
          {"kernels_ms", s.kernel_ms},
          {"finalize_ms", s.finalize_ms},
          {"total_ms", r.total_ms}};
}

std::string phases_line(const QueryReport& r) {
  const auto& s = r.execution.stats;
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "%s: plan %.2f ms, codegen %.2f ms, compile %.1f ms%s, transfer %.2f ms (%.1f MiB), kernels %.3f ms, "
                "finalize %.2f ms, total %.1f ms%s\n",
                r.name.c_str(), r.plan_ms, r.codegen_ms, s.compile_ms, s.compile_cache_hit ? " (cache hit)" : "",
                s.transfer_ms, s.transfer_bytes / 1048576.0, s.kernel_ms, s.finalize_ms, r.total_ms,
                s.rebuilds ? (" [" + std::to_string(s.rebuilds) + " rebuild(s) after overflow]").c_str() : "");
  return buf;
}

// `ranks`: null in a plain process; under mpirun where the backend and the communicator go (run()
// owns them, so that every rank's failure can be agreed on after this returns or throws).
struct Ranks {
  std::unique_ptr<hqc::runtime::Backend> backend;
  std::unique_ptr<hqc::runtime::Communicator> comm;
};

int run_queries(int argc, char** argv, Ranks* ranks) {
  using namespace hqc;
  const auto started = Clock::now();
  const cli::Args args = cli::parse(argc, argv,
                                    {{"sf"}, {"data"}, {"device"}, {"model"}, {"local-resolution"}, {"repeat"}, {"format"}, {"threads"},
                                     {"stats", false}, {"no-statistics", false}, {"quiet", false},
                                     {"from-sql", false}, {"from-plan", false}, {"sql"}, {"plan"},
                                     {"concurrent"}, {"launch-params"}, {"seed"}, {"stream", false}, {"chunks"},
                                     {"gpu-memory-limit"}, {"in-memory", false}, {"pipelines"}, {"watchdog"}, {"sql-file"},
                                     {"partition-weights"}, {"transport"}, {"join-exchange"}});
  if (args.has("help")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (args.positionals.empty() || (args.positionals[0] != "ssb" && args.positionals[0] != "tpch"))
    throw Error(ErrorKind::Usage, std::string("expected a benchmark name (ssb or tpch) as the first argument\n") + kUsage);
  const std::string benchmark = args.positionals[0];
  const bool tpch = benchmark == "tpch";
  if (args.has("sf") && args.has("data")) throw Error(ErrorKind::Usage, "give either --sf or --data, not both");
  const bool in_memory = args.has("in-memory");
  if (in_memory && args.has("data")) throw Error(ErrorKind::Usage, "--in-memory generates the data: give --sf, not --data");
  // Under mpirun: this rank's device (one rank per device), then the ranks and their transport.
  // Only rank 0 speaks: results, phases, progress (errors come through the agreement).
  const auto device_choice = runtime::parse_device_choice(args.get_choice("device", {"auto", "cuda", "opencl"}, "auto"));
  runtime::Communicator* comm = nullptr;
  std::unique_ptr<runtime::Backend> own_backend;
  std::unique_ptr<runtime::Backend>& backend = ranks != nullptr ? ranks->backend : own_backend;
  if (ranks != nullptr) {
    runtime::BackendOptions options;
    options.cuda_device_ordinal = runtime::device_ordinal_for(runtime::launcher_local_rank(), runtime::cuda_device_count());
    backend = runtime::open_backend(device_choice, options);
    ranks->comm = runtime::open_communicator(*backend, runtime::parse_transport(args.get_choice("transport", {"auto", "mpi", "nccl"}, "auto")));
    comm = ranks->comm.get();
  } else if (args.has("transport")) {
    throw Error(ErrorKind::Usage, "--transport applies under mpirun");
  }
  const bool rank0 = comm == nullptr || comm->rank() == 0;
  const bool quiet = args.has("quiet") || !rank0;
  const double sf = args.get_double("sf", 0.01);
  const double watchdog = args.get_double("watchdog", 600);
  if (!(watchdog >= 0)) throw Error(ErrorKind::Usage, "--watchdog: expected a number of seconds (0: no limit)");
  runtime::Watchdog::arm(watchdog, "horseqc-run");
  if (!(sf > 0)) throw Error(ErrorKind::Usage, "--sf: expected a positive scale factor");
  const std::string format = args.get_choice("format", {"table", "csv", "json"}, "table");
  const auto model = ir::parse_execution_model(args.get_choice("model", {"resolution", "pipelined", "multi_pass", "operator_at_a_time"}, "resolution"));
  const long repeat = args.get_long("repeat", 1);
  if (repeat < 1) throw Error(ErrorKind::Usage, "--repeat: expected a count of at least 1");
  if (args.has("from-sql") && args.has("from-plan")) throw Error(ErrorKind::Usage, "give --from-sql or --from-plan, not both");
  const bool from_plan = args.has("from-plan");
  if (tpch && from_plan) throw Error(ErrorKind::Usage, "--from-plan: TPC-H queries exist as SQL only");
  const bool batch = args.has("sql-file");
  const bool own_query = args.has("sql") || args.has("plan") || batch;
  if (int(args.has("sql")) + int(args.has("plan")) + int(batch) > 1)
    throw Error(ErrorKind::Usage, "give one of --sql, --plan and --sql-file");
  if (own_query && (from_plan || args.positionals.size() > 1))
    throw Error(ErrorKind::Usage, "--sql and --plan run one query of their own: give no query names and no --from-plan");
  std::vector<std::string> queries;
  for (size_t i = 1; i < args.positionals.size(); ++i)
    queries.push_back(tpch ? tpch::canonical_query_name(args.positionals[i]) : ssb::canonical_query_name(args.positionals[i]));
  if (args.has("sql")) queries = {"sql"};
  if (args.has("plan")) queries = {std::filesystem::path(*args.get("plan")).stem().string()};
  // --sql-file: one query per statement, named FILE:LINE (frontend/sql/sql_frontend.h).
  std::map<std::string, ScriptQuery> script;
  if (batch) {
    const std::string file = *args.get("sql-file");
    for (ScriptQuery& q : split_sql_script(driver::read_text_file(file))) {
      const std::string name = file + ":" + std::to_string(q.line);
      queries.push_back(name);
      script[name] = std::move(q);
    }
    if (queries.empty()) throw Error(ErrorKind::Input, file + ": no query in the file");
  }
  auto canonical = [&](const std::string& name) {
    return tpch ? tpch::canonical_query_name(name) : ssb::canonical_query_name(name);
  };
  const bool concurrent_mode = args.has("concurrent");
  if (concurrent_mode) {
    if (own_query || args.positionals.size() > 1)
      throw Error(ErrorKind::Usage, "--concurrent names its queries itself: give no query names, --sql or --plan");
    const std::string list = *args.get("concurrent");
    if (list != "all") {
      size_t start = 0;
      while (start <= list.size()) {
        const size_t comma = std::min(list.find(',', start), list.size());
        const std::string item = list.substr(start, comma - start);
        if (item.empty())
          throw Error(ErrorKind::Usage, "--concurrent: expected query names separated by commas (e.g. q1.1,q2.1), got \"" + list + "\"");
        queries.push_back(canonical(item));
        start = comma + 1;
      }
    }
  }
  if (queries.empty()) queries = tpch ? tpch::query_names() : ssb::query_names();
  if (comm != nullptr) {
    for (const char* option : {"in-memory", "concurrent"})
      if (args.has(option))
        throw Error(ErrorKind::Usage, std::string("--") + option + " runs in one process only, not under mpirun (docs/distributed.md)");
  } else {
    for (const char* option : {"partition-weights", "join-exchange"})
      if (args.has(option)) throw Error(ErrorKind::Usage, std::string("--") + option + " applies under mpirun (one share per rank)");
  }
  if (!concurrent_mode && (args.has("launch-params") || args.has("seed")))
    throw Error(ErrorKind::Usage, "--launch-params and --seed apply to --concurrent runs");
  if (args.has("chunks") && !args.has("stream")) throw Error(ErrorKind::Usage, "--chunks needs --stream");
  if (concurrent_mode && args.has("pipelines"))
    throw Error(ErrorKind::Usage, "--pipelines applies to queries run one at a time; --concurrent aligns pipelines in phases");
  runtime::ConcurrentOptions concurrent_options;
  concurrent_options.launch_params = runtime::parse_launch_params(args.get_or("launch-params", "auto"));
  const long seed = args.get_long("seed", 1);
  if (seed < 0) throw Error(ErrorKind::Usage, "--seed: expected a non-negative integer");
  concurrent_options.seed = static_cast<uint64_t>(seed);
  if (args.has("stream")) concurrent_options.placement = runtime::Placement::Stream;
  if (args.has("chunks")) {
    const long chunks = args.get_long("chunks", 0);
    if (chunks < 1) throw Error(ErrorKind::Usage, "--chunks: expected a count of at least 1");
    concurrent_options.chunks = static_cast<uint64_t>(chunks);
  }
  if (args.has("gpu-memory-limit"))
    concurrent_options.memory_limit = cli::parse_byte_size(*args.get("gpu-memory-limit"), "--gpu-memory-limit");

  const Catalog catalog = tpch ? Catalog::tpch() : Catalog::ssb();
  // `stats`: the loaded data's, which order SQL joins (frontend/join_order.h); nullptr before the
  // data exists (catalog estimates: the order does not change which columns a query reads).
  auto parse_one = [&](const std::string& name, const plan::Statistics* stats) -> std::shared_ptr<const plan::LogicalPlan> {
    if (args.has("plan")) return driver::load_query(*args.get("plan"), catalog, stats);
    if (batch) {
      const ScriptQuery& q = script.at(name);
      plan::LogicalPlan p = parse_sql(q.text, *args.get("sql-file"), catalog, stats);
      p.name = "l" + std::to_string(q.line);  // the kernels' prefix: one per query of the file
      return std::make_shared<const plan::LogicalPlan>(std::move(p));
    }
    return std::make_shared<const plan::LogicalPlan>(
        args.has("sql") ? parse_sql(*args.get("sql"), "<sql>", catalog, stats)
        : tpch          ? parse_sql(tpch::query_sql(name), tpch::query_path(name), catalog, stats)
        : from_plan     ? plan::parse_json_plan(ssb::query_plan_json(name), "ssb/plans/" + name + ".json", catalog)
                        : parse_sql(ssb::query_sql(name), "ssb/queries/" + name + ".sql", catalog, stats));
  };

  // Data: loaded from .tbl files, or (--in-memory) generated straight into memory with only the
  // columns the queries read — what lets a fact table larger than the files' disk or the host
  // memory's room for every column run (SSB SF 200 on a 125 GiB host).
  const long threads_arg = args.get_long("threads", 0);
  if (args.has("threads") && threads_arg < 1) throw Error(ErrorKind::Usage, "--threads: expected a count of at least 1");
  const unsigned threads = static_cast<unsigned>(threads_arg);
  // Under mpirun: every rank compiles alike, its share of the partitioned tables and their joins'
  // exchanges weighed for this many ranks.
  const ir::JoinExchange join_exchange = ir::parse_join_exchange(args.get_or("join-exchange", "auto"));
  auto partition_like_ranks = [&](driver::CompileOptions& options) {
    driver::partition_like_ranks(catalog, options);
    options.join_exchange = join_exchange;
    options.ranks = static_cast<unsigned>(comm->size());
  };
  // The columns the queries read: each query compiled once without statistics (they steer only layout
  // choices, not which columns are read). Where that compile fails (some layouts need statistics), every
  // column of the tables the query scans; a query that does not parse needs none (it fails in its turn).
  auto columns_the_queries_read = [&] {
    std::set<std::string> columns;
    driver::CompileOptions probe;
    probe.model = model;
    if (comm != nullptr) partition_like_ranks(probe);  // as each rank compiles (below)
    for (const std::string& name : queries) {
      std::shared_ptr<const plan::LogicalPlan> plan;
      try {
        plan = parse_one(name, nullptr);
        const driver::CompiledQuery q = driver::compile_query(plan, catalog, probe);
        for (const std::string& c : driver::columns_read(q.program, catalog)) columns.insert(c);
      } catch (const Error& e) {
        if (in_memory && e.kind() != ErrorKind::Unsupported) throw;
        if (plan)
          for (const std::string& table : driver::tables_scanned(*plan))
            for (const ColumnDef& c : catalog.find(table)->columns) columns.insert(table + "." + c.name);
      }
    }
    return columns;
  };
  // A fresh process's CUDA start-up (driver, primary context, NVRTC's first compile) runs while the
  // data loads; the device is opened below, after the load, on this thread.
  std::optional<runtime::CudaWarmup> cuda_warmup;
  if (!backend && device_choice != runtime::DeviceChoice::OpenCL) cuda_warmup.emplace(0);

  // How every query compiles; the statistics are the loaded data's and the device's dialect and
  // profile are set once it is open (below).
  driver::CompileOptions compile;
  compile.model = model;
  const std::string local = args.get_choice("local-resolution", {"work-efficient", "simd"}, "work-efficient");
  if (args.has("local-resolution") && model != ir::ExecutionModel::Resolution)
    throw Error(ErrorKind::Usage, "--local-resolution chooses the resolution model's mechanism; the " +
                                      std::string(ir::execution_model_name(model)) + " model has no local resolution");
  compile.local_resolution = local == "simd" ? ir::LocalResolution::Simd : ir::LocalResolution::WorkEfficient;
  // `statistics` order SQL joins (frontend/join_order.h); options.stats steer the layouts.
  auto compile_one = [&](const std::string& name, QueryReport& r, const driver::CompileOptions& options,
                         const planner::Statistics& statistics) {
    r.name = name;
    auto plan = parse_one(name, &statistics);
    if (own_query && !batch && !plan->name.empty()) r.name = plan->name;
    driver::CompiledQuery compiled = driver::compile_query(plan, catalog, options);
    r.plan_ms = compiled.plan_ms;
    r.codegen_ms = compiled.codegen_ms;
    return compiled;
  };
  auto cache = runtime::KernelCache::open_default();

  // A fresh CUDA process's first query compiles while the rows load and the warm-up thread creates
  // the context: NVRTC needs only the device's compute capability, known once the driver is
  // initialised, and the plan only the data's statistics and dictionaries, which standalone columnar
  // files hold in their headers. The backend adopts that compile; the query, lowered again below
  // against the loaded data and the opened device, finds it (the same source: the same statistics).
  std::optional<runtime::CudaAheadCompile> first_compile;
  auto start_first_compile = [&](const planner::Statistics& statistics, const Database& data) {
    try {
      first_compile.emplace(0);
      const planner::DeviceProfile ahead_profile = runtime::device_profile_for(first_compile->properties());
      driver::CompileOptions options = compile;
      options.stats = args.has("no-statistics") ? nullptr : &statistics;
      options.dialect = codegen::Dialect::Cuda;
      options.device = &ahead_profile;
      QueryReport unused;
      first_compile->start(driver::lower_query(compile_one(queries.front(), unused, options, statistics), data).module, cache.get());
    } catch (const Error&) {
      first_compile.reset();  // no CUDA device (the open below says so), or a query that fails again in its turn
    }
  };
  const bool compile_first_ahead = cuda_warmup && comm == nullptr && !concurrent_mode && !batch && !queries.empty();
  std::optional<std::set<std::string>> query_columns;  // columns_the_queries_read(), once
  std::jthread first_compile_thread;  // joined below, or on the way out when the load throws
  if (compile_first_ahead && !in_memory && args.get("data") && !args.has("stats")) {
    query_columns = columns_the_queries_read();
    first_compile_thread = std::jthread([&] {
      try {
        if (const std::optional<Database> headers = load_database_statistics(catalog, *args.get("data"), *query_columns)) {
          const planner::DatabaseStatistics statistics(*headers);
          start_first_compile(statistics, *headers);
        }
      } catch (const std::exception&) {
        first_compile.reset();  // the load below reports what is wrong with the files
      }
    });
  }
  auto t0 = Clock::now();
  std::string data_label;
  const Database db = [&] {
    if (!in_memory) {
      const auto dir = args.get("data") ? std::filesystem::path(*args.get("data")) : cli::ensure_benchmark_data(benchmark, sf, quiet);
      LoadOptions load;
      load.threads = threads;
      load.progress = !quiet;
      // Only what the queries read (--stats describes every column).
      if (!args.has("stats")) load.columns = query_columns ? *query_columns : columns_the_queries_read();
      data_label = dir.string();
      std::vector<LoadReport> reports;
      Database loaded = comm != nullptr ? cli::load_rank_share(*comm, catalog, dir, load, args.get("partition-weights"), reports)
                                        : load_database(catalog, dir, load, &reports);
      // A columnar cache that could not be used (corrupt, stale, unwritable) was rebuilt from the
      // .tbl file: correct, but the user should know why loading took longer.
      for (const LoadReport& r : reports)
        if (!quiet && !r.cache_note.empty())
          std::fprintf(stderr, "data: %s: the columnar cache was not used: %s; %s\n", r.table.c_str(), r.cache_note.c_str(),
                       r.from_columnar ? "read another copy" : ("loaded " + r.source.filename().string() + " instead").c_str());
      return loaded;
    }
    gen::GenOptions gen;
    gen.sf = sf;
    gen.threads = threads;
    gen.columns = columns_the_queries_read();
    if (gen.columns.empty()) gen.columns.insert("none.none");  // no query runs: keep no column at all
    size_t all_columns = 0;
    for (const TableDef& t : catalog.tables) all_columns += t.columns.size();
    std::optional<Progress> bar;  // created at the first report, which carries the total
    uint64_t reported = 0;
    gen.progress = [&](uint64_t done, uint64_t total) {
      if (!bar) bar.emplace("generating", total, Progress::Unit::Rows, Progress::Options{.enabled = !quiet});
      bar->advance(done - reported);
      reported = done;
    };
    Database generated = tpch ? tpch::generate(gen) : ssb::generate(gen);
    if (bar) bar->finish();
    char label[160];
    std::snprintf(label, sizeof label, "%s SF %s generated in memory (%zu of %zu columns: those the queries read)",
                  tpch ? "TPC-H" : "SSB", cli::format_sf(sf).c_str(), gen.columns.size(), all_columns);
    data_label = label;
    return generated;
  }();
  const double load_ms = ms_since(t0);
  if (!quiet) std::fprintf(stderr, "data: %s (%s in %.1f ms)\n", data_label.c_str(), in_memory ? "generated" : "loaded", load_ms);
  if (args.has("stats") && rank0) std::fputs(cli::format_table_stats(catalog, db).c_str(), stdout);

  if (first_compile_thread.joinable()) first_compile_thread.join();  // (it copies `compile`: before it changes)
  const planner::DatabaseStatistics stats(db);
  compile.stats = args.has("no-statistics") ? nullptr : &stats;
  std::set<std::string> partitioned;  // the tables each rank holds a share of
  std::map<std::string, uint64_t> local_rows;
  runtime::LocalKeyRanges key_ranges;  // of the rank's shares, by (table, column), as queries need them
  if (comm != nullptr) {
    partition_like_ranks(compile);
    partitioned = compile.partitioned_tables;
    for (const std::string& t : partitioned) local_rows[t] = db.table(t).rows;
    concurrent_options.stream_among = partitioned;  // a rank streams its share, not a replicated table
  }
  // Not compiled while the rows loaded (no standalone columnar files, --in-memory, ...): now, while
  // the warm-up thread may still create the context.
  if (compile_first_ahead && !first_compile) start_first_compile(stats, db);

  // Device: never a silent switch; the line below says which one runs (and what opening it cost: on
  // CUDA the driver's initialisation and the primary context, part of a fresh process's first query).
  t0 = Clock::now();
  if (!backend) backend = runtime::open_backend(device_choice);
  const double device_open_ms = ms_since(t0);
  cuda_warmup.reset();  // the backend holds the context now
  if (first_compile) first_compile->hand_to(*backend);
  std::string device = backend->device_description();
  if (comm != nullptr) device = cli::describe_ranks(*comm, device);
  if (!quiet) std::fprintf(stderr, "device: %s (opened in %.1f ms)\n", device.c_str(), device_open_ms);
  runtime::Executor executor(*backend, cache.get());
  executor.device_columns().set_memory_limit(concurrent_options.memory_limit);  // 0: the device's free memory
  runtime::ExecutorOptions exec;
  exec.repeat = static_cast<int>(repeat);
  exec.pipelines = runtime::parse_pipeline_schedule(args.get_choice("pipelines", {"concurrent", "sequential"}, "concurrent"));
  compile.dialect = backend->dialect();
  const planner::DeviceProfile profile = runtime::device_profile_for(backend->properties());
  compile.device = &profile;

  nlohmann::json out = {{"benchmark", benchmark}, {"backend", backend->name()}, {"source", args.has("plan") ? *args.get("plan") : args.has("sql") ? "sql" : from_plan ? "plan" : "sql"}, {"device", device}, {"model", ir::execution_model_name(model)}, {"local_resolution", local},
                        {"data", data_label}, {"load_ms", load_ms}, {"device_open_ms", device_open_ms}, {"queries", nlohmann::json::array()}};
  const auto result_format = format == "csv" ? runtime::ResultFormat::Csv
                             : format == "json" ? runtime::ResultFormat::Json
                                                : runtime::ResultFormat::Table;
  // `placement`: the concurrent executor's statistics of a query streamed on its own (else null).
  auto print = [&](const QueryReport& r, const runtime::ConcurrentStats* placement) {
    if (!rank0) return;
    const std::string text = r.execution.result.format(result_format);
    if (format == "json") {
      nlohmann::json q = nlohmann::json::parse(text);
      q["query"] = r.name;
      q["phases"] = phases_json(r, load_ms);
      q["stats"] = nlohmann::json::parse(r.execution.stats.to_json());
      if (placement != nullptr) q["concurrent"] = nlohmann::json::parse(placement->to_json());
      out["queries"].push_back(q);
      if (!quiet) std::fputs(phases_line(r).c_str(), stderr);
    } else {
      if (format == "table" || queries.size() > 1) std::printf("%s%s\n", format == "csv" ? "# " : "== ", r.name.c_str());
      std::fputs(text.c_str(), stdout);
      std::fflush(stdout);
      // Results on stdout, diagnostics (the phases) on stderr, in every format.
      std::string line = phases_line(r);
      if (placement != nullptr) line += placement->summary();
      if (!quiet) std::fputs(line.c_str(), stderr);
    }
  };
  // Runs `plans` through the concurrent executor --repeat times; the run with the least kernel time.
  // `hooks`: a rank's (under mpirun, one plan).
  auto run_concurrently = [&](const std::vector<const runtime::ExecutablePlan*>& plans, std::vector<double>& per_repeat,
                              runtime::PipelineHooks* hooks = nullptr) {
    std::optional<runtime::ConcurrentRun> best;
    runtime::ConcurrentOptions options = concurrent_options;
    options.hooks = hooks;
    for (long rep = 0; rep < repeat; ++rep) {
      runtime::ConcurrentRun run = executor.run(plans, db, options);
      per_repeat.push_back(run.stats.kernel_ms);
      if (!best || run.stats.kernel_ms < best->stats.kernel_ms) best = std::move(run);
    }
    return std::move(*best);
  };

  std::vector<std::string> unsupported;
  if (concurrent_mode) {
    // All at once: every query must compile (an unsupported one is an error here).
    std::vector<QueryReport> reports(queries.size());
    std::vector<runtime::ExecutablePlan> plans;
    t0 = Clock::now();
    for (size_t i = 0; i < queries.size(); ++i) plans.push_back(driver::lower_query(compile_one(queries[i], reports[i], compile, stats), db));
    std::vector<const runtime::ExecutablePlan*> pointers;
    for (const auto& p : plans) pointers.push_back(&p);
    std::vector<double> per_repeat;
    runtime::ConcurrentRun best = run_concurrently(pointers, per_repeat);
    const double total_ms = ms_since(t0);
    for (size_t i = 0; i < queries.size(); ++i) {
      reports[i].execution = std::move(best.executions[i]);
      reports[i].execution.stats.kernel_ms_per_repeat = per_repeat;
      reports[i].total_ms = total_ms;
      print(reports[i], nullptr);
    }
    if (format == "json") {
      nlohmann::json c = nlohmann::json::parse(best.stats.to_json());
      c["kernels_ms_per_repeat"] = per_repeat;
      c["total_ms"] = total_ms;
      out["concurrent"] = c;
    } else if (!quiet) {
      std::fputs(best.stats.summary().c_str(), stderr);
    }
  }
  // Queries lowered ahead of their turn (below); one that fails there fails again, with its message,
  // in its turn.
  std::map<std::string, std::pair<QueryReport, runtime::ExecutablePlan>> prepared;
  auto prepare = [&](const std::string& name) -> const runtime::ExecutablePlan* {
    try {
      QueryReport r;
      runtime::ExecutablePlan plan = driver::lower_query(compile_one(name, r, compile, stats), db);
      return &prepared.emplace(name, std::make_pair(std::move(r), std::move(plan))).first->second.second;
    } catch (const Error&) {
      return nullptr;
    }
  };
  // --sql-file: every query lowered first, then their kernels compiled together.
  if (batch) {
    std::vector<const runtime::ExecutablePlan*> plans;
    for (const std::string& name : queries)
      if (const runtime::ExecutablePlan* plan = prepare(name)) plans.push_back(plan);
    const double ms = executor.precompile(plans);
    if (!quiet)
      std::fprintf(stderr, "%s: %zu of %zu queries compiled together in %.1f ms\n", args.get("sql-file")->c_str(),
                   plans.size(), queries.size(), ms);
  }
  // Several queries one after the other on a backend that compiles off the calling thread (CUDA): the
  // first compiles alone; from the second on, the next `ahead` queries are lowered and their kernels
  // compile while the current one runs — a cold process's compiles run several at a time on the host's
  // cores.
  const size_t ahead = !batch && !concurrent_mode && comm == nullptr && backend->compiles_off_thread()
                           ? std::max<size_t>(1, std::thread::hardware_concurrency() / 4)
                           : 0;
  std::set<size_t> lowered_ahead;
  auto compile_ahead = [&](size_t current) {
    if (current == 0) return;  // the first query of the process compiles alone
    for (size_t next = current + 1; next < queries.size() && next <= current + ahead; ++next) {
      if (!lowered_ahead.insert(next).second || prepared.count(queries[next])) continue;
      if (const runtime::ExecutablePlan* plan = prepare(queries[next])) executor.prefetch_plan_modules(*plan);
    }
  };
  // The JSON document on stdout (rank 0), its elapsed time from the arguments to this print: what
  // follows is the teardown (device memory, the context).
  auto print_document = [&] {
    out["elapsed_ms"] = ms_since(started);
    if (format == "json" && rank0) std::printf("%s\n", out.dump(1).c_str());
    std::fflush(stdout);
  };
  int worst = 0;  // --sql-file: the highest exit class of a failing query
  for (size_t i = 0; i < queries.size() && !concurrent_mode; ++i) {
    const std::string& name = queries[i];
    QueryReport r;
    std::optional<runtime::ConcurrentStats> placement;
    t0 = Clock::now();
    compile_ahead(i);
    try {
      auto ready = prepared.find(name);
      if (ready != prepared.end()) r = ready->second.first;
      const runtime::ExecutablePlan plan =
          ready != prepared.end() ? std::move(ready->second.second) : driver::lower_query(compile_one(name, r, compile, stats), db);
      if (ready != prepared.end()) prepared.erase(ready);  // a query named twice is lowered again
      // Under mpirun: this rank's share (its row counts) and the exchanges between pipelines.
      std::optional<runtime::ExecutablePlan> mine;
      std::optional<runtime::Distribution> distribution;
      std::optional<runtime::RankHooks> hooks;
      if (comm != nullptr) {
        // The share's key ranges: scanned once per column for the whole run, not once per query.
        std::set<std::pair<std::string, std::string>> missing;
        for (const auto& c : runtime::per_rank_range_columns(plan))
          if (key_ranges.count(c) == 0) missing.insert(c);
        key_ranges.merge(runtime::share_key_ranges(db, missing));
        mine = runtime::rank_plan(plan, local_rows, key_ranges, static_cast<unsigned>(comm->rank()), static_cast<unsigned>(comm->size()));
        distribution = runtime::distribute(*mine, partitioned);
        hooks.emplace(*comm, *backend, *mine, *distribution);
      }
      const runtime::ExecutablePlan& runs = mine ? *mine : plan;
      // Streamed in chunks (forced, or the working set does not fit the device memory limit; under
      // mpirun each rank decides for its share, the exchanges are the same either way): the
      // concurrent executor with this one query; --repeat re-runs the whole stream.
      if (executor.would_stream({&runs}, db, concurrent_options)) {
        std::vector<double> per_repeat;
        runtime::ConcurrentRun run = run_concurrently({&runs}, per_repeat, hooks ? &*hooks : nullptr);
        r.execution = std::move(run.executions[0]);
        r.execution.stats.kernel_ms_per_repeat = per_repeat;
        placement = std::move(run.stats);
      } else {
        runtime::ExecutorOptions options = exec;
        options.hooks = hooks ? &*hooks : nullptr;
        r.execution = executor.run(runs, db, options);
      }
      // Every rank agrees the query went well (a rank that failed meets the others at that
      // agreement or earlier).
      if (comm != nullptr) runtime::agree_or_throw(*comm);
    } catch (const Error& local) {
      // Under mpirun a failure is every rank's: agreed here unless the exchange already did.
      std::optional<runtime::AgreedFailure> agreed;
      if (comm != nullptr) agreed = cli::agree_on(*comm, local);
      const Error& e = agreed ? static_cast<const Error&>(*agreed) : local;
      if (batch) {
        // --sql-file: every failure is the query's own; the others still run.
        const bool unsupported_query = e.kind() == ErrorKind::Unsupported;
        if (rank0) std::fprintf(stderr, "horseqc-run: %s: %s: %s\n", name.c_str(), unsupported_query ? "unsupported" : "error", e.what());
        if (format == "json") {
          nlohmann::json q = {{"query", name}, {"exit_code", e.exit_code()}};
          q[unsupported_query ? "unsupported" : "error"] = e.what();
          out["queries"].push_back(q);
        }
        worst = std::max(worst, e.exit_code());
        continue;
      }
      // One query horseqc cannot run yet does not hide the others' answers; the exit code tells.
      if (e.kind() != ErrorKind::Unsupported || queries.size() == 1) {
        // Any other failure ends the run. The answers of the queries before it were whole: the JSON
        // document still carries them (text and CSV printed them already), with this query's error
        // and the queries not run — never only an empty stdout for a run that answered some.
        if (format == "json" && rank0 && !out["queries"].empty()) {
          out["queries"].push_back({{"query", name}, {"error", e.what()}, {"exit_code", e.exit_code()}});
          out["not_run"] = std::vector<std::string>(queries.begin() + static_cast<std::ptrdiff_t>(i) + 1, queries.end());
          print_document();
        }
        if (agreed) throw *agreed;
        throw;
      }
      if (rank0) std::fprintf(stderr, "horseqc-run: %s: unsupported: %s\n", name.c_str(), e.what());
      if (format == "json") out["queries"].push_back({{"query", name}, {"unsupported", e.what()}});
      unsupported.push_back(name);
      continue;
    }
    r.total_ms = ms_since(t0);
    print(r, placement ? &*placement : nullptr);
  }
  print_document();
  if (batch) return worst;
  if (unsupported.empty()) return 0;
  std::string names;
  for (const auto& n : unsupported) names += " " + n;
  if (rank0) std::fprintf(stderr, "horseqc-run: %zu of %zu queries unsupported:%s\n", unsupported.size(), queries.size(), names.c_str());
  return static_cast<int>(ErrorKind::Unsupported);
}

// Under mpirun: the ranks, and every failure agreed on, so that rank 0 reports the failing rank's
// message and every rank exits with its code (the others silently).
int run(int argc, char** argv) {
  using namespace hqc;
  if (!runtime::launched_by_mpi()) return run_queries(argc, argv, nullptr);
  Ranks ranks;
  try {
    try {
      return run_queries(argc, argv, &ranks);
    } catch (const runtime::AgreedFailure&) {
      throw;
    } catch (const Error& e) {
      if (!ranks.comm) throw;  // before the ranks met (a bad option): every rank says it
      runtime::agree_or_throw(*ranks.comm, runtime::RankFailure{ranks.comm->rank(), e.exit_code(), e.what()});
      throw Error(ErrorKind::Internal, "a failure no rank agreed on");
    }
  } catch (const runtime::AgreedFailure&) {
    // Rank 0 reports it and exits with the failing rank's code, which mpirun returns; the others
    // end quietly (a non-zero exit of theirs would make mpirun kill rank 0 before it reports).
    if (ranks.comm->rank() == 0) throw;
    return 0;
  }
}

}  // namespace

int main(int argc, char** argv) { return hqc::cli::run_main("horseqc-run", run, argc, argv); }

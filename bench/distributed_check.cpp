// distributed-check: every collective of the distributed layer's Communicator (runtime/distributed/)
// against host-computed expectations, on the transport a run would use, then the rate of the two
// device collectives. Run under mpirun, one rank per device:
//
//   mpirun -np N distributed-check [--device auto|cuda|opencl] [--transport auto|mpi|nccl]
//                                  [--quick] [--mib N] [--repeat N]
//
// Each rank drives device (local rank mod device count) of its host. Checked: all_reduce Sum/Min/Max
// of I32/U32/I64/U64/F64 over 0, 1 and 1000003 elements (values depend on rank and index);
// all_gather_rows in place over lanes of 1-, 4-, 8- and 16-byte rows with unequal row counts, ranks
// contributing nothing, bytes past every rank's rows left alone;
// agree() with no, one and two failing ranks; the communicator's local rank against the launcher's.
// Rank 0 prints one line per check (PASS/FAIL, with the first failing rank's first mismatch), then
// the timings: all_reduce (f64 sum) and all_gather_rows of --mib MiB (default 256; --quick: 8),
// best of --repeat (default 5; --quick: 2) after one warm-up, as algorithm and bus bandwidth (GB/s,
// 10^9 bytes; bus bandwidth as nccl-tests counts it). Exit 0 when every check passed, 1 otherwise;
// other exit codes as docs/cli.md (5: no such device, or the transport cannot run).
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "runtime/device/backend.h"
#include "runtime/distributed/open_communicator.h"
#include "storage/error.h"
#include "tools/cli/args.h"

namespace {

using namespace hqc;
using runtime::Communicator;
using runtime::ElementType;
using runtime::Reduction;
using Clock = std::chrono::steady_clock;

// Collects the checks' outcomes: every rank's own verdict, agreed, printed once by rank 0.
class Report {
 public:
  explicit Report(Communicator& comm) : comm_(comm) {}

  // `problem`: this rank's first mismatch, empty when it passed.
  void check(const std::string& name, const std::string& problem) {
    const auto all = comm_.all_gather(std::vector<unsigned char>(problem.begin(), problem.end()));
    std::string failure;
    for (size_t r = 0; r < all.size() && failure.empty(); ++r) {
      if (!all[r].empty()) failure = "rank " + std::to_string(r) + ": " + std::string(all[r].begin(), all[r].end());
    }
    ++checks_;
    if (!failure.empty()) ++failed_;
    if (comm_.rank() == 0) {
      std::printf("%s  %s%s\n", failure.empty() ? "PASS" : "FAIL", name.c_str(), failure.empty() ? "" : ("  (" + failure + ")").c_str());
      std::fflush(stdout);
    }
  }
  int checks() const { return checks_; }
  int failed() const { return failed_; }

 private:
  Communicator& comm_;
  int checks_ = 0;
  int failed_ = 0;
};

// ---- all_reduce ----

// Rank- and index-dependent values whose sums are exact (F64: small multiples of 1/4) and whose
// integer sums do not overflow (I32, I64) or wrap as the type does (U32, U64).
template <typename T>
T value_at(int rank, uint64_t i);
template <>
int32_t value_at<int32_t>(int rank, uint64_t i) {
  return static_cast<int32_t>((i * 7919 + static_cast<uint64_t>(rank) * 104729) % 2000001) - 1000000;
}
template <>
uint32_t value_at<uint32_t>(int rank, uint64_t i) {
  return static_cast<uint32_t>(i * 2654435761u) ^ static_cast<uint32_t>(rank * 40503 + 17);
}
template <>
int64_t value_at<int64_t>(int rank, uint64_t i) {
  const int64_t v = static_cast<int64_t>(i) * 1000003 + static_cast<int64_t>(rank) * (int64_t{1} << 40);
  return (i + static_cast<uint64_t>(rank)) % 2 == 0 ? v : -v;
}
template <>
uint64_t value_at<uint64_t>(int rank, uint64_t i) {
  return i * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(rank + 1) * 0xBF58476D1CE4E5B9ull;
}
template <>
double value_at<double>(int rank, uint64_t i) {
  return static_cast<double>(static_cast<int64_t>(i % 1000) - 500) * 0.5 + rank * 0.25 - ((i + static_cast<uint64_t>(rank)) % 7 == 0 ? 1e3 : 0);
}

template <typename T>
T combine(T a, T b, Reduction op) {
  switch (op) {
    case Reduction::Sum: return static_cast<T>(a + b);  // unsigned wraps, as the transports do
    case Reduction::Min: return std::min(a, b);
    case Reduction::Max: return std::max(a, b);
  }
  return a;
}

template <typename T>
std::string show(T v) {
  return std::to_string(v);
}

template <typename T>
std::string all_reduce_problem(Communicator& comm, runtime::Backend& backend, ElementType type, Reduction op, uint64_t n) {
  std::vector<T> mine(n);
  for (uint64_t i = 0; i < n; ++i) mine[i] = value_at<T>(comm.rank(), i);
  // Two elements more than reduced, which must keep their values.
  runtime::DeviceBuffer buffer = backend.allocate((n + 2) * sizeof(T));
  const T guard[2] = {value_at<T>(comm.rank(), n), value_at<T>(comm.rank(), n + 1)};
  if (n > 0) buffer.upload(mine.data(), n * sizeof(T));
  buffer.upload(guard, sizeof guard, n * sizeof(T));
  comm.all_reduce(backend, buffer, n, type, op);
  const std::vector<T> got = buffer.download_as<T>(n + 2);
  for (uint64_t i = 0; i < n; ++i) {
    T expected = value_at<T>(0, i);
    for (int r = 1; r < comm.size(); ++r) expected = combine(expected, value_at<T>(r, i), op);
    if (got[i] != expected) return "element " + std::to_string(i) + ": got " + show(got[i]) + ", expected " + show(expected);
  }
  if (got[n] != guard[0] || got[n + 1] != guard[1]) return "the elements after the first " + std::to_string(n) + " changed";
  return {};
}

std::string run_all_reduce(Communicator& comm, runtime::Backend& backend, ElementType type, Reduction op, uint64_t n) {
  try {
    switch (type) {
      case ElementType::I32: return all_reduce_problem<int32_t>(comm, backend, type, op, n);
      case ElementType::U32: return all_reduce_problem<uint32_t>(comm, backend, type, op, n);
      case ElementType::I64: return all_reduce_problem<int64_t>(comm, backend, type, op, n);
      case ElementType::U64: return all_reduce_problem<uint64_t>(comm, backend, type, op, n);
      case ElementType::F64: return all_reduce_problem<double>(comm, backend, type, op, n);
    }
  } catch (const Error& e) {
    return std::string("error: ") + e.what();  // the collective itself failed: reported, not fatal here
  }
  return "unknown type";
}

const char* type_name(ElementType t) {
  switch (t) {
    case ElementType::I32: return "i32";
    case ElementType::U32: return "u32";
    case ElementType::I64: return "i64";
    case ElementType::U64: return "u64";
    case ElementType::F64: return "f64";
  }
  return "?";
}

// ---- all_gather_rows ----

unsigned char row_byte(int rank, size_t lane, uint64_t j) {
  return static_cast<unsigned char>(rank * 131 + lane * 17 + j * 7 + (j >> 9));
}
constexpr unsigned char kUntouched = 0xAB;
// Lanes of the widths merged outputs have: a byte (the test's smallest), i32, i64, a 128-bit sum.
const std::vector<uint64_t> kLaneWidths = {1, 4, 8, 16};

// Each lane's buffer: this rank's rows, then kUntouched up to every rank's rows and 64 bytes more.
std::vector<runtime::DeviceBuffer> row_lanes(runtime::Backend& backend, int rank, uint64_t mine, uint64_t total) {
  std::vector<runtime::DeviceBuffer> buffers;
  for (size_t l = 0; l < kLaneWidths.size(); ++l) {
    std::vector<unsigned char> host(total * kLaneWidths[l] + 64, kUntouched);
    for (uint64_t j = 0; j < mine * kLaneWidths[l]; ++j) host[j] = row_byte(rank, l, j);
    buffers.push_back(backend.allocate(host.size()));
    buffers.back().upload(host);
  }
  return buffers;
}

// What went wrong in the lanes after every rank's rows were gathered into them ("" if nothing).
std::string gathered_problem(const std::vector<runtime::DeviceBuffer>& buffers, const std::vector<uint64_t>& rows) {
  for (size_t l = 0; l < buffers.size(); ++l) {
    std::vector<unsigned char> got(buffers[l].bytes());
    buffers[l].download(got.data(), got.size());
    const uint64_t width = kLaneWidths[l];
    uint64_t at = 0;
    for (size_t r = 0; r < rows.size(); ++r) {
      for (uint64_t j = 0; j < rows[r] * width; ++j) {
        const unsigned char expected = row_byte(static_cast<int>(r), l, j);
        if (got[at + j] != expected) {
          return "lane of " + std::to_string(width) + "-byte rows, byte " + std::to_string(j) + " of rank " + std::to_string(r) +
                 "'s rows (offset " + std::to_string(at + j) + "): got " + std::to_string(got[at + j]) + ", expected " +
                 std::to_string(expected);
        }
      }
      at += rows[r] * width;
    }
    for (uint64_t j = at; j < got.size(); ++j) {
      if (got[j] != kUntouched) return "lane of " + std::to_string(width) + "-byte rows: byte " + std::to_string(j) + " past the rows was written";
    }
  }
  return {};
}

std::vector<Communicator::RowLane> lanes_of(std::vector<runtime::DeviceBuffer>& buffers) {
  std::vector<Communicator::RowLane> lanes;
  for (size_t l = 0; l < buffers.size(); ++l) lanes.push_back({&buffers[l], kLaneWidths[l]});
  return lanes;
}

std::string all_gather_problem(Communicator& comm, runtime::Backend& backend, const std::vector<uint64_t>& rows) {
  uint64_t total = 0;
  for (uint64_t r : rows) total += r;
  std::vector<runtime::DeviceBuffer> buffers = row_lanes(backend, comm.rank(), rows[static_cast<size_t>(comm.rank())], total);
  try {
    comm.all_gather_rows(backend, lanes_of(buffers), rows);
  } catch (const Error& e) {
    return std::string("error: ") + e.what();
  }
  return gathered_problem(buffers, rows);
}

std::string describe_sizes(const std::vector<uint64_t>& bytes) {
  std::string s;
  for (uint64_t b : bytes) s += (s.empty() ? "" : ",") + std::to_string(b);
  return s;
}

// ---- agree ----

std::string agree_problem(Communicator& comm, const std::vector<int>& failing) {
  std::optional<runtime::RankFailure> mine;
  if (std::find(failing.begin(), failing.end(), comm.rank()) != failing.end()) {
    mine = runtime::RankFailure{comm.rank(), 40 + comm.rank(), "planted failure on rank " + std::to_string(comm.rank())};
  }
  const std::optional<runtime::RankFailure> agreed = comm.agree(mine);
  if (failing.empty()) return agreed ? "a failure was reported where none happened: rank " + std::to_string(agreed->rank) : "";
  const int first = *std::min_element(failing.begin(), failing.end());
  if (!agreed) return "no failure reported; rank " + std::to_string(first) + " failed";
  const std::string message = "planted failure on rank " + std::to_string(first);
  if (agreed->rank != first || agreed->exit_code != 40 + first || agreed->message != message) {
    return "got rank " + std::to_string(agreed->rank) + ", exit " + std::to_string(agreed->exit_code) + ", \"" +
           agreed->message + "\"; expected rank " + std::to_string(first) + ", exit " + std::to_string(40 + first) + ", \"" +
           message + "\"";
  }
  return {};
}

// ---- timing ----

// The slowest rank's time of `op`, best of `repeat` after a warm-up, in seconds.
template <typename Op>
double time_collective(Communicator& comm, int repeat, Op op) {
  double best = 0;
  for (int i = 0; i <= repeat; ++i) {
    comm.barrier();
    const auto start = Clock::now();
    op();
    double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    comm.all_reduce_host(&seconds, 1, ElementType::F64, Reduction::Max);
    if (i > 0 && (best == 0 || seconds < best)) best = seconds;
  }
  return best;
}

void print_rate(Communicator& comm, const char* what, uint64_t bytes, double seconds, double bus_factor) {
  if (comm.rank() != 0) return;
  const double algbw = static_cast<double>(bytes) / seconds / 1e9;
  std::printf("TIME  %-36s %8.3f ms  %8.2f GB/s algbw  %8.2f GB/s busbw\n", what, seconds * 1e3, algbw, algbw * bus_factor);
  std::fflush(stdout);
}

int run(int argc, char** argv) {
  const cli::Args args =
      cli::parse(argc, argv, {{"device"}, {"transport"}, {"quick", false}, {"mib"}, {"repeat"}});
  if (args.has("help")) {
    std::puts(
        "usage: mpirun -np N distributed-check [--device auto|cuda|opencl] [--transport auto|mpi|nccl]\n"
        "                                      [--quick] [--mib N (timed size, default 256; --quick 8)]\n"
        "                                      [--repeat N (default 5; --quick 2)]");
    return 0;
  }
  const bool quick = args.has("quick");
  const runtime::DeviceChoice device = runtime::parse_device_choice(args.get_choice("device", {"auto", "cuda", "opencl"}, "auto"));
  const runtime::TransportChoice transport = runtime::parse_transport(args.get_choice("transport", {"auto", "mpi", "nccl"}, "auto"));
  const uint64_t mib = static_cast<uint64_t>(std::max(1L, args.get_long("mib", quick ? 8 : 256)));
  const int repeat = static_cast<int>(std::max(1L, args.get_long("repeat", quick ? 2 : 5)));

  runtime::BackendOptions options;
  const int local_rank = runtime::launcher_local_rank();
  if (device != runtime::DeviceChoice::OpenCL) {
    options.cuda_device_ordinal = runtime::device_ordinal_for(local_rank, runtime::cuda_device_count());
  }
  const std::unique_ptr<runtime::Backend> backend = runtime::open_backend(device, options);
  const std::unique_ptr<Communicator> comm = runtime::open_communicator(*backend, transport);
  const int rank = comm->rank();
  const int size = comm->size();

  const auto devices = comm->all_gather([&] {
    const std::string d = backend->device_description();
    return std::vector<unsigned char>(d.begin(), d.end());
  }());
  if (rank == 0) {
    std::printf("distributed-check: %d rank(s), transport %s (--transport %s)\n", size, comm->transport().c_str(),
                runtime::transport_choice_name(transport));
    for (size_t r = 0; r < devices.size(); ++r) std::printf("  rank %zu: %s\n", r, std::string(devices[r].begin(), devices[r].end()).c_str());
    std::fflush(stdout);
  }

  Report report(*comm);
  report.check("local rank (communicator " + std::to_string(comm->local_rank()) + ", launcher " + std::to_string(local_rank) + ")",
               comm->local_rank() == local_rank ? "" : "the communicator and the launcher disagree");

  for (ElementType type : {ElementType::I32, ElementType::U32, ElementType::I64, ElementType::U64, ElementType::F64}) {
    for (Reduction op : {Reduction::Sum, Reduction::Min, Reduction::Max}) {
      for (uint64_t n : {uint64_t{0}, uint64_t{1}, uint64_t{1000003}}) {
        report.check(std::string("all_reduce ") + type_name(type) + " " + runtime::reduction_name(op) + " n=" + std::to_string(n),
                     run_all_reduce(*comm, *backend, type, op, n));
      }
    }
  }

  // Unequal pieces; rank 1 (mod 3) contributes nothing in the first, rank 0 in the second; then
  // pieces of several MiB, and nothing at all.
  std::vector<std::vector<uint64_t>> layouts(4, std::vector<uint64_t>(static_cast<size_t>(size)));
  for (int r = 0; r < size; ++r) {
    const auto i = static_cast<size_t>(r);
    layouts[0][i] = r % 3 == 1 ? 0 : 1001 + 37 * static_cast<uint64_t>(r);
    layouts[1][i] = r == 0 ? 0 : 5 + 3 * static_cast<uint64_t>(r);
    layouts[2][i] = (uint64_t{1} << 18) + 4099 * static_cast<uint64_t>(r) + (r % 2 == 1 ? 1 : 0);
    layouts[3][i] = 0;
  }
  for (const auto& rows : layouts) {
    report.check("all_gather_rows rows=" + (size <= 8 ? describe_sizes(rows) : std::to_string(size) + " ranks") + ", 4 lanes in place",
                 all_gather_problem(*comm, *backend, rows));
  }

  report.check("agree, no rank failing", agree_problem(*comm, {}));
  report.check("agree, rank " + std::to_string(size - 1) + " failing", agree_problem(*comm, {size - 1}));
  if (size >= 2) {
    report.check("agree, ranks " + std::to_string(size - 2) + " and " + std::to_string(size - 1) + " failing",
                 agree_problem(*comm, {size - 1, size - 2}));
  }

  // ---- rates ----
  const uint64_t timed_bytes = mib << 20;
  {
    const uint64_t count = timed_bytes / 8;
    runtime::DeviceBuffer buffer = backend->allocate(count * 8);
    std::vector<double> host(count);
    for (uint64_t i = 0; i < count; ++i) host[i] = static_cast<double>(i % 4096) + rank;
    buffer.upload(host);
    const double seconds =
        time_collective(*comm, repeat, [&] { comm->all_reduce(*backend, buffer, count, ElementType::F64, Reduction::Sum); });
    // After 1 + repeat sums in place, element i is (i % 4096)·size^(1+repeat) + (Σ ranks)·size^repeat: exact in doubles.
    const std::vector<double> got = buffer.download_as<double>(count);
    double scale = 1;
    for (int k = 0; k < repeat; ++k) scale *= size;
    const double rank_sum = static_cast<double>(size) * (size - 1) / 2;
    std::string problem;
    for (uint64_t i = 0; i < count && problem.empty(); ++i) {
      const double expected = (static_cast<double>(i % 4096) * size + rank_sum) * scale;
      if (got[i] != expected) problem = "element " + std::to_string(i) + ": got " + show(got[i]) + ", expected " + show(expected);
    }
    report.check("all_reduce f64 sum " + std::to_string(mib) + " MiB, " + std::to_string(repeat + 1) + " times in place", problem);
    print_rate(*comm, ("all_reduce f64 sum " + std::to_string(mib) + " MiB").c_str(), count * 8, seconds,
               2.0 * (size - 1) / size);
  }
  {
    // Every rank's rows of the 4 lanes (29 bytes a row) add up to --mib MiB.
    uint64_t row_bytes = 0;
    for (uint64_t w : kLaneWidths) row_bytes += w;
    const std::vector<uint64_t> rows(static_cast<size_t>(size), timed_bytes / row_bytes / static_cast<uint64_t>(size));
    const uint64_t total = rows[0] * static_cast<uint64_t>(size);
    std::vector<runtime::DeviceBuffer> buffers = row_lanes(*backend, rank, rows[0], total);
    const std::vector<Communicator::RowLane> lanes = lanes_of(buffers);
    comm->all_gather_rows(*backend, lanes, rows);
    report.check("all_gather_rows " + std::to_string(mib) + " MiB in " + std::to_string(size) + " equal pieces, 4 lanes in place",
                 gathered_problem(buffers, rows));
    // Timed again in place: the rows then sent are rank 0's, the same amount.
    const double seconds = time_collective(*comm, repeat, [&] { comm->all_gather_rows(*backend, lanes, rows); });
    print_rate(*comm, ("all_gather_rows " + std::to_string(mib) + " MiB, 4 lanes").c_str(), total * row_bytes, seconds,
               static_cast<double>(size - 1) / size);
  }

  if (rank == 0) {
    std::printf("distributed-check: %d checks, %d failed\n", report.checks(), report.failed());
    std::fflush(stdout);
  }
  return report.failed() == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return hqc::cli::run_main("distributed-check", run, argc, argv); }

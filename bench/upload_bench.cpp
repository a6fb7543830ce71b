// upload-bench: the host → device rate of one large column through DeviceColumnCache
// (runtime/device/device_columns.h), by upload configuration — the synchronous copy from pageable memory,
// and pinned staging by slot size × slot count × memcpy threads — next to the link's ceiling: an
// asynchronous copy from one pinned buffer of the same size. Picks the staging defaults from
// measurements instead of guesses.
//
//   upload-bench [--device auto|cuda|opencl] [--mib N] [--repeat N]
//
// Per configuration: "first" = the first upload by a fresh cache (it pins the staging slots),
// "best" = the fastest of --repeat further uploads of the same column (slots kept). Exit codes as
// docs/cli.md. Not a test: rates depend on the machine (bench/results/ has runs).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/device/backend.h"
#include "runtime/device/device_columns.h"
#include "storage/column.h"
#include "tools/cli/args.h"

namespace {

using namespace hqc;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); }

struct Rate {
  double first_ms = 0;
  double best_ms = 0;
};

Rate measure(runtime::Backend& backend, const Column& column, const runtime::StagingOptions& options, int repeat) {
  runtime::DeviceColumnCache cache(backend, options);
  Rate r;
  auto start = Clock::now();
  cache.get_all({{"t", &column}});
  r.first_ms = ms_since(start);
  r.best_ms = r.first_ms;
  for (int i = 0; i < repeat; ++i) {
    cache.clear();  // the device copy goes, the pinned slots stay
    start = Clock::now();
    cache.get_all({{"t", &column}});
    r.best_ms = std::min(r.best_ms, ms_since(start));
  }
  return r;
}

int run(int argc, char** argv) {
  const cli::Args args = cli::parse(argc, argv, {{"device"}, {"mib"}, {"repeat"}});
  if (args.has("help")) {
    std::puts("usage: upload-bench [--device auto|cuda|opencl] [--mib N (default 2048)] [--repeat N (default 3)]");
    return 0;
  }
  const uint64_t mib = static_cast<uint64_t>(std::max(1L, args.get_long("mib", 2048)));
  const int repeat = static_cast<int>(std::max(1L, args.get_long("repeat", 3)));
  auto backend = runtime::open_backend(
      runtime::parse_device_choice(args.get_choice("device", {"auto", "cuda", "opencl"}, "auto")));
  std::printf("device: %s\ncolumn: %llu MiB of int64, best of %d uploads after the first\n\n",
              backend->device_description().c_str(), static_cast<unsigned long long>(mib), repeat);

  Column column;
  column.name = "v";
  column.type = DataType::int64();
  column.i64.resize(mib << 17);  // mib · 2^20 / 8 values, every page written
  for (size_t i = 0; i < column.i64.size(); ++i) column.i64[i] = static_cast<int64_t>(i * 2654435761u);
  const double gb = static_cast<double>(mib << 20) / 1e9;

  {  // the ceiling: one asynchronous copy from a pinned buffer (its pinning and filling not timed)
    runtime::PinnedBuffer pinned = backend->allocate_pinned(mib << 20);
    std::memcpy(pinned.data(), column.i64.data(), mib << 20);
    runtime::DeviceBuffer target = backend->allocate(mib << 20);
    runtime::Stream stream = backend->create_stream();
    double best = 0;
    for (int i = 0; i <= repeat; ++i) {
      const auto start = Clock::now();
      backend->upload_async(stream, target, 0, pinned, 0, mib << 20);
      backend->synchronize(stream);
      const double ms = ms_since(start);
      if (i > 0 && (best == 0 || ms < best)) best = ms;
    }
    std::printf("%-40s %10s %10.1f ms %8.1f GB/s\n", "pinned buffer, one async copy (ceiling)", "", best, gb / best * 1e3);
  }
  std::printf("%-40s %10s %13s %13s\n", "configuration", "first ms", "best ms", "best GB/s");
  const Rate pageable = measure(*backend, column, runtime::StagingOptions{.threshold = 0}, repeat);
  std::printf("%-40s %10.1f %10.1f ms %8.1f GB/s\n", "pageable (cuMemcpyHtoD / clEnqueueWrite)", pageable.first_ms,
              pageable.best_ms, gb / pageable.best_ms * 1e3);
  for (unsigned threads : {4u, 8u, 16u}) {
    for (uint64_t slot_mib : {16u, 64u, 256u}) {
      for (unsigned slots : {2u, 3u, 4u}) {
        const runtime::StagingOptions options{.threshold = 1, .batch_threshold = 0, .slot_bytes = slot_mib << 20,
                                              .slots = slots, .threads = threads};
        const Rate r = measure(*backend, column, options, repeat);
        char label[64];
        std::snprintf(label, sizeof label, "staged: %u threads, %u x %llu MiB", threads, slots,
                      static_cast<unsigned long long>(slot_mib));
        std::printf("%-40s %10.1f %10.1f ms %8.1f GB/s\n", label, r.first_ms, r.best_ms, gb / r.best_ms * 1e3);
      }
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return hqc::cli::run_main("upload-bench", run, argc, argv); }

// horseqc-run: load (or generate) benchmark data and run queries on a device.
// Options and exit codes: docs/cli.md. This main only parses options and calls the libraries.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "storage/catalog.h"
#include "storage/error.h"
#include "storage/load_options.h"
#include "storage/table.h"
#include "storage/tbl_loader.h"
#include "tools/cli/args.h"
#include "tools/data_source.h"
#include "tools/table_stats.h"

namespace {

constexpr const char* kUsage = R"(usage: horseqc-run ssb [QUERY...] [options]

Runs Star Schema Benchmark queries. With no --data, SSB is generated once at --sf into
$XDG_CACHE_HOME/horseqc/ssb/sf<X> (default ~/.cache/horseqc/ssb/sf0.01) and reused afterwards.

options:
  --sf X           scale factor of generated data (default 0.01)
  --data DIR       use the .tbl files in DIR instead of generated data
  --stats          print table statistics of the loaded data
  --threads N      loader threads (default: all hardware threads)
  --quiet          no progress bars
  -h, --help       this text

exit codes: 0 ok, 2 usage, 3 bad input data, 4 unsupported, 5 device, 70 internal (docs/cli.md)
)";

int run(int argc, char** argv) {
  using namespace hqc;
  const cli::Args args = cli::parse(argc, argv, {{"sf"}, {"data"}, {"threads"}, {"stats", false}, {"quiet", false}});
  if (args.has("help")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (args.positionals.empty() || args.positionals[0] != "ssb")
    throw Error(ErrorKind::Usage, std::string("expected a benchmark name (ssb) as the first argument\n") + kUsage);
  if (args.has("sf") && args.has("data")) throw Error(ErrorKind::Usage, "give either --sf or --data, not both");
  const bool quiet = args.has("quiet");
  const double sf = args.get_double("sf", 0.01);
  if (!(sf > 0)) throw Error(ErrorKind::Usage, "--sf: expected a positive scale factor");

  const auto dir = args.get("data") ? std::filesystem::path(*args.get("data")) : cli::ensure_ssb_data(sf, quiet);
  LoadOptions load;
  load.threads = static_cast<unsigned>(args.get_long("threads", 0));
  load.progress = !quiet;
  const auto t0 = std::chrono::steady_clock::now();
  const Catalog catalog = Catalog::ssb();
  const Database db = load_database(catalog, dir, load);
  const double load_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::printf("data: %s (loaded in %.1f ms)\n", dir.c_str(), load_ms);
  std::fputs(cli::format_table_stats(catalog, db).c_str(), stdout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return hqc::cli::run_main("horseqc-run", run, argc, argv); }

// horseqc-gen: writes benchmark data sets to disk.
//
//   horseqc-gen ssb|tpch --sf X --out DIR [--format tbl|columnar] [--threads N] [--seed S] [--quiet]
//
// Thin main: options → ssb::generate() or tpch::generate() → storage writers. Exit codes as in
// docs/cli.md (0 ok, 2 usage, 3 the output cannot be written).
#include <cstdio>
#include <filesystem>
#include <string>

#include "ssb/generator.h"
#include "storage/catalog.h"
#include "storage/columnar_cache.h"
#include "storage/error.h"
#include "storage/progress.h"
#include "storage/tbl_writer.h"
#include "tpch/generator.h"
#include "storage/temp_files.h"
#include "tools/cli/args.h"
#include "tools/data_source.h"

namespace {

using hqc::Error;
using hqc::ErrorKind;

constexpr const char* kUsage = R"(usage: horseqc-gen ssb|tpch --out DIR [--sf X] [--format tbl|columnar] [--threads N] [--seed S] [--quiet]

ssb:  generates the Star Schema Benchmark (revision 3, ssb-dbgen's value domains) in memory and writes
      its five tables (lineorder, part, supplier, customer, date) into DIR, created if needed.
tpch: generates TPC-H (specification clause 4.2, dbgen's value domains) in memory and writes its eight
      tables (part, supplier, partsupp, customer, orders, lineitem, nation, region) into DIR.

options:
  --out DIR        output directory (required)
  --sf X           scale factor, a positive number (default 1): lineorder / lineitem have about
                   6,000,000 * X rows (tpch: X <= 357, the int32 order keys)
  --format F       tbl: dbgen text files DIR/<table>.tbl, '|' after every field (default)
                   columnar: horseqc's binary columnar cache, loaded without parsing
  --threads N      worker threads, 0 = one per hardware thread (default 0); the data does not depend on it
  --seed S         random seed, a non-negative integer (default 19920101); same seed and sf, same data
  --quiet          no progress bar and no table of row counts: nothing on stdout or stderr but errors
  --help           this text
  --version        the version and the git commit it was built from

Interrupted (Ctrl-C, SIGTERM), it removes what it was writing and exits with 128 + the signal (130);
files a killed run left behind (<table>.tbl.tmp-<pid>) are removed by the next run into DIR.
exit codes: 0 success, 2 usage error, 3 the output cannot be written (or too little free disk space)
)";

int write_all(const std::string& bench, hqc::ssb::GenOptions options, const std::string& format, const std::string& out_dir,
              bool quiet);

int gen_main(int argc, char** argv) {
  const hqc::cli::Args args = hqc::cli::parse(
      argc, argv, {{"sf"}, {"out"}, {"format"}, {"threads"}, {"seed"}, {"quiet", false}});
  if (args.has("help")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (args.positionals.empty())
    throw Error(ErrorKind::Usage, "missing the benchmark to generate: horseqc-gen ssb|tpch --out DIR (see --help)");
  if (args.positionals.size() > 1)
    throw Error(ErrorKind::Usage, "unexpected argument \"" + args.positionals[1] + "\" (see --help)");
  const std::string& bench = args.positionals[0];
  if (bench != "ssb" && bench != "tpch")
    throw Error(ErrorKind::Usage, "unknown benchmark \"" + bench + "\": expected ssb or tpch (see --help)");
  const bool tpch = bench == "tpch";

  hqc::ssb::GenOptions options;
  options.sf = args.get_double("sf", 1.0);
  if (!(options.sf > 0)) throw Error(ErrorKind::Usage, "--sf: expected a positive number, found \"" + *args.get("sf") + "\"");
  const long threads = args.get_long("threads", 0);
  if (threads < 0 || threads > 4096)
    throw Error(ErrorKind::Usage, "--threads: expected an integer in [0, 4096], found " + std::to_string(threads));
  options.threads = static_cast<unsigned>(threads);
  const long seed = args.get_long("seed", static_cast<long>(options.seed));
  if (seed < 0) throw Error(ErrorKind::Usage, "--seed: expected a non-negative integer, found " + std::to_string(seed));
  options.seed = static_cast<uint64_t>(seed);
  const std::string format = args.get_choice("format", {"tbl", "columnar"}, "tbl");
  const std::optional<std::string> out = args.get("out");
  if (!out || out->empty()) throw Error(ErrorKind::Usage, "missing --out DIR (see --help)");
  const bool quiet = args.has("quiet");

  // Everything that can refuse does so before the output directory is touched.
  (tpch ? hqc::tpch::check_generatable : hqc::ssb::check_generatable)(options.sf);
  hqc::cli::check_free_space(*out, hqc::cli::estimated_data_bytes(bench, options.sf),
                             (tpch ? "TPC-H SF " : "SSB SF ") + hqc::cli::format_sf(options.sf) +
                                 (format == "tbl" ? " as .tbl files" : " as columnar files"));
  std::error_code ec;
  const bool existed = std::filesystem::exists(*out, ec);
  std::filesystem::create_directories(*out, ec);
  if (ec) throw Error(ErrorKind::Input, "cannot create the output directory " + *out + ": " + ec.message());
  hqc::sweep_stale_temp_files(*out);
  try {
    return write_all(bench, options, format, *out, quiet);
  } catch (...) {
    // A directory this run created and that holds nothing complete goes with the failure.
    if (!existed && std::filesystem::is_empty(*out, ec)) std::filesystem::remove(*out, ec);
    throw;
  }
}

int write_all(const std::string& bench, hqc::ssb::GenOptions options, const std::string& format, const std::string& out_dir,
              bool quiet) {
  const bool tpch = bench == "tpch";
  const std::optional<std::string> out = out_dir;

  const hqc::Catalog catalog = tpch ? hqc::Catalog::tpch() : hqc::Catalog::ssb();
  if (format == "columnar") {
    // Standalone columnar files (no source stamp) are read by load_database only where no .tbl
    // exists, so a .tbl of an earlier run would shadow them: refuse rather than mix data sets.
    for (const hqc::TableDef& def : catalog.tables) {
      const std::filesystem::path tbl = std::filesystem::path(*out) / (def.name + ".tbl");
      if (std::filesystem::exists(tbl))
        throw Error(ErrorKind::Usage, tbl.string() + " exists and would be loaded instead of the columnar file; "
                                                     "choose another --out directory or remove the .tbl files");
    }
  }

  const std::string label = (tpch ? "TPC-H SF " : "SSB SF ") + hqc::cli::format_sf(options.sf);
  hqc::Database db;
  {
    const hqc::ssb::Cardinalities c = hqc::ssb::cardinalities(options.sf);
    const uint64_t units = tpch ? hqc::tpch::progress_units(hqc::tpch::cardinalities(options.sf))
                                : c.customers + c.suppliers + c.parts + c.dates + 4 * c.orders;
    hqc::Progress bar("generating " + label, units, hqc::Progress::Unit::Rows, {.enabled = !quiet});
    uint64_t reported = 0;
    auto report = [&](uint64_t done, uint64_t) {
      if (done > reported) bar.advance(done - reported);
      reported = done;
    };
    if (tpch) {
      // The same options, field by field: the two generators share their meaning, not their type.
      hqc::tpch::GenOptions t;
      t.sf = options.sf;
      t.seed = options.seed;
      t.threads = options.threads;
      t.progress = report;
      db = hqc::tpch::generate(t);
    } else {
      options.progress = report;
      db = hqc::ssb::generate(options);
    }
    bar.finish();
  }

  for (const hqc::TableDef& def : catalog.tables) {
    const hqc::Table& table = db.table(def.name);
    const std::filesystem::path dir(*out);
    std::string path;
    if (format == "columnar") {
      path = (dir / (def.name + ".hqc")).string();
      hqc::write_columnar(table, def, path);
    } else {
      path = (dir / (def.name + ".tbl")).string();
      hqc::Progress bar("writing " + path, table.rows, hqc::Progress::Unit::Rows, {.enabled = !quiet});
      hqc::write_tbl(table, def, path, options.threads, &bar);
      bar.finish();
    }
    if (!quiet)
      std::printf("%-10s %12llu rows  %s\n", def.name.c_str(), static_cast<unsigned long long>(table.rows), path.c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return hqc::cli::run_main("horseqc-gen", gen_main, argc, argv); }

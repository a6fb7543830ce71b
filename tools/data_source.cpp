#include "tools/data_source.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <unistd.h>

#include "ssb/generator.h"
#include "tpch/generator.h"
#include "storage/catalog.h"
#include "storage/error.h"
#include "storage/tbl_writer.h"

namespace hqc::cli {

namespace fs = std::filesystem;

fs::path cache_root() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return fs::path(xdg) / "horseqc";
  if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "horseqc";
  throw Error(ErrorKind::Usage, "neither XDG_CACHE_HOME nor HOME is set: pass --data DIR");
}

std::string format_sf(double sf) {
  std::ostringstream s;
  s << sf;
  return s.str();
}

fs::path ensure_benchmark_data(const std::string& benchmark, double sf, bool quiet) {
  const bool tpch = benchmark == "tpch";
  if (!tpch && benchmark != "ssb") throw Error(ErrorKind::Usage, "unknown benchmark \"" + benchmark + "\": expected ssb or tpch");
  const fs::path dir = cache_root() / benchmark / ("sf" + format_sf(sf));
  // The directory is renamed into place complete, so its fact table means it is all there.
  const std::string fact = tpch ? "lineitem.tbl" : "lineorder.tbl";
  if (fs::exists(dir / fact)) return dir;
  if (!quiet)
    std::fprintf(stderr, "generating %s SF %s into %s\n", tpch ? "TPC-H" : "SSB", format_sf(sf).c_str(), dir.c_str());
  const Catalog catalog = tpch ? Catalog::tpch() : Catalog::ssb();
  gen::GenOptions options;
  options.sf = sf;
  const Database db = tpch ? tpch::generate(options) : ssb::generate(options);
  // Generate next to the destination, then rename: a concurrent or interrupted run never leaves a
  // half-written data directory behind under the final name.
  fs::create_directories(dir.parent_path());
  const fs::path tmp = dir.parent_path() / (dir.filename().string() + ".tmp-" + std::to_string(::getpid()));
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  for (const auto& def : catalog.tables)
    write_tbl(db.table(def.name), def, (tmp / (def.name + ".tbl")).string(), 0);
  std::error_code ec;
  fs::rename(tmp, dir, ec);
  if (ec) {
    fs::remove_all(tmp);
    if (!fs::exists(dir / fact))
      throw Error(ErrorKind::Input, "cannot create " + dir.string() + ": " + ec.message());
  }
  return dir;
}

}  // namespace hqc::cli

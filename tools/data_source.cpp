#include "tools/data_source.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <unistd.h>

#include "ssb/generator.h"
#include "tpch/generator.h"
#include "storage/catalog.h"
#include "storage/error.h"
#include "storage/temp_files.h"
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

uint64_t estimated_data_bytes(const std::string& benchmark, double sf) {
  const double per_sf = benchmark == "tpch" ? 1.09e9 : 0.60e9;
  return static_cast<uint64_t>(per_sf * sf) + (64u << 20);  // + the fixed-size tables (nation, date, ...)
}

void check_free_space(const fs::path& dir, uint64_t bytes, const std::string& what) {
  fs::path probe = dir;
  std::error_code ec;
  while (!probe.empty() && !fs::exists(probe, ec)) probe = probe.parent_path();
  if (probe.empty()) probe = ".";
  const fs::space_info space = fs::space(probe, ec);
  if (ec) return;  // no answer from the file system: the writes report any failure themselves
  const uint64_t needed = bytes + bytes / 20;
  if (space.available >= needed) return;
  char buf[512];
  std::snprintf(buf, sizeof buf, "not enough free disk space for %s in %s: it needs about %.2f GB, %.2f GB are free",
                what.c_str(), probe.c_str(), needed / 1e9, space.available / 1e9);
  throw Error(ErrorKind::Input, buf);
}

fs::path ensure_benchmark_data(const std::string& benchmark, double sf, bool quiet) {
  const bool tpch = benchmark == "tpch";
  if (!tpch && benchmark != "ssb") throw Error(ErrorKind::Usage, "unknown benchmark \"" + benchmark + "\": expected ssb or tpch");
  const fs::path dir = cache_root() / benchmark / ("sf" + format_sf(sf));
  // The directory is renamed into place complete, so its fact table means it is all there.
  const std::string fact = tpch ? "lineitem.tbl" : "lineorder.tbl";
  if (fs::exists(dir / fact)) return dir;
  (tpch ? tpch::check_generatable : ssb::check_generatable)(sf);
  sweep_stale_temp_files(dir.parent_path());  // what an earlier, killed run left behind
  check_free_space(dir.parent_path(), estimated_data_bytes(benchmark, sf),
                   std::string(tpch ? "TPC-H" : "SSB") + " SF " + format_sf(sf) + " as .tbl files");
  if (!quiet)
    std::fprintf(stderr, "generating %s SF %s into %s\n", tpch ? "TPC-H" : "SSB", format_sf(sf).c_str(), dir.c_str());
  const Catalog catalog = tpch ? Catalog::tpch() : Catalog::ssb();
  gen::GenOptions options;
  options.sf = sf;
  const Database db = tpch ? tpch::generate(options) : ssb::generate(options);
  // Generate next to the destination, then rename: a concurrent or interrupted run never leaves a
  // half-written data directory behind under the final name.
  fs::create_directories(dir.parent_path());
  const fs::path tmp = temp_path_for(dir);
  const TempGuard guard(tmp);
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

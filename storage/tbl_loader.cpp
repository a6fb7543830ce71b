// load_tbl / load_database: the cache policy around the parser (contract in tbl_loader.h).
#include "storage/tbl_loader.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "storage/columnar_cache.h"
#include "storage/error.h"
#include "storage/tbl_parser.h"
#include "storage/temp_files.h"

namespace hqc {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Cache files outside the data directory carry a hash of the source's absolute path, so one cache
// directory serves several data directories (sf1, sf10, ...) without collisions.
std::string hashed_cache_name(const std::filesystem::path& file) {
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(file, ec);
  const std::string key = (ec ? file : abs).lexically_normal().string();
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : key) h = (h ^ c) * 0x100000001b3ULL;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return file.filename().string() + "." + hex + ".hqc";
}

std::filesystem::path user_cache_dir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::filesystem::path(xdg) / "horseqc" / "columnar";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::filesystem::path(home) / ".cache" / "horseqc" / "columnar";
  return {};
}

}  // namespace

std::optional<std::set<std::string>> columns_to_load(const TableDef& def, const LoadOptions& options) {
  if (!options.columns) return std::nullopt;
  std::set<std::string> names;
  for (const ColumnDef& c : def.columns)
    if (options.columns->count(def.name + "." + c.name)) names.insert(c.name);
  return names;
}

std::vector<std::filesystem::path> cache_candidates(const std::filesystem::path& file, const LoadOptions& options) {
  if (!options.cache_dir.empty()) return {options.cache_dir / hashed_cache_name(file)};
  std::vector<std::filesystem::path> out{file.string() + ".hqc"};
  if (const std::filesystem::path dir = user_cache_dir(); !dir.empty()) out.push_back(dir / hashed_cache_name(file));
  return out;
}

Table load_tbl(const TableDef& def, const std::filesystem::path& file, const LoadOptions& options, LoadReport* report) {
  const auto t0 = std::chrono::steady_clock::now();
  LoadReport local;
  LoadReport& rep = report ? *report : local;
  rep = LoadReport{def.name, file};
  std::error_code ec;
  if (!std::filesystem::exists(file, ec))
    throw Error(ErrorKind::Input, file.string() + ": no such file; expected table " + def.name + " as '|'-separated text");
  const SourceStamp stamp = stamp_of(file);
  const std::optional<std::set<std::string>> wanted = columns_to_load(def, options);

  std::vector<std::filesystem::path> candidates;
  if (options.use_cache) {
    candidates = cache_candidates(file, options);
    for (const std::filesystem::path& cache : candidates) {
      if (!std::filesystem::exists(cache, ec)) continue;
      std::string why;
      if (std::optional<Table> t = read_columnar(def, cache, stamp, &why, options.threads, wanted ? &*wanted : nullptr)) {
        rep.from_columnar = true;
        rep.cache_file = cache;
        rep.seconds = seconds_since(t0);
        return std::move(*t);
      }
      rep.cache_note = why;
    }
  }

  Table table = parse_tbl(def, file, options);

  for (const std::filesystem::path& cache : candidates) {
    try {
      std::filesystem::create_directories(cache.parent_path(), ec);
      write_columnar(table, def, cache, stamp);
      rep.cache_file = cache;
      break;
    } catch (const Error& e) {
      rep.cache_note = e.what();  // e.g. a read-only data directory: try the next location
    }
  }
  rep.seconds = seconds_since(t0);
  if (wanted) return keep_columns(std::move(table), *wanted);
  return table;  // (not in a ?: with the above, which would copy it)
}

Database load_database(const Catalog& catalog, const std::filesystem::path& dir, const LoadOptions& options,
                       std::vector<LoadReport>* reports) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw Error(ErrorKind::Input, dir.string() + ": not a directory; expected a directory of " + catalog.name +
                                      " .tbl or .hqc files");
  std::vector<const TableDef*> wanted;
  if (options.tables.empty()) {
    for (const TableDef& t : catalog.tables) wanted.push_back(&t);
  } else {
    for (const std::string& name : options.tables) {
      const TableDef* t = catalog.find(name);
      if (!t) throw Error(ErrorKind::Input, "table " + name + " is not part of schema " + catalog.name);
      wanted.push_back(t);
    }
  }

  if (options.columns)
    for (const std::string& qualified : *options.columns) {
      const size_t dot = qualified.find('.');
      const TableDef* t = dot == std::string::npos ? nullptr : catalog.find(qualified.substr(0, dot));
      if (t == nullptr || t->find(qualified.substr(dot + 1)) == nullptr)
        throw Error(ErrorKind::Input, "column " + qualified + " is not part of schema " + catalog.name);
    }

  sweep_stale_temp_files(dir);  // columnar caches an earlier, killed run was writing
  Database db;
  for (const TableDef* def : wanted) {
    const std::filesystem::path tbl = dir / (def->name + ".tbl");
    const std::filesystem::path hqc = dir / (def->name + ".hqc");
    LoadReport rep;
    if (std::filesystem::exists(tbl, ec)) {
      db.tables.emplace(def->name, load_tbl(*def, tbl, options, &rep));
    } else if (std::filesystem::exists(hqc, ec)) {
      const auto t0 = std::chrono::steady_clock::now();
      std::string why;
      const std::optional<std::set<std::string>> wanted = columns_to_load(*def, options);
      std::optional<Table> t = read_columnar(*def, hqc, std::nullopt, &why, options.threads, wanted ? &*wanted : nullptr);
      if (!t)
        throw Error(ErrorKind::Input, dir.string() + "/" + why + "; regenerate it (horseqc-gen --format columnar) "
                                      "or provide " + def->name + ".tbl");
      rep = LoadReport{def->name, hqc, true, hqc, "", seconds_since(t0)};
      db.tables.emplace(def->name, std::move(*t));
    } else {
      throw Error(ErrorKind::Input, tbl.string() + ": no such file (nor " + hqc.filename().string() +
                                        "); expected table " + def->name + " of schema " + catalog.name);
    }
    if (reports) reports->push_back(std::move(rep));
  }
  return db;
}

std::optional<Database> load_database_statistics(const Catalog& catalog, const std::filesystem::path& dir,
                                                 const std::set<std::string>& columns) {
  Database db;
  std::error_code ec;
  LoadOptions asked;
  asked.columns = columns;
  for (const TableDef& def : catalog.tables) {
    const std::filesystem::path hqc = dir / (def.name + ".hqc");
    if (std::filesystem::exists(dir / (def.name + ".tbl"), ec) || !std::filesystem::exists(hqc, ec)) return std::nullopt;
    std::optional<ColumnarFile> file = ColumnarFile::open(def, hqc, std::nullopt);
    if (!file) return std::nullopt;
    const std::set<std::string> names = *columns_to_load(def, asked);
    std::optional<Table> none = file->read_rows(0, 0, nullptr, 1, &names);
    if (!none) return std::nullopt;
    db.tables.emplace(def.name, std::move(*none));
  }
  return db;
}

}  // namespace hqc

#include "tools/table_stats.h"

#include <cstdio>
#include <cstdint>

#include "storage/date.h"

namespace hqc::cli {

namespace {

std::string value_text(const Column& c, int64_t v) {
  if (c.encoding == Encoding::Dictionary) {
    if (v >= 0 && static_cast<size_t>(v) < c.dictionary.size()) return "\"" + c.dictionary[v] + "\"";
    return "?";
  }
  if (c.type.id == TypeId::Date) return format_iso_date(static_cast<int32_t>(v));
  if (c.type.id == TypeId::Decimal) {
    int64_t scale = 1;
    for (int i = 0; i < c.type.scale; ++i) scale *= 10;
    const uint64_t magnitude = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    std::string frac = std::to_string(magnitude % static_cast<uint64_t>(scale));
    frac.insert(0, c.type.scale - frac.size(), '0');
    return (v < 0 ? "-" : "") + std::to_string(magnitude / static_cast<uint64_t>(scale)) +
           (c.type.scale ? "." + frac : "");
  }
  return std::to_string(v);
}

}  // namespace

std::string format_table_stats(const Catalog& catalog, const Database& db) {
  std::string out;
  char line[512];
  for (const auto& def : catalog.tables) {
    const Table* t = db.find(def.name);
    if (!t) continue;
    uint64_t bytes = 0;
    for (const auto& c : t->columns) bytes += c.device_bytes();
    std::snprintf(line, sizeof line, "\n%s: %llu rows, %llu columns, %.1f MiB\n", def.name.c_str(),
                  static_cast<unsigned long long>(t->rows), static_cast<unsigned long long>(t->columns.size()),
                  bytes / 1048576.0);
    out += line;
    std::snprintf(line, sizeof line, "  %-20s %-14s %-10s %12s %24s %24s\n", "column", "type", "encoding", "distinct",
                  "min", "max");
    out += line;
    for (const auto& c : t->columns) {
      const bool has_range = c.stats.valid && c.encoding != Encoding::Heap;
      std::snprintf(line, sizeof line, "  %-20s %-14s %-10s %12llu %24s %24s\n", c.name.c_str(),
                    c.type.to_string().c_str(), encoding_name(c.encoding),
                    static_cast<unsigned long long>(c.stats.distinct),
                    has_range ? value_text(c, c.stats.min).c_str() : "-",
                    has_range ? value_text(c, c.stats.max).c_str() : "-");
      out += line;
    }
  }
  return out;
}

}  // namespace hqc::cli

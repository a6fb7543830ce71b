// Kernel collection, sweep, comparison and report of bench/occupancy_vs_driver. See occupancy_check.h.
#include "bench/occupancy_check.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <sstream>

#include "bench/synthetic_kernels.h"
#include "frontend/sql/sql_frontend.h"
#include "planner/occupancy.h"
#include "ssb/benchmark_queries.h"
#include "storage/catalog.h"
#include "storage/error.h"
#include "tools/driver/query_driver.h"
#include "tpch/benchmark_queries.h"

namespace hqc::bench {

std::vector<KernelModule> query_modules(std::vector<std::string>& skipped) {
  std::vector<KernelModule> out;
  driver::CompileOptions options;
  options.dialect = codegen::Dialect::Cuda;
  auto add = [&](const std::string& benchmark, const std::string& name, const std::string& sql, const std::string& path,
                 const Catalog& catalog) {
    const std::string label = benchmark + " " + name;
    try {
      auto plan = std::make_shared<const plan::LogicalPlan>(parse_sql(sql, path, catalog));
      const driver::CompiledQuery q = driver::compile_query(plan, catalog, options);
      KernelModule m;
      m.label = label;
      m.source.source = q.generated.source;
      m.source.options = q.generated.compile_options;
      for (const auto& k : q.generated.kernels) m.source.kernel_names.push_back(k.name);
      m.source.label = label;
      out.push_back(std::move(m));
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::Unsupported) throw;
      skipped.push_back(label + ": " + e.what());
    }
  };
  const Catalog ssb_catalog = Catalog::ssb();
  for (const std::string& q : ssb::query_names()) add("ssb", q, ssb::query_sql(q), "ssb/queries/" + q + ".sql", ssb_catalog);
  const Catalog tpch_catalog = Catalog::tpch();
  for (const std::string& q : tpch::query_names()) add("tpch", q, tpch::query_sql(q), tpch::query_path(q), tpch_catalog);
  return out;
}

std::vector<KernelModule> synthetic_modules() {
  std::vector<KernelModule> out;
  for (const SyntheticKind& kind : table_one()) {
    out.push_back({std::string("synthetic ") + kind.name, synthetic_module(kind, codegen::Dialect::Cuda)});
  }
  return out;
}

std::vector<SweepPoint> occupancy_sweep(const planner::DeviceProfile& profile, const runtime::KernelAttributes& kernel) {
  const uint32_t most_threads = std::min(profile.max_threads_per_block,
                                         kernel.max_threads_per_block > 0 ? kernel.max_threads_per_block : profile.max_threads_per_block);
  const uint64_t optin = profile.shared_per_block_optin;
  const uint64_t room = optin > kernel.static_shared_bytes ? optin - kernel.static_shared_bytes : 0;
  std::vector<uint64_t> bytes;
  for (uint64_t kib : {0, 1, 4, 16, 32, 48, 64, 100, 160}) {
    if (kib * 1024 <= room) bytes.push_back(kib * 1024);
  }
  if (std::find(bytes.begin(), bytes.end(), room) == bytes.end()) bytes.push_back(room);
  std::vector<SweepPoint> out;
  for (uint32_t t = profile.warp_size; t <= most_threads; t += profile.warp_size) {
    for (uint64_t b : bytes) out.push_back({t, static_cast<uint32_t>(b)});
  }
  return out;
}

std::vector<OccupancyRow> compare(const planner::DeviceProfile& profile, const std::string& module,
                                  const std::string& kernel, const runtime::KernelAttributes& attributes,
                                  const DriverOccupancy& driver) {
  std::vector<OccupancyRow> rows;
  for (const SweepPoint& p : occupancy_sweep(profile, attributes)) {
    const planner::Occupancy occ = planner::compute_occupancy(
        profile, {p.block_size, static_cast<uint32_t>(std::max(0, attributes.registers_per_thread)),
                  attributes.static_shared_bytes + p.dynamic_shared_bytes});
    OccupancyRow r;
    r.module = module;
    r.kernel = kernel;
    r.registers = attributes.registers_per_thread;
    r.static_shared_bytes = attributes.static_shared_bytes;
    r.point = p;
    r.predicted = occ.blocks_per_sm;
    r.driver = driver(p.block_size, p.dynamic_shared_bytes);
    r.limit = planner::to_string(occ.limiting);
    rows.push_back(std::move(r));
  }
  return rows;
}

size_t count_mismatches(const std::vector<OccupancyRow>& rows) {
  return static_cast<size_t>(std::count_if(rows.begin(), rows.end(), [](const OccupancyRow& r) { return r.mismatch(); }));
}

std::string format_report(const std::vector<OccupancyRow>& rows) {
  std::ostringstream out;
  char line[512];
  std::snprintf(line, sizeof line, "%-16s %-40s %5s %9s %7s %10s\n", "module", "kernel", "regs", "static B", "points",
                "mismatches");
  out << line;
  // Kernels in first-seen order.
  std::vector<std::pair<std::string, std::string>> order;
  std::map<std::pair<std::string, std::string>, std::pair<size_t, size_t>> counts;
  std::map<std::pair<std::string, std::string>, const OccupancyRow*> first;
  for (const OccupancyRow& r : rows) {
    const auto key = std::make_pair(r.module, r.kernel);
    if (!counts.count(key)) {
      order.push_back(key);
      first[key] = &r;
    }
    auto& c = counts[key];
    ++c.first;
    if (r.mismatch()) ++c.second;
  }
  for (const auto& key : order) {
    const OccupancyRow& r = *first[key];
    std::snprintf(line, sizeof line, "%-16s %-40s %5d %9llu %7zu %10zu\n", key.first.c_str(), key.second.c_str(), r.registers,
                  static_cast<unsigned long long>(r.static_shared_bytes), counts[key].first, counts[key].second);
    out << line;
  }
  const size_t mismatches = count_mismatches(rows);
  if (mismatches > 0) {
    out << "\nmismatches (block, dynamic shared bytes: planner vs driver, the model's limit):\n";
    for (const OccupancyRow& r : rows) {
      if (!r.mismatch()) continue;
      std::snprintf(line, sizeof line, "  %s %s: block %u, dynamic %u B: planner %u, driver %d (%s)\n", r.module.c_str(),
                    r.kernel.c_str(), r.point.block_size, r.point.dynamic_shared_bytes, r.predicted, r.driver, r.limit.c_str());
      out << line;
    }
  }
  std::snprintf(line, sizeof line, "%zu points, %zu mismatches\n", rows.size(), mismatches);
  out << line;
  return out.str();
}

}  // namespace hqc::bench

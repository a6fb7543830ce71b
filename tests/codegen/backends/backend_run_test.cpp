// Generated kernels through the runtime's backends (runtime/device/backend.h), on every backend this
// machine has: OpenCL always (PoCL on a CPU-only machine), CUDA where a GPU is present — there the
// SIMD (warp) local-resolution mechanism runs too. Programs are the hand-built ones of
// tests/codegen/test_programs.h; arguments are bound from the launch manifest only.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <stdexcept>

#include "codegen/generate.h"
#include "runtime/device/backend.h"
#include "storage/error.h"
#include "tests/codegen/test_programs.h"

using hqc::codegen::Dialect;
namespace rt = hqc::runtime;

namespace {

struct Data {
  std::vector<int32_t> d_key, d_year, f_key, f_qty, f_price, f_brand;
};

Data make_data(size_t fact_rows) {
  Data d;
  for (int32_t k = 1000; k < 1100; ++k) d.d_key.push_back(k);
  std::shuffle(d.d_key.begin(), d.d_key.end(), std::mt19937(1));
  for (int32_t k : d.d_key) d.d_year.push_back(1990 + k % 8);
  std::mt19937 rng(4);
  for (size_t i = 0; i < fact_rows; ++i) {
    d.f_key.push_back(990 + static_cast<int32_t>(rng() % 120));
    d.f_qty.push_back(static_cast<int32_t>(rng() % 50));
    d.f_price.push_back(1 + static_cast<int32_t>(rng() % 1000));
    d.f_brand.push_back(static_cast<int32_t>(rng() % 40));
  }
  return d;
}

class Runner {
 public:
  Runner(rt::Backend& b, const hqc::ir::Program& program, const Data& data, std::map<std::string, int64_t> params)
      : b_(b), params_(std::move(params)) {
    column("dim", "d_key", data.d_key);
    column("dim", "d_year", data.d_year);
    column("fact", "f_key", data.f_key);
    column("fact", "f_qty", data.f_qty);
    column("fact", "f_price", data.f_price);
    column("fact", "f_brand", data.f_brand);
    for (const hqc::ir::Buffer& buf : program.buffers) {
      uint64_t n = buf.fixed_elements +
                   (buf.elements_param.empty() ? 0 : buf.multiplier * static_cast<uint64_t>(params_.at(buf.elements_param)));
      uint32_t width = hqc::ir::scalar_bytes(buf.element);
      rt::DeviceBuffer d = b_.allocate(std::max<uint64_t>(n * width, 8));
      uint64_t pattern = buf.fill == hqc::ir::Buffer::Fill::Pattern ? buf.pattern : 0;
      if (width == 4)
        d.fill_u32(static_cast<uint32_t>(pattern));
      else
        d.fill_u64(pattern);
      elements_[buf.name] = n;
      buffers_.emplace(buf.name, std::move(d));
    }
  }

  void run(const hqc::codegen::GeneratedProgram& gp, uint32_t block, uint64_t max_grid) {
    rt::ModuleSource src;
    src.source = gp.source;
    src.options = gp.compile_options;
    src.label = gp.label;
    for (const auto& k : gp.kernels) src.kernel_names.push_back(k.name);
    auto compiled = b_.compile(src, nullptr);
    for (const hqc::codegen::KernelManifest& k : gp.kernels) {
      std::vector<rt::KernelArg> args;
      for (const hqc::ir::KernelArg& a : k.args) {
        switch (a.kind) {
          case hqc::ir::KernelArg::Kind::Column: args.push_back(rt::KernelArg::buf(columns_.at(a.table + "." + a.column))); break;
          case hqc::ir::KernelArg::Kind::ColumnHeap:
            throw std::runtime_error("the hand-built test programs have no heap string columns");
          case hqc::ir::KernelArg::Kind::Buffer: args.push_back(rt::KernelArg::buf(buffers_.at(a.name))); break;
          case hqc::ir::KernelArg::Kind::Param:
            args.push_back(a.type == hqc::ir::ScalarType::I32 ? rt::KernelArg::int32(static_cast<int32_t>(params_.at(a.name)))
                                                              : rt::KernelArg::int64(params_.at(a.name)));
            break;
          case hqc::ir::KernelArg::Kind::Scratch: args.push_back(rt::KernelArg::scratch()); break;
        }
      }
      rt::LaunchConfig cfg;
      cfg.block_size = block;
      uint64_t rows = static_cast<uint64_t>(params_.at(k.work_items_param));
      cfg.grid_blocks = std::max<uint64_t>(1, std::min<uint64_t>(max_grid, (rows + block - 1) / block));
      cfg.dynamic_shared_bytes = static_cast<uint32_t>(k.scratch.bytes(block, [this](const std::string& p) { return params_.at(p); }));
      b_.launch(compiled.module->kernel(k.name), args, cfg);
    }
    b_.synchronize();
  }

  template <typename T>
  std::vector<T> read(const std::string& name) {
    return buffers_.at(name).download_as<T>(elements_.at(name));
  }

 private:
  void column(const std::string& table, const std::string& name, const std::vector<int32_t>& values) {
    rt::DeviceBuffer d = b_.allocate(values.size() * 4);
    d.upload(values);
    columns_.emplace(table + "." + name, std::move(d));
  }

  rt::Backend& b_;
  std::map<std::string, int64_t> params_;
  std::map<std::string, rt::DeviceBuffer> columns_;
  std::map<std::string, rt::DeviceBuffer> buffers_;
  std::map<std::string, uint64_t> elements_;
};

std::vector<std::unique_ptr<rt::Backend>> backends() {
  std::vector<std::unique_ptr<rt::Backend>> out;
  for (rt::DeviceChoice c : {rt::DeviceChoice::OpenCL, rt::DeviceChoice::Cuda}) {
    try {
      out.push_back(rt::open_backend(c));
      const std::string line = "backend: " + out.back()->device_description();
      MESSAGE(line);
    } catch (const hqc::Error& e) {
      const std::string line = std::string("backend ") + rt::device_choice_name(c) + " not available here: " + e.what();
      MESSAGE(line);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("hand-built programs give the host's answers on every available backend, every technique") {
  const size_t rows = 200003;
  Data data = make_data(rows);
  // Host answers.
  std::map<int32_t, int32_t> year_of;
  for (size_t i = 0; i < data.d_key.size(); ++i) year_of[data.d_key[i]] = data.d_year[i];
  int64_t revenue = 0;
  std::vector<int64_t> gsum(320, 0), gmin(320, INT64_MAX), gmax(320, INT64_MIN);
  std::multiset<std::pair<int32_t, int64_t>> rows_out;
  for (size_t i = 0; i < rows; ++i) {
    auto it = year_of.find(data.f_key[i]);
    if (it != year_of.end() && it->second == 1993 && data.f_qty[i] >= 1 && data.f_qty[i] < 25)
      revenue += int64_t{data.f_price[i]} * data.f_qty[i];
    if (it != year_of.end() && data.f_qty[i] < 40) {
      size_t g = static_cast<size_t>((it->second - 1990) * 40 + data.f_brand[i]);
      gsum[g] += data.f_price[i];
      gmin[g] = std::min<int64_t>(gmin[g], data.f_price[i]);
      gmax[g] = std::max<int64_t>(gmax[g], data.f_price[i]);
    }
    if (data.f_qty[i] < 10) rows_out.insert({data.f_key[i], int64_t{data.f_price[i]} * 2});
  }
  auto all = backends();
  REQUIRE_FALSE(all.empty());
  for (auto& backend : all) {
    const Dialect dialect = backend->dialect();
    for (auto local : {hqc::ir::LocalResolution::WorkEfficient, hqc::ir::LocalResolution::Simd, hqc::ir::LocalResolution::None}) {
      hqc::test::ProgramOptions o;
      o.model = local == hqc::ir::LocalResolution::None ? hqc::ir::ExecutionModel::Pipelined : hqc::ir::ExecutionModel::Resolution;
      o.local = local;
      CAPTURE(backend->name());
      CAPTURE(hqc::ir::local_resolution_name(local));
      std::map<std::string, int64_t> params = {{"rows_dim", 100}, {"rows_fact", static_cast<int64_t>(rows)},
                                               {"ht0_capacity", 100}, {"ht0_key_min", 1000}, {"agg0_year_min", 1990},
                                               {"agg0_year_domain", 8}, {"agg0_brand_min", 0}, {"agg0_brand_domain", 40},
                                               {"agg0_slots", 320}};
      {
        auto p = hqc::test::scalar_join_program(o);
        Runner r(*backend, p, data, params);
        r.run(hqc::codegen::generate(p, dialect), 256, 64);
        CHECK(r.read<int64_t>("agg0_revenue")[0] == revenue);
      }
      {
        auto p = hqc::test::grouped_join_program(o);
        Runner r(*backend, p, data, params);
        r.run(hqc::codegen::generate(p, dialect), 128, 96);
        CHECK(r.read<int64_t>("agg0_sum") == gsum);
        CHECK(r.read<int64_t>("agg0_min") == gmin);
        CHECK(r.read<int64_t>("agg0_max") == gmax);
      }
      {
        auto p = hqc::test::materialize_program(o);
        Runner r(*backend, p, data, params);
        r.run(hqc::codegen::generate(p, dialect), 512, 1000);
        uint64_t n = r.read<uint64_t>("out0_counter")[0];
        REQUIRE(n == rows_out.size());
        auto keys = r.read<int32_t>("out0_f_key");
        auto prices = r.read<int64_t>("out0_double_price");
        std::multiset<std::pair<int32_t, int64_t>> got;
        for (size_t i = 0; i < n; ++i) got.insert({keys[i], prices[i]});
        CHECK(got == rows_out);
      }
    }
  }
}

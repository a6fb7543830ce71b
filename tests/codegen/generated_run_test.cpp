// Generated compound kernels compile (NVRTC sm_90 and the oldest supported architecture, PoCL) and
// compute the right answers on the OpenCL device, for every sink kind under both execution models:
// hash build (perfect hash and linear probing) + probe, scalar SUM (B3/B2), direct-indexed GROUP BY
// (C3/C2), materialization (A3/A2) and hashed GROUP BY (C2). The "executor" here is a minimal one
// driven only by the launch manifest, so the manifest is tested too.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <stdexcept>

#include "codegen/generate.h"
#include "tests/codegen/test_programs.h"
#include "tests/templates/device_harness.h"

using hqc::codegen::Dialect;
using hqc::test::OpenClDevice;
using hqc::test::ProgramOptions;

namespace {

struct Data {
  std::vector<int32_t> d_key, d_year, f_key, f_qty, f_price, f_brand;
};

Data make_data(size_t fact_rows) {
  Data d;
  for (int32_t k = 1000; k < 1100; ++k) {
    d.d_key.push_back(k);
    d.d_year.push_back(1990 + k % 8);
  }
  std::shuffle(d.d_key.begin(), d.d_key.end(), std::mt19937(1));
  for (size_t i = 0; i < d.d_key.size(); ++i) d.d_year[i] = 1990 + d.d_key[i] % 8;
  std::mt19937 rng(2);
  for (size_t i = 0; i < fact_rows; ++i) {
    d.f_key.push_back(990 + static_cast<int32_t>(rng() % 120));  // 990..1109: some miss the join
    d.f_qty.push_back(static_cast<int32_t>(rng() % 50));
    d.f_price.push_back(1 + static_cast<int32_t>(rng() % 1000));
    d.f_brand.push_back(static_cast<int32_t>(rng() % 40));
  }
  return d;
}

// Runs a generated program on the OpenCL device, binding arguments from the manifest only.
class MiniExecutor {
 public:
  MiniExecutor(OpenClDevice& dev, const hqc::ir::Program& program, const Data& data, std::map<std::string, int64_t> params)
      : dev_(dev), program_(program), params_(std::move(params)) {
    columns_[{"dim", "d_key"}] = dev_.buffer(data.d_key);
    columns_[{"dim", "d_year"}] = dev_.buffer(data.d_year);
    columns_[{"fact", "f_key"}] = dev_.buffer(data.f_key);
    columns_[{"fact", "f_qty"}] = dev_.buffer(data.f_qty);
    columns_[{"fact", "f_price"}] = dev_.buffer(data.f_price);
    columns_[{"fact", "f_brand"}] = dev_.buffer(data.f_brand);
    for (const hqc::ir::Buffer& b : program.buffers) {
      uint64_t n = b.fixed_elements + (b.elements_param.empty() ? 0 : b.multiplier * static_cast<uint64_t>(params_.at(b.elements_param)));
      uint32_t width = hqc::ir::scalar_bytes(b.element);
      std::vector<uint8_t> init(n * width, 0);
      if (b.fill == hqc::ir::Buffer::Fill::Pattern)
        for (uint64_t i = 0; i < n; ++i) std::memcpy(&init[i * width], &b.pattern, width);  // little-endian low bytes
      buffers_[b.name] = dev_.buffer(init.size(), init.data());
      elements_[b.name] = n;
    }
  }

  void run(const hqc::codegen::GeneratedProgram& gp, size_t block, size_t max_groups) {
    dev_.build(gp.source);
    for (const hqc::codegen::KernelManifest& k : gp.kernels) {
      std::vector<OpenClDevice::Arg> args;
      for (const hqc::ir::KernelArg& a : k.args) {
        switch (a.kind) {
          case hqc::ir::KernelArg::Kind::Column: args.push_back(OpenClDevice::mem(columns_.at({a.table, a.column}))); break;
          case hqc::ir::KernelArg::Kind::ColumnHeap:
            throw std::runtime_error("the hand-built test programs have no heap string columns");
          case hqc::ir::KernelArg::Kind::Buffer: args.push_back(OpenClDevice::mem(buffers_.at(a.name))); break;
          case hqc::ir::KernelArg::Kind::Param:
            args.push_back(a.type == hqc::ir::ScalarType::I32 ? OpenClDevice::i32(static_cast<int32_t>(params_.at(a.name)))
                                                              : OpenClDevice::i64(params_.at(a.name)));
            break;
          case hqc::ir::KernelArg::Kind::Scratch:
            args.push_back(OpenClDevice::local(k.scratch.bytes(static_cast<uint32_t>(block),
                                                               [this](const std::string& p) { return params_.at(p); })));
            break;
        }
      }
      size_t rows = static_cast<size_t>(params_.at(k.work_items_param));
      size_t groups = std::max<size_t>(1, std::min(max_groups, (rows + block - 1) / block));
      dev_.run(k.name, args, groups, block);
    }
  }

  template <typename T>
  std::vector<T> read(const std::string& buffer) {
    return dev_.read<T>(buffers_.at(buffer), elements_.at(buffer));
  }

 private:
  OpenClDevice& dev_;
  const hqc::ir::Program& program_;
  std::map<std::string, int64_t> params_;
  std::map<std::pair<std::string, std::string>, cl_mem> columns_;
  std::map<std::string, cl_mem> buffers_;
  std::map<std::string, uint64_t> elements_;
};

OpenClDevice& device() {
  static OpenClDevice d;
  return d;
}

std::vector<ProgramOptions> all_options() {
  std::vector<ProgramOptions> out;
  for (auto layout : {hqc::ir::HashLayout::PerfectHash, hqc::ir::HashLayout::LinearProbing}) {
    out.push_back({hqc::ir::ExecutionModel::Resolution, hqc::ir::LocalResolution::WorkEfficient, layout, true});
    out.push_back({hqc::ir::ExecutionModel::Pipelined, hqc::ir::LocalResolution::None, layout, true});
  }
  out.push_back({hqc::ir::ExecutionModel::Resolution, hqc::ir::LocalResolution::Simd, hqc::ir::HashLayout::PerfectHash, false});
  return out;
}

std::string describe(const ProgramOptions& o) {
  return std::string(hqc::ir::execution_model_name(o.model)) + "/" + hqc::ir::local_resolution_name(o.local) + "/" +
         hqc::ir::hash_layout_name(o.join_layout) + (o.scratchpad ? "/scratchpad" : "");
}

std::map<std::string, int64_t> params_for(const ProgramOptions& o, size_t fact_rows) {
  bool perfect = o.join_layout == hqc::ir::HashLayout::PerfectHash;
  return {{"rows_dim", 100}, {"rows_fact", static_cast<int64_t>(fact_rows)}, {"ht0_capacity", perfect ? 100 : 256},
          {"ht0_key_min", 1000}, {"agg0_year_min", 1990}, {"agg0_year_domain", 8}, {"agg0_brand_min", 0},
          {"agg0_brand_domain", 40}, {"agg0_slots", 320}, {"agg0_capacity", 256}, {"agg0_local_slots", 64}};
}

const size_t kFactRows = 30011;

}  // namespace

TEST_CASE("generated programs compile with NVRTC, including the SIMD mechanism") {
  for (const ProgramOptions& o : all_options()) {
    for (auto builder : {hqc::test::scalar_join_program, hqc::test::grouped_join_program, hqc::test::materialize_program,
                         hqc::test::hashed_group_program}) {
      hqc::ir::Program p = builder(o);
      CAPTURE(p.label);
      CAPTURE(describe(o));
      auto gp = hqc::codegen::generate(p, Dialect::Cuda);
      CHECK(hqc::test::nvrtc_compile_log(gp.source, "sm_90") == "");
      CHECK(hqc::test::nvrtc_compile_log(gp.source, hqc::test::nvrtc_oldest_architecture()) == "");
    }
  }
}

TEST_CASE("scalar join aggregate (B3/B2) is correct on the OpenCL device") {
  Data data = make_data(kFactRows);
  std::set<int32_t> keys_1993;
  for (size_t i = 0; i < data.d_key.size(); ++i)
    if (data.d_year[i] == 1993) keys_1993.insert(data.d_key[i]);
  int64_t revenue = 0;
  uint64_t count = 0;
  for (size_t i = 0; i < kFactRows; ++i)
    if (data.f_qty[i] >= 1 && data.f_qty[i] < 25 && keys_1993.count(data.f_key[i])) {
      revenue += int64_t{data.f_price[i]} * data.f_qty[i];
      ++count;
    }
  for (const ProgramOptions& o : all_options()) {
    CAPTURE(describe(o));
    hqc::ir::Program p = hqc::test::scalar_join_program(o);
    auto gp = hqc::codegen::generate(p, Dialect::OpenCL);
    MiniExecutor ex(device(), p, data, params_for(o, kFactRows));
    ex.run(gp, 128, 19);
    CHECK(ex.read<uint32_t>("ht0_overflow")[0] == 0u);
    CHECK(ex.read<int64_t>("agg0_revenue")[0] == revenue);
    CHECK(ex.read<uint64_t>("agg0_count")[0] == count);
  }
}

TEST_CASE("direct-indexed group-by over a join (C3/C2) is correct on the OpenCL device") {
  Data data = make_data(kFactRows);
  std::map<int32_t, int32_t> year_of;
  for (size_t i = 0; i < data.d_key.size(); ++i) year_of[data.d_key[i]] = data.d_year[i];
  const size_t slots = 320;
  std::vector<int64_t> sum(slots, 0), mn(slots, INT64_MAX), mx(slots, INT64_MIN);
  std::vector<uint64_t> cnt(slots, 0);
  for (size_t i = 0; i < kFactRows; ++i) {
    auto it = year_of.find(data.f_key[i]);
    if (data.f_qty[i] >= 40 || it == year_of.end()) continue;
    size_t g = static_cast<size_t>((it->second - 1990) * 40 + data.f_brand[i]);
    sum[g] += data.f_price[i];
    mn[g] = std::min<int64_t>(mn[g], data.f_price[i]);
    mx[g] = std::max<int64_t>(mx[g], data.f_price[i]);
    cnt[g] += 1;
  }
  for (const ProgramOptions& o : all_options()) {
    CAPTURE(describe(o));
    hqc::ir::Program p = hqc::test::grouped_join_program(o);
    auto gp = hqc::codegen::generate(p, Dialect::OpenCL);
    MiniExecutor ex(device(), p, data, params_for(o, kFactRows));
    ex.run(gp, 64, 23);
    CHECK(ex.read<int64_t>("agg0_sum") == sum);
    CHECK(ex.read<int64_t>("agg0_min") == mn);
    CHECK(ex.read<int64_t>("agg0_max") == mx);
    CHECK(ex.read<uint64_t>("agg0_count") == cnt);
  }
}

TEST_CASE("materialization (A3/A2) writes exactly the qualifying rows") {
  Data data = make_data(kFactRows);
  std::multiset<std::pair<int32_t, int64_t>> expected;
  for (size_t i = 0; i < kFactRows; ++i)
    if (data.f_qty[i] < 10) expected.insert({data.f_key[i], int64_t{data.f_price[i]} * 2});
  for (const ProgramOptions& o : all_options()) {
    CAPTURE(describe(o));
    hqc::ir::Program p = hqc::test::materialize_program(o);
    auto gp = hqc::codegen::generate(p, Dialect::OpenCL);
    MiniExecutor ex(device(), p, data, params_for(o, kFactRows));
    ex.run(gp, 256, 7);
    uint64_t n = ex.read<uint64_t>("out0_counter")[0];
    REQUIRE(n == expected.size());
    auto keys = ex.read<int32_t>("out0_f_key");
    auto prices = ex.read<int64_t>("out0_double_price");
    std::multiset<std::pair<int32_t, int64_t>> got;
    for (size_t i = 0; i < n; ++i) got.insert({keys[i], prices[i]});
    CHECK(got == expected);
  }
}

TEST_CASE("hashed group-by (C3 per-CTA table, C2) is correct on the OpenCL device") {
  Data data = make_data(kFactRows);
  std::map<int64_t, std::pair<int64_t, uint64_t>> expected;
  for (size_t i = 0; i < kFactRows; ++i)
    if (data.f_qty[i] >= 5) {
      expected[data.f_key[i]].first += data.f_price[i];
      expected[data.f_key[i]].second += 1;
    }
  for (const ProgramOptions& o : all_options()) {
    CAPTURE(describe(o));
    hqc::ir::Program p = hqc::test::hashed_group_program(o);
    auto gp = hqc::codegen::generate(p, Dialect::OpenCL);
    REQUIRE(gp.kernels.size() == 1);
    // Resolution with scratchpad: a per-CTA hashed table of 64 slots (C3) in front of the global one.
    CHECK(gp.kernels[0].reductions.at(0).technique == (p.aggregations[0].scratchpad ? hqc::ir::Technique::C3 : hqc::ir::Technique::C2));
    MiniExecutor ex(device(), p, data, params_for(o, kFactRows));
    ex.run(gp, 128, 11);
    CHECK(ex.read<uint32_t>("agg0_overflow")[0] == 0u);
    auto keys = ex.read<int64_t>("agg0_keys");
    auto sums = ex.read<int64_t>("agg0_sum");
    auto counts = ex.read<uint64_t>("agg0_count");
    std::map<int64_t, std::pair<int64_t, uint64_t>> got;
    for (size_t s = 0; s < keys.size(); ++s)
      if (keys[s] != INT64_MIN) got[keys[s]] = {sums[s], counts[s]};
    CHECK(got == expected);
  }
}

namespace {

__extension__ typedef __int128 int128;
__extension__ typedef unsigned __int128 uint128;

int128 word_pair(const std::vector<int64_t>& words, size_t slot) {
  return static_cast<int128>(static_cast<uint128>(static_cast<uint64_t>(words[2 * slot + 1])) << 64 |
                             static_cast<uint64_t>(words[2 * slot]));
}

// Turns the SUM accumulating into `buffer` into an exact 128-bit sum of (argument x 2^shift), so
// that the totals leave 64 bits and every carry path of the templates runs.
void widen_sum(hqc::ir::Program& p, const std::string& buffer, int shift) {
  for (hqc::ir::AggregationTable& agg : p.aggregations) {
    for (hqc::ir::Accumulator& acc : agg.accumulators) {
      if (acc.buffer != buffer) continue;
      acc.wide = true;
      acc.arg = hqc::plan::make_arith(hqc::plan::ArithOp::Mul, acc.arg, hqc::plan::make_int_literal(int64_t{1} << shift, hqc::DataType::int64()),
                                      hqc::DataType::int64());
      if (agg.scratchpad_bytes_per_slot != 0) agg.scratchpad_bytes_per_slot += 8;
    }
  }
  for (hqc::ir::Buffer& b : p.buffers) {
    if (b.name != buffer) continue;
    b.fixed_elements *= 2;
    b.multiplier = 2;
  }
}

}  // namespace

TEST_CASE("128-bit sums (B3/B2, C3/C2) are exact where 64 bits overflow, on the OpenCL device and with NVRTC") {
  Data data = make_data(kFactRows);
  std::map<int32_t, int32_t> year_of;
  for (size_t i = 0; i < data.d_key.size(); ++i) year_of[data.d_key[i]] = data.d_year[i];
  int128 revenue = 0;
  for (size_t i = 0; i < kFactRows; ++i) {
    auto it = year_of.find(data.f_key[i]);
    if (data.f_qty[i] >= 1 && data.f_qty[i] < 25 && it != year_of.end() && it->second == 1993)
      revenue += static_cast<int128>(int64_t{data.f_price[i]} * data.f_qty[i]) << 40;
  }
  const size_t slots = 320;
  std::vector<int128> sum(slots, 0);
  for (size_t i = 0; i < kFactRows; ++i) {
    auto it = year_of.find(data.f_key[i]);
    if (data.f_qty[i] >= 40 || it == year_of.end()) continue;
    sum[static_cast<size_t>((it->second - 1990) * 40 + data.f_brand[i])] -= static_cast<int128>(data.f_price[i]) << 52;
  }
  CHECK(revenue > static_cast<int128>(INT64_MAX));
  for (const ProgramOptions& o : all_options()) {
    CAPTURE(describe(o));
    hqc::ir::Program scalar = hqc::test::scalar_join_program(o);
    widen_sum(scalar, "agg0_revenue", 40);
    hqc::ir::Program grouped = hqc::test::grouped_join_program(o);
    widen_sum(grouped, "agg0_sum", 52);
    // Negative values: the sign extension into the high word is exercised too.
    for (hqc::ir::Accumulator& acc : grouped.aggregations[0].accumulators)
      if (acc.wide) acc.arg = hqc::plan::make_arith(hqc::plan::ArithOp::Sub, hqc::plan::make_int_literal(0, hqc::DataType::int64()), acc.arg, hqc::DataType::int64());
    for (hqc::ir::Program* p : {&scalar, &grouped}) {
      auto cuda = hqc::codegen::generate(*p, Dialect::Cuda);
      CHECK(hqc::test::nvrtc_compile_log(cuda.source, "sm_90") == "");
    }
    auto gs = hqc::codegen::generate(scalar, Dialect::OpenCL);
    MiniExecutor es(device(), scalar, data, params_for(o, kFactRows));
    es.run(gs, 128, 19);
    CHECK(word_pair(es.read<int64_t>("agg0_revenue"), 0) == revenue);

    auto gg = hqc::codegen::generate(grouped, Dialect::OpenCL);
    MiniExecutor eg(device(), grouped, data, params_for(o, kFactRows));
    eg.run(gg, 64, 23);
    auto words = eg.read<int64_t>("agg0_sum");
    REQUIRE(words.size() == 2 * slots);
    bool all_equal = true;
    for (size_t g = 0; g < slots; ++g) all_equal = all_equal && word_pair(words, g) == sum[g];
    CHECK(all_equal);
  }
}

TEST_CASE("hashed group-by on two keys (lanes of one key buffer; C3, C2) is correct on the OpenCL device and compiles with NVRTC") {
  Data data = make_data(kFactRows);
  std::map<std::pair<int64_t, int64_t>, std::pair<int128, uint64_t>> expected;
  for (size_t i = 0; i < kFactRows; ++i) {
    auto& e = expected[{data.f_key[i], data.f_brand[i]}];
    e.first += static_cast<int128>(data.f_price[i]) << 50;
    e.second += 1;
  }
  for (const ProgramOptions& o : all_options()) {
    CAPTURE(describe(o));
    hqc::ir::Program p = hqc::test::hashed_two_key_program(o);
    CHECK(hqc::test::nvrtc_compile_log(hqc::codegen::generate(p, Dialect::Cuda).source, "sm_90") == "");
    auto gp = hqc::codegen::generate(p, Dialect::OpenCL);
    REQUIRE(gp.kernels.size() == 1);
    CHECK(gp.kernels[0].reductions.at(0).technique == (p.aggregations[0].scratchpad ? hqc::ir::Technique::C3 : hqc::ir::Technique::C2));
    std::map<std::string, int64_t> params = params_for(o, kFactRows);
    params["agg0_capacity"] = 8192;  // about 120 x 40 groups
    MiniExecutor ex(device(), p, data, params);
    ex.run(gp, 128, 11);
    CHECK(ex.read<uint32_t>("agg0_overflow")[0] == 0u);
    auto keys = ex.read<int64_t>("agg0_keys");
    auto sums = ex.read<int64_t>("agg0_sum");
    auto counts = ex.read<uint64_t>("agg0_count");
    std::map<std::pair<int64_t, int64_t>, std::pair<int128, uint64_t>> got;
    for (size_t s = 0; s < counts.size(); ++s)
      if (keys[2 * s] != INT64_MIN) got[{keys[2 * s], keys[2 * s + 1]}] = {word_pair(sums, s), counts[s]};
    CHECK(got.size() == expected.size());
    CHECK((got == expected));
  }
}

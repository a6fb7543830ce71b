// Generated kernels (codegen::generate over the hand-built programs of tests/codegen/test_programs.h)
// run through runtime::lower_program + Executor on the OpenCL device, with capacities chosen too
// small on purpose: the real kernels' overflow flags must make the executor grow the linear-probing
// join table and the global-hash aggregation table until the result is exact. Checked against host
// computations; also the materialised output (A3/A2 counter) and the scalar aggregate result shape.
// Last, a CUDA module compiled into one cubin (nvrtc_compile_module; NVRTC needs no GPU), errors
// named; and a compile off the calling thread overlapping the query's column uploads (CUDA's path,
// here on PoCL through a forwarding backend).
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <thread>

#include <unistd.h>


#include "codegen/generate.h"
#include "ir/passes.h"
#include "ir/resolve_parameters.h"
#include "runtime/device/nvrtc_compiler.h"
#include "runtime/execution/executor.h"
#include "runtime/execution/launch_config.h"
#include "runtime/execution/library_modules.h"
#include "runtime/execution/lower_program.h"
#include "storage/error.h"
#include "tests/codegen/test_programs.h"
#include "tests/runtime/forwarding_backend.h"

using namespace hqc;
using namespace hqc::runtime;

namespace {

struct ToyData {
  Database db;
  std::vector<int32_t> d_key, d_year, f_key, f_qty, f_price, f_brand;
};

Column i32_column(const std::string& name, const std::vector<int32_t>& values) {
  Column c;
  c.name = name;
  c.type = DataType::int32();
  c.i32.assign(values.begin(), values.end());
  c.compute_stats();
  return c;
}

ToyData toy_data(size_t fact_rows) {
  ToyData t;
  std::mt19937 rng(7);
  for (int32_t k = 1000; k < 1100; ++k) t.d_key.push_back(k);
  std::shuffle(t.d_key.begin(), t.d_key.end(), rng);
  for (int32_t k : t.d_key) t.d_year.push_back(1990 + (k * 7) % 8);
  for (size_t i = 0; i < fact_rows; ++i) {
    t.f_key.push_back(985 + static_cast<int32_t>(rng() % 130));  // some keys miss the dimension
    t.f_qty.push_back(static_cast<int32_t>(rng() % 50));
    t.f_price.push_back(1 + static_cast<int32_t>(rng() % 5000));
    t.f_brand.push_back(static_cast<int32_t>(rng() % 40));
  }
  Table dim;
  dim.name = "dim";
  dim.rows = t.d_key.size();
  dim.columns = {i32_column("d_key", t.d_key), i32_column("d_year", t.d_year)};
  Table fact;
  fact.name = "fact";
  fact.rows = fact_rows;
  fact.columns = {i32_column("f_key", t.f_key), i32_column("f_qty", t.f_qty), i32_column("f_price", t.f_price),
                  i32_column("f_brand", t.f_brand)};
  t.db.tables["dim"] = dim;
  t.db.tables["fact"] = fact;
  return t;
}

ir::ResultColumn result_column(const std::string& name, ir::ResultColumn::Source source, size_t index, DataType type) {
  ir::ResultColumn c;
  c.name = name;
  c.source = source;
  c.index = index;
  c.type = type;
  return c;
}

// The program's result: the aggregation table agg0 with these columns.
void aggregation_result(ir::Program& program, std::vector<ir::ResultColumn> columns) {
  program.result.kind = ir::ResultDesc::Kind::Aggregation;
  program.result.state = "agg0";
  program.result.columns = std::move(columns);
}

std::vector<test::ProgramOptions> models() {
  return {{ir::ExecutionModel::Resolution, ir::LocalResolution::WorkEfficient, ir::HashLayout::LinearProbing, true},
          {ir::ExecutionModel::Pipelined, ir::LocalResolution::None, ir::HashLayout::LinearProbing, true}};
}

const size_t kFactRows = 20011;

struct Device {
  std::unique_ptr<Backend> backend;
  codegen::Dialect dialect;
};

// The OpenCL device always; the CUDA device too where there is one (the GPU machine).
std::vector<Device> devices() {
  std::vector<Device> out;
  out.push_back({open_backend(DeviceChoice::OpenCL), codegen::Dialect::OpenCL});
  try {
    out.push_back({open_backend(DeviceChoice::Cuda), codegen::Dialect::Cuda});
  } catch (const Error&) {
    // no CUDA here: the OpenCL run covers the logic
  }
  return out;
}

__extension__ typedef __int128 int128;  // GCC/Clang; __extension__ keeps -Wpedantic quiet

// The decimal text of a non-negative 128-bit integer, as Result::Column::text() prints a sum.
std::string text(int128 v) {
  std::string s;
  do {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  } while (v != 0);
  return s;
}

}  // namespace

TEST_CASE("generated join + scalar SUM: the join table grows from 4 slots until no flag is raised") {
  ToyData t = toy_data(kFactRows);
  std::set<int32_t> keys_1993;
  for (size_t i = 0; i < t.d_key.size(); ++i) {
    if (t.d_year[i] == 1993) keys_1993.insert(t.d_key[i]);
  }
  int64_t revenue = 0;
  for (size_t i = 0; i < kFactRows; ++i) {
    if (t.f_qty[i] >= 1 && t.f_qty[i] < 25 && keys_1993.count(t.f_key[i])) revenue += int64_t{t.f_price[i]} * t.f_qty[i];
  }
  REQUIRE(keys_1993.size() > 4);
  for (Device& device : devices()) {
    Executor executor(*device.backend, nullptr);
    for (const test::ProgramOptions& o : models()) {
      CAPTURE(device.backend->name());
      CAPTURE(ir::execution_model_name(o.model));
      ir::Program program = test::scalar_join_program(o);
      aggregation_result(program, {result_column("revenue", ir::ResultColumn::Source::Accumulator, 0, DataType::int64())});
      ir::ParamValues values;
      // 4 slots for the build rows that pass d_year = 1993: too few on purpose.
      values.values = {{"rows_dim", 100}, {"rows_fact", static_cast<int64_t>(kFactRows)}, {"ht0_capacity", 4},
                       {"ht0_key_min", 1000}};
      ExecutablePlan plan = lower_program(program, values, codegen::generate(program, device.dialect));
      Execution run = executor.run(plan, t.db);
      CHECK(run.stats.rebuilds >= 1);
      CHECK(run.stats.params.at("ht0_capacity") >= static_cast<int64_t>(keys_1993.size()));
      REQUIRE(run.result.rows() == 1);
      CHECK(run.result.columns[0].ints[0] == revenue);
      // Generated kernels stride over tiles, so the probe's grid is capped at a few resident waves
      // (planner/launch.h) — on PoCL well below the blocks the rows need — and the sum is complete.
      const LaunchStats& probe = run.stats.pipelines.back().launches.at(0);
      CHECK(probe.grid_blocks <= uint64_t{probe.blocks_per_sm} * device.backend->properties().multiprocessors * planner::kGridWaves);
      CHECK(probe.grid_blocks <= (kFactRows + probe.block_size - 1) / probe.block_size);
    }
  }
}

TEST_CASE("generated hashed GROUP BY: the aggregation table grows from 8 slots, keys come from the key buffer") {
  ToyData t = toy_data(kFactRows);
  std::map<int32_t, int64_t> sums;
  for (size_t i = 0; i < kFactRows; ++i) {
    if (t.f_qty[i] >= 5) sums[t.f_key[i]] += t.f_price[i];
  }
  for (Device& device : devices()) {
    Executor executor(*device.backend, nullptr);
    for (const test::ProgramOptions& o : models()) {
      CAPTURE(device.backend->name());
      CAPTURE(ir::execution_model_name(o.model));
      ir::Program program = test::hashed_group_program(o);
      aggregation_result(program, {result_column("f_key", ir::ResultColumn::Source::GroupKey, 0, DataType::int32()),
                                result_column("sum_price", ir::ResultColumn::Source::Accumulator, 0, DataType::int64())});
      program.result.order_by = {{"f_key", false}};
      ir::ParamValues values;
      values.values = {{"rows_fact", static_cast<int64_t>(kFactRows)}, {"agg0_capacity", 8}, {"agg0_local_slots", 64}};
      ExecutablePlan plan = lower_program(program, values, codegen::generate(program, device.dialect));
      Execution run = executor.run(plan, t.db);
      CHECK(run.stats.rebuilds >= 4);  // 130 groups need at least 256 slots
      const Result& r = run.result;
      REQUIRE(r.rows() == sums.size());
      size_t row = 0;
      for (const auto& [key, sum] : sums) {
        CHECK(r.columns[0].ints[row] == key);
        CHECK(r.columns[1].ints[row] == sum);
        ++row;
      }
    }
  }
}

TEST_CASE("generated materialisation: rows counted by the write-position counter") {
  ToyData t = toy_data(kFactRows);
  std::vector<std::pair<int64_t, int64_t>> expected;
  for (size_t i = 0; i < kFactRows; ++i) {
    if (t.f_qty[i] < 10) expected.emplace_back(t.f_key[i], int64_t{t.f_price[i]} * 2);
  }
  std::sort(expected.begin(), expected.end());
  for (Device& device : devices()) {
    Executor executor(*device.backend, nullptr);
    for (const test::ProgramOptions& o : models()) {
      CAPTURE(device.backend->name());
      CAPTURE(ir::execution_model_name(o.model));
      ir::Program program = test::materialize_program(o);
      program.result.kind = ir::ResultDesc::Kind::Output;
      program.result.state = "out0";
      program.result.columns = {result_column("f_key", ir::ResultColumn::Source::Output, 0, DataType::int32()),
                                result_column("double_price", ir::ResultColumn::Source::Output, 1, DataType::int64())};
      program.result.order_by = {{"f_key", false}, {"double_price", false}};
      ir::ParamValues values;
      values.values = {{"rows_fact", static_cast<int64_t>(kFactRows)}};
      Execution run = executor.run(lower_program(program, values, codegen::generate(program, device.dialect)), t.db);
      const Result& r = run.result;
      REQUIRE(r.rows() == expected.size());
      for (size_t i = 0; i < expected.size(); ++i) {
        REQUIRE(r.columns[0].ints[i] == expected[i].first);
        REQUIRE(r.columns[1].ints[i] == expected[i].second);
      }
    }
  }
}

TEST_CASE("generated hashed GROUP BY on two keys with a 128-bit sum: lanes and high words reach the result") {
  ToyData t = toy_data(kFactRows);
  std::map<std::pair<int32_t, int32_t>, int128> sums;
  for (size_t i = 0; i < kFactRows; ++i) sums[{t.f_key[i], t.f_brand[i]}] += static_cast<int128>(t.f_price[i]) << 50;
  for (Device& device : devices()) {
    Executor executor(*device.backend, nullptr);
    for (const test::ProgramOptions& o : models()) {
      CAPTURE(device.backend->name());
      CAPTURE(ir::execution_model_name(o.model));
      ir::Program program = test::hashed_two_key_program(o);
      aggregation_result(program, {result_column("f_key", ir::ResultColumn::Source::GroupKey, 0, DataType::int32()),
                                result_column("f_brand", ir::ResultColumn::Source::GroupKey, 1, DataType::int32()),
                                result_column("sum_price", ir::ResultColumn::Source::Accumulator, 0, DataType::int64())});
      program.result.order_by = {{"f_key", false}, {"f_brand", false}};
      ir::ParamValues values;
      values.values = {{"rows_fact", static_cast<int64_t>(kFactRows)}, {"agg0_capacity", 64}, {"agg0_local_slots", 64}};
      ExecutablePlan plan = lower_program(program, values, codegen::generate(program, device.dialect));
      Execution run = executor.run(plan, t.db);
      CHECK(run.stats.rebuilds >= 1);  // thousands of groups in 64 slots: the table grows
      const Result& r = run.result;
      REQUIRE(r.rows() == sums.size());
      CHECK_FALSE(r.columns[2].highs.empty());
      size_t row = 0, equal = 0;
      for (const auto& [key, sum] : sums) {
        equal += r.columns[0].ints[row] == key.first && r.columns[1].ints[row] == key.second && r.columns[2].text(row) == text(sum);
        ++row;
      }
      CHECK(equal == sums.size());
    }
  }
}

// Pass compact_result over the hand-built programs: the result table is compacted on the device and
// the host reads dense rows. Exact against the host computation with a table far larger than its
// groups (2^16 slots for a few thousand groups: the copy back is the groups; 2^22 slots: 4096 chunks
// over the compaction's 1024 CTAs, four each, nearly all empty), and with one far too small (it still
// grows from its overflow flag, and the compaction of the grown table is read).
TEST_CASE("generated compaction: two keys and a 128-bit sum, dense rows whatever the table's size") {
  ToyData t = toy_data(kFactRows);
  std::map<std::pair<int32_t, int32_t>, std::pair<int128, int64_t>> groups;  // sum, rows
  for (size_t i = 0; i < kFactRows; ++i) {
    auto& g = groups[{t.f_key[i], t.f_brand[i]}];
    g.first += static_cast<int128>(t.f_price[i]) << 50;
    ++g.second;
  }
  CHECK(groups.size() * 8 < (size_t{1} << 16));  // the large table is mostly empty
  for (Device& device : devices()) {
    Executor executor(*device.backend, nullptr);
    for (const test::ProgramOptions& o : models()) {
      for (int64_t capacity : {int64_t{1} << 16, int64_t{1} << 22, int64_t{64}}) {
        CAPTURE(device.backend->name());
        CAPTURE(ir::execution_model_name(o.model));
        CAPTURE(capacity);
        ir::Program program = test::hashed_two_key_program(o);
        aggregation_result(program, {result_column("f_key", ir::ResultColumn::Source::GroupKey, 0, DataType::int32()),
                                  result_column("f_brand", ir::ResultColumn::Source::GroupKey, 1, DataType::int32()),
                                  result_column("sum_price", ir::ResultColumn::Source::Accumulator, 0, DataType::int64())});
        program.result.order_by = {{"f_key", false}, {"f_brand", false}};
        ir::compact_result(program);
        ir::launch_constraints(program);
        REQUIRE(program.aggregations[0].compaction);
        ir::ParamValues values;
        values.values = {{"rows_fact", static_cast<int64_t>(kFactRows)}, {"agg0_capacity", capacity}, {"agg0_local_slots", 64}};
        ExecutablePlan plan = lower_program(program, values, codegen::generate(program, device.dialect));
        CHECK(plan.result.rows == ResultSpec::Rows::Counter);
        REQUIRE(plan.pipelines.back().launches.size() == 3);  // the aggregate, then count and gather
        Execution run = executor.run(plan, t.db);
        if (capacity == 64) CHECK(run.stats.rebuilds >= 1);
        if (capacity != 64) CHECK(run.stats.rebuilds == 0);
        const Result& r = run.result;
        REQUIRE(r.rows() == groups.size());
        CHECK_FALSE(r.columns[2].highs.empty());
        size_t row = 0, equal = 0;
        for (const auto& [key, g] : groups) {
          equal += r.columns[0].ints[row] == key.first && r.columns[1].ints[row] == key.second &&
                   r.columns[2].text(row) == text(g.first);
          ++row;
        }
        CHECK(equal == groups.size());
      }
    }
  }
}

namespace {

using JoinGroups = std::map<std::pair<int32_t, int32_t>, std::array<int64_t, 3>>;  // (d_year, f_brand) -> sum, min, max

// The host's answer to grouped_join_program over `t`.
JoinGroups join_groups(const ToyData& t) {
  std::map<int32_t, int32_t> year_of;
  for (size_t i = 0; i < t.d_key.size(); ++i) year_of[t.d_key[i]] = t.d_year[i];
  JoinGroups groups;
  for (size_t i = 0; i < t.f_key.size(); ++i) {
    auto y = year_of.find(t.f_key[i]);
    if (y == year_of.end() || t.f_qty[i] >= 40) continue;
    auto [it, fresh] = groups.try_emplace({y->second, t.f_brand[i]}, std::array<int64_t, 3>{0, INT64_MAX, INT64_MIN});
    it->second[0] += t.f_price[i];
    it->second[1] = std::min<int64_t>(it->second[1], t.f_price[i]);
    it->second[2] = std::max<int64_t>(it->second[2], t.f_price[i]);
  }
  return groups;
}

// grouped_join_program with its direct-indexed table compacted on the device, ordered by the keys:
// four kernels (build, probe + aggregate, compaction count, compaction gather).
ir::Program compacted_join_program(const test::ProgramOptions& o) {
  ir::Program program = test::grouped_join_program(o);
  aggregation_result(program, {result_column("d_year", ir::ResultColumn::Source::GroupKey, 0, DataType::int32()),
                            result_column("f_brand", ir::ResultColumn::Source::GroupKey, 1, DataType::int32()),
                            result_column("s", ir::ResultColumn::Source::Accumulator, 0, DataType::int64()),
                            result_column("lo", ir::ResultColumn::Source::Accumulator, 1, DataType::int64()),
                            result_column("hi", ir::ResultColumn::Source::Accumulator, 2, DataType::int64())});
  program.result.order_by = {{"d_year", false}, {"f_brand", false}};
  ir::compact_result(program);
  ir::launch_constraints(program);
  return program;
}

// Rows of `r` equal to `groups`' (in key order); groups.size() when the result is exact.
size_t equal_groups(const Result& r, const JoinGroups& groups) {
  if (r.rows() != groups.size()) return 0;
  size_t row = 0, equal = 0;
  for (const auto& [key, g] : groups) {
    equal += r.columns[0].ints[row] == key.first && r.columns[1].ints[row] == key.second && r.columns[2].ints[row] == g[0] &&
             r.columns[3].ints[row] == g[1] && r.columns[4].ints[row] == g[2];
    ++row;
  }
  return equal;
}

}  // namespace

TEST_CASE("generated compaction of a direct-indexed table: keys decoded from each dense row's slot index") {
  ToyData t = toy_data(kFactRows);
  const JoinGroups groups = join_groups(t);
  for (Device& device : devices()) {
    Executor executor(*device.backend, nullptr);
    for (const test::ProgramOptions& o : models()) {
      CAPTURE(device.backend->name());
      CAPTURE(ir::execution_model_name(o.model));
      ir::Program program = compacted_join_program(o);
      REQUIRE(program.aggregations[0].compaction);
      REQUIRE_FALSE(program.aggregations[0].compaction->slot_buffer.empty());
      ir::ParamValues values = ir::resolve_parameters(program, t.db);
      Execution run = executor.run(lower_program(program, values, codegen::generate(program, device.dialect)), t.db);
      REQUIRE(run.result.rows() == groups.size());
      CHECK(equal_groups(run.result, groups) == groups.size());
    }
  }
}

TEST_CASE("a direct-indexed group key outside its statistics raises the table's flag: no result, never a dropped row") {
  // Planted: the statistics say f_brand is in [0, 39]; one row then holds 57 (data and statistics
  // disagree, as a stale cache or a wrong bound would make them).
  ToyData t = toy_data(kFactRows);
  Column& brand = t.db.tables["fact"].columns[3];
  REQUIRE(brand.name == "f_brand");
  size_t planted = 0;
  for (size_t i = 0; i < kFactRows; ++i) {
    if (t.f_qty[i] < 40 && std::find(t.d_key.begin(), t.d_key.end(), t.f_key[i]) != t.d_key.end()) {
      planted = i;
      break;
    }
  }
  brand.i32[planted] = 57;  // qualifies (joins, passes the filter); stats not recomputed
  for (Device& device : devices()) {
    Executor executor(*device.backend, nullptr);
    for (const test::ProgramOptions& o : models()) {
      CAPTURE(device.backend->name());
      CAPTURE(ir::execution_model_name(o.model));
      ir::Program program = test::grouped_join_program(o);
      aggregation_result(program, {result_column("d_year", ir::ResultColumn::Source::GroupKey, 0, DataType::int32()),
                                result_column("f_brand", ir::ResultColumn::Source::GroupKey, 1, DataType::int32()),
                                result_column("s", ir::ResultColumn::Source::Accumulator, 0, DataType::int64())});
      ir::launch_constraints(program);
      ir::ParamValues values = ir::resolve_parameters(program, t.db);
      try {
        executor.run(lower_program(program, values, codegen::generate(program, device.dialect)), t.db);
        FAIL("a result was returned without the planted row's group");
      } catch (const Error& e) {
        INFO(std::string(e.what()));
        CHECK(e.kind() == ErrorKind::Internal);
        CHECK(std::string(e.what()).find("outside the statistics' domain") != std::string::npos);
      }
    }
  }
}

TEST_CASE("nvrtc_compile_module: the module as one cubin holding every kernel, deterministic; an error names the module") {
  const codegen::GeneratedProgram gp = codegen::generate(compacted_join_program(models()[0]), codegen::Dialect::Cuda);
  ModuleSource module;
  module.source = gp.source;
  module.shared_prefix = gp.source.size() - gp.kernels_source.size();
  module.options = gp.compile_options;
  module.label = "join";
  // The module's own kernels (build, probe + aggregate); the compaction kernels are the compaction module's.
  for (const codegen::KernelManifest& k : gp.kernels)
    if (k.module.empty()) module.kernel_names.push_back(k.name);
  REQUIRE(gp.kernels.size() == 4);
  REQUIRE(module.kernel_names.size() == 2);
  // An ELF cubin naming every kernel (entry points keep their extern "C" names).
  std::string log;
  const std::vector<char> cubin = nvrtc_compile_module(module, "sm_90", log);
  const std::string bytes(cubin.begin(), cubin.end());
  CHECK(bytes.compare(0, 4, "\x7f" "ELF") == 0);
  for (const std::string& k : module.kernel_names) CHECK(bytes.find(k + '\0') != std::string::npos);
  CHECK(cubin == nvrtc_compile_module(module, "sm_90", log));  // a stable kernel-cache entry

  ModuleSource bad = module;
  bad.source.insert(bad.source.find(") {", bad.source.find(" " + bad.kernel_names[1] + "(")) + 3, " this_is_not_declared = 1; ");
  try {
    nvrtc_compile_module(bad, "sm_90", log);
    FAIL("the broken kernel compiled");
  } catch (const Error& e) {
    const std::string message = e.what();
    INFO(message);
    CHECK(e.kind() == ErrorKind::Device);
    CHECK(message.find("join") != std::string::npos);
    CHECK(message.find("this_is_not_declared") != std::string::npos);
  }
}

namespace {

// The compacted join's plan over `t` (4 kernels, OpenCL), and the same with an undeclared name planted
// in its second kernel, which no compiler accepts.
ExecutablePlan compacted_join_plan(const ToyData& t) {
  ir::Program program = compacted_join_program(models()[0]);
  return lower_program(program, ir::resolve_parameters(program, t.db), codegen::generate(program, codegen::Dialect::OpenCL));
}
ExecutablePlan with_undeclared_name(ExecutablePlan plan) {
  plan.module.source.insert(plan.module.source.find('{', plan.module.source.find(" " + plan.module.kernel_names[1] + "(")) + 1,
                            " this_is_not_declared = 1; ");
  return plan;
}
// Runs `plan`, which must fail with the planted name's compile error.
void check_fails_to_compile(Executor& executor, const ExecutablePlan& plan, const Database& db) {
  try {
    executor.run(plan, db);
    FAIL("the broken module compiled");
  } catch (const Error& e) {
    INFO(std::string(e.what()));
    CHECK(e.kind() == ErrorKind::Device);
    CHECK(std::string(e.what()).find("this_is_not_declared") != std::string::npos);
  }
}


// OpenCL (PoCL) compiling off the calling thread as the CUDA backend does. Its compiler waits (up to
// 10 s) for the first column upload, so a run that uploads only after compiling fails the test.
class OffThreadCompileBackend final : public test::ForwardingBackend {
 public:
  using ForwardingBackend::ForwardingBackend;
  std::atomic<int> uploads{0};
  std::atomic<bool> overlapped{false};
  std::atomic<bool> on_caller_thread{false};
  std::thread::id caller = std::this_thread::get_id();

  bool compiles_off_thread() const override { return true; }
  std::vector<char> compile_binary(const ModuleSource& s, std::string& log) override {
    on_caller_thread = on_caller_thread || std::this_thread::get_id() == caller;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (uploads == 0 && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    overlapped = overlapped || uploads > 0;
    return ForwardingBackend::compile_binary(s, log);
  }
  void raw_upload(uint64_t h, uint64_t o, const void* p, uint64_t b) override {
    ++uploads;
    ForwardingBackend::raw_upload(h, o, p, b);
  }
  void raw_upload_async(uint64_t s, uint64_t t, uint64_t o, const void* h, uint64_t b) override {
    ++uploads;
    ForwardingBackend::raw_upload_async(s, t, o, h, b);
  }
};

}  // namespace

TEST_CASE("a compile off the calling thread overlaps the column uploads; its error still surfaces") {
  ToyData t = toy_data(kFactRows);
  const JoinGroups groups = join_groups(t);
  OffThreadCompileBackend backend(open_backend(DeviceChoice::OpenCL));
  const ExecutablePlan plan = compacted_join_plan(t);
  {
    Executor executor(backend, nullptr);
    Execution run = executor.run(plan, t.db);
    CHECK(equal_groups(run.result, groups) == groups.size());
    CHECK(backend.overlapped);
    CHECK_FALSE(backend.on_caller_thread);
    CHECK_FALSE(run.stats.compile_cache_hit);
    CHECK(run.stats.compile_ms > 0);
  }
  {
    Executor executor(backend, nullptr);
    check_fails_to_compile(executor, with_undeclared_name(plan), t.db);
  }
}

namespace {

// OpenCL (PoCL) compiling off the calling thread, counting its compiles.
class CountingOffThreadBackend final : public test::ForwardingBackend {
 public:
  using ForwardingBackend::ForwardingBackend;
  std::atomic<int> compiles{0};          // the plans' own modules
  std::atomic<int> library_compiles{0};  // the compaction module (no prebuilt binary on OpenCL)
  bool compiles_off_thread() const override { return true; }
  std::vector<char> compile_binary(const ModuleSource& s, std::string& log) override {
    ++(s.label == library_module_source(codegen::kCompactionModule, *this).label ? library_compiles : compiles);
    return ForwardingBackend::compile_binary(s, log);
  }
};

}  // namespace

TEST_CASE("prefetch_module: a module compiles before its run, once, from its own copy; a broken one fails its run") {
  ToyData t = toy_data(kFactRows);
  const JoinGroups groups = join_groups(t);
  CountingOffThreadBackend backend(open_backend(DeviceChoice::OpenCL));
  std::optional<ExecutablePlan> plan = compacted_join_plan(t);
  const ExecutablePlan same = *plan;
  Executor executor(backend, nullptr);
  CHECK(executor.prefetch_module(plan->module));
  CHECK_FALSE(executor.prefetch_module(same.module));  // already in flight
  CHECK(executor.modules_in_flight() == 1);
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (backend.compiles == 0 && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  CHECK(backend.compiles == 1);  // begun before any run, on its own thread
  plan.reset();                  // the caller's plan goes while its compile may still read the source
  Execution run = executor.run(same, t.db);
  CHECK(equal_groups(run.result, groups) == groups.size());
  CHECK(backend.compiles == 1);  // the run collected the prefetched compile
  CHECK(backend.library_compiles == 1);  // and compiled the compaction module its launches name
  CHECK_FALSE(run.stats.compile_cache_hit);
  CHECK(executor.modules_in_flight() == 0);
  CHECK_FALSE(executor.prefetch_module(same.module));  // loaded
  CHECK(executor.modules_in_flight() == 0);

  const ExecutablePlan bad = with_undeclared_name(same);
  CHECK(executor.prefetch_module(bad.module));
  check_fails_to_compile(executor, bad, t.db);
  CHECK(executor.modules_in_flight() == 0);

  // A backend that compiles on the calling thread (OpenCL) starts nothing.
  std::unique_ptr<Backend> on_caller = open_backend(DeviceChoice::OpenCL);
  Executor plain(*on_caller, nullptr);
  CHECK_FALSE(plain.prefetch_module(same.module));
  CHECK(plain.modules_in_flight() == 0);
}

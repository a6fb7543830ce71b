// The executor end to end with hand-written kernels (one source, an OpenCL and a CUDA prelude):
// a hash join whose table starts too small (overflow → grow → re-run), a grouped aggregate with
// dictionary-decoded keys, a string-literal predicate resolved to a dictionary code at run time,
// AVG, ORDER BY/LIMIT, a materialised output with an atomic counter, Fail checks, plan validation.
// Every answer is checked against a host computation over the same data.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "runtime/device/cuda_backend.h"
#include "runtime/execution/executor.h"
#include "runtime/execution/plan_state.h"
#include "storage/error.h"

using namespace hqc;
using namespace hqc::runtime;

namespace {

const char* kOpenClPrelude = R"(
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#define KERNEL __kernel
#define GLOBAL __global
#define TID ((ulong)get_global_id(0))
#define ATOMIC_ADD64(p, v) atom_add(p, v)
#define ATOMIC_CAS32(p, c, v) atomic_cmpxchg(p, c, v)
#define ATOMIC_OR32(p, v) atomic_or(p, v)
typedef long i64; typedef int i32; typedef ulong u64;
)";

const char* kCudaPrelude = R"(
#define KERNEL extern "C" __global__
#define GLOBAL
#define TID (blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x)
#define ATOMIC_ADD64(p, v) atomicAdd((unsigned long long*)(p), (unsigned long long)(v))
#define ATOMIC_CAS32(p, c, v) atomicCAS(p, c, v)
#define ATOMIC_OR32(p, v) atomicOr(p, v)
typedef long long i64; typedef int i32; typedef unsigned long long u64;
)";

const char* kBody = R"(
KERNEL void build(GLOBAL const i32* d_key, GLOBAL const i32* d_cat, u64 n, GLOBAL i32* ht_keys,
                  GLOBAL i32* ht_vals, i64 cap, GLOBAL i32* overflow) {
  u64 i = TID;
  if (i >= n) return;
  i32 k = d_key[i];
  i64 slot = ((i64)k * 40503) % cap;
  for (i64 probe = 0; probe < cap; ++probe) {
    i32 prev = ATOMIC_CAS32(&ht_keys[slot], -1, k);
    if (prev == -1 || prev == k) { ht_vals[slot] = d_cat[i]; return; }
    slot = (slot + 1) % cap;
  }
  ATOMIC_OR32(overflow, 1);
}
KERNEL void probe_agg(GLOBAL const i32* f_fk, GLOBAL const i64* f_val, GLOBAL const i32* f_flag, u64 n,
                      i32 flag_lo, GLOBAL const i32* ht_keys, GLOBAL const i32* ht_vals, i64 cap, i32 cat_min,
                      GLOBAL i64* sums, GLOBAL i64* counts) {
  u64 i = TID;
  if (i >= n || f_flag[i] < flag_lo) return;
  i32 k = f_fk[i];
  i64 slot = ((i64)k * 40503) % cap;
  for (i64 probe = 0; probe < cap; ++probe) {
    i32 stored = ht_keys[slot];
    if (stored == -1) return;
    if (stored == k) {
      i32 g = ht_vals[slot] - cat_min;
      ATOMIC_ADD64(&sums[g], f_val[i]);
      ATOMIC_ADD64(&counts[g], 1);
      return;
    }
    slot = (slot + 1) % cap;
  }
}
KERNEL void select_big(GLOBAL const i64* f_val, u64 n, i64 threshold, GLOBAL i64* out, GLOBAL i64* count) {
  u64 i = TID;
  if (i >= n || f_val[i] <= threshold) return;
  i64 pos = (i64)ATOMIC_ADD64(count, 1);
  out[pos] = f_val[i];
}
KERNEL void sum_all(GLOBAL const i64* f_val, u64 n, GLOBAL i64* total, GLOBAL i32* overflow) {
  u64 i = TID;
  if (i >= n) return;
  ATOMIC_ADD64(total, f_val[i]);
  if (f_val[i] > 90000) ATOMIC_OR32(overflow, 1);
}
)";

Column int_column(const std::string& name, DataType type, std::vector<int32_t> values) {
  Column c;
  c.name = name;
  c.type = type;
  c.i32.assign(values.begin(), values.end());
  return c;
}

Column dict_column(const std::string& name, std::vector<std::string> dictionary, std::vector<int32_t> codes) {
  Column c;
  c.name = name;
  c.type = DataType::varchar(10);
  c.encoding = Encoding::Dictionary;
  c.dictionary = std::move(dictionary);
  c.i32.assign(codes.begin(), codes.end());
  return c;
}

struct TestData {
  Database db;
  std::vector<int32_t> d_key, d_cat, f_fk, f_flag;
  std::vector<int64_t> f_val;
};

TestData make_data() {
  TestData t;
  for (int i = 0; i < 10; ++i) {
    t.d_key.push_back(1000 + 7 * i);
    t.d_cat.push_back(1 + i % 3);  // codes 1..3: "banana", "cherry", "date" ("apple" unused)
  }
  for (int i = 0; i < 5000; ++i) {
    t.f_fk.push_back(i % 13 == 0 ? 5 : 1000 + 7 * (i % 10));  // some keys miss the dimension
    t.f_val.push_back((i * 7919) % 100000 - 2000);
    t.f_flag.push_back(i % 3);                                // "A", "M", "Z"
  }
  Table dim;
  dim.name = "dim";
  dim.rows = t.d_key.size();
  dim.columns.push_back(int_column("d_key", DataType::int32(), t.d_key));
  dim.columns.push_back(dict_column("d_cat", {"apple", "banana", "cherry", "date"}, t.d_cat));
  Table fact;
  fact.name = "fact";
  fact.rows = t.f_fk.size();
  fact.columns.push_back(int_column("f_fk", DataType::int32(), t.f_fk));
  Column val;
  val.name = "f_val";
  val.type = DataType::decimal(12, 2);
  val.i64.assign(t.f_val.begin(), t.f_val.end());
  fact.columns.push_back(val);
  fact.columns.push_back(dict_column("f_flag", {"A", "M", "Z"}, t.f_flag));
  t.db.tables["dim"] = dim;
  t.db.tables["fact"] = fact;
  return t;
}

// SELECT d_cat, SUM(f_val) AS total, AVG(f_val) AS mean FROM fact JOIN dim ON f_fk = d_key
// WHERE f_flag >= 'M' GROUP BY d_cat ORDER BY total DESC LIMIT 2
ExecutablePlan join_aggregate_plan(const std::string& prelude) {
  ExecutablePlan p;
  p.label = "join-agg";
  p.module = {prelude + kBody, {}, {"build", "probe_agg"}, "join-agg"};
  // The values ir::resolve_parameters gives for make_data()'s tables.
  const TestData t = make_data();
  const auto [cat_min, cat_max] = std::minmax_element(t.d_cat.begin(), t.d_cat.end());
  const std::vector<std::string>& flags = t.db.tables.at("fact").columns.back().dictionary;  // f_flag
  p.params = {
      {"dim_rows", static_cast<int64_t>(t.d_key.size()), "dim"},
      {"fact_rows", static_cast<int64_t>(t.f_fk.size()), "fact"},
      {"ht_cap", 2},  // far too small on purpose: the executor must grow it
      {"cat_min", *cat_min},
      {"cat_domain", *cat_max - *cat_min + 1},
      {"flag_lo", std::lower_bound(flags.begin(), flags.end(), std::string("M")) - flags.begin()},  // f_flag >= 'M'
  };
  p.buffers = {
      {"ht_keys", ElementType::I32, 0, "ht_cap", 1, BufferSpec::Init::Pattern, 0xFFFFFFFFull},
      {"ht_vals", ElementType::I32, 0, "ht_cap"},
      {"ht_overflow", ElementType::I32, 1},
      {"sums", ElementType::I64, 0, "cat_domain"},
      {"counts", ElementType::I64, 0, "cat_domain"},
  };
  LaunchSpec build{"build",
                   {ArgSpec::col("dim", "d_key"), ArgSpec::col("dim", "d_cat"), ArgSpec::param("dim_rows", ScalarKind::U64),
                    ArgSpec::buf("ht_keys"), ArgSpec::buf("ht_vals"), ArgSpec::param("ht_cap", ScalarKind::I64),
                    ArgSpec::buf("ht_overflow")},
                   "dim_rows"};
  LaunchSpec probe{"probe_agg",
                   {ArgSpec::col("fact", "f_fk"), ArgSpec::col("fact", "f_val"), ArgSpec::col("fact", "f_flag"),
                    ArgSpec::param("fact_rows", ScalarKind::U64), ArgSpec::param("flag_lo", ScalarKind::I32),
                    ArgSpec::buf("ht_keys"), ArgSpec::buf("ht_vals"), ArgSpec::param("ht_cap", ScalarKind::I64),
                    ArgSpec::param("cat_min", ScalarKind::I32), ArgSpec::buf("sums"), ArgSpec::buf("counts")},
                   "fact_rows"};
  p.pipelines = {
      {"pipeline 0: build dim", {build}, {{"ht_overflow", CheckSpec::Action::Grow, {"ht_cap"}, "hash table on dim.d_key"}}},
      {"pipeline 1: probe fact, aggregate", {probe}, {}},
  };
  ResultSpec& r = p.result;
  r.rows = ResultSpec::Rows::Slots;
  r.occupancy_buffer = "counts";
  r.empty_value = 0;
  ResultColumnSpec cat;
  cat.name = "d_cat";
  cat.type = DataType::varchar(10);
  cat.source = ResultColumnSpec::Source::SlotKey;
  cat.offset_param = "cat_min";
  cat.dictionary_table = "dim";
  cat.dictionary_column = "d_cat";
  ResultColumnSpec total;
  total.name = "total";
  total.type = DataType::decimal(18, 2);
  total.buffer = "sums";
  ResultColumnSpec count;
  count.name = "n";
  count.type = DataType::int64();
  count.buffer = "counts";
  count.hidden = true;
  ResultColumnSpec mean;
  mean.name = "mean";
  mean.source = ResultColumnSpec::Source::AverageOf;
  mean.sum_column = "total";
  mean.count_column = "n";
  r.columns = {cat, total, count, mean};
  r.order_by = {{"total", true}};
  r.limit = 2;
  return p;
}

// Both pipeline schedules (executor.h): the build and the probe share the hash table, so they run in
// two waves either way, with the same result and the same growth.
void check_join_aggregate(Backend& backend, const std::string& prelude, PipelineSchedule schedule) {
  TestData t = make_data();
  // Host oracle.
  std::map<int32_t, int32_t> dim;
  for (size_t i = 0; i < t.d_key.size(); ++i) dim[t.d_key[i]] = t.d_cat[i];
  const std::vector<std::string> names = {"apple", "banana", "cherry", "date"};
  std::map<std::string, std::pair<int64_t, int64_t>> groups;
  for (size_t i = 0; i < t.f_fk.size(); ++i) {
    auto it = dim.find(t.f_fk[i]);
    if (it == dim.end() || t.f_flag[i] < 1) continue;
    auto& g = groups[names[static_cast<size_t>(it->second)]];
    g.first += t.f_val[i];
    g.second += 1;
  }
  std::vector<std::pair<int64_t, std::string>> expected;
  for (const auto& [name, g] : groups) expected.push_back({g.first, name});
  std::sort(expected.rbegin(), expected.rend());
  REQUIRE(expected.size() == 3);

  Executor executor(backend, nullptr);
  ExecutorOptions options;
  options.repeat = 2;
  options.pipelines = schedule;
  Execution run = executor.run(join_aggregate_plan(prelude), t.db, options);
  CHECK(run.stats.rebuilds == 3);  // 2 → 4 → 8 → 16 slots for 10 keys
  CHECK(run.stats.pipeline_schedule == to_string(schedule));
  CHECK(run.stats.waves == 2);
  CHECK(run.stats.pipelines.at(0).wave == 0);
  CHECK(run.stats.pipelines.at(1).wave == 1);
  CHECK(run.stats.pipelines.at(1).name == "pipeline 1: probe fact, aggregate");
  CHECK(run.stats.params.at("ht_cap") == 16);
  CHECK(run.stats.params.at("flag_lo") == 1);
  CHECK(run.stats.kernel_ms_per_repeat.size() == 2);
  CHECK(run.stats.pipelines.size() == 2);
  CHECK(run.stats.device == backend.device_description());
  auto stats = nlohmann::json::parse(run.stats.to_json());
  CHECK(stats["rebuilds"] == 3);
  CHECK(stats["params"]["ht_cap"] == 16);
  CHECK(run.stats.summary().find("rebuilds after overflow: 3") != std::string::npos);
  // Every launch reports the launcher's decision (launch_config.h). These hand-written kernels cover
  // one tuple per work-item, so their grid is the one the tuples need, whatever block was chosen.
  const nlohmann::json& probe = stats["pipelines"][1]["launches"][0];
  CHECK(probe["kernel"] == "probe_agg");
  CHECK(probe["block_size"].get<uint64_t>() % backend.properties().warp_size == 0);
  CHECK(probe["grid_blocks"].get<uint64_t>() == (5000 + probe["block_size"].get<uint64_t>() - 1) / probe["block_size"].get<uint64_t>());
  CHECK(probe["blocks_per_sm"].get<uint32_t>() >= 1);
  CHECK(probe["occupancy"].get<double>() > 0);
  CHECK(probe["occupancy"].get<double>() <= 1);
  CHECK(!probe["limited_by"].get<std::string>().empty());
  CHECK(run.stats.summary().find("probe_agg: block ") != std::string::npos);
  const Result& r = run.result;
  REQUIRE(r.columns.size() == 3);  // the hidden count is gone
  REQUIRE(r.rows() == 2);          // LIMIT 2
  for (uint64_t row = 0; row < 2; ++row) {
    CHECK(r.columns[0].strings[row] == expected[row].second);
    CHECK(r.columns[1].ints[row] == expected[row].first);
    const auto& g = groups[expected[row].second];
    CHECK(r.columns[2].floats[row] == doctest::Approx(static_cast<double>(g.first) / 100.0 / static_cast<double>(g.second)));
  }

  // Second run of the same plan: module already loaded, columns already on the device.
  Execution again = executor.run(join_aggregate_plan(prelude), t.db, {.pipelines = schedule});
  CHECK(again.stats.compile_cache_hit);
  CHECK(again.stats.transfer_bytes == 0);
  CHECK(again.result.format(ResultFormat::Csv) == r.format(ResultFormat::Csv));
}

ExecutablePlan select_plan(const std::string& prelude, int64_t threshold) {
  ExecutablePlan p;
  p.label = "select";
  p.module = {prelude + kBody, {}, {"select_big"}, "select"};
  p.params = {{"fact_rows", static_cast<int64_t>(make_data().f_fk.size()), "fact"}, {"threshold", threshold}};
  p.buffers = {{"out", ElementType::I64, 0, "fact_rows"}, {"out_count", ElementType::I64, 1}};
  p.pipelines = {{"pipeline 0: select",
                  {{"select_big",
                    {ArgSpec::col("fact", "f_val"), ArgSpec::param("fact_rows", ScalarKind::U64),
                     ArgSpec::param("threshold", ScalarKind::I64), ArgSpec::buf("out"), ArgSpec::buf("out_count")},
                    "fact_rows"}},
                  {}}};
  p.result.rows = ResultSpec::Rows::Counter;
  p.result.counter_buffer = "out_count";
  ResultColumnSpec v;
  v.name = "f_val";
  v.type = DataType::decimal(12, 2);
  v.buffer = "out";
  p.result.columns = {v};
  p.result.order_by = {{"f_val", false}};
  return p;
}

void check_select(Backend& backend, const std::string& prelude) {
  TestData t = make_data();
  std::vector<int64_t> expected;
  for (int64_t v : t.f_val) {
    if (v > 95000) expected.push_back(v);
  }
  std::sort(expected.begin(), expected.end());
  REQUIRE(!expected.empty());
  Executor executor(backend, nullptr);
  Execution run = executor.run(select_plan(prelude, 95000), t.db);
  CHECK(run.result.columns[0].ints == expected);
  // A threshold nothing passes: an empty result, not an error.
  CHECK(executor.run(select_plan(prelude, 1'000'000), t.db).result.rows() == 0);
}

bool cuda_present() {
  try {
    open_cuda_backend();
    return true;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace

TEST_CASE("executor on OpenCL: join with hash-table growth, grouped aggregate, ORDER BY/LIMIT") {
  auto backend = open_backend(DeviceChoice::OpenCL);
  check_join_aggregate(*backend, kOpenClPrelude, PipelineSchedule::Concurrent);
  check_join_aggregate(*backend, kOpenClPrelude, PipelineSchedule::Sequential);
}

TEST_CASE("executor on OpenCL: materialised output with an atomic counter") {
  auto backend = open_backend(DeviceChoice::OpenCL);
  check_select(*backend, kOpenClPrelude);
}

TEST_CASE("executor on CUDA (GPU machines only)") {
  if (!cuda_present()) {
    MESSAGE("no CUDA device here; skipped");
    return;
  }
  auto backend = open_backend(DeviceChoice::Cuda);
  check_join_aggregate(*backend, kCudaPrelude, PipelineSchedule::Concurrent);
  check_join_aggregate(*backend, kCudaPrelude, PipelineSchedule::Sequential);
  check_select(*backend, kCudaPrelude);
}

TEST_CASE("a Fail check stops the query with an error naming what overflowed") {
  auto backend = open_backend(DeviceChoice::OpenCL);
  TestData t = make_data();
  ExecutablePlan p;
  p.label = "sum";
  p.module = {std::string(kOpenClPrelude) + kBody, {}, {"sum_all"}, "sum"};
  p.params = {{"fact_rows", static_cast<int64_t>(t.f_fk.size()), "fact"}};
  p.buffers = {{"total", ElementType::I64, 1}, {"sum_overflow", ElementType::I32, 1}};
  p.pipelines = {{"pipeline 0: sum",
                  {{"sum_all",
                    {ArgSpec::col("fact", "f_val"), ArgSpec::param("fact_rows", ScalarKind::U64), ArgSpec::buf("total"),
                     ArgSpec::buf("sum_overflow")},
                    "fact_rows"}},
                  {{"sum_overflow", CheckSpec::Action::Fail, {}, "SUM(f_val) accumulator"}}}};
  ResultColumnSpec total;
  total.name = "total";
  total.type = DataType::int64();
  total.buffer = "total";
  p.result.columns = {total};
  Executor executor(*backend, nullptr);
  try {
    executor.run(p, t.db);
    FAIL("expected the overflow to be reported");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("SUM(f_val) accumulator overflowed") != std::string::npos);
  }
}

TEST_CASE("plan validation names dangling references") {
  ExecutablePlan p = join_aggregate_plan(kOpenClPrelude);
  p.pipelines[1].launches[0].args[5] = ArgSpec::buf("no_such_buffer");
  try {
    validate_plan(p);
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Internal);
    CHECK(std::string(e.what()).find("no_such_buffer") != std::string::npos);
  }
  ExecutablePlan q = join_aggregate_plan(kOpenClPrelude);
  q.result.order_by = {{"nope", false}};
  CHECK_THROWS_AS(validate_plan(q), Error);
}

TEST_CASE("kernels generated for another dialect are refused before the device is touched") {
  auto backend = open_backend(DeviceChoice::OpenCL);
  REQUIRE(backend->dialect() == codegen::Dialect::OpenCL);
  CHECK(backend->name() == "opencl");
  TestData t = make_data();
  ExecutablePlan p = select_plan(kCudaPrelude, 95000);
  p.dialect = codegen::Dialect::Cuda;
  Executor executor(*backend, nullptr);
  try {
    executor.run(p, t.db);
    FAIL("expected the dialect mismatch to be refused");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Usage);
    CHECK(std::string(e.what()).find("generated for cuda") != std::string::npos);
    CHECK(std::string(e.what()).find("generate them for opencl") != std::string::npos);
  }
  p = select_plan(kOpenClPrelude, 95000);
  p.dialect = codegen::Dialect::OpenCL;
  CHECK(executor.run(p, t.db).result.rows() > 0);
}

TEST_CASE("a plan's parameters are its resolved values") {
  const ExecutablePlan p = join_aggregate_plan(kOpenClPrelude);
  const std::map<std::string, int64_t> v = param_values(p);
  REQUIRE(v.size() == p.params.size());
  CHECK(v.at("dim_rows") == 10);
  CHECK(v.at("fact_rows") == 5000);
  CHECK(v.at("cat_min") == 1);     // d_cat's codes are 1..3
  CHECK(v.at("cat_domain") == 3);
  CHECK(v.at("flag_lo") == 1);     // "M" in {"A", "M", "Z"}
}

TEST_CASE("state larger than the device is refused naming the query, its model and the bytes it needs") {
  auto backend = open_backend(DeviceChoice::OpenCL);
  TestData t = make_data();
  ExecutablePlan p = select_plan(kOpenClPrelude, 95000);
  p.model = "operator_at_a_time";
  // One intermediate of 2^40 eight-byte elements: more than any device has.
  p.params.push_back({"huge_rows", int64_t{1} << 40, ""});
  BufferSpec huge;
  huge.name = "huge";
  huge.elements_param = "huge_rows";
  p.buffers.push_back(huge);
  Executor executor(*backend, nullptr);
  try {
    executor.run(p, t.db);
    FAIL("expected the state to be refused");
  } catch (const Error& e) {
    const std::string what = e.what();
    CHECK(e.kind() == ErrorKind::Device);
    CHECK(what.find(p.label + " (operator_at_a_time model): state buffers and materialized intermediates need ") == 0);
    CHECK(what.find(std::to_string((uint64_t{1} << 43) + state_bytes(select_plan(kOpenClPrelude, 95000), param_values(p)))) !=
          std::string::npos);
  }
}

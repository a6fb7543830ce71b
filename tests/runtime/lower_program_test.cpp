// ir::Program → ExecutablePlan → run: a hand-built program (the shape the fusion pass produces) with
// a linear-probing hash join sized too small, and a two-key direct-indexed aggregation whose keys
// are decoded by mixed radix and through two dictionaries, AVG through hidden accumulators,
// ORDER BY over two keys. Checked against a host computation.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "runtime/execution/executor.h"
#include "runtime/execution/lower_program.h"
#include "storage/error.h"

using namespace hqc;
using namespace hqc::runtime;

namespace {

// Same data and kernels as executor_test.cpp (kept in sync by hand: the kernels' parameter lists
// below are what the ir::Kernel args declare).
const char* kPrelude = R"(
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#define KERNEL __kernel
#define GLOBAL __global
#define TID ((ulong)get_global_id(0))
#define ATOMIC_ADD64(p, v) atom_add(p, v)
#define ATOMIC_CAS32(p, c, v) atomic_cmpxchg(p, c, v)
#define ATOMIC_OR32(p, v) atomic_or(p, v)
typedef long i64; typedef int i32; typedef ulong u64;
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
KERNEL void probe_agg2(GLOBAL const i32* f_fk, GLOBAL const i64* f_val, GLOBAL const i32* f_flag, u64 n,
                       i32 flag_min, GLOBAL const i32* ht_keys, GLOBAL const i32* ht_vals, i64 cap, i32 cat_min,
                       i64 cat_domain, GLOBAL i64* sums, GLOBAL u64* counts) {
  u64 i = TID;
  if (i >= n) return;
  i32 k = f_fk[i];
  i64 slot = ((i64)k * 40503) % cap;
  for (i64 probe = 0; probe < cap; ++probe) {
    i32 stored = ht_keys[slot];
    if (stored == -1) return;
    if (stored == k) {
      i64 g = (i64)(f_flag[i] - flag_min) * cat_domain + (ht_vals[slot] - cat_min);
      ATOMIC_ADD64(&sums[g], f_val[i]);
      ATOMIC_ADD64(&counts[g], 1);
      return;
    }
    slot = (slot + 1) % cap;
  }
}
)";

Column column(const std::string& name, DataType type, std::vector<int32_t> values,
              std::vector<std::string> dictionary = {}) {
  Column c;
  c.name = name;
  c.type = type;
  c.i32.assign(values.begin(), values.end());
  if (!dictionary.empty()) {
    c.encoding = Encoding::Dictionary;
    c.dictionary = std::move(dictionary);
  }
  return c;
}

ir::KernelArg col_arg(const std::string& table, const std::string& col) {
  ir::KernelArg a;
  a.kind = ir::KernelArg::Kind::Column;
  a.table = table;
  a.column = col;
  a.name = "col_" + col;
  return a;
}
ir::KernelArg buf_arg(const std::string& name) {
  ir::KernelArg a;
  a.kind = ir::KernelArg::Kind::Buffer;
  a.name = name;
  return a;
}
ir::KernelArg param_arg(const std::string& name, ir::ScalarType t) {
  ir::KernelArg a;
  a.kind = ir::KernelArg::Kind::Param;
  a.name = name;
  a.type = t;
  return a;
}
ir::Param param(const std::string& name) {
  ir::Param p;
  p.name = name;
  return p;
}
ir::Buffer buffer(const std::string& name, ir::ScalarType element, uint64_t fixed, const std::string& by_param,
                  ir::Buffer::Fill fill = ir::Buffer::Fill::Zero, uint64_t pattern = 0) {
  ir::Buffer b;
  b.name = name;
  b.element = element;
  b.fixed_elements = fixed;
  b.elements_param = by_param;
  b.fill = fill;
  b.pattern = pattern;
  return b;
}

}  // namespace

TEST_CASE("lower_program: hash join with growth and a two-key direct-indexed aggregation") {
  using ST = ir::ScalarType;
  // ---- data ----
  Database db;
  std::vector<int32_t> d_key, d_cat, f_fk, f_flag;
  std::vector<int64_t> f_val;
  for (int i = 0; i < 10; ++i) {
    d_key.push_back(1000 + 7 * i);
    d_cat.push_back(1 + i % 3);
  }
  for (int i = 0; i < 3000; ++i) {
    f_fk.push_back(i % 11 == 0 ? 3 : 1000 + 7 * (i % 10));
    f_val.push_back((i * 104729) % 50000 - 1000);
    f_flag.push_back(1 + i % 2);  // codes 1..2 of {"A","M","Z"}: "A" never occurs, so min = 1
  }
  Table dim{"dim", d_key.size(), {}};
  dim.columns.push_back(column("d_key", DataType::int32(), d_key));
  dim.columns.push_back(column("d_cat", DataType::varchar(10), d_cat, {"apple", "banana", "cherry", "date"}));
  Table fact{"fact", f_fk.size(), {}};
  fact.columns.push_back(column("f_fk", DataType::int32(), f_fk));
  Column val;
  val.name = "f_val";
  val.type = DataType::decimal(12, 2);
  val.i64.assign(f_val.begin(), f_val.end());
  fact.columns.push_back(val);
  fact.columns.push_back(column("f_flag", DataType::varchar(1), f_flag, {"A", "M", "Z"}));
  db.tables["dim"] = dim;
  db.tables["fact"] = fact;

  // ---- the program, as ir/ would build and fuse it ----
  ir::Program program;
  program.label = "lowered";
  for (const char* name : {"rows_dim", "rows_fact", "ht0_capacity", "flag_min", "flag_domain", "cat_min",
                           "cat_domain", "agg0_slots"}) {
    program.params.push_back(param(name));
  }
  program.buffers = {
      buffer("ht0_keys", ST::I32, 0, "ht0_capacity", ir::Buffer::Fill::Pattern, 0xFFFFFFFFull),
      buffer("ht0_vals", ST::I32, 0, "ht0_capacity"),
      buffer("ht0_overflow", ST::U32, 1, ""),
      buffer("agg0_sum", ST::I64, 0, "agg0_slots"),
      buffer("agg0_count", ST::U64, 0, "agg0_slots"),
  };
  ir::HashTable ht;
  ht.name = "ht0";
  ht.layout = ir::HashLayout::LinearProbing;
  ht.build_table = "dim";
  ht.capacity_param = "ht0_capacity";
  ht.key_buffers = {"ht0_keys"};
  ht.payload_buffers = {"ht0_vals"};
  ht.overflow_buffer = "ht0_overflow";
  program.hash_tables = {ht};
  ir::AggregationTable agg;
  agg.name = "agg0";
  agg.layout = ir::AggLayout::DirectIndexed;
  ir::GroupKey flag_key;
  flag_key.name = "f_flag";
  flag_key.min_param = "flag_min";
  flag_key.domain_param = "flag_domain";
  flag_key.dict_table = "fact";
  flag_key.dict_column = "f_flag";
  ir::GroupKey cat_key;
  cat_key.name = "d_cat";
  cat_key.min_param = "cat_min";
  cat_key.domain_param = "cat_domain";
  cat_key.dict_table = "dim";
  cat_key.dict_column = "d_cat";
  agg.keys = {flag_key, cat_key};
  ir::Accumulator sum;
  sum.name = "mean__sum";
  sum.type = DataType::decimal(18, 2);
  sum.buffer = "agg0_sum";
  ir::Accumulator count;
  count.name = "mean__count";
  count.func = plan::AggFunc::CountStar;
  count.type = DataType::int64();
  count.element = ST::U64;
  count.buffer = "agg0_count";
  agg.accumulators = {sum, count};
  agg.slots_param = "agg0_slots";
  agg.occupancy_buffer = "agg0_count";
  program.aggregations = {agg};

  ir::Pipeline p0;
  p0.id = 0;
  p0.name = "p0 build ht0 on dim";
  p0.source.table = "dim";
  p0.source.rows_param = "rows_dim";
  p0.sink = {ir::SinkKind::HashBuild, "ht0"};
  ir::Pipeline p1;
  p1.id = 1;
  p1.name = "p1 probe ht0, aggregate agg0";
  p1.source.table = "fact";
  p1.source.rows_param = "rows_fact";
  p1.sink = {ir::SinkKind::Aggregate, "agg0"};
  p1.depends_on = {0};
  program.pipelines = {p0, p1};

  ir::Kernel k0;
  k0.name = "build";
  k0.pipeline = 0;
  k0.args = {col_arg("dim", "d_key"), col_arg("dim", "d_cat"), param_arg("rows_dim", ST::U64), buf_arg("ht0_keys"),
             buf_arg("ht0_vals"), param_arg("ht0_capacity", ST::I64), buf_arg("ht0_overflow")};
  k0.launch.tuples_param = "rows_dim";
  ir::Kernel k1;
  k1.name = "probe_agg2";
  k1.pipeline = 1;
  k1.args = {col_arg("fact", "f_fk"), col_arg("fact", "f_val"), col_arg("fact", "f_flag"),
             param_arg("rows_fact", ST::U64), param_arg("flag_min", ST::I32), buf_arg("ht0_keys"), buf_arg("ht0_vals"),
             param_arg("ht0_capacity", ST::I64), param_arg("cat_min", ST::I32), param_arg("cat_domain", ST::I64),
             buf_arg("agg0_sum"), buf_arg("agg0_count")};
  k1.launch.tuples_param = "rows_fact";
  program.kernels = {k0, k1};

  auto result_column = [](const std::string& name, DataType type, ir::ResultColumn::Source source, size_t index) {
    ir::ResultColumn c;
    c.name = name;
    c.type = type;
    c.source = source;
    c.index = index;
    return c;
  };
  program.result.kind = ir::ResultDesc::Kind::Aggregation;
  program.result.state = "agg0";
  auto mean = result_column("mean", DataType::float64(), ir::ResultColumn::Source::Average, 0);
  mean.count_index = 1;
  program.result.columns = {result_column("f_flag", DataType::varchar(1), ir::ResultColumn::Source::GroupKey, 0),
                            result_column("d_cat", DataType::varchar(10), ir::ResultColumn::Source::GroupKey, 1),
                            result_column("total", DataType::decimal(18, 2), ir::ResultColumn::Source::Accumulator, 0),
                            mean};
  program.result.order_by = {{"f_flag", false}, {"total", true}};

  // Values as ir::resolve_parameters would compute them (capacity too small on purpose).
  ir::ParamValues values;
  values.values = {{"rows_dim", 10}, {"rows_fact", 3000}, {"ht0_capacity", 4}, {"flag_min", 1}, {"flag_domain", 2},
                   {"cat_min", 1},   {"cat_domain", 3},   {"agg0_slots", 6}};

  ExecutablePlan plan = lower_program(program, values, {kPrelude, {}, {}, ""});
  CHECK(plan.module.kernel_names == std::vector<std::string>{"build", "probe_agg2"});
  CHECK(plan.module.label == "lowered");
  REQUIRE(plan.pipelines.size() == 2);
  REQUIRE(plan.pipelines[0].checks.size() == 1);
  CHECK(plan.pipelines[0].checks[0].action == CheckSpec::Action::Grow);
  CHECK(plan.result.columns[0].divisor == 3);  // f_flag's stride = domain of d_cat
  CHECK(plan.result.columns[1].divisor == 1);

  // ---- host oracle ----
  std::map<int32_t, int32_t> dim_map;
  for (size_t i = 0; i < d_key.size(); ++i) dim_map[d_key[i]] = d_cat[i];
  const std::vector<std::string> cats = {"apple", "banana", "cherry", "date"};
  const std::vector<std::string> flags = {"A", "M", "Z"};
  std::map<std::pair<std::string, std::string>, std::pair<int64_t, int64_t>> groups;
  for (size_t i = 0; i < f_fk.size(); ++i) {
    auto it = dim_map.find(f_fk[i]);
    if (it == dim_map.end()) continue;
    auto& g = groups[{flags[static_cast<size_t>(f_flag[i])], cats[static_cast<size_t>(it->second)]}];
    g.first += f_val[i];
    g.second += 1;
  }
  std::vector<std::tuple<std::string, int64_t, std::string>> expected;  // flag asc, total desc
  for (const auto& [key, g] : groups) expected.emplace_back(key.first, -g.first, key.second);
  std::sort(expected.begin(), expected.end());

  auto backend = open_backend(DeviceChoice::OpenCL);
  Executor executor(*backend, nullptr);
  Execution run = executor.run(plan, db);
  CHECK(run.stats.rebuilds == 2);  // 4 → 8 → 16 slots for 10 keys
  const Result& r = run.result;
  REQUIRE(r.columns.size() == 4);
  REQUIRE(r.rows() == expected.size());
  for (uint64_t row = 0; row < r.rows(); ++row) {
    const auto& [flag, neg_total, cat] = expected[row];
    CHECK(r.columns[0].strings[row] == flag);
    CHECK(r.columns[1].strings[row] == cat);
    CHECK(r.columns[2].ints[row] == -neg_total);
    const auto& g = groups[{flag, cat}];
    CHECK(r.columns[3].floats[row] == doctest::Approx(static_cast<double>(g.first) / 100.0 / static_cast<double>(g.second)));
  }
}

TEST_CASE("lower_program rejects inconsistent programs with the name of the culprit") {
  ir::Program program;
  program.label = "broken";
  CHECK_THROWS_AS(lower_program(program, {}, {"", {}, {}, ""}), Error);  // no kernels
  ir::Kernel k;
  k.name = "k";
  program.kernels = {k};
  ir::Param p;
  p.name = "unresolved";
  p.source = ir::Param::Source::RowCount;  // (a Constant resolves to its own value)
  p.table = "t";
  program.params = {p};
  try {
    lower_program(program, {}, {"", {}, {}, ""});
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("unresolved") != std::string::npos);
  }
}

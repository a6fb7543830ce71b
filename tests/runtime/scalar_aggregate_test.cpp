// A single-tuple aggregate lowered from a hand-built ir::Program (the shape ir/ builds: 64-bit
// accumulators, a tuple-count buffer, MIN/MAX of a dictionary string carrying the dictionary in
// the result column) and run on the OpenCL device:
//   SELECT SUM(f_val), MIN(f_tag), MAX(f_tag), COUNT(*), AVG(f_val) FROM fact WHERE f_val > :threshold
// with a threshold some rows pass (MIN/MAX decoded from their 64-bit codes) and one no row passes
// (DuckDB's answer: one row, SUM/MIN/MAX/AVG NULL, COUNT 0). Checked against a host computation.
// Also the scratchpad slot bound that lower_program carries from a privatised aggregation table.
#include <doctest/doctest.h>

#include <algorithm>
#include <climits>

#include "runtime/execution/executor.h"
#include "runtime/execution/lower_program.h"
#include "storage/error.h"

using namespace hqc;
using namespace hqc::runtime;

namespace {

// Accumulators as the generated kernels keep them: i64 slots, MIN/MAX filled with their identity.
const char* kSource = R"(
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
__kernel void scalar_agg(__global const long* f_val, __global const int* f_tag, ulong n, long threshold,
                         __global long* sum, __global long* lo, __global long* hi, __global long* cnt,
                         __global long* tuples) {
  ulong i = get_global_id(0);
  if (i >= n || f_val[i] <= threshold) return;
  atom_add(sum, f_val[i]);
  atom_min(lo, (long)f_tag[i]);
  atom_max(hi, (long)f_tag[i]);
  atom_add(cnt, 1);
  atom_add(tuples, 1);
}
)";

const std::vector<std::string> kTags = {"alpha", "bravo", "charlie", "delta", "echo", "foxtrot"};

struct Fixture {
  Database db;
  std::vector<int64_t> val;
  std::vector<int32_t> tag;
};

Fixture make_fixture() {
  Fixture f;
  for (int i = 0; i < 2000; ++i) {
    f.val.push_back((i * 7919) % 10000);
    f.tag.push_back((i * 31) % 6);
  }
  Table fact;
  fact.name = "fact";
  fact.rows = f.val.size();
  Column v;
  v.name = "f_val";
  v.type = DataType::decimal(12, 2);
  v.i64.assign(f.val.begin(), f.val.end());
  Column t;
  t.name = "f_tag";
  t.type = DataType::varchar(10);
  t.encoding = Encoding::Dictionary;
  t.dictionary = kTags;
  t.i32.assign(f.tag.begin(), f.tag.end());
  fact.columns = {v, t};
  f.db.tables["fact"] = fact;
  return f;
}

ir::Buffer buffer(const std::string& name, ir::Buffer::Fill fill = ir::Buffer::Fill::Zero, uint64_t pattern = 0) {
  ir::Buffer b;
  b.name = name;
  b.element = ir::ScalarType::I64;
  b.fixed_elements = 1;
  b.fill = fill;
  b.pattern = pattern;
  return b;
}

ir::Accumulator accumulator(const std::string& name, plan::AggFunc func, DataType type, const std::string& buf) {
  ir::Accumulator a;
  a.name = name;
  a.func = func;
  a.type = type;
  a.buffer = buf;
  return a;
}

ir::ResultColumn result_column(const std::string& name, DataType type, ir::ResultColumn::Source source, size_t index,
                               const std::string& dict_table = "", const std::string& dict_column = "") {
  ir::ResultColumn c;
  c.name = name;
  c.type = type;
  c.source = source;
  c.index = index;
  c.dict_table = dict_table;
  c.dict_column = dict_column;
  return c;
}

ir::Program scalar_program() {
  ir::Program program;
  program.label = "scalar";
  for (const char* name : {"rows_fact", "threshold"}) {
    ir::Param p;
    p.name = name;
    program.params.push_back(p);
  }
  program.buffers = {buffer("agg0_sum"), buffer("agg0_lo", ir::Buffer::Fill::Pattern, static_cast<uint64_t>(INT64_MAX)),
                     buffer("agg0_hi", ir::Buffer::Fill::Pattern, static_cast<uint64_t>(INT64_MIN)), buffer("agg0_cnt"),
                     buffer("agg0_tuples")};
  ir::AggregationTable agg;
  agg.name = "agg0";
  agg.layout = ir::AggLayout::Scalar;
  agg.accumulators = {accumulator("total", plan::AggFunc::Sum, DataType::decimal(18, 2), "agg0_sum"),
                      accumulator("first_tag", plan::AggFunc::Min, DataType::varchar(10), "agg0_lo"),
                      accumulator("last_tag", plan::AggFunc::Max, DataType::varchar(10), "agg0_hi"),
                      accumulator("n", plan::AggFunc::CountStar, DataType::int64(), "agg0_cnt")};
  agg.occupancy_buffer = "agg0_tuples";
  program.aggregations = {agg};
  ir::Pipeline p0;
  p0.id = 0;
  p0.name = "p0 scan fact, aggregate agg0";
  p0.source.table = "fact";
  p0.source.rows_param = "rows_fact";
  p0.sink = {ir::SinkKind::Aggregate, "agg0"};
  program.pipelines = {p0};

  ir::Kernel k;
  k.name = "scalar_agg";
  k.pipeline = 0;
  auto col = [](const std::string& c) {
    ir::KernelArg a;
    a.kind = ir::KernelArg::Kind::Column;
    a.table = "fact";
    a.column = c;
    a.name = c;
    return a;
  };
  auto param = [](const std::string& name, ir::ScalarType t) {
    ir::KernelArg a;
    a.kind = ir::KernelArg::Kind::Param;
    a.name = name;
    a.type = t;
    return a;
  };
  auto buf = [](const std::string& name) {
    ir::KernelArg a;
    a.kind = ir::KernelArg::Kind::Buffer;
    a.name = name;
    return a;
  };
  k.args = {col("f_val"), col("f_tag"), param("rows_fact", ir::ScalarType::U64), param("threshold", ir::ScalarType::I64),
            buf("agg0_sum"), buf("agg0_lo"), buf("agg0_hi"), buf("agg0_cnt"), buf("agg0_tuples")};
  k.launch.tuples_param = "rows_fact";
  program.kernels = {k};

  using S = ir::ResultColumn::Source;
  ir::ResultColumn mean = result_column("mean", DataType::float64(), S::Average, 0);
  mean.count_index = 3;
  program.result.kind = ir::ResultDesc::Kind::Aggregation;
  program.result.state = "agg0";
  program.result.columns = {result_column("total", DataType::decimal(18, 2), S::Accumulator, 0),
                            result_column("first_tag", DataType::varchar(10), S::Accumulator, 1, "fact", "f_tag"),
                            result_column("last_tag", DataType::varchar(10), S::Accumulator, 2, "fact", "f_tag"),
                            result_column("n", DataType::int64(), S::Accumulator, 3),
                            mean};
  return program;
}

Execution run_scalar(const Fixture& f, int64_t threshold) {
  ir::ParamValues values;
  values.values = {{"rows_fact", static_cast<int64_t>(f.val.size())}, {"threshold", threshold}};
  ExecutablePlan plan = lower_program(scalar_program(), values, {kSource, {}, {}, ""});
  auto backend = open_backend(DeviceChoice::OpenCL);
  Executor executor(*backend, nullptr);
  return executor.run(plan, f.db);
}

}  // namespace

TEST_CASE("lower_program marks what a scalar aggregate over no rows makes NULL") {
  ir::ParamValues values;
  values.values = {{"rows_fact", 10}, {"threshold", 0}};
  ExecutablePlan plan = lower_program(scalar_program(), values, {kSource, {}, {}, ""});
  CHECK(plan.result.input_rows_buffer == "agg0_tuples");
  std::map<std::string, const ResultColumnSpec*> by_name;
  for (const ResultColumnSpec& c : plan.result.columns) by_name[c.name] = &c;
  CHECK(by_name.at("total")->null_without_input);
  CHECK(by_name.at("first_tag")->null_without_input);
  CHECK(by_name.at("first_tag")->dictionary_table == "fact");
  CHECK(by_name.at("first_tag")->dictionary_column == "f_tag");
  CHECK_FALSE(by_name.at("n")->null_without_input);  // COUNT over no rows is 0
  CHECK(by_name.at("__total")->null_without_input);  // AVG's hidden sum
  CHECK_FALSE(by_name.at("__n")->null_without_input);
}

TEST_CASE("scalar aggregate on OpenCL: MIN/MAX of a dictionary string decode their 64-bit codes") {
  const Fixture f = make_fixture();
  const int64_t threshold = 9000;
  int64_t sum = 0, count = 0;
  int32_t lo = INT32_MAX, hi = INT32_MIN;
  for (size_t i = 0; i < f.val.size(); ++i) {
    if (f.val[i] <= threshold) continue;
    sum += f.val[i];
    ++count;
    lo = std::min(lo, f.tag[i]);
    hi = std::max(hi, f.tag[i]);
  }
  REQUIRE(count > 0);
  REQUIRE(lo != hi);
  const Result r = run_scalar(f, threshold).result;
  REQUIRE(r.rows() == 1);
  REQUIRE(r.columns.size() == 5);
  CHECK(r.columns[0].ints[0] == sum);
  CHECK(r.columns[1].strings[0] == kTags[static_cast<size_t>(lo)]);
  CHECK(r.columns[2].strings[0] == kTags[static_cast<size_t>(hi)]);
  CHECK(r.columns[3].ints[0] == count);
  CHECK(r.columns[4].floats[0] == doctest::Approx(static_cast<double>(sum) / 100.0 / static_cast<double>(count)));
  for (const ResultColumn& c : r.columns) CHECK_FALSE(c.is_null(0));
}

TEST_CASE("scalar aggregate on OpenCL over no qualifying rows: one row, NULLs and COUNT 0") {
  const Fixture f = make_fixture();
  const Result r = run_scalar(f, 1'000'000).result;  // no f_val passes
  REQUIRE(r.rows() == 1);
  REQUIRE(r.columns.size() == 5);
  CHECK(r.columns[0].is_null(0));
  CHECK(r.columns[1].is_null(0));
  CHECK(r.columns[2].is_null(0));
  CHECK_FALSE(r.columns[3].is_null(0));
  CHECK(r.columns[3].ints[0] == 0);
  CHECK(r.columns[4].is_null(0));
  CHECK(r.format(ResultFormat::Csv) == "total,first_tag,last_tag,n,mean\n,,,0,\n");
  CHECK(r.format(ResultFormat::Json) ==
        "{\"columns\":[{\"name\":\"total\",\"type\":\"decimal(18,2)\"},{\"name\":\"first_tag\",\"type\":\"varchar(10)\"},"
        "{\"name\":\"last_tag\",\"type\":\"varchar(10)\"},{\"name\":\"n\",\"type\":\"int64\"},"
        "{\"name\":\"mean\",\"type\":\"float64\"}],\"rows\":[[null,null,null,0,null]]}");
}

TEST_CASE("lower_program carries the scratchpad slot bound of a privatised aggregation table") {
  ir::Program program = scalar_program();
  ir::Param slots;
  slots.name = "agg1_slots";
  program.params.push_back(slots);
  ir::AggregationTable privatised;
  privatised.name = "agg1";
  privatised.layout = ir::AggLayout::DirectIndexed;
  privatised.slots_param = "agg1_slots";
  privatised.scratchpad = true;
  privatised.scratchpad_bytes_per_slot = 24;
  privatised.max_scratchpad_slots = 2048;
  program.aggregations.push_back(privatised);
  program.kernels[0].launch.scratch_slots_param = "agg1_slots";
  program.kernels[0].launch.scratch_slot_bytes = 24;
  ir::ParamValues values;
  values.values = {{"rows_fact", 10}, {"threshold", 0}, {"agg1_slots", 100}};
  ExecutablePlan plan = lower_program(program, values, {kSource, {}, {}, ""});
  const LaunchSpec& launch = plan.pipelines.at(0).launches.at(0);
  REQUIRE(launch.scratch_slot_bounds.size() == 1);
  CHECK(launch.scratch_slot_bounds[0].param == "agg1_slots");
  CHECK(launch.scratch_slot_bounds[0].max_slots == 2048);
  CHECK(launch.scratch_slot_bounds[0].what.find("agg1") != std::string::npos);
}

// Builders of the hand-made IR programs described in test_programs.h.
#include "tests/codegen/test_programs.h"

namespace hqc::test {
namespace {

using plan::make_column;
using plan::make_compare;
using plan::make_int_literal;

const DataType kI32 = DataType::int32();
const DataType kI64 = DataType::int64();

ir::Param param(const std::string& name, ir::Param::Source source, const std::string& table = "",
                const std::string& column = "") {
  ir::Param p;
  p.name = name;
  p.source = source;
  p.table = table;
  p.column = column;
  return p;
}

ir::Buffer buffer(const std::string& name, ir::ScalarType t, const std::string& elements_param, uint64_t fixed = 0,
                  ir::Buffer::Fill fill = ir::Buffer::Fill::Zero, uint64_t pattern = 0) {
  ir::Buffer b;
  b.name = name;
  b.element = t;
  b.elements_param = elements_param;
  b.fixed_elements = fixed;
  b.fill = fill;
  b.pattern = pattern;
  return b;
}

ir::AttributeBinding source_column(const std::string& alias, const std::string& column) {
  ir::AttributeBinding b;
  b.attr = plan::Attribute{alias, column, kI32, "", ""};
  b.origin = ir::AttributeBinding::Origin::SourceColumn;
  b.variable = column;
  return b;
}

ir::KernelArg col(const std::string& table, const std::string& column) {
  ir::KernelArg a;
  a.kind = ir::KernelArg::Kind::Column;
  a.name = "col_" + column;
  a.table = table;
  a.column = column;
  a.type = ir::ScalarType::I32;
  return a;
}
ir::KernelArg buf(const ir::Program& p, const std::string& name, bool written) {
  ir::KernelArg a;
  a.kind = ir::KernelArg::Kind::Buffer;
  a.name = name;
  a.type = p.find_buffer(name)->element;
  a.written = written;
  return a;
}
ir::KernelArg prm(const std::string& name) {
  ir::KernelArg a;
  a.kind = ir::KernelArg::Kind::Param;
  a.name = name;
  a.type = ir::ScalarType::I64;
  return a;
}
ir::KernelArg scratch() {
  ir::KernelArg a;
  a.kind = ir::KernelArg::Kind::Scratch;
  return a;
}

// As pass fuse_pipelines annotates it: under the resolution model a grouped aggregate not privatised
// in scratchpad runs C2, with the reason.
ir::Reduction reduction(const ProgramOptions& o, ir::ReductionKind kind, const std::string& state, bool privatised = true) {
  static const ir::Technique resolution[] = {ir::Technique::A3, ir::Technique::B3, ir::Technique::C3};
  static const ir::Technique pipelined[] = {ir::Technique::A2, ir::Technique::B2, ir::Technique::C2};
  const bool res = o.model == ir::ExecutionModel::Resolution;
  ir::Reduction r;
  r.kind = kind;
  r.technique = (res ? resolution : pipelined)[static_cast<int>(kind)];
  r.local = res ? o.local : ir::LocalResolution::None;
  r.state = state;
  if (res && kind == ir::ReductionKind::GroupedAggregate && !privatised) {
    r.technique = ir::Technique::C2;
    r.local = ir::LocalResolution::None;
    r.note = "the test program does not privatise the table";
  }
  return r;
}

// dim scan, filter (optional), build ht0 on d_key with payload d_year.
void add_dim_build(ir::Program& p, const ProgramOptions& o, plan::ExprPtr filter) {
  p.params.push_back(param("rows_dim", ir::Param::Source::RowCount, "dim"));
  p.params.push_back(param("ht0_capacity", ir::Param::Source::Capacity, "dim"));
  p.params.push_back(param("ht0_key_min", ir::Param::Source::ColumnMin, "dim", "d_key"));
  p.buffers.push_back(buffer("ht0_keys", ir::ScalarType::I32, "ht0_capacity", 0, ir::Buffer::Fill::Pattern,
                             ir::kEmptyKeyI32));
  p.buffers.push_back(buffer("ht0_d_year", ir::ScalarType::I32, "ht0_capacity"));
  p.buffers.push_back(buffer("ht0_overflow", ir::ScalarType::U32, "", 1));
  ir::HashTable ht;
  ht.name = "ht0";
  ht.layout = o.join_layout;
  ht.build_table = "dim";
  ht.build_alias = "dim";
  ht.build_keys = {make_column("dim", "d_key", kI32)};
  ht.payload = {plan::Attribute{"dim", "d_year", kI32, "", ""}};
  ht.capacity_param = "ht0_capacity";
  ht.key_min_param = o.join_layout == ir::HashLayout::PerfectHash ? "ht0_key_min" : "";
  ht.key_buffers = {"ht0_keys"};
  ht.payload_buffers = {"ht0_d_year"};
  ht.overflow_buffer = "ht0_overflow";
  p.hash_tables.push_back(ht);

  ir::Pipeline pl;
  pl.id = 0;
  pl.name = "p0 build ht0 on dim";
  pl.source = {"dim", "dim", "", {"d_key", "d_year"}, "rows_dim"};
  if (filter) {
    ir::PipelineOp f;
    f.kind = ir::PipelineOpKind::Filter;
    f.id = 1;
    f.predicate = filter;
    pl.ops.push_back(f);
  }
  pl.sink = {ir::SinkKind::HashBuild, "ht0"};
  pl.attributes = {source_column("dim", "d_key"), source_column("dim", "d_year")};
  p.pipelines.push_back(pl);

  ir::Kernel k;
  k.name = p.label + "_p0_build";
  k.pipeline = 0;
  k.args = {col("dim", "d_key"), col("dim", "d_year"), buf(p, "ht0_d_year", true), buf(p, "ht0_keys", true),
            buf(p, "ht0_overflow", true), prm("ht0_capacity")};
  if (o.join_layout == ir::HashLayout::PerfectHash) k.args.push_back(prm("ht0_key_min"));
  k.args.push_back(prm("rows_dim"));
  k.launch.tuples_param = "rows_dim";
  p.kernels.push_back(k);
}

ir::PipelineOp probe_op(int id) {
  ir::PipelineOp op;
  op.kind = ir::PipelineOpKind::Probe;
  op.id = id;
  op.hash_table = "ht0";
  op.probe_keys = {make_column("fact", "f_key", kI32)};
  return op;
}

ir::AttributeBinding payload_binding(int op_id) {
  ir::AttributeBinding b;
  b.attr = plan::Attribute{"dim", "d_year", kI32, "", ""};
  b.origin = ir::AttributeBinding::Origin::ProbePayload;
  b.op_id = op_id;
  b.payload_index = 0;
  b.variable = "d_year";
  return b;
}

void add_probe_args(const ir::Program& p, const ProgramOptions& o, ir::Kernel& k) {
  k.args.push_back(buf(p, "ht0_d_year", false));
  k.args.push_back(buf(p, "ht0_keys", false));
  k.args.push_back(prm("ht0_capacity"));
  if (o.join_layout == ir::HashLayout::PerfectHash) k.args.push_back(prm("ht0_key_min"));
}

// Hashed C3 under the resolution model: a per-CTA hashed table of 64 slots.
void add_local_hash_table(ir::Program& p, ir::AggregationTable& agg, const ProgramOptions& o) {
  if (o.model != ir::ExecutionModel::Resolution || !o.scratchpad) return;
  ir::Param local = param("agg0_local_slots", ir::Param::Source::Constant);
  local.value = 64;
  p.params.push_back(local);
  agg.scratchpad = true;
  agg.local_slots_param = "agg0_local_slots";
  agg.max_scratchpad_slots = 64;
}

ir::Accumulator accumulator(const std::string& name, plan::AggFunc f, plan::ExprPtr arg, const std::string& buffer) {
  ir::Accumulator a;
  a.name = name;
  a.func = f;
  a.arg = std::move(arg);
  a.type = kI64;
  a.element = ir::ScalarType::I64;
  a.buffer = buffer;
  return a;
}

}  // namespace

ir::Program scalar_join_program(const ProgramOptions& o) {
  ir::Program p;
  p.label = "t_scalar";
  p.model = o.model;
  add_dim_build(p, o, make_compare(plan::CompareOp::Eq, make_column("dim", "d_year", kI32), make_int_literal(1993, kI32)));
  p.params.push_back(param("rows_fact", ir::Param::Source::RowCount, "fact"));
  p.buffers.push_back(buffer("agg0_revenue", ir::ScalarType::I64, "", 1));
  p.buffers.push_back(buffer("agg0_count", ir::ScalarType::U64, "", 1));
  ir::AggregationTable agg;
  agg.name = "agg0";
  agg.layout = ir::AggLayout::Scalar;
  agg.accumulators = {accumulator("revenue", plan::AggFunc::Sum, make_column("", "revenue", kI64), "agg0_revenue")};
  agg.occupancy_buffer = "agg0_count";
  p.aggregations.push_back(agg);

  ir::Pipeline pl;
  pl.id = 1;
  pl.name = "p1 aggregate agg0 over fact";
  pl.source = {"fact", "fact", "", {"f_key", "f_qty", "f_price"}, "rows_fact"};
  ir::PipelineOp f;
  f.kind = ir::PipelineOpKind::Filter;
  f.id = 2;
  f.predicate = plan::make_logical(
      plan::ExprKind::And,
      {make_compare(plan::CompareOp::Ge, make_column("fact", "f_qty", kI32), make_int_literal(1, kI32)),
       make_compare(plan::CompareOp::Lt, make_column("fact", "f_qty", kI32), make_int_literal(25, kI32))});
  ir::PipelineOp m;
  m.kind = ir::PipelineOpKind::Map;
  m.id = 4;
  m.exprs = {{"revenue", plan::make_arith(plan::ArithOp::Mul, make_column("fact", "f_price", kI32),
                                          make_column("fact", "f_qty", kI32), kI64)}};
  pl.ops = {f, probe_op(3), m};
  pl.sink = {ir::SinkKind::Aggregate, "agg0"};
  ir::AttributeBinding rev;
  rev.attr = plan::Attribute{"", "revenue", kI64, "", ""};
  rev.origin = ir::AttributeBinding::Origin::Computed;
  rev.op_id = 4;
  rev.variable = "revenue";
  pl.attributes = {source_column("fact", "f_key"), source_column("fact", "f_qty"), source_column("fact", "f_price"),
                   payload_binding(3), rev};
  pl.depends_on = {0};
  p.pipelines.push_back(pl);

  ir::Kernel k;
  k.name = "t_scalar_p1_aggregate";
  k.pipeline = 1;
  k.args = {col("fact", "f_key"), col("fact", "f_price"), col("fact", "f_qty")};
  k.args.push_back(buf(p, "agg0_count", true));
  k.args.push_back(buf(p, "agg0_revenue", true));
  add_probe_args(p, o, k);
  k.args.push_back(prm("rows_fact"));
  if (o.model == ir::ExecutionModel::Resolution) k.args.push_back(scratch());
  k.reductions = {reduction(o, ir::ReductionKind::SingleAggregate, "agg0")};
  k.launch.tuples_param = "rows_fact";
  p.kernels.push_back(k);
  return p;
}

ir::Program grouped_join_program(const ProgramOptions& o) {
  ir::Program p;
  p.label = "t_grouped";
  p.model = o.model;
  add_dim_build(p, o, nullptr);
  p.params.push_back(param("rows_fact", ir::Param::Source::RowCount, "fact"));
  p.params.push_back(param("agg0_year_min", ir::Param::Source::ColumnMin, "dim", "d_year"));
  p.params.push_back(param("agg0_year_domain", ir::Param::Source::ColumnDomain, "dim", "d_year"));
  p.params.push_back(param("agg0_brand_min", ir::Param::Source::ColumnMin, "fact", "f_brand"));
  p.params.push_back(param("agg0_brand_domain", ir::Param::Source::ColumnDomain, "fact", "f_brand"));
  ir::Param slots = param("agg0_slots", ir::Param::Source::Product);
  slots.factors = {"agg0_year_domain", "agg0_brand_domain"};
  p.params.push_back(slots);
  p.buffers.push_back(buffer("agg0_sum", ir::ScalarType::I64, "agg0_slots"));
  p.buffers.push_back(buffer("agg0_min", ir::ScalarType::I64, "agg0_slots", 0, ir::Buffer::Fill::Pattern, ir::kMaxI64));
  p.buffers.push_back(buffer("agg0_max", ir::ScalarType::I64, "agg0_slots", 0, ir::Buffer::Fill::Pattern, ir::kMinI64));
  p.buffers.push_back(buffer("agg0_count", ir::ScalarType::U64, "agg0_slots"));
  p.buffers.push_back(buffer("agg0_overflow", ir::ScalarType::U32, "", 1));
  ir::AggregationTable agg;
  agg.name = "agg0";
  agg.layout = ir::AggLayout::DirectIndexed;
  agg.overflow_buffer = "agg0_overflow";
  ir::GroupKey year{"d_year", make_column("dim", "d_year", kI32), kI32, "", "", "agg0_year_min", "agg0_year_domain", ""};
  ir::GroupKey brand{"f_brand", make_column("fact", "f_brand", kI32), kI32, "", "", "agg0_brand_min", "agg0_brand_domain", ""};
  agg.keys = {year, brand};
  plan::ExprPtr price = make_column("fact", "f_price", kI32);
  agg.accumulators = {accumulator("sum_price", plan::AggFunc::Sum, price, "agg0_sum"),
                      accumulator("min_price", plan::AggFunc::Min, price, "agg0_min"),
                      accumulator("max_price", plan::AggFunc::Max, price, "agg0_max")};
  agg.slots_param = "agg0_slots";
  agg.occupancy_buffer = "agg0_count";
  agg.scratchpad = o.scratchpad;
  agg.scratchpad_bytes_per_slot = 32;
  p.aggregations.push_back(agg);

  ir::Pipeline pl;
  pl.id = 1;
  pl.name = "p1 aggregate agg0 over fact";
  pl.source = {"fact", "fact", "", {"f_key", "f_qty", "f_price", "f_brand"}, "rows_fact"};
  ir::PipelineOp f;
  f.kind = ir::PipelineOpKind::Filter;
  f.id = 2;
  f.predicate = make_compare(plan::CompareOp::Lt, make_column("fact", "f_qty", kI32), make_int_literal(40, kI32));
  pl.ops = {f, probe_op(3)};
  pl.sink = {ir::SinkKind::Aggregate, "agg0"};
  pl.attributes = {source_column("fact", "f_key"), source_column("fact", "f_qty"), source_column("fact", "f_price"),
                   source_column("fact", "f_brand"), payload_binding(3)};
  pl.depends_on = {0};
  p.pipelines.push_back(pl);

  ir::Kernel k;
  k.name = "t_grouped_p1_aggregate";
  k.pipeline = 1;
  k.args = {col("fact", "f_brand"), col("fact", "f_key"), col("fact", "f_price"), col("fact", "f_qty")};
  for (const char* b : {"agg0_count", "agg0_max", "agg0_min", "agg0_overflow", "agg0_sum"}) k.args.push_back(buf(p, b, true));
  add_probe_args(p, o, k);
  for (const char* n : {"agg0_brand_domain", "agg0_brand_min", "agg0_slots", "agg0_year_domain", "agg0_year_min", "rows_fact"})
    k.args.push_back(prm(n));
  if (o.model == ir::ExecutionModel::Resolution) k.args.push_back(scratch());
  k.reductions = {reduction(o, ir::ReductionKind::GroupedAggregate, "agg0", p.aggregations[0].scratchpad)};
  k.launch.tuples_param = "rows_fact";
  p.kernels.push_back(k);
  return p;
}

ir::Program materialize_program(const ProgramOptions& o) {
  ir::Program p;
  p.label = "t_materialize";
  p.model = o.model;
  p.params.push_back(param("rows_fact", ir::Param::Source::RowCount, "fact"));
  p.buffers.push_back(buffer("out0_f_key", ir::ScalarType::I32, "rows_fact"));
  p.buffers.push_back(buffer("out0_double_price", ir::ScalarType::I64, "rows_fact"));
  p.buffers.push_back(buffer("out0_counter", ir::ScalarType::U64, "", 1));
  ir::OutputTable out;
  out.name = "out0";
  out.columns = {{"f_key", make_column("fact", "f_key", kI32), kI32, "", "", "out0_f_key"},
                 {"double_price",
                  plan::make_arith(plan::ArithOp::Mul, make_column("fact", "f_price", kI32), make_int_literal(2, kI64), kI64),
                  kI64, "", "", "out0_double_price"}};
  out.capacity_param = "rows_fact";
  out.counter_buffer = "out0_counter";
  p.outputs.push_back(out);

  ir::Pipeline pl;
  pl.id = 0;
  pl.name = "p0 materialize out0 from fact";
  pl.source = {"fact", "fact", "", {"f_key", "f_qty", "f_price"}, "rows_fact"};
  ir::PipelineOp f;
  f.kind = ir::PipelineOpKind::Filter;
  f.id = 1;
  f.predicate = make_compare(plan::CompareOp::Lt, make_column("fact", "f_qty", kI32), make_int_literal(10, kI32));
  pl.ops = {f};
  pl.sink = {ir::SinkKind::Materialize, "out0"};
  pl.attributes = {source_column("fact", "f_key"), source_column("fact", "f_qty"), source_column("fact", "f_price")};
  p.pipelines.push_back(pl);

  ir::Kernel k;
  k.name = "t_materialize_p0_materialize";
  k.pipeline = 0;
  k.args = {col("fact", "f_key"), col("fact", "f_price"), col("fact", "f_qty"), buf(p, "out0_counter", true),
            buf(p, "out0_double_price", true), buf(p, "out0_f_key", true), prm("rows_fact")};
  if (o.model == ir::ExecutionModel::Resolution) k.args.push_back(scratch());
  k.reductions = {reduction(o, ir::ReductionKind::WritePosition, "out0")};
  k.launch.tuples_param = "rows_fact";
  p.kernels.push_back(k);
  return p;
}

ir::Program hashed_group_program(const ProgramOptions& o) {
  ir::Program p;
  p.label = "t_hashed";
  p.model = o.model;
  p.params.push_back(param("rows_fact", ir::Param::Source::RowCount, "fact"));
  p.params.push_back(param("agg0_capacity", ir::Param::Source::Capacity, "fact"));
  p.buffers.push_back(buffer("agg0_keys", ir::ScalarType::I64, "agg0_capacity", 0, ir::Buffer::Fill::Pattern, ir::kEmptyKeyI64));
  p.buffers.push_back(buffer("agg0_sum", ir::ScalarType::I64, "agg0_capacity"));
  p.buffers.push_back(buffer("agg0_count", ir::ScalarType::U64, "agg0_capacity"));
  p.buffers.push_back(buffer("agg0_overflow", ir::ScalarType::U32, "", 1));
  ir::AggregationTable agg;
  agg.name = "agg0";
  agg.layout = ir::AggLayout::GlobalHash;
  agg.keys = {ir::GroupKey{"f_key", make_column("fact", "f_key", kI32), kI32, "", "", "", "", "agg0_keys"}};
  agg.accumulators = {accumulator("sum_price", plan::AggFunc::Sum, make_column("fact", "f_price", kI32), "agg0_sum")};
  agg.slots_param = "agg0_capacity";
  agg.occupancy_buffer = "agg0_count";
  agg.overflow_buffer = "agg0_overflow";
  add_local_hash_table(p, agg, o);
  p.aggregations.push_back(agg);

  ir::Pipeline pl;
  pl.id = 0;
  pl.name = "p0 aggregate agg0 over fact";
  pl.source = {"fact", "fact", "", {"f_key", "f_qty", "f_price"}, "rows_fact"};
  ir::PipelineOp f;
  f.kind = ir::PipelineOpKind::Filter;
  f.id = 1;
  f.predicate = make_compare(plan::CompareOp::Ge, make_column("fact", "f_qty", kI32), make_int_literal(5, kI32));
  pl.ops = {f};
  pl.sink = {ir::SinkKind::Aggregate, "agg0"};
  pl.attributes = {source_column("fact", "f_key"), source_column("fact", "f_qty"), source_column("fact", "f_price")};
  p.pipelines.push_back(pl);

  ir::Kernel k;
  k.name = "t_hashed_p0_aggregate";
  k.pipeline = 0;
  k.args = {col("fact", "f_key"), col("fact", "f_price"), col("fact", "f_qty")};
  for (const char* b : {"agg0_count", "agg0_keys", "agg0_overflow", "agg0_sum"}) k.args.push_back(buf(p, b, true));
  k.args.push_back(prm("agg0_capacity"));
  if (p.aggregations[0].scratchpad) k.args.push_back(prm("agg0_local_slots"));
  k.args.push_back(prm("rows_fact"));
  k.reductions = {reduction(o, ir::ReductionKind::GroupedAggregate, "agg0", p.aggregations[0].scratchpad)};
  if (p.aggregations[0].scratchpad) k.args.push_back(scratch());
  k.launch.tuples_param = "rows_fact";
  p.kernels.push_back(k);
  return p;
}

// Two keys in lanes of one buffer, and the sum of prices kept exact in 128 bits.
ir::Program hashed_two_key_program(const ProgramOptions& o) {
  ir::Program p;
  p.label = "t_hashed2";
  p.model = o.model;
  p.params.push_back(param("rows_fact", ir::Param::Source::RowCount, "fact"));
  p.params.push_back(param("agg0_capacity", ir::Param::Source::Capacity, "fact"));
  ir::Buffer keys = buffer("agg0_keys", ir::ScalarType::I64, "agg0_capacity", 0, ir::Buffer::Fill::Pattern, ir::kEmptyKeyI64);
  keys.multiplier = 2;
  p.buffers.push_back(keys);
  ir::Buffer wide = buffer("agg0_sum", ir::ScalarType::I64, "agg0_capacity");
  wide.multiplier = 2;
  p.buffers.push_back(wide);
  p.buffers.push_back(buffer("agg0_count", ir::ScalarType::U64, "agg0_capacity"));
  p.buffers.push_back(buffer("agg0_overflow", ir::ScalarType::U32, "", 1));
  ir::AggregationTable agg;
  agg.name = "agg0";
  agg.layout = ir::AggLayout::GlobalHash;
  agg.key_lanes = 2;
  agg.keys = {ir::GroupKey{"f_key", make_column("fact", "f_key", kI32), kI32, "", "", "", "", "agg0_keys", 0},
              ir::GroupKey{"f_brand", make_column("fact", "f_brand", kI32), kI32, "", "", "", "", "agg0_keys", 1}};
  // price * 2^50 (up to 2^62.3 for prices up to 5000): a sum of a few of them leaves 64 bits.
  plan::ExprPtr scaled = plan::make_arith(plan::ArithOp::Mul, make_column("fact", "f_price", kI32), make_int_literal(int64_t{1} << 50, kI64), kI64);
  agg.accumulators = {accumulator("sum_price", plan::AggFunc::Sum, scaled, "agg0_sum")};
  agg.accumulators[0].wide = true;
  agg.slots_param = "agg0_capacity";
  agg.occupancy_buffer = "agg0_count";
  agg.overflow_buffer = "agg0_overflow";
  add_local_hash_table(p, agg, o);
  p.aggregations.push_back(agg);

  ir::Pipeline pl;
  pl.id = 0;
  pl.name = "p0 aggregate agg0 over fact";
  pl.source = {"fact", "fact", "", {"f_key", "f_brand", "f_price"}, "rows_fact"};
  pl.sink = {ir::SinkKind::Aggregate, "agg0"};
  pl.attributes = {source_column("fact", "f_key"), source_column("fact", "f_brand"), source_column("fact", "f_price")};
  p.pipelines.push_back(pl);

  ir::Kernel k;
  k.name = "t_hashed2_p0_aggregate";
  k.pipeline = 0;
  k.args = {col("fact", "f_brand"), col("fact", "f_key"), col("fact", "f_price")};
  for (const char* b : {"agg0_count", "agg0_keys", "agg0_overflow", "agg0_sum"}) k.args.push_back(buf(p, b, true));
  k.args.push_back(prm("agg0_capacity"));
  if (p.aggregations[0].scratchpad) k.args.push_back(prm("agg0_local_slots"));
  k.args.push_back(prm("rows_fact"));
  k.reductions = {reduction(o, ir::ReductionKind::GroupedAggregate, "agg0", p.aggregations[0].scratchpad)};
  if (p.aggregations[0].scratchpad) k.args.push_back(scratch());
  k.launch.tuples_param = "rows_fact";
  p.kernels.push_back(k);
  return p;
}

}  // namespace hqc::test

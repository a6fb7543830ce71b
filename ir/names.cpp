// Names of IR enums and the lookup helpers of Program and Pipeline (ir/program.h).
#include <algorithm>
#include <utility>

#include "ir/program.h"
#include "storage/error.h"

namespace hqc::ir {

const char* scalar_type_name(ScalarType t) {
  switch (t) {
    case ScalarType::I32: return "i32";
    case ScalarType::I64: return "i64";
    case ScalarType::U32: return "u32";
    case ScalarType::U64: return "u64";
    case ScalarType::F64: return "f64";
  }
  return "?";
}

uint32_t scalar_bytes(ScalarType t) {
  return (t == ScalarType::I32 || t == ScalarType::U32) ? 4 : 8;
}

ScalarType scalar_of(const DataType& t) {
  if (t.is_string() && t.packed) return ScalarType::I64;  // bytes packed into an int64 (ir/state.h)
  switch (t.id) {
    case TypeId::Int64:
    case TypeId::Decimal: return ScalarType::I64;
    case TypeId::Float64: return ScalarType::F64;
    default: return ScalarType::I32;  // Int32, Date, dictionary codes, Bool
  }
}

const char* hash_layout_name(HashLayout l) {
  switch (l) {
    case HashLayout::PerfectHash: return "perfect_hash";
    case HashLayout::LinearProbing: return "linear_probing";
    case HashLayout::Chained: return "chained";
  }
  return "?";
}

const char* agg_layout_name(AggLayout l) {
  switch (l) {
    case AggLayout::Scalar: return "scalar";
    case AggLayout::DirectIndexed: return "direct_indexed";
    case AggLayout::GlobalHash: return "global_hash";
  }
  return "?";
}

const char* pipeline_op_kind_name(PipelineOpKind k) {
  switch (k) {
    case PipelineOpKind::Filter: return "filter";
    case PipelineOpKind::Probe: return "probe";
    case PipelineOpKind::Map: return "map";
  }
  return "?";
}

const char* sink_kind_name(SinkKind k) {
  switch (k) {
    case SinkKind::HashBuild: return "hash_build";
    case SinkKind::Aggregate: return "aggregate";
    case SinkKind::Materialize: return "materialize";
  }
  return "?";
}

const char* execution_model_name(ExecutionModel m) {
  switch (m) {
    case ExecutionModel::Resolution: return "resolution";
    case ExecutionModel::Pipelined: return "pipelined";
    case ExecutionModel::OperatorAtATime: return "operator_at_a_time";
    case ExecutionModel::MultiPass: return "multi_pass";
  }
  return "?";
}

ExecutionModel parse_execution_model(const std::string& name) {
  for (ExecutionModel m : {ExecutionModel::Resolution, ExecutionModel::Pipelined, ExecutionModel::OperatorAtATime,
                           ExecutionModel::MultiPass}) {
    if (name == execution_model_name(m)) return m;
  }
  throw Error(ErrorKind::Usage, "unknown execution model \"" + name +
                                    "\" (expected resolution, pipelined, operator_at_a_time or multi_pass)");
}

const char* technique_name(Technique t) {
  static const char* names[] = {"A1", "A2", "A3", "B1", "B2", "B3", "C1", "C2", "C3"};
  return names[static_cast<int>(t)];
}

const char* kernel_kind_name(KernelKind k) {
  switch (k) {
    case KernelKind::Compound: return "compound";
    case KernelKind::CompactCount: return "compact_count";
    case KernelKind::CompactGather: return "compact_gather";
    case KernelKind::PassCount: return "pass_count";
    case KernelKind::PassWrite: return "pass_write";
    case KernelKind::PassFinish: return "pass_finish";
  }
  return "?";
}

const char* library_op_name(LibraryOp op) {
  switch (op) {
    case LibraryOp::InclusiveScan: return "inclusive_scan";
    case LibraryOp::SortByKey: return "sort_by_key";
    case LibraryOp::Gather: return "gather";
    case LibraryOp::Reduce: return "reduce";
    case LibraryOp::ReduceByKey: return "reduce_by_key";
  }
  return "?";
}

const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return "sum";
    case ReduceOp::Min: return "min";
    case ReduceOp::Max: return "max";
  }
  return "?";
}

const char* reduction_kind_name(ReductionKind k) {
  switch (k) {
    case ReductionKind::WritePosition: return "write_position";
    case ReductionKind::SingleAggregate: return "single_aggregate";
    case ReductionKind::GroupedAggregate: return "grouped_aggregate";
  }
  return "?";
}

const char* local_resolution_name(LocalResolution l) {
  switch (l) {
    case LocalResolution::None: return "none";
    case LocalResolution::Simd: return "simd";
    case LocalResolution::WorkEfficient: return "work_efficient";
  }
  return "?";
}

namespace {
template <typename T>
const T* find_named(const std::vector<T>& v, const std::string& name) {
  auto it = std::find_if(v.begin(), v.end(), [&](const T& x) { return x.name == name; });
  return it == v.end() ? nullptr : &*it;
}
}  // namespace

const Param* Program::find_param(const std::string& name) const { return find_named(params, name); }
const Buffer* Program::find_buffer(const std::string& name) const { return find_named(buffers, name); }
const HashTable* Program::find_hash_table(const std::string& name) const { return find_named(hash_tables, name); }
const AggregationTable* Program::find_aggregation(const std::string& name) const { return find_named(aggregations, name); }
const OutputTable* Program::find_output(const std::string& name) const { return find_named(outputs, name); }
HashTable* Program::find_hash_table(const std::string& name) { return const_cast<HashTable*>(std::as_const(*this).find_hash_table(name)); }
OutputTable* Program::find_output(const std::string& name) { return const_cast<OutputTable*>(std::as_const(*this).find_output(name)); }

bool Program::scans_share(const Pipeline& p) const {
  if (partitioned_tables.count(p.source.table) != 0) return true;
  const OutputTable* out = p.source.output.empty() ? nullptr : find_output(p.source.output);
  return out != nullptr && !out->shuffle_columns.empty();
}

const AttributeBinding* Pipeline::find_attribute(const std::string& source, const std::string& name) const {
  for (const AttributeBinding& b : attributes) {
    if (b.attr.source == source && b.attr.name == name) return &b;
  }
  return nullptr;
}

int64_t ParamValues::at(const std::string& name) const {
  auto it = values.find(name);
  if (it == values.end()) throw Error(ErrorKind::Internal, "run-time parameter \"" + name + "\" has no value");
  return it->second;
}

int Pipeline::null_probe(const std::string& source, const std::string& name) const {
  const AttributeBinding* b = find_attribute(source, name);
  if (b == nullptr) return -1;
  for (const PipelineOp& op : ops) {
    if (op.id != b->op_id) continue;
    if (b->origin == AttributeBinding::Origin::ProbePayload) return op.join_type == plan::JoinType::LeftOuter && !op.explicit_nulls ? op.id : -1;
    if (b->origin == AttributeBinding::Origin::Computed) {
      for (const plan::NamedExpr& e : op.exprs)
        if (e.name == name && e.expr->kind == plan::ExprKind::Column && !(e.expr->source == source && e.expr->column == name))
          return null_probe(e.expr->source, e.expr->column);
    }
  }
  return -1;
}

}  // namespace hqc::ir

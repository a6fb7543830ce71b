// Pipelines of the IR: a source scan, a straight line of operators, and one sink.
//
// Contract (established by ir/build_pipelines.h, checked by ir/verifier.h):
//   - a pipeline reads one source (a base table, an output materialized by an earlier pipeline,
//     or an aggregation table an earlier pipeline filled: the stages of a multi-stage query),
//     applies Filter / Probe / Map ops in order, and ends in exactly one sink;
//   - every attribute an op or the sink references is bound in `attributes` before its first use:
//     by the source (SourceColumn), by an earlier Probe (ProbePayload) or by an earlier Map
//     (Computed);
//   - a Probe reads a hash table built by a pipeline listed in `depends_on`, which comes earlier
//     in Program::pipelines.
//   - op ids are unique across the program (codegen prints them in banner comments).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "frontend/logical_plan.h"
#include "ir/state.h"

namespace hqc::ir {

enum class PipelineOpKind : uint8_t {
  Filter,  // drop tuples where `predicate` is false
  Probe,   // look the probe keys up in `hash_table`; inner: drop tuples without a match and bind
           // the payload attributes of the match (every match, when the table's keys are not
           // unique); left_outer: as inner, but a tuple without a match passes once with NULL
           // payload; semi: keep tuples with a match; anti: keep tuples without one. A semi/anti
           // match counts only where `residual` (over probe attributes and the table's payload)
           // holds.
  Map,     // compute `exprs` and bind them as Computed attributes
};
const char* pipeline_op_kind_name(PipelineOpKind k);

struct PipelineOp {
  PipelineOpKind kind = PipelineOpKind::Filter;
  int id = 0;
  plan::ExprPtr predicate;                   // Filter
  std::string hash_table;                    // Probe
  std::vector<plan::ExprPtr> probe_keys;     // Probe: parallel to HashTable::build_keys
  plan::JoinType join_type = plan::JoinType::Inner;
  bool explicit_nulls = false;               // Probe (left outer): plan::LogicalOp::explicit_nulls
  plan::ExprPtr residual;                    // Probe (semi/anti): extra match condition, or nullptr
  std::vector<plan::NamedExpr> exprs;        // Map
};

enum class SinkKind : uint8_t {
  HashBuild,    // insert (keys, payload) into hash table `state`
  Aggregate,    // accumulate into aggregation table `state` (scalar or grouped)
  Materialize,  // append rows to output `state`
};
const char* sink_kind_name(SinkKind k);

struct Sink {
  SinkKind kind = SinkKind::Materialize;
  std::string state;
};

struct SourceScan {
  std::string table;   // physical table (empty when reading a materialized output or an aggregation)
  std::string alias;   // scan alias the attributes carry as `source`
  std::string output;  // name of an OutputTable written by an earlier pipeline, or empty
  std::vector<std::string> columns;  // columns read (only those referenced downstream), in order
  std::string rows_param;            // tuples to process (RowCount of the table, or the output's
                                     // counter read back by the executor)
  // Name of an AggregationTable filled by an earlier pipeline, or empty: the pipeline then runs one
  // work-item per slot of the table (rows_param = its slots; a scalar table has one), drops empty
  // slots (occupancy 0; a scalar table's single slot always stays, see ir/build_pipelines.cpp) and
  // binds the group keys and accumulators named in `columns` as source attributes (source "").
  std::string aggregation;
};

struct AttributeBinding {
  enum class Origin : uint8_t { SourceColumn, ProbePayload, Computed };
  plan::Attribute attr;
  Origin origin = Origin::SourceColumn;
  int op_id = -1;           // the Probe or Map that binds it (-1 for the source)
  size_t payload_index = 0; // ProbePayload: index into HashTable::payload / payload_buffers
  std::string variable;     // C identifier codegen uses for the value in registers: "lo_quantity",
                            // "n1_n_name", "c_revenue"
};

struct Pipeline {
  int id = 0;
  std::string name;  // "p0 build ht0 on date"
  SourceScan source;
  std::vector<PipelineOp> ops;
  Sink sink;
  std::vector<int> depends_on;            // pipelines whose state this one reads
  std::vector<AttributeBinding> attributes;  // in binding order
  // The U32 flag word its overflow-checked expressions raise HQC_FLAG_ARITH_OVERFLOW in; empty when
  // none is checked (pass flag_arithmetic).
  std::string arith_flags;

  // nullptr when (source, name) is not bound in this pipeline.
  const AttributeBinding* find_attribute(const std::string& source, const std::string& name) const;
  // The id of the left outer Probe whose payload (source, name) is — directly, or through Map
  // expressions that only copy a column — so NULL where that probe found no match; -1 when the
  // attribute is never NULL.
  int null_probe(const std::string& source, const std::string& name) const;
};

}  // namespace hqc::ir

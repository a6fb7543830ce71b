// Pass compact_result: the aggregation table the host reads as the query's result is compacted on
// the device before it is copied back (templates/device/compact.h).
//   expects: kernels built (fuse_pipelines), one compound kernel per pipeline.
//   guarantees: when ResultDesc reads a grouped (direct-indexed or hashed) aggregation table, that
//     table gets a Compaction (ir/state.h): a dense buffer per key / accumulator buffer the result
//     reads (same element type and words per slot: key lanes, both words of a 128-bit sum), a chunk
//     count buffer, a row counter and, for a direct-indexed table, the slot index per row; and two
//     kernels, appended after the compound kernels and belonging to the aggregating pipeline, so
//     they run right after it: CompactCount (occupied slots per chunk) and CompactGather (prefix
//     sum → every word of an occupied slot to its dense row, in slot order).
//   Only the result table: a table a later pipeline scans stays sparse (that pipeline reads it on
//   the device and skips empty slots itself), and a scalar aggregate has one slot anyway. The host
//   then reads `rows_buffer` rows of the dense buffers (runtime/execution/lower_program.cpp).
#include "ir/fusion.h"
#include "ir/passes.h"
#include "storage/error.h"

namespace hqc::ir {

namespace {

void add_buffer(Program& program, Buffer b) {
  if (program.find_buffer(b.name) != nullptr)
    throw Error(ErrorKind::Internal, "compact_result: buffer " + b.name + " already exists");
  program.buffers.push_back(std::move(b));
}

}  // namespace

void compact_result(Program& program) {
  if (program.result.kind != ResultDesc::Kind::Aggregation) return;
  AggregationTable* agg = nullptr;
  for (AggregationTable& a : program.aggregations)
    if (a.name == program.result.state) agg = &a;
  if (agg == nullptr) throw Error(ErrorKind::Internal, "compact_result: the result reads unknown aggregation " + program.result.state);
  if (agg->layout == AggLayout::Scalar || agg->compaction) return;
  int pipeline = -1;
  for (const Pipeline& p : program.pipelines)
    if (p.sink.kind == SinkKind::Aggregate && p.sink.state == agg->name) pipeline = p.id;
  if (pipeline < 0) throw Error(ErrorKind::Internal, "compact_result: no pipeline aggregates into " + agg->name);

  Compaction c;
  const std::string base = agg->name + "_dense";
  auto dense_of = [&](const std::string& from, uint32_t words) {
    if (c.dense(from) != nullptr) return;
    const Buffer* b = program.find_buffer(from);
    if (b == nullptr) throw Error(ErrorKind::Internal, "compact_result: " + agg->name + " names unknown buffer " + from);
    Buffer d{from + "_dense", b->element, 0, agg->slots_param, words, Buffer::Fill::None, 0,
             "dense copy of " + from + " (rows of " + c.rows_buffer + ")"};
    add_buffer(program, d);
    c.columns.push_back({from, d.name, words});
  };
  c.counts_buffer = base + "_chunks";
  c.rows_buffer = base + "_rows";
  add_buffer(program, {c.counts_buffer, ScalarType::U64, kCompactChunks, "", 1, Buffer::Fill::None, 0,
                       "occupied slots of " + agg->name + " per chunk (HQC_COMPACT_CHUNKS)"});
  add_buffer(program, {c.rows_buffer, ScalarType::U64, 1, "", 1, Buffer::Fill::Zero, 0, "dense rows of " + agg->name + " (groups)"});
  if (agg->layout == AggLayout::DirectIndexed) {
    c.slot_buffer = base + "_slot";
    add_buffer(program, {c.slot_buffer, ScalarType::I64, 0, agg->slots_param, 1, Buffer::Fill::None, 0,
                         "slot index of each dense row of " + agg->name + " (its keys)"});
  } else {
    for (const GroupKey& k : agg->keys) dense_of(k.key_buffer, agg->key_lanes);
  }
  for (const Accumulator& a : agg->accumulators) dense_of(a.buffer, a.wide ? 2 : 1);

  const std::string prefix = program.label + "_p" + std::to_string(pipeline) + "_" + agg->name;
  Kernel count;
  count.name = prefix + "_compact_count";
  count.kind = KernelKind::CompactCount;
  count.state = agg->name;
  count.pipeline = pipeline;
  count.args = {buffer_arg(program, agg->occupancy_buffer, false), buffer_arg(program, c.counts_buffer, true),
                param_arg(program, agg->slots_param)};
  Kernel gather;
  gather.name = prefix + "_compact_gather";
  gather.kind = KernelKind::CompactGather;
  gather.state = agg->name;
  gather.pipeline = pipeline;
  gather.args.push_back(buffer_arg(program, agg->occupancy_buffer, false));
  gather.args.push_back(buffer_arg(program, c.counts_buffer, false));
  for (const CompactedColumn& col : c.columns) gather.args.push_back(buffer_arg(program, col.from, false));
  for (const CompactedColumn& col : c.columns) gather.args.push_back(buffer_arg(program, col.to, true));
  if (!c.slot_buffer.empty()) gather.args.push_back(buffer_arg(program, c.slot_buffer, true));
  gather.args.push_back(buffer_arg(program, c.rows_buffer, true));
  gather.args.push_back(param_arg(program, agg->slots_param));
  agg->compaction = std::move(c);
  program.kernels.push_back(std::move(count));
  program.kernels.push_back(std::move(gather));
}

}  // namespace hqc::ir

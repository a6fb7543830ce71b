// Pass compact_result: the aggregation table the host reads as the query's result is compacted on
// the device before it is copied back (templates/compact/compact.h).
//   expects: kernels built (fuse_pipelines), one compound kernel per pipeline.
//   guarantees: when ResultDesc reads a grouped (direct-indexed or hashed) aggregation table, that
//     table gets a Compaction (ir/state.h): a dense buffer per key / accumulator buffer the result
//     reads (same element type and words per slot: key lanes, both words of a 128-bit sum), a chunk
//     count buffer, a row counter and, for a direct-indexed table, the slot index per row; and two
//     kernels, appended after the compound kernels and belonging to the aggregating pipeline, so
//     they run right after it: CompactCount (occupied slots per chunk) and CompactGather (prefix
//     sum → every word of an occupied slot to its dense row, in slot order), one per group of
//     kCompactColumns columns. Both are kernels of the compaction module (templates/compact/
//     compact.h: kCompactCountKernel, kCompactGather[Slots]Kernel), not generated: their arguments
//     follow its signatures, and a constant param (<agg>_dense_shape[_<g>]) gives each gathered
//     column's 32-bit words per slot, a byte per column.
//   Only the result table: a table a later pipeline scans stays sparse (that pipeline reads it on
//   the device and skips empty slots itself), and a scalar aggregate has one slot anyway. The host
//   then reads `rows_buffer` rows of the dense buffers (runtime/execution/lower_program.cpp).
#include <algorithm>

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

  // The kernels are the compaction module's (templates/compact/compact.h), not the query's: the
  // same names in every program, the columns in groups of kCompactColumns per gather launch, each
  // group's 32-bit words per slot packed a byte per column into a constant parameter.
  const Buffer& occupancy = *program.find_buffer(agg->occupancy_buffer);
  if (scalar_bytes(occupancy.element) != 8)
    throw Error(ErrorKind::Internal, "compact_result: occupancy " + occupancy.name + " is not 64-bit");
  Kernel count;
  count.name = kCompactCountKernel;
  count.kind = KernelKind::CompactCount;
  count.state = agg->name;
  count.pipeline = pipeline;
  count.args = {buffer_arg(program, agg->occupancy_buffer, false), buffer_arg(program, c.counts_buffer, true),
                param_arg(program, agg->slots_param)};
  program.kernels.push_back(std::move(count));
  const size_t groups = std::max<size_t>(1, (c.columns.size() + kCompactColumns - 1) / kCompactColumns);
  for (size_t g = 0; g < groups; ++g) {
    Kernel gather;
    const bool slots = g == 0 && !c.slot_buffer.empty();
    gather.name = slots ? kCompactGatherSlotsKernel : kCompactGatherKernel;
    gather.kind = KernelKind::CompactGather;
    gather.state = agg->name;
    gather.pipeline = pipeline;
    gather.args.push_back(buffer_arg(program, agg->occupancy_buffer, false));
    gather.args.push_back(buffer_arg(program, c.counts_buffer, false));
    gather.args.push_back(buffer_arg(program, c.rows_buffer, true));
    if (slots) gather.args.push_back(buffer_arg(program, c.slot_buffer, true));
    gather.args.push_back(param_arg(program, agg->slots_param));
    Param shape;
    shape.name = base + "_shape" + (g == 0 ? "" : "_" + std::to_string(g));
    shape.source = Param::Source::Constant;
    shape.type = ScalarType::I64;
    shape.comment = "32-bit words per slot of the gathered columns, a byte each";
    std::vector<KernelArg> columns;
    for (size_t i = 0; i < kCompactColumns; ++i) {
      const size_t at = g * kCompactColumns + i;
      if (at >= c.columns.size()) {
        // Unused: 0 words, never read; any of the kernel's own buffers.
        columns.push_back(buffer_arg(program, agg->occupancy_buffer, false));
        columns.push_back(buffer_arg(program, c.rows_buffer, true));
        continue;
      }
      const CompactedColumn& col = c.columns[at];
      const uint64_t words = uint64_t{col.words} * scalar_bytes(program.find_buffer(col.from)->element) / 4;
      if (words == 0 || words > 255)
        throw Error(ErrorKind::Internal, "compact_result: " + col.from + " has " + std::to_string(words) + " 32-bit words per slot (1..255)");
      shape.value |= static_cast<int64_t>(words << (8 * i));
      columns.push_back(buffer_arg(program, col.from, false));
      columns.push_back(buffer_arg(program, col.to, true));
    }
    program.params.push_back(shape);
    gather.args.push_back(param_arg(program, shape.name));
    gather.args.insert(gather.args.end(), columns.begin(), columns.end());
    program.kernels.push_back(std::move(gather));
  }
  agg->compaction = std::move(c);
}

}  // namespace hqc::ir

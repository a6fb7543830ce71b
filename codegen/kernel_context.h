// Internal to codegen/: the state shared by the kernel frame (kernel_emitter.cpp), the pipeline
// operators (operator_emitter.cpp) and the sinks (sink_emitter.cpp) while one compound kernel is
// written. Not included outside codegen/.
//
// Contract: a KernelContext is built for one (program, pipeline, kernel, dialect); `require_*`
// throw hqc::Error(Internal) naming the kernel and the missing name, so an IR/codegen mismatch is
// reported where it happens rather than as a compile error in generated source.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "codegen/dialect.h"
#include "codegen/expr_emitter.h"
#include "codegen/generated_program.h"
#include "codegen/source_writer.h"
#include "ir/program.h"

namespace hqc::codegen::detail {

// A region of the CTA's dynamic scratchpad, in 8-byte words.
struct ScratchRegion {
  std::string pointer;        // names::scratch_pointer(...)
  std::string element;        // "hqc_u64", "hqc_i64", "hqc_f64"
  std::string words_expr;     // device expression for the region's size in words
  ScratchSize size;           // the same size, for the manifest
};

struct KernelContext {
  const ir::Program& program;
  const ir::Pipeline& pipeline;
  const ir::Kernel& kernel;
  Dialect dialect;
  SourceWriter& w;
  KernelManifest& manifest;
  std::vector<ScratchRegion> scratch;
  // Scratchpad word of hqc_cta_any() for CTA-uniform match loops (empty: loops are per work-item).
  std::string match_any_scratch;
  // Several tiles per iteration (SinkEmitter::tiles_per_iteration): columns load through the flat
  // (branch-free) loads of device/tile.h, so that one tile's loads do not wait for another's.
  bool flat_loads = false;

  // Register variable of an attribute of this pipeline.
  std::string variable(const std::string& source, const std::string& name) const;
  const ir::AttributeBinding& binding(const std::string& source, const std::string& name) const;
  // The kernel argument called `name` (a buffer or param): returns `name`.
  const std::string& require_arg(const std::string& name) const;
  const ir::Buffer& require_buffer(const std::string& name) const;
  std::string expr(const plan::Expr& e) const;
  // The same with the attributes (and heap strings: none when empty) named by the caller, e.g. a
  // semi join's residual over a match's payload; checked arithmetic still reports to the flag word.
  std::string expr(const plan::Expr& e, const AttributeResolver& resolve, const StringResolver& resolve_string) const;
  // The byte pointer and range variables of a heap string column of the scanned table (loaded by
  // emit_operators), or the range expressions of a probe payload's row in its base column;
  // Unsupported for heap strings from elsewhere (outputs, aggregation tables).
  StringView string_view(const std::string& source, const std::string& name) const;
  // Registers a scratchpad region; returns its pointer name.
  std::string add_scratch(const std::string& pointer, const std::string& element, const std::string& words_expr,
                          const ScratchSize& size);
  // "Kernel q1_1_p1_aggregate (pipeline 1)": the prefix of every error message.
  std::string where() const;
};

// The hqc_* element type of a buffer ("hqc_i32", "hqc_i64", "hqc_u64", ...).
const char* element_type(ir::ScalarType t);
// Suffix of typed template functions for a scalar type ("i32", "i64", "f64").
const char* template_suffix(ir::ScalarType t);
// A Column argument's device element type and load-function suffix: its stored width where pass
// narrow_columns narrowed it ("hqc_i8" / "i8", "hqc_i16" / "i16", "hqc_i32" / "i32"), else its type's.
const char* column_element_type(const ir::KernelArg& a);
const char* column_load_suffix(const ir::KernelArg& a);

// One parameter of a kernel signature ("HQC_GLOBAL const hqc_i64* agg0_tuples"); "" for Scratch.
std::string kernel_parameter(const ir::KernelArg& a);

// The manifest of a compaction kernel of pass compact_result (compaction_emitter.cpp): a kernel of
// the compaction module, not of the generated source.
void compaction_manifest(const ir::Program& program, const ir::Kernel& kernel, KernelManifest& manifest);

// The local-resolution mechanism actually generated for a requested one in this dialect.
ir::LocalResolution effective_local(ir::LocalResolution requested, Dialect dialect);

// One sink of a pipeline, written in three places of the kernel frame.
class SinkEmitter {
 public:
  virtual ~SinkEmitter() = default;
  // Registers scratch regions and manifest reductions; runs before anything is written.
  virtual void plan(KernelContext& ctx) = 0;
  virtual void before_loop(KernelContext& ctx) = 0;  // after scratch pointers, before the tile loop
  // First statement(s) of a tile iteration, before the operators (a multi-pass write position).
  virtual void begin_tuple(KernelContext&) {}
  virtual void in_loop(KernelContext& ctx) = 0;      // last statement(s) of a tile iteration
  virtual void after_loop(KernelContext& ctx) = 0;   // global propagation after the tile loop
  // Tiles per iteration of the tile loop (known once plan() ran). 1: one tile of HQC_BDIM() rows.
  // Above 1, each iteration takes that many consecutive tiles, the operators and in_loop() once per
  // tile in an unrolled loop (so a work-item has that many rows' loads in flight), between
  // before_tiles() (declares what in_loop() keeps of each tile) and after_tiles() (uses it).
  virtual uint32_t tiles_per_iteration() const { return 1; }
  virtual void before_tiles(KernelContext&) {}
  virtual void after_tiles(KernelContext&) {}
};

// The sink of `kernel` (a compound kernel, or a multi-pass count / write kernel) of `pipeline`.
std::unique_ptr<SinkEmitter> make_sink_emitter(const ir::Pipeline& pipeline, const ir::Kernel& kernel);
// The multi-pass count sink, and the write sink of an aggregation (multi_pass_emitter.cpp).
std::unique_ptr<SinkEmitter> make_multi_pass_sink(const ir::Pipeline& pipeline, const ir::Kernel& kernel);
// The multi-pass finish kernel: the library's reduced values into the table (multi_pass_emitter.cpp).
void emit_finish_kernel(const ir::Program& program, const ir::Kernel& kernel, SourceWriter& w, KernelManifest& manifest);

// One accumulator (or the occupancy count) as the templates see it.
struct AccumulatorPlan {
  std::string name;       // accumulator name, or "count" for the occupancy
  std::string op;         // "sum", "min", "max"
  std::string type;       // "i64" | "f64" | "i128" (exact decimal sum, two words per slot)
  std::string buffer;     // global buffer name
  std::string pointer;    // global pointer expression of the right type
  std::string input;      // device expression of this tuple's contribution
  std::string identity;   // register / scratchpad initial value
  std::string state;      // 128-bit MIN/MAX: the state-word buffer of the locked update
  uint64_t input_bound = 0;  // SUM: the largest |input| (ir::Accumulator::input_bound), 0 unknown
};

// The accumulators of `agg` with this tuple's contribution, and last (when the table has one) its
// occupancy count; Unsupported for a NULL-able payload read by a key or an accumulator other than
// COUNT(column), and for MIN/MAX of doubles (sink_emitter.cpp).
std::vector<AccumulatorPlan> plan_accumulators(KernelContext& ctx, const ir::AggregationTable& agg);
// The direct-indexed slot of this tuple as names::group_index(agg) (a key outside its domain raises
// the table's flag and clears `flag`).
void emit_direct_slot(KernelContext& ctx, const ir::AggregationTable& agg);
// Declares the key variable of a hashed table (names::group_key(agg)); returns its name.
std::string emit_group_key(KernelContext& ctx, const ir::AggregationTable& agg);
// Find-or-insert of key variable `key` in the global hash table of `agg`: its slot, or -1 with the
// table's flag raised (an expression).
std::string hashed_group_slot(KernelContext& ctx, const ir::AggregationTable& agg, const std::string& key);

// Pipeline operators inside the tile loop (operator_emitter.cpp): loads are placed right before
// the first operator that needs a column; filters and probes narrow `flag`.
void emit_operators(KernelContext& ctx, const std::function<void()>& sink);
// Runs after the sink's plan(): registers what the operators need before the frame is written
// (the scratchpad word of CTA-uniform match loops).
void plan_operators(KernelContext& ctx);
// The slot variable of the left outer probe whose payload (source, name) is, or "" when the
// attribute is never NULL. A payload read at slot -1 is 0: the sink must test the slot.
std::string null_slot(const KernelContext& ctx, const std::string& source, const std::string& name);

}  // namespace hqc::codegen::detail

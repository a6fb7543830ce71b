// The sink of a compound kernel: hash build, aggregation (scalar or grouped) or materialization,
// with the reduction technique of HorseQC Table 4 the IR chose for it.
//
// Expects: the operators have run (operator_emitter.cpp): `flag` says whether the tuple reaches the
//   sink and every attribute the sink reads is a register variable.
// Guarantees (techniques as generated; ManifestReduction records each, with the IR's note for a C2
// under the resolution model, or codegen's own when the dialect has no SIMD level):
//   - HashBuild: insert with the layout's build primitive, then store the payload columns. A
//     keys-only table (semi/anti join) on one key column and linear probing inserts a key only
//     when absent, so duplicate build keys share a slot. Composite keys: hash of all columns,
//     slot claimed on the first, the others stored beside it; every build row gets a slot.
//     A probe bitmap (ir::HashTable::bitmap_buffer, perfect hash only) gets the bit of each built slot.
//     A table with a count (ir::HashTable::count_buffer) adds the rows reaching the sink to it:
//     under the resolution model counted in a register over the tiles, one CTA reduction and one
//     atomic per CTA at the end (as B3); otherwise one atomic per row.
//   - Materialize: A3 = CTA prefix sum (SIMD or work-efficient) + one atomic per CTA per tile;
//     A2 = one atomic per tuple. Rows past the output capacity are never written; where the
//     capacity is an estimate (several matches per probe) they raise the output's overflow flag.
//   - COUNT(column) of a left outer join's payload counts only tuples with a match; a result
//     column of it writes its validity (1 = value, 0 = NULL); any other use of that (NULL-able)
//     payload throws Unsupported.
//   - Scalar aggregate: B3 = register accumulation over all tiles of the CTA, one CTA reduction and
//     one atomic per CTA at the end; B2 = one atomic per qualifying tuple.
//   - Direct-indexed grouped aggregate: C3 = table privatised in scratchpad, scratchpad atomics per
//     tuple, one global atomic per non-empty group per CTA at the end; C2 = global atomics per tuple.
//     C3 only where the fusion pass privatised the table (AggregationTable::scratchpad). A C3 table
//     of a few slots (the statistics' count) is updated less often: on CUDA each warp combines its
//     lanes per group by shuffles and lane 0 adds the totals to the warp's own copy of the slots
//     (plain stores; the CTA's table by atomics for a data's group past the copy), merged after the
//     loop; without warps and outside probes each work-item keeps the slots in registers, merged
//     after the loop. Either way the CTA's table and its flush stay as above.
//   - Hashed grouped aggregate: C2 — find-or-insert the key (one key column: a CAS on it; several:
//     a private array of the keys, one lane each per slot), global atomics at its slot. C3 — a small
//     hashed table per CTA in scratchpad (AggregationTable::local_slots_param slots): scratchpad
//     atomics per tuple, the global table for tuples it has no room for, and after the loop one
//     find-or-insert plus one atomic per aggregate per occupied slot; only where the fusion pass
//     privatised the table (the statistics expect few enough groups).
//   - C2 with warp runs (CUDA, resolution model, a group key sorted in scan order —
//     AggregationTable::sorted_key, e.g. lineitem's l_orderkey —, a sink outside any match loop, no
//     locked 128-bit MIN/MAX): neighbouring lanes of a warp whose tuples qualify and fall into the same
//     group are combined by shuffles first (device/warp_groups.cuh), and the run's last lane alone
//     finds the group and updates it with the run's totals; a warp without such neighbours updates per
//     tuple as plain C2. Recorded as C2 with the SIMD level of local resolution. Without sorted input
//     the combining is not generated: its few instructions per tuple cost selective unsorted
//     aggregations 10-20 % (bench/results/2026-11-28-h100-warp-runs).
//   - The occupancy buffer counts tuples per slot (the host's "group exists" test).
//   - A 128-bit sum (ir::Accumulator::wide) uses the *_i128 templates in every technique: per-tuple
//     values are int64, accumulators and buffers hold two words (low, high) per slot. A 128-bit
//     output column (Decimal(38, s), ir/decimal128.cpp) is written whole by hqc_i128_store.
//   - MIN/MAX of a 128-bit value (ir::Accumulator::state_buffer): per-tuple values are hqc_i128;
//     B3 reduces them per CTA and makes one locked update per CTA (hqc_cta_{min,max}_i128_*_to), B2
//     and C2 one locked update per tuple (templates/device/base.h argues the lock). A grouped table
//     holding one runs C2 (the fusion pass never privatises it).
#include <algorithm>
#include <limits>
#include <set>

#include "codegen/expr_emitter.h"
#include "codegen/kernel_context.h"
#include "codegen/names.h"
#include "ir/walk.h"
#include "storage/error.h"

namespace hqc::codegen::detail {
namespace {

const ir::Reduction* find_reduction(const KernelContext& ctx, const std::string& state) {
  for (const ir::Reduction& r : ctx.kernel.reductions)
    if (r.state == state) return &r;
  return nullptr;
}

bool is_resolution(ir::Technique t) { return t == ir::Technique::A3 || t == ir::Technique::B3 || t == ir::Technique::C3; }
bool is_multi_pass(ir::Technique t) { return t == ir::Technique::A1 || t == ir::Technique::B1 || t == ir::Technique::C1; }

const ir::Reduction& require_reduction(const KernelContext& ctx, const std::string& state) {
  const ir::Reduction* r = find_reduction(ctx, state);
  if (r == nullptr) throw Error(ErrorKind::Internal, ctx.where() + ": no reduction listed for state " + state);
  if (is_multi_pass(r->technique) != (ctx.kernel.kind == ir::KernelKind::PassWrite))
    throw Error(ErrorKind::Internal, ctx.where() + ": technique " + std::string(ir::technique_name(r->technique)) + " in a " +
                                         ir::kernel_kind_name(ctx.kernel.kind) + " kernel");
  return *r;
}

const char* mech(ir::LocalResolution l) { return l == ir::LocalResolution::Simd ? "simd" : "we"; }

void note_constraints(KernelContext& ctx, ir::LocalResolution local) {
  if (local == ir::LocalResolution::Simd) ctx.manifest.block_size_multiple = 32;
  ctx.manifest.power_of_two_block = true;  // the work-efficient trees and the SIMD scan's warp count
}

// The scratchpad of one CTA reduction (hqc_cta_*_to, device/reduce.h) by `local`, with its block
// constraints; returns its pointer's name.
std::string add_reduce_scratch(KernelContext& ctx, ir::LocalResolution local, const std::string& pointer) {
  note_constraints(ctx, local);
  ScratchSize size;
  std::string words;
  if (local == ir::LocalResolution::Simd) {
    size.fixed_bytes = 33 * 8;
    words = "HQC_REDUCE_SIMD_WORDS";
  } else {
    size.bytes_per_thread = 8;
    words = "HQC_BDIM()";
  }
  return ctx.add_scratch(pointer, "hqc_u64", words, size);
}

// A left outer join's payload is NULL (read as 0) where nothing matched: only COUNT(column) tests
// for that so far; any other use would turn NULL into 0.
void reject_nullable(const KernelContext& ctx, const plan::Expr& e, const std::string& what) {
  plan::visit(e, [&](const plan::Expr& x) {
    if (x.kind == plan::ExprKind::Column && !null_slot(ctx, x.source, x.column).empty())
      throw Error(ErrorKind::Unsupported, ctx.where() + ": " + what + " reads " + x.source + "." + x.column +
                                              ", which a left outer join makes NULL where nothing matched; only COUNT(" +
                                              x.column + ") of such a column is generated yet");
  });
}

// ---------------------------------------------------------------- hash build

class HashBuildSink : public SinkEmitter {
 public:
  void plan(KernelContext& ctx) override {
    ht_ = ctx.program.find_hash_table(ctx.pipeline.sink.state);
    if (ht_ == nullptr) throw Error(ErrorKind::Internal, ctx.where() + ": unknown hash table " + ctx.pipeline.sink.state);
    if (ht_->build_keys.size() != ht_->key_buffers.size() || ht_->build_keys.empty())
      throw Error(ErrorKind::Internal, ctx.where() + ": hash table " + ht_->name + " has one key buffer per key column");
    if (ht_->build_keys.size() > 1 && ht_->layout == ir::HashLayout::PerfectHash)
      throw Error(ErrorKind::Internal, ctx.where() + ": composite keys of " + ht_->name + " cannot use a perfect hash");
    if (ht_->count_buffer.empty()) return;
    count_ = ctx.require_arg(ht_->count_buffer);
    if (ctx.program.model != ir::ExecutionModel::Resolution) return;  // one atomic per row
    local_ = effective_local(ctx.program.local_resolution, ctx.dialect);
    scratch_ = add_reduce_scratch(ctx, local_, names::scratch_pointer(ht_->name, "built"));
  }
  void before_loop(KernelContext& ctx) override {
    if (!scratch_.empty()) ctx.w.line("hqc_i64 " + names::built_rows(ht_->name) + " = 0;  // rows built by this work-item");
  }
  void in_loop(KernelContext& ctx) override {
    ctx.w.banner("build " + ht_->name + " (" + ir::hash_layout_name(ht_->layout) + ", sink)");
    if (!scratch_.empty()) ctx.w.line(names::built_rows(ht_->name) + " += " + names::flag() + " ? 1 : 0;");
    else if (!count_.empty()) ctx.w.line("hqc_tuple_sum_i64(" + count_ + ", " + names::flag() + ", 1);");
    const ir::Buffer& keys = ctx.require_buffer(ht_->key_buffers[0]);
    const std::string& flags = ctx.require_arg(ht_->overflow_buffer);
    if (ht_->key_bits) {
      build_key_bits(ctx, keys, flags);
      return;
    }
    const char* kt = template_suffix(keys.element);
    std::string key = "(" + std::string(element_type(keys.element)) + ")" + ctx.expr(*ht_->build_keys[0]);
    std::string call = ht_->layout == ir::HashLayout::PerfectHash
                           ? std::string("hqc_ph_build_") + kt + "(" + keys.name + ", " +
                                 ctx.require_arg(ht_->capacity_param) + ", " + ctx.require_arg(ht_->key_min_param) +
                                 ", " + key + ", " + flags + ")"
                           : std::string(ht_->keys_only && ht_->build_keys.size() == 1 ? "hqc_oa_insert_absent_" : "hqc_oa_build_") + kt + "(" + keys.name + ", " +
                                 ctx.require_arg(ht_->capacity_param) + ", " + key + ", " + flags + ")";
    std::string slot = names::build_slot(ht_->name);
    const bool chained = ht_->layout == ir::HashLayout::Chained;
    if (ht_->build_keys.size() > 1 || chained) {
      // Composite key: hash every column, claim a slot on the first, store the others beside it
      // (chained: beside the entry). Chained: the slot of the key heads a list; the row's entry
      // joins it, and `slot` names the entry the payload is written to.
      std::string hash;
      std::vector<std::string> vars;
      for (size_t i = 0; i < ht_->build_keys.size(); ++i) {
        const ir::Buffer& b = ctx.require_buffer(ht_->key_buffers[i]);
        std::string v = names::build_key(ht_->name, i);
        ctx.w.line(std::string("const ") + element_type(b.element) + " " + v + " = (" + element_type(b.element) + ")" +
                   ctx.expr(*ht_->build_keys[i]) + ";");
        std::string h = std::string("hqc_key_hash_") + template_suffix(b.element) + "(" + v + ")";
        hash = i == 0 ? h : "hqc_hash_combine(" + hash + ", " + h + ")";
        vars.push_back(v);
      }
      const std::string& cap = ctx.require_arg(ht_->capacity_param);
      const std::string home = "hqc_oa_home(" + hash + ", " + cap + ")";
      if (chained) {
        // The key's slot (by perfect hash, or found or claimed from the home), then the row's entry
        // joins its list: with warp shuffles one head exchange per run of lanes sharing the slot
        // (device/warp.cuh; every lane of the warp calls it: a chained build's sink runs outside any
        // match loop, in the tile loop's uniform control flow), else one exchange per row.
        const std::string entry = names::build_entry(ht_->name);
        ctx.w.line("const hqc_i64 " + entry + " = " + ctx.require_arg(ht_->entry_base_param) + " + hqc_tile_row(" + names::tile() + ");");
        const std::string key_slot = names::build_key_slot(ht_->name);
        const std::string find = ht_->perfect_slots
                                     ? "hqc_ph_build_" + std::string(kt) + "(" + keys.name + ", " + cap + ", " +
                                           ctx.require_arg(ht_->key_min_param) + ", " + vars[0] + ", " + flags + ")"
                                     : "hqc_oa_find_or_claim_" + std::string(kt) + "(" + keys.name + ", " + cap + ", " + home + ", " +
                                           vars[0] + ", " + flags + ")";
        ctx.w.line("const hqc_i64 " + key_slot + " = " + names::flag() + " ? " + find + " : -1;");
        const bool warp = dialect_table(ctx.dialect).has_simd;
        ctx.w.line("const hqc_i64 " + slot + " = " + (warp ? "hqc_warp_ch_link(" : "hqc_ch_link(") + ctx.require_arg(ht_->head_buffer) +
                   ", " + ctx.require_arg(ht_->next_buffer) + ", " + key_slot + ", " + entry + ");");
        if (warp) ctx.manifest.block_size_multiple = std::max<uint32_t>(ctx.manifest.block_size_multiple, 32);
      } else {
        call = std::string("hqc_oa_claim_") + kt + "(" + keys.name + ", " + cap + ", " + home + ", " + vars[0] + ", " + flags + ")";
        ctx.w.line("const hqc_i64 " + slot + " = " + names::flag() + " ? " + call + " : -1;");
      }
      for (size_t i = 1; i < vars.size(); ++i) {
        const ir::Buffer& b = ctx.require_buffer(ht_->key_buffers[i]);
        ctx.w.line(std::string("hqc_ht_put_") + template_suffix(b.element) + "(" + b.name + ", " + slot + ", " + vars[i] + ");");
      }
    } else if (ht_->payload.empty() && ht_->bitmap_buffer.empty()) {
      // Keys only (a semi join's or a filter's set): the slot is not needed after the insert.
      ctx.w.line(std::string("if (") + names::flag() + ") " + call + ";");
    } else {
      ctx.w.line("const hqc_i64 " + slot + " = " + names::flag() + " ? " + call + " : -1;");
    }
    if (!ht_->bitmap_buffer.empty()) ctx.w.line("if (" + slot + " >= 0) hqc_bitmap_set(" + ctx.require_arg(ht_->bitmap_buffer) + ", " + slot + ");");
    for (size_t i = 0; i < ht_->payload.size(); ++i) {
      const ir::Buffer& pay = ctx.require_buffer(ht_->payload_buffers.at(i));
      const bool wide = ir::is_decimal128(ht_->payload[i].type);  // two words per slot
      ctx.w.line(std::string("hqc_ht_put_") + (wide ? "i128" : template_suffix(pay.element)) + "(" + pay.name + ", " + slot + ", " +
                 ctx.variable(ht_->payload[i].source, ht_->payload[i].name) + ");");
    }
  }
  // A key-bits table (ir::HashTable::key_bits): the key's slot, then its bit — on CUDA once per run of
  // lanes sharing a word (device/hash_table.h hqc_warp_bits_set; every lane calls it, so only where
  // no match loop of the pipeline puts the sink inside divergent control flow).
  void build_key_bits(KernelContext& ctx, const ir::Buffer& bits, const std::string& flags) {
    const std::string slot = names::build_slot(ht_->name);
    ctx.w.line("const hqc_i64 " + slot + " = " + names::flag() + " ? hqc_ph_bits_slot(" + ctx.require_arg(ht_->capacity_param) + ", " +
               ctx.require_arg(ht_->key_min_param) + ", (hqc_i64)" + ctx.expr(*ht_->build_keys[0]) + ", " + flags + ") : -1;");
    const std::string read_first = ht_->key_bits_read_first ? "1" : "0";
    if (dialect_table(ctx.dialect).has_simd && !ir::matches_several_times(ctx.program, ctx.pipeline)) {
      ctx.w.line("hqc_warp_bits_set(" + bits.name + ", " + slot + ", " + read_first + ");");
      ctx.manifest.block_size_multiple = std::max<uint32_t>(ctx.manifest.block_size_multiple, 32);
    } else {
      ctx.w.line("if (" + slot + " >= 0) hqc_bits_set(" + bits.name + " + (" + slot + " >> 5), 1u << (hqc_u32)(" + slot + " & 31), " +
                 read_first + ");");
    }
  }
  void after_loop(KernelContext& ctx) override {
    if (scratch_.empty()) return;
    ctx.w.banner("build " + ht_->name + ": rows built, one CTA reduction + one atomic per CTA");
    ctx.w.line(std::string("hqc_cta_sum_i64_") + mech(local_) + "_to(" + count_ + ", " + names::built_rows(ht_->name) + ", " +
               scratch_ + ");");
  }

 private:
  const ir::HashTable* ht_ = nullptr;
  std::string count_;    // the count buffer's argument, or "" (no count)
  std::string scratch_;  // the CTA reduction's scratchpad (resolution model), or ""
  ir::LocalResolution local_ = ir::LocalResolution::WorkEfficient;
};

// ---------------------------------------------------------------- materialize

class MaterializeSink : public SinkEmitter {
 public:
  void plan(KernelContext& ctx) override {
    out_ = ctx.program.find_output(ctx.pipeline.sink.state);
    if (out_ == nullptr) throw Error(ErrorKind::Internal, ctx.where() + ": unknown output " + ctx.pipeline.sink.state);
    const ir::Reduction& r = require_reduction(ctx, out_->name);
    ManifestReduction m{out_->name, ir::ReductionKind::WritePosition, r.technique, ir::LocalResolution::None, ""};
    if (is_resolution(r.technique)) {
      m.technique = ir::Technique::A3;
      m.local = effective_local(r.local, ctx.dialect);
      if (m.local != r.local) m.note = "no SIMD level in this dialect: work-efficient scan";
      note_constraints(ctx, m.local);
      ScratchSize size;
      std::string words;
      if (m.local == ir::LocalResolution::Simd) {
        size.fixed_bytes = 18 * 8;
        words = "HQC_SCAN_SIMD_WORDS";
      } else {
        size.bytes_per_thread = 4;
        size.fixed_bytes = 24;  // (B + 1) / 2 + 2 words, rounded up for odd B
        words = "hqc_scan_we_words(HQC_BDIM())";
      }
      scratch_ = ctx.add_scratch(names::scratch_pointer(out_->name, "scan"), "hqc_u64", words, size);
    } else {
      m.technique = r.technique == ir::Technique::A1 ? ir::Technique::A1 : ir::Technique::A2;
    }
    local_ = m.local;
    technique_ = m.technique;
    ctx.manifest.reductions.push_back(m);
  }
  void before_loop(KernelContext&) override {}
  // A1: this row's first write position from the library's prefix sum; the last row's work-item
  // stores the total in the output's counter.
  void begin_tuple(KernelContext& ctx) override {
    if (technique_ != ir::Technique::A1) return;
    const std::string& offsets = ctx.require_arg(ctx.kernel.multi_pass.offsets);
    const std::string& base = ctx.require_arg(ctx.kernel.multi_pass.base_param);
    const std::string tile = std::string(names::tile()) + ", " + names::tile_items();
    ctx.w.line("hqc_u64 " + names::next_position(out_->name) + " = hqc_mp_first_position(" + offsets + ", " + base + ", " + tile + ");");
    ctx.w.line("hqc_mp_store_total(" + offsets + ", " + base + ", " + tile + ", " + ctx.require_arg(ctx.pipeline.source.rows_param) +
               ", " + ctx.require_arg(out_->counter_buffer) + ");");
  }
  void in_loop(KernelContext& ctx) override {
    const std::string pos = names::write_position(out_->name);
    const std::string& counter = ctx.require_arg(out_->counter_buffer);
    if (technique_ == ir::Technique::A1) {
      ctx.w.banner("materialize " + out_->name + ": at the prefix-summed position (A1, sink)");
      const std::string next = names::next_position(out_->name);
      ctx.w.line("const hqc_u64 " + pos + " = " + next + ";");
      ctx.w.line(next + " += " + names::flag() + " ? 1 : 0;");
    } else if (local_ == ir::LocalResolution::None) {
      ctx.w.banner("materialize " + out_->name + ": one atomic per tuple (A2, sink)");
      ctx.w.line("const hqc_u64 " + pos + " = hqc_reserve_atomic((hqc_u32)" + names::flag() + ", " + counter + ");");
    } else {
      ctx.w.banner("materialize " + out_->name + ": CTA prefix sum + one atomic per CTA (A3, sink)");
      // SIMD: warp votes with a counting barrier (templates/device/warp.cuh); work-efficient: the tree.
      ctx.w.line("const hqc_u64 " + pos + " = hqc_cta_reserve_" + (local_ == ir::LocalResolution::Simd ? "ballot" : "we") + "((hqc_u32)" + names::flag() + ", " +
                 counter + ", " + scratch_ + ");");
    }
    // An estimated capacity (several matches per probe) is checked: a row past it raises the
    // overflow flag and the host re-runs with a larger output.
    auto s = ctx.w.block(std::string("if (") + names::flag() + " && " +
                         (out_->overflow_buffer.empty()
                              ? pos + " < (hqc_u64)" + ctx.require_arg(out_->capacity_param)
                              : "hqc_output_fits(" + pos + ", " + ctx.require_arg(out_->capacity_param) + ", " +
                                    ctx.require_arg(out_->overflow_buffer) + ")") +
                         ")");
    for (const ir::OutputColumn& c : out_->columns) {
      if (!c.valid_buffer.empty()) {
        // NULL where the left outer probe found no match: the validity column says which.
        const std::string slot = null_slot(ctx, c.expr->source, c.expr->column);
        if (slot.empty()) throw Error(ErrorKind::Internal, ctx.where() + ": output column " + c.name + " has a validity buffer but is never NULL");
        ctx.w.line(ctx.require_buffer(c.valid_buffer).name + "[" + pos + "] = " + slot + " >= 0;");
      } else {
        reject_nullable(ctx, *c.expr, "output column " + c.name);
      }
      const ir::Buffer& b = ctx.require_buffer(c.buffer);
      if (ir::is_decimal128(c.type))  // a 128-bit value: two words per row
        ctx.w.line("hqc_i128_store(" + b.name + ", " + pos + ", " + ctx.expr(*c.expr) + ");");
      else
        ctx.w.line(b.name + "[" + pos + "] = (" + element_type(b.element) + ")" + ctx.expr(*c.expr) + ";");
    }
  }
  void after_loop(KernelContext&) override {}

 private:
  const ir::OutputTable* out_ = nullptr;
  ir::LocalResolution local_ = ir::LocalResolution::None;
  ir::Technique technique_ = ir::Technique::A2;
  std::string scratch_;
};

}  // namespace

// ---------------------------------------------------------------- aggregation

// The direct-indexed slot of this tuple (names::group_index): each key's offset in its domain, then
// the mixed-radix index. The domains come from column statistics, so every offset is in range unless
// they lied; if they did, the tuple raises the table's flag (never dropped, never aliased to another
// group's slot), `flag` drops it and the run fails.
void emit_direct_slot(KernelContext& ctx, const ir::AggregationTable& agg) {
  const std::string g = names::group_index(agg.name);
  std::string radix;
  for (size_t i = 0; i < agg.keys.size(); ++i) {
    const ir::GroupKey& k = agg.keys[i];
    const std::string offset = g + "_k" + std::to_string(i);
    ctx.w.line("const hqc_i64 " + offset + " = (hqc_i64)" + ctx.expr(*k.expr) + " - " + ctx.require_arg(k.min_param) + ";");
    ctx.w.line(std::string(names::flag()) + " = " + names::flag() + " && hqc_gb_index_ok(" + offset + ", " +
               ctx.require_arg(k.domain_param) + ", " + ctx.require_arg(agg.overflow_buffer) + ");");
    radix = i == 0 ? offset : "(" + radix + ") * " + ctx.require_arg(k.domain_param) + " + " + offset;
  }
  ctx.w.line("const hqc_i64 " + g + " = " + (radix.empty() ? "0" : radix) + ";");
}

// The key variable of a hashed table (names::group_key), declared: one key, a scalar (found by a CAS
// on it); several, a private array of the widened keys, one lane each per slot.
std::string emit_group_key(KernelContext& ctx, const ir::AggregationTable& agg) {
  const std::string key = names::group_key(agg.name);
  if (agg.keys.size() == 1) {
    ctx.w.line("const hqc_i64 " + key + " = (hqc_i64)" + ctx.expr(*agg.keys[0].expr) + ";");
  } else {
    auto lanes = ctx.w.block("const hqc_i64 " + key + "[" + std::to_string(agg.keys.size()) + "] =", ";");
    for (size_t i = 0; i < agg.keys.size(); ++i)
      ctx.w.line("(hqc_i64)" + ctx.expr(*agg.keys[i].expr) + (i + 1 < agg.keys.size() ? "," : ""));
  }
  return key;
}

// Find-or-insert of key variable `key` (a scalar for one key, an array of lanes for several) in
// the global hash table: its slot, or -1 with the table's flag raised.
std::string hashed_group_slot(KernelContext& ctx, const ir::AggregationTable& agg, const std::string& key) {
  const std::string& capacity = ctx.require_arg(agg.slots_param);
  const std::string& flags = ctx.require_arg(agg.overflow_buffer);
  if (agg.keys.size() == 1)
    return "hqc_gb_hash_slot_i64(" + ctx.require_arg(agg.keys[0].key_buffer) + ", " + capacity + ", " + key + ", " + flags + ")";
  return "hqc_gb_hash_slot_keys(" + ctx.require_arg(agg.keys[0].key_buffer) + ", " + capacity + ", " + key + ", " +
         std::to_string(agg.keys.size()) + ", " + flags + ")";
}

namespace {

const ir::Buffer& table_buffer(const KernelContext& ctx, const std::string& name) {
  if (ctx.kernel.kind != ir::KernelKind::PassWrite) return ctx.require_buffer(name);
  const ir::Buffer* b = ctx.program.find_buffer(name);
  if (b == nullptr) throw Error(ErrorKind::Internal, ctx.where() + ": buffer \"" + name + "\" is not declared in the program");
  return *b;
}

}  // namespace

std::vector<AccumulatorPlan> plan_accumulators(KernelContext& ctx, const ir::AggregationTable& agg) {
  std::vector<AccumulatorPlan> accs;
  for (const ir::GroupKey& k : agg.keys) reject_nullable(ctx, *k.expr, "group key " + k.name);
  for (const ir::Accumulator& acc : agg.accumulators) {
    if (acc.arg && acc.func != plan::AggFunc::Count) reject_nullable(ctx, *acc.arg, "accumulator " + acc.name);
    AccumulatorPlan a;
    a.name = acc.name;
    a.buffer = acc.buffer;
    a.input_bound = acc.input_bound;
    // The table's own buffers (arguments of a compound kernel; a multi-pass write kernel only reads
    // the inputs: the finish kernel stores into them).
    const ir::Buffer& b = table_buffer(ctx, acc.buffer);
    a.type = b.element == ir::ScalarType::F64 ? "f64" : acc.wide ? "i128" : "i64";
    const bool extreme = acc.func == plan::AggFunc::Min || acc.func == plan::AggFunc::Max;
    if (acc.wide && (b.element != ir::ScalarType::I64 || (!extreme && acc.func != plan::AggFunc::Sum) ||
                     extreme == acc.state_buffer.empty()))
      throw Error(ErrorKind::Internal, ctx.where() + ": 128-bit accumulator " + acc.name +
                                           " is neither an int64 SUM nor a MIN/MAX with a state buffer");
    if (!acc.state_buffer.empty()) a.state = ctx.kernel.kind == ir::KernelKind::PassWrite ? acc.state_buffer : ctx.require_arg(acc.state_buffer);
    if (b.element == ir::ScalarType::I32 || b.element == ir::ScalarType::U32)
      throw Error(ErrorKind::Internal, ctx.where() + ": accumulator buffer " + b.name + " is 32-bit; expected i64/u64/f64");
    a.pointer = b.element == ir::ScalarType::U64 ? "(HQC_GLOBAL hqc_i64*)" + b.name : b.name;
    switch (acc.func) {
      case plan::AggFunc::Sum:
        a.op = "sum";
        a.input = std::string(a.type == "f64" ? "(hqc_f64)" : "(hqc_i64)") + ctx.expr(*acc.arg);
        a.identity = a.type == "f64" ? "0.0" : a.type == "i128" ? "hqc_i128_zero()" : "0";
        break;
      case plan::AggFunc::Count:
      case plan::AggFunc::CountStar: {
        a.op = "sum";
        a.input = a.type == "f64" ? "1.0" : "1";
        a.identity = a.type == "f64" ? "0.0" : "0";
        // COUNT(column) skips NULLs: a left outer join's payload is NULL where nothing matched.
        std::string matched;
        if (acc.arg) {
          std::set<std::string> slots;
          plan::visit(*acc.arg, [&](const plan::Expr& x) {
            if (x.kind == plan::ExprKind::Column) {
              std::string s = null_slot(ctx, x.source, x.column);
              if (!s.empty()) slots.insert(s);
            }
          });
          for (const std::string& s : slots) matched += (matched.empty() ? "" : " && ") + s + " >= 0";
        }
        if (!matched.empty()) a.input = "(" + matched + " ? " + a.input + " : " + a.identity + ")";
        break;
      }
      case plan::AggFunc::Min:
      case plan::AggFunc::Max:
        if (a.type == "f64")
          throw Error(ErrorKind::Unsupported, ctx.where() + ": " + plan::agg_func_name(acc.func) +
                                                  " of a floating-point value is not generated yet");
        a.op = acc.func == plan::AggFunc::Min ? "min" : "max";
        if (a.type == "i128") {  // a 128-bit value, whole (ir/decimal128.cpp)
          a.input = ctx.expr(*acc.arg);
          a.identity = acc.func == plan::AggFunc::Min ? "hqc_i128_max_value()" : "hqc_i128_min_value()";
          break;
        }
        a.input = "(hqc_i64)" + ctx.expr(*acc.arg);
        a.identity = acc.func == plan::AggFunc::Min ? "HQC_I64_MAX" : "HQC_I64_MIN";
        break;
      case plan::AggFunc::Avg:
        throw Error(ErrorKind::Internal, ctx.where() + ": AVG must be lowered into SUM and COUNT by the IR");
    }
    // A filtered aggregate: rows where the filter fails add the identity.
    // (A 128-bit SUM adds 64-bit inputs: its neutral input is 0, not its 128-bit identity.)
    if (acc.filter)
      a.input = "(" + ctx.expr(*acc.filter) + " ? " + a.input + " : " + (a.type == "i128" && a.op == "sum" ? "0" : a.identity) + ")";
    accs.push_back(a);
  }
  if (!agg.occupancy_buffer.empty()) {
    // Last, so C3 flushes can use it as the "group seen by this CTA" test.
    const ir::Buffer& b = table_buffer(ctx, agg.occupancy_buffer);
    AccumulatorPlan a{"count", "sum", "i64", b.name,
                      b.element == ir::ScalarType::U64 ? "(HQC_GLOBAL hqc_i64*)" + b.name : b.name, "1", "0"};
    accs.push_back(a);
  } else if (agg.layout == ir::AggLayout::DirectIndexed) {
    throw Error(ErrorKind::Internal, ctx.where() + ": direct-indexed aggregation " + agg.name +
                                         " has no occupancy buffer (needed to tell empty groups)");
  }
  return accs;
}


namespace {

// A C3 table of at most this many slots is updated by each warp once per group among its lanes
// (device/warp_groups.cuh's few groups) on CUDA: beyond it a warp's lanes meet too few lanes of one
// group for the combining to pay. TPC-H Q1 (6 slots) 0.61x on the H100; Q5 (25 slots, its nations
// filtered to a region's five, few rows qualifying) was 1.07x with a limit of 32
// (bench/results/2026-11-28-h100-tpch-kernels, run 4).
constexpr uint64_t kWarpGroupSlots = 16;
// A C3 table of at most this many slots whose accumulators take at most kThreadSlotWords words in
// all is kept by every work-item in registers over its tiles (device/group_by.h's thread merge): per
// tuple a few compares and adds instead of a scratchpad atomic. Only where the dialect has no warps
// (OpenCL) and the pipeline probes no hash table: on the H200, TPC-H Q1 (6 slots x 6 accumulators)
// 3.84 -> 1.84 ms on NVIDIA OpenCL, but on CUDA 1.31 -> 1.45 ms against the per-warp combining
// (112 registers instead of 48: fewer loads in flight), and Q12 (7 x 3, behind a probe of orders)
// 1.77x slower on CUDA and 1.7x on OpenCL (bench/results/2026-12-02-h200-first-query-floor).
constexpr uint64_t kThreadSlots = 16;
constexpr uint64_t kThreadSlotWords = 40;
constexpr uint64_t kWarpLanes = 32;  // CUDA's warp: the only dialect with the few-groups path
// Tiles per iteration of the tile loop (SinkEmitter::tiles_per_iteration) where the sink keeps
// per-thread state over them, so that a work-item has that many rows' chains of loads in flight
// (with the flat loads, device/tile.h). H200, SF 10, against one tile
// (bench/results/2026-12-02-h200-tiles):
//   - B3 on CUDA, 4: TPC-H q6 0.54x, q14 0.85x, q19 0.97x (2 tiles: 0.63x, 0.95x, 1.03x). On NVIDIA
//     OpenCL more tiles were slower (q6 1.67x, q19 3.0x): one tile there.
//   - the few-groups path with warp copies, 2: its group loop runs once per group and iteration,
//     not per tile (TPC-H Q1 0.86x; 4 tiles: 0.94x at 96 registers, and q12 1.11x).
//   - the thread slots in registers (OpenCL), 4: TPC-H Q1 0.86x on NVIDIA OpenCL.
constexpr uint32_t kRegisterTiles = 4;
constexpr uint32_t kWarpGroupTiles = 2;
constexpr uint32_t kThreadSlotTiles = 4;

class AggregateSink : public SinkEmitter {
 public:
  void plan(KernelContext& ctx) override {
    agg_ = ctx.program.find_aggregation(ctx.pipeline.sink.state);
    if (agg_ == nullptr) throw Error(ErrorKind::Internal, ctx.where() + ": unknown aggregation " + ctx.pipeline.sink.state);
    const ir::Reduction& r = require_reduction(ctx, agg_->name);
    accs_ = plan_accumulators(ctx, *agg_);
    // Accumulators of the same operation, type and input (no 128-bit MIN/MAX state) add the same
    // values: a CTA's table keeps one copy of them, each flushed into its own global buffer (TPC-H
    // Q1: SUM(l_quantity) and AVG(l_quantity)'s sum; its five COUNTs).
    first_.resize(accs_.size());
    for (size_t i = 0; i < accs_.size(); ++i) {
      first_[i] = i;
      for (size_t j = 0; j < i && accs_[i].state.empty(); ++j) {
        const AccumulatorPlan& a = accs_[j];
        if (a.state.empty() && a.op == accs_[i].op && a.type == accs_[i].type && a.input == accs_[i].input) {
          first_[i] = j;
          break;
        }
      }
    }
    ManifestReduction m{agg_->name, r.kind, r.technique, ir::LocalResolution::None, r.note};
    if (agg_->layout == ir::AggLayout::Scalar) {
      m.kind = ir::ReductionKind::SingleAggregate;
      m.technique = is_resolution(r.technique) ? ir::Technique::B3 : ir::Technique::B2;
      if (m.technique == ir::Technique::B3) {
        m.local = effective_local(r.local, ctx.dialect);
        if (m.local != r.local) m.note = "no SIMD level in this dialect: work-efficient tree";
        scratch_ = add_reduce_scratch(ctx, m.local, names::scratch_pointer(agg_->name, "reduce"));
      }
    } else {
      m.kind = ir::ReductionKind::GroupedAggregate;
      hashed_ = agg_->layout == ir::AggLayout::GlobalHash;
      // The fusion pass chose C3 only for a table it privatised (and never for a locked 128-bit
      // MIN/MAX); a C2 under the resolution model carries its reason in r.note.
      if (r.technique == ir::Technique::C3 && !agg_->scratchpad)
        throw Error(ErrorKind::Internal, ctx.where() + ": C3 requested for " + agg_->name + ", which has no scratchpad copy");
      if (m.technique == ir::Technique::C3) {
        m.local = ir::LocalResolution::WorkEfficient;  // privatised table + barriers
        // Direct-indexed: the whole table; hashed: a table of local_slots_param slots.
        local_slots_param_ = hashed_ ? agg_->local_slots_param : agg_->slots_param;
        const std::string& slots = ctx.require_arg(local_slots_param_);
        if (hashed_) {
          ScratchSize size;
          size.bytes_per_param_unit.push_back({local_slots_param_, 8ull * agg_->keys.size()});
          local_keys_ = ctx.add_scratch(names::scratch_pointer(agg_->name, "local_keys"), "hqc_i64",
                                        std::to_string(agg_->keys.size()) + " * " + slots, size);
        }
        for (size_t i = 0; i < accs_.size(); ++i) {
          const AccumulatorPlan& a = accs_[i];
          if (first_[i] != i) {
            scratch_ptrs_.push_back(scratch_ptrs_[first_[i]]);  // the same values: one copy
            continue;
          }
          ScratchSize size;
          const bool wide = a.type == "i128";
          size.bytes_per_param_unit.push_back({local_slots_param_, wide ? 16u : 8u});
          scratch_ptrs_.push_back(ctx.add_scratch(names::scratch_pointer(agg_->name, a.name),
                                                  a.type == "f64" ? "hqc_f64" : "hqc_i64", wide ? "2 * " + slots : slots, size));
        }
      }
      if (agg_->layout == ir::AggLayout::GlobalHash && agg_->keys.size() != agg_->key_lanes && agg_->key_lanes != 1)
        throw Error(ErrorKind::Internal, ctx.where() + ": hashed aggregation " + agg_->name + " has " +
                                             std::to_string(agg_->keys.size()) + " keys but " +
                                             std::to_string(agg_->key_lanes) + " key lanes");
    }
    technique_ = m.technique;
    if (technique_ == ir::Technique::B3 && dialect_table(ctx.dialect).has_simd) tiles_ = kRegisterTiles;
    if (thread_slots_possible(ctx)) {
      thread_slots_ = agg_->expected_slots;
      tiles_ = kThreadSlotTiles;
    } else if (warp_runs_possible(ctx)) {
      runs_ = true;
      m.local = ir::LocalResolution::Simd;
      ctx.manifest.block_size_multiple = std::max<uint32_t>(ctx.manifest.block_size_multiple, 32);
    } else if (few_groups_possible(ctx)) {
      few_groups_ = true;  // the CTA's table stays the local resolution; warps combine before it
      ctx.manifest.block_size_multiple = std::max<uint32_t>(ctx.manifest.block_size_multiple, 32);
      if (warp_copies_possible()) {
        plan_warp_copies(ctx);
        tiles_ = kWarpGroupTiles;
      }
    }
    local_ = m.local;
    ctx.manifest.reductions.push_back(m);
  }

  void before_loop(KernelContext& ctx) override {
    if (technique_ == ir::Technique::B3) {
      ctx.w.banner("aggregate " + agg_->name + ": per-thread accumulators over all tiles (B3)");
      for (const AccumulatorPlan& a : accs_)
        ctx.w.line("hqc_" + a.type + " " + names::register_accumulator(agg_->name, a.name) + " = " + a.identity + ";");
    } else if (technique_ == ir::Technique::C3) {
      ctx.w.banner("aggregate " + agg_->name + (hashed_ ? ": a hashed group table per CTA in scratchpad (C3)"
                                                       : ": privatise the group table in scratchpad (C3)"));
      const std::string& slots = ctx.require_arg(local_slots_param_);
      if (hashed_) ctx.w.line("hqc_gb_local_fill_keys(" + local_keys_ + ", " + slots + ", " + std::to_string(agg_->keys.size()) + ");");
      for (size_t i = 0; i < accs_.size(); ++i) {
        const AccumulatorPlan& a = accs_[i];
        if (first_[i] != i) continue;  // shares the scratchpad of an equal accumulator
        if (a.type == "f64")
          ctx.w.line("hqc_gb_local_fill_f64(" + scratch_ptrs_[i] + ", " + slots + ");");
        else if (a.type == "i128")
          ctx.w.line("hqc_gb_local_fill_i64(" + scratch_ptrs_[i] + ", 2 * " + slots + ", 0);");
        else
          ctx.w.line("hqc_gb_local_fill_i64(" + scratch_ptrs_[i] + ", " + slots + ", " + a.identity + ");");
      }
      if (!warp_tables_.empty()) {
        const std::string table = names::warp_table(agg_->name);
        ctx.w.line("// This warp's own copy of the table's " + std::to_string(warp_slots_) + " slots (few groups per warp).");
        ctx.w.line("HQC_LOCAL hqc_i64* " + table + " = " + warp_tables_ + " + hqc_warp() * " + std::to_string(warp_words_) + ";");
        for (size_t i = 0; i < accs_.size(); ++i)
          if (first_[i] == i)
            ctx.w.line("hqc_gb_warp_fill_i64(" + warp_row(i) + ", " + std::to_string(warp_slots_) + ", " + accs_[i].identity + ");");
      }
      if (thread_slots_ != 0) {
        ctx.w.line("// This work-item's own copy of the table's " + std::to_string(thread_slots_) + " slots, in registers.");
        for (size_t i = 0; i < accs_.size(); ++i) {
          if (first_[i] != i) continue;
          std::string init;
          for (uint64_t slot = 0; slot < thread_slots_; ++slot) init += (slot == 0 ? "" : ", ") + accs_[i].identity;
          ctx.w.line("hqc_" + accs_[i].type + " " + names::thread_slots(agg_->name, accs_[i].name) + "[" +
                     std::to_string(thread_slots_) + "] = {" + init + "};");
        }
      }
      ctx.w.line("HQC_BARRIER();");
    }
  }

  void in_loop(KernelContext& ctx) override {
    const std::string title = "aggregate " + agg_->name + " (" + ir::technique_name(technique_) + ", sink)";
    ctx.w.banner(title);
    if (technique_ == ir::Technique::B3) {
      for (const AccumulatorPlan& a : accs_) {
        std::string acc = names::register_accumulator(agg_->name, a.name);
        if (a.type == "i128" && a.op != "sum")
          ctx.w.line(acc + " = " + names::flag() + " ? hqc_i128_" + a.op + "(" + acc + ", " + a.input + ") : " + acc + ";");
        else if (a.type == "i128")
          ctx.w.line(acc + " = hqc_i128_add_i64(" + acc + ", " + names::flag() + " ? " + a.input + " : 0);");
        else if (a.op == "sum")
          ctx.w.line(acc + " += " + names::flag() + " ? " + a.input + " : " + (a.type == "f64" ? "0.0" : "0") + ";");
        else
          ctx.w.line(acc + " = " + names::flag() + " ? hqc_" + a.op + "_i64(" + acc + ", " + a.input + ") : " + acc + ";");
      }
      return;
    }
    if (technique_ == ir::Technique::B2) {
      for (const AccumulatorPlan& a : accs_)
        ctx.w.line("hqc_tuple_" + a.op + "_" + a.type + "(" + a.pointer + ", " + state_arg(a) + names::flag() + ", " + a.input + ");");
      return;
    }
    const std::string g = names::group_index(agg_->name);
    if (runs_) {
      emit_run_updates(ctx);
      return;
    }
    if (agg_->layout == ir::AggLayout::DirectIndexed) {
      emit_direct_slot(ctx, *agg_);
      if (thread_slots_ != 0) {
        emit_thread_slot_updates(ctx);
        return;
      }
      if (few_groups_) {
        if (tiles_ > 1)
          emit_tile_keep(ctx);
        else
          emit_group_updates(ctx);
        return;
      }
    } else {
      const std::string key = emit_group_key(ctx, *agg_);
      if (technique_ == ir::Technique::C3) {
        // The CTA's table first; a tuple it has no room for goes to the global table at once.
        const std::string lg = names::local_group(agg_->name);
        ctx.w.line("const hqc_i64 " + lg + " = " + names::flag() + " ? hqc_gb_local_slot_keys(" + local_keys_ + ", " +
                   ctx.require_arg(local_slots_param_) + ", " + (agg_->keys.size() == 1 ? "&" + key : key) + ", " +
                   std::to_string(agg_->keys.size()) + ") : -1;");
        ctx.w.line("const hqc_i64 " + g + " = " + names::flag() + " && " + lg + " < 0 ? " + hashed_group_slot(ctx, *agg_, key) + " : -1;");
        ctx.w.line(std::string(names::flag()) + " = " + names::flag() + " && (" + lg + " >= 0 || " + g + " >= 0);");
        {
          auto local = ctx.w.block("if (" + lg + " >= 0)");
          for (size_t i = 0; i < accs_.size(); ++i) {
            const AccumulatorPlan& a = accs_[i];
            if (first_[i] != i) continue;  // its equal's update is its own
            ctx.w.line("hqc_gb_local_" + a.op + "_" + a.type + "(" + scratch_ptrs_[i] + ", " + lg + ", " + a.input + ");");
          }
        }
        auto global = ctx.w.block("if (" + g + " >= 0)");
        for (const AccumulatorPlan& a : accs_)
          ctx.w.line("hqc_gb_global_" + a.op + "_" + a.type + "(" + a.pointer + ", " + state_arg(a) + g + ", " + a.input + ");");
        return;
      }
      ctx.w.line("const hqc_i64 " + g + " = " + names::flag() + " ? " + hashed_group_slot(ctx, *agg_, key) + " : -1;");
      ctx.w.line(std::string(names::flag()) + " = " + names::flag() + " && " + g + " >= 0;");
    }
    auto s = ctx.w.block(std::string("if (") + names::flag() + ")");
    for (size_t i = 0; i < accs_.size(); ++i) {
      const AccumulatorPlan& a = accs_[i];
      if (technique_ == ir::Technique::C3 && first_[i] != i) continue;  // its equal's update is its own
      if (technique_ == ir::Technique::C3)
        ctx.w.line("hqc_gb_local_" + a.op + "_" + a.type + "(" + scratch_ptrs_[i] + ", " + g + ", " + a.input + ");");
      else
        ctx.w.line("hqc_gb_global_" + a.op + "_" + a.type + "(" + a.pointer + ", " + state_arg(a) + g + ", " + a.input + ");");
    }
  }

  uint32_t tiles_per_iteration() const override { return tiles_; }

  // Few groups over several tiles: what in_loop keeps of each tile (emit_tile_keep).
  void before_tiles(KernelContext& ctx) override {
    if (!few_groups_) return;
    const std::string n = "[" + std::to_string(tiles_) + "]";
    ctx.w.line("// Each tile's row of this lane, kept until the warp combines the " + std::to_string(tiles_) + " tiles' rows.");
    ctx.w.line("hqc_i32 " + names::tile_flags(agg_->name) + n + ";");
    ctx.w.line("hqc_i64 " + names::tile_groups(agg_->name) + n + ";");
    for (size_t i = 0; i < accs_.size(); ++i)
      if (first_[i] == i && !counts_lanes(accs_[i]))
        ctx.w.line("hqc_i64 " + names::tile_values(agg_->name, accs_[i].name) + n + ";");
  }

  void after_tiles(KernelContext& ctx) override {
    if (few_groups_) emit_tiles_group_updates(ctx);
  }

  void after_loop(KernelContext& ctx) override {
    if (technique_ == ir::Technique::B3) {
      ctx.w.banner("aggregate " + agg_->name + ": CTA reduction + one atomic per CTA (B3)");
      for (const AccumulatorPlan& a : accs_)
        ctx.w.line("hqc_cta_" + a.op + "_" + a.type + "_" + mech(local_) + "_to(" + a.pointer + ", " + state_arg(a) +
                   names::register_accumulator(agg_->name, a.name) + ", " + scratch_ + ");");
    } else if (technique_ == ir::Technique::C3 && hashed_) {
      ctx.w.banner("aggregate " + agg_->name + ": merge the CTA's hashed table, one atomic per group and aggregate (C3)");
      ctx.w.line("HQC_BARRIER();");
      const std::string slot = names::merge_slot(agg_->name), key = names::merge_key(agg_->name);
      const std::string mg = names::merge_group(agg_->name), n = std::to_string(agg_->keys.size());
      auto loop = ctx.w.block("for (hqc_i64 " + slot + " = HQC_LID(); " + slot + " < " + ctx.require_arg(local_slots_param_) +
                              "; " + slot + " += HQC_BDIM())");
      ctx.w.line("if (" + scratch_ptrs_.back() + "[" + slot + "] == 0) continue;  // no tuple of this CTA");
      if (agg_->keys.size() == 1) {
        ctx.w.line("const hqc_i64 " + key + " = " + local_keys_ + "[" + slot + "];");
      } else {
        auto lanes = ctx.w.block("const hqc_i64 " + key + "[" + n + "] =", ";");
        for (size_t i = 0; i < agg_->keys.size(); ++i)
          ctx.w.line(local_keys_ + "[" + slot + " * " + n + " + " + std::to_string(i) + "]" + (i + 1 < agg_->keys.size() ? "," : ""));
      }
      ctx.w.line("const hqc_i64 " + mg + " = " + hashed_group_slot(ctx, *agg_, key) + ";");
      ctx.w.line("if (" + mg + " < 0) continue;  // the global table is full: flagged, the host grows it");
      for (size_t i = 0; i < accs_.size(); ++i) {
        const AccumulatorPlan& a = accs_[i];
        ctx.w.line("hqc_gb_merge_" + a.op + "_" + a.type + "(" + a.pointer + ", " + mg + ", " + scratch_ptrs_[i] + ", " + slot + ");");
      }
    } else if (technique_ == ir::Technique::C3) {
      ctx.w.banner("aggregate " + agg_->name + ": one atomic per group per CTA (C3)");
      if (thread_slots_ != 0) {
        ctx.w.line("// Each work-item's slots into the CTA's table first: one atomic per slot it touched.");
        for (uint64_t slot = 0; slot < thread_slots_; ++slot)
          for (size_t i = 0; i < accs_.size(); ++i)
            if (first_[i] == i)
              ctx.w.line("hqc_gb_thread_merge_" + accs_[i].op + "_" + accs_[i].type + "(" + scratch_ptrs_[i] + ", " +
                         std::to_string(slot) + ", " + names::thread_slots(agg_->name, accs_[i].name) + "[" +
                         std::to_string(slot) + "]);");
      }
      if (!warp_tables_.empty()) {
        ctx.w.line("// Each warp's copy into the CTA's table first: one atomic per slot the warp touched.");
        for (size_t i = 0; i < accs_.size(); ++i)
          if (first_[i] == i)
            ctx.w.line("hqc_gb_warp_merge_" + accs_[i].op + "_i64(" + scratch_ptrs_[i] + ", " + warp_row(i) + ", " +
                       std::to_string(warp_slots_) + ", " + accs_[i].identity + ");");
      }
      ctx.w.line("HQC_BARRIER();");
      const std::string& slots = ctx.require_arg(local_slots_param_);
      const std::string& count = scratch_ptrs_.back();
      for (size_t i = 0; i < accs_.size(); ++i) {
        const AccumulatorPlan& a = accs_[i];
        ctx.w.line("hqc_gb_flush_" + a.op + "_" + a.type + "(" + a.pointer + ", " + scratch_ptrs_[i] + ", " + count +
                   ", " + slots + ");");
      }
    }
  }

 private:
  // The state-word argument of a 128-bit MIN/MAX's templates (with its separator), else nothing.
  static std::string state_arg(const AccumulatorPlan& a) { return a.state.empty() ? "" : a.state + ", "; }

  // C2 with warp runs (see the contract): every lane of a warp reaches the sink together.
  bool warp_runs_possible(const KernelContext& ctx) const {
    return technique_ == ir::Technique::C2 && agg_->sorted_key && warp_collectives_possible(ctx);
  }

  // What both warp combinings need: warps (CUDA), every lane of the warp at the sink together (the
  // resolution model's uniform tile loop, no match loop), and no locked 128-bit MIN/MAX.
  bool warp_collectives_possible(const KernelContext& ctx) const {
    if (!dialect_table(ctx.dialect).has_simd || ctx.program.model != ir::ExecutionModel::Resolution ||
        ir::matches_several_times(ctx.program, ctx.pipeline))
      return false;
    return std::all_of(accs_.begin(), accs_.end(), [](const AccumulatorPlan& a) { return a.state.empty(); });
  }

  // C3 over a direct-indexed table of at most kWarpGroupSlots slots (the statistics' count), on CUDA
  // under the resolution model outside match loops (every lane of the warp reaches the sink), and
  // no locked 128-bit MIN/MAX nor MIN/MAX of doubles: a warp's lanes fall into few groups, which it
  // combines by shuffles before the scratchpad's atomics (device/warp_groups.cuh).
  bool few_groups_possible(const KernelContext& ctx) const {
    if (technique_ != ir::Technique::C3 || agg_->layout != ir::AggLayout::DirectIndexed) return false;
    if (agg_->expected_slots == 0 || agg_->expected_slots > kWarpGroupSlots || !warp_collectives_possible(ctx)) return false;
    return std::all_of(accs_.begin(), accs_.end(), [](const AccumulatorPlan& a) { return a.op == "sum" || a.type == "i64"; });
  }

  // C3 over a direct-indexed table of at most kThreadSlots slots (the statistics' count) whose
  // distinct accumulators take at most kThreadSlotWords words, each a SUM, MIN or MAX of 64-bit
  // integers or a SUM of doubles, in a dialect without warps and a pipeline without probes (see
  // kThreadSlots): every work-item keeps the slots in registers.
  bool thread_slots_possible(const KernelContext& ctx) const {
    if (technique_ != ir::Technique::C3 || agg_->layout != ir::AggLayout::DirectIndexed) return false;
    if (dialect_table(ctx.dialect).has_simd) return false;
    for (const ir::PipelineOp& op : ctx.pipeline.ops)
      if (op.kind == ir::PipelineOpKind::Probe) return false;
    if (agg_->expected_slots == 0 || agg_->expected_slots > kThreadSlots) return false;
    uint64_t distinct = 0;
    for (size_t i = 0; i < accs_.size(); ++i) {
      if (first_[i] != i) continue;
      const AccumulatorPlan& a = accs_[i];
      if (!a.state.empty() || (!integer_sum_min_max(a) && !(a.type == "f64" && a.op == "sum"))) return false;
      ++distinct;
    }
    return distinct * agg_->expected_slots <= kThreadSlotWords;
  }

  // Per tuple, one block per slot of the work-item's copy (constant indices, so the arrays stay in
  // registers); a slot past them (data beyond the statistics the kernel was compiled with) goes to
  // the CTA's table.
  void emit_thread_slot_updates(KernelContext& ctx) {
    const std::string flag = names::flag(), g = names::group_index(agg_->name);
    std::vector<std::string> values(accs_.size());
    for (size_t i = 0; i < accs_.size(); ++i) {
      const AccumulatorPlan& a = accs_[i];
      if (first_[i] != i) continue;
      values[i] = a.input == "1" ? "1" : names::accumulator_input(agg_->name, a.name);
      if (values[i] != "1") ctx.w.line("const hqc_" + a.type + " " + values[i] + " = " + a.input + ";");
    }
    ctx.w.line("// This work-item's own slots, one block per slot; the CTA's table past them.");
    for (uint64_t slot = 0; slot < thread_slots_; ++slot) {
      auto block = ctx.w.block("if (" + flag + " && " + g + " == " + std::to_string(slot) + ")");
      for (size_t i = 0; i < accs_.size(); ++i) {
        const AccumulatorPlan& a = accs_[i];
        if (first_[i] != i) continue;
        const std::string r = names::thread_slots(agg_->name, a.name) + "[" + std::to_string(slot) + "]";
        if (a.op == "sum")
          ctx.w.line(r + " += " + values[i] + ";");
        else
          ctx.w.line(r + " = hqc_" + a.op + "_i64(" + r + ", " + values[i] + ");");
      }
    }
    auto past = ctx.w.block("if (" + flag + " && " + g + " >= " + std::to_string(thread_slots_) + ")");
    for (size_t i = 0; i < accs_.size(); ++i) {
      const AccumulatorPlan& a = accs_[i];
      if (first_[i] != i) continue;
      ctx.w.line("hqc_gb_local_" + a.op + "_" + a.type + "(" + scratch_ptrs_[i] + ", " + g + ", " + values[i] + ");");
    }
  }

  // Few groups per warp whose every accumulator (of the distinct ones) is a 64-bit integer SUM, MIN
  // or MAX: each warp adds its group totals to its own copy of the slots, without atomics
  // (device/warp_groups.cuh). The statistics' slot count sizes the copies (few_groups_possible:
  // known, at most kWarpGroupSlots).
  bool warp_copies_possible() const {
    for (size_t i = 0; i < accs_.size(); ++i)
      if (first_[i] == i && !integer_sum_min_max(accs_[i])) return false;
    return true;
  }

  // A SUM, MIN or MAX of 64-bit integers: what a warp's copy or a work-item's registers hold as is.
  static bool integer_sum_min_max(const AccumulatorPlan& a) {
    return a.type == "i64" && (a.op == "sum" || a.op == "min" || a.op == "max");
  }

  // One row of warp_slots_ words per distinct accumulator, a warp's rows padded to whole bytes per
  // thread (the scratchpad is sized per thread of the block).
  void plan_warp_copies(KernelContext& ctx) {
    warp_slots_ = agg_->expected_slots;
    uint64_t rows = 0;
    warp_row_.assign(accs_.size(), 0);
    for (size_t i = 0; i < accs_.size(); ++i)
      if (first_[i] == i) warp_row_[i] = rows++;
    constexpr uint64_t kWordsPerThreadByte = kWarpLanes / 8;  // a warp's 32 threads x 1 byte = 4 words
    warp_words_ = (warp_slots_ * rows + kWordsPerThreadByte - 1) / kWordsPerThreadByte * kWordsPerThreadByte;
    ScratchSize size;
    size.bytes_per_thread = warp_words_ / kWordsPerThreadByte;
    warp_tables_ = ctx.add_scratch(names::scratch_pointer(agg_->name, "warp_tables"), "hqc_i64",
                                   "(HQC_BDIM() / " + std::to_string(kWarpLanes) + ") * " + std::to_string(warp_words_), size);
  }

  // Accumulator i's row in this warp's copy (its distinct equal's).
  std::string warp_row(size_t i) const {
    const uint64_t offset = warp_row_[first_[i]] * warp_slots_;
    return names::warp_table(agg_->name) + (offset == 0 ? "" : " + " + std::to_string(offset));
  }

  // Every lane's contribution (the identity where it does not qualify), then the warp's qualifying
  // lanes one group at a time: their totals by shuffles, one update of the CTA's table by lane 0.
  // Equal accumulators (first_) share one total and one update; a COUNT's total is the group's
  // lanes counted, no shuffle.
  void emit_group_updates(KernelContext& ctx) {
    const std::string flag = names::flag(), g = names::group_index(agg_->name);
    const std::string pending = names::warp_pending(agg_->name), group = names::warp_group(agg_->name);
    const std::string lanes = names::warp_lanes(agg_->name);
    std::vector<std::string> values(accs_.size());
    for (size_t i = 0; i < accs_.size(); ++i) {
      const AccumulatorPlan& a = accs_[i];
      if (first_[i] != i || counts_lanes(a)) continue;
      values[i] = names::accumulator_input(agg_->name, a.name);
      const bool f64 = a.type == "f64";
      ctx.w.line(std::string("const ") + (f64 ? "hqc_f64 " : "hqc_i64 ") + values[i] + " = " + flag + " ? " + a.input + " : " +
                 (f64 ? "0.0" : "0") + ";");
    }
    ctx.w.line("// The warp's qualifying lanes one group at a time: one update of the CTA's table per group.");
    ctx.w.line("hqc_u32 " + pending + " = HQC_BALLOT(" + flag + ");");
    auto loop = ctx.w.block("while (" + pending + " != 0u)");
    ctx.w.line("const hqc_i64 " + group + " = hqc_warp_group_of(" + pending + ", " + g + ");");
    ctx.w.line("const hqc_u32 " + lanes + " = hqc_warp_group_lanes(" + flag + ", " + g + ", " + group + ");");
    emit_group_totals(ctx, values, "hqc_warp_group_count(" + lanes + ")", 1);
    ctx.w.line(pending + " &= ~" + lanes + ";");
  }

  // Few groups over several tiles, per tile (inside the unrolled loop): the flag, group and each
  // distinct accumulator's input (the identity where the row does not qualify) into before_tiles'
  // arrays.
  void emit_tile_keep(KernelContext& ctx) {
    const std::string flag = names::flag(), step = "[" + std::string(names::tile_step()) + "]";
    ctx.w.line(names::tile_flags(agg_->name) + step + " = " + flag + ";");
    ctx.w.line(names::tile_groups(agg_->name) + step + " = " + names::group_index(agg_->name) + ";");
    for (size_t i = 0; i < accs_.size(); ++i) {
      const AccumulatorPlan& a = accs_[i];
      if (first_[i] != i || counts_lanes(a)) continue;
      ctx.w.line(names::tile_values(agg_->name, a.name) + step + " = " + flag + " ? " + a.input + " : " + a.identity + ";");
    }
  }

  // Few groups over several tiles, after them: the warp's qualifying rows of all its tiles one group
  // at a time. The group taken is the first row left of the lowest lane with rows left; each lane
  // combines its rows of that group first (the tiles' loop unrolled: constant indices, registers),
  // then the warp's totals and one update as emit_group_updates does.
  void emit_tiles_group_updates(KernelContext& ctx) {
    const std::string& name = agg_->name;
    const std::string left = names::lane_rows_left(name), lead = names::lane_lead_group(name);
    const std::string hits = names::lane_hits(name), hit = names::lane_hit(name);
    const std::string pending = names::warp_pending(name), group = names::warp_group(name), lanes = names::warp_lanes(name);
    const std::string flags = names::tile_flags(name), groups = names::tile_groups(name), step = names::tile_step();
    const std::string n = std::to_string(tiles_);
    const std::string each_tile = "for (hqc_i32 " + step + " = 0; " + step + " < " + n + "; ++" + step + ")";
    ctx.w.line("// The warp's qualifying rows of its " + n + " tiles one group at a time: one update of the CTA's table per group.");
    ctx.w.line("hqc_u32 " + left + " = 0u;");
    ctx.w.line("#pragma unroll");
    ctx.w.line(each_tile + " " + left + " |= (hqc_u32)(" + flags + "[" + step + "] != 0) << " + step + ";");
    ctx.w.line("hqc_u32 " + pending + " = HQC_BALLOT(" + left + " != 0u);");
    auto loop = ctx.w.block("while (" + pending + " != 0u)");
    ctx.w.line("hqc_i64 " + lead + " = 0;");
    ctx.w.line("#pragma unroll");
    ctx.w.line("for (hqc_i32 " + step + " = " + n + " - 1; " + step + " >= 0; --" + step + ")");
    ctx.w.line("  if ((" + left + " >> " + step + ") & 1u) " + lead + " = " + groups + "[" + step + "];");
    ctx.w.line("const hqc_i64 " + group + " = hqc_warp_group_of(" + pending + ", " + lead + ");");
    ctx.w.line("hqc_u32 " + hits + " = 0u;");
    std::vector<std::string> values(accs_.size());
    for (size_t i = 0; i < accs_.size(); ++i) {
      const AccumulatorPlan& a = accs_[i];
      if (first_[i] != i || counts_lanes(a)) continue;
      values[i] = names::accumulator_input(name, a.name);
      ctx.w.line("hqc_i64 " + values[i] + " = " + a.identity + ";");
    }
    ctx.w.line("#pragma unroll");
    {
      auto tiles = ctx.w.block(each_tile);
      ctx.w.line("const hqc_i32 " + hit + " = ((" + left + " >> " + step + ") & 1u) && " + groups + "[" + step + "] == " + group + ";");
      ctx.w.line(hits + " |= (hqc_u32)" + hit + " << " + step + ";");
      for (size_t i = 0; i < accs_.size(); ++i) {
        if (values[i].empty()) continue;
        const AccumulatorPlan& a = accs_[i];
        const std::string kept = names::tile_values(name, a.name) + "[" + step + "]";
        if (a.op == "sum")
          ctx.w.line(values[i] + " += " + hit + " ? " + kept + " : 0;");
        else
          ctx.w.line(values[i] + " = " + hit + " ? hqc_" + a.op + "_i64(" + values[i] + ", " + kept + ") : " + values[i] + ";");
      }
    }
    ctx.w.line("const hqc_u32 " + lanes + " = HQC_BALLOT(" + hits + " != 0u);");
    emit_group_totals(ctx, values, "hqc_warp_group_count_rows(" + hits + ")", tiles_);
    ctx.w.line(left + " &= ~" + hits + ";");
    ctx.w.line(pending + " = HQC_BALLOT(" + left + " != 0u);");
  }

  // The warp's totals of the group taken (`values`: each distinct accumulator's contribution of this
  // lane, "" for a COUNT, whose total is `count_total`; each lane adds up to `rows_per_lane` rows),
  // then lane 0's one update: of the warp's copy, or of the CTA's table.
  void emit_group_totals(KernelContext& ctx, const std::vector<std::string>& values, const std::string& count_total,
                         uint64_t rows_per_lane) {
    const std::string group = names::warp_group(agg_->name), lanes = names::warp_lanes(agg_->name);
    std::vector<std::string> totals(accs_.size());
    for (size_t i = 0; i < accs_.size(); ++i) {
      const AccumulatorPlan& a = accs_[i];
      if (first_[i] != i) {
        totals[i] = totals[first_[i]];
        continue;
      }
      totals[i] = names::warp_total(agg_->name, a.name);
      std::string total = "hqc_warp_group_" + a.op + "_" + a.type + "(" + values[i] + ", " + lanes + ")";
      const char* narrow = lane_sum_fits(a, 0, rows_per_lane)    ? "hqc_warp_group_sum_small("
                           : lane_sum_fits(a, 16, rows_per_lane) ? "hqc_warp_group_sum_split("
                                                                 : nullptr;
      if (counts_lanes(a)) total = count_total;
      else if (narrow != nullptr && a.type == "i64") total = narrow + values[i] + ", " + lanes + ")";
      else if (narrow != nullptr) total = std::string("hqc_i128_from_i64(") + narrow + values[i] + ", " + lanes + "))";
      ctx.w.line("const hqc_" + a.type + " " + totals[i] + " = " + total + ";");
    }
    if (!warp_tables_.empty()) {
      const std::string slots = std::to_string(warp_slots_);
      auto own = ctx.w.block("if (hqc_lane() == 0 && " + group + " < " + slots + ")");
      for (size_t i = 0; i < accs_.size(); ++i)
        if (first_[i] == i) ctx.w.line("hqc_gb_warp_" + accs_[i].op + "_i64(" + warp_row(i) + ", " + group + ", " + totals[i] + ");");
    }
    // Without warp copies every group; with them, a group past their slots (data beyond the
    // statistics the kernel was compiled with).
    auto lane0 = ctx.w.block(warp_tables_.empty() ? std::string("if (hqc_lane() == 0)")
                                                  : "if (hqc_lane() == 0 && " + group + " >= " + std::to_string(warp_slots_) + ")");
    for (size_t i = 0; i < accs_.size(); ++i) {
      const AccumulatorPlan& a = accs_[i];
      if (first_[i] != i) continue;  // shares the scratchpad of its equal
      const std::string call = a.type == "i128" ? "hqc_gb_local_sum_group_i128(" : "hqc_gb_local_" + a.op + "_" + a.type + "(";
      ctx.w.line(call + scratch_ptrs_[i] + ", " + group + ", " + totals[i] + ");");
    }
  }

  // The group of each lane, the runs of neighbouring lanes in one group, the runs' totals, then one
  // lookup and update per run by its last lane.
  void emit_run_updates(KernelContext& ctx) {
    const std::string flag = names::flag(), g = names::group_index(agg_->name);
    const std::string runs = names::warp_runs(agg_->name), first = names::run_first(agg_->name);
    std::string same;  // the lanes whose group equals the lane below's
    std::string key;
    if (agg_->layout == ir::AggLayout::DirectIndexed) {
      emit_direct_slot(ctx, *agg_);
      same = "hqc_warp_same_below_i64(" + g + ")";
    } else {
      key = emit_group_key(ctx, *agg_);
      for (size_t i = 0; i < agg_->keys.size(); ++i)
        same += std::string(i == 0 ? "" : " & ") + "hqc_warp_same_below_i64(" + key + (agg_->keys.size() == 1 ? "" : "[" + std::to_string(i) + "]") + ")";
    }
    ctx.w.line("hqc_u32 " + runs + " = hqc_warp_pairs(" + flag + ");");
    ctx.w.line("if (" + runs + " != 0u) " + runs + " &= " + same + ";");
    // Equal accumulators (first_) share one value; a COUNT's run total is the run's length; an i64
    // SUM whose 32 inputs fit int32 scans in 32 bits.
    std::vector<std::string> values(accs_.size());
    for (size_t i = 0; i < accs_.size(); ++i) {
      const AccumulatorPlan& a = accs_[i];
      if (first_[i] != i) {
        values[i] = values[first_[i]];
        continue;
      }
      values[i] = names::accumulator_input(agg_->name, a.name);
      if (a.type == "i128")
        ctx.w.line("hqc_i128 " + values[i] + " = hqc_i128_from_i64(" + a.input + ");");
      else
        ctx.w.line("hqc_" + a.type + " " + values[i] + " = " + a.input + ";");
    }
    ctx.w.line("// Runs of neighbouring lanes in one group: each lane gets its run's total so far, the last lane the run's.");
    {
      auto combine = ctx.w.block("if (" + runs + " != 0u)");
      ctx.w.line("const hqc_i32 " + first + " = hqc_warp_run_first(" + runs + ");");
      for (size_t i = 0; i < accs_.size(); ++i) {
        const AccumulatorPlan& a = accs_[i];
        if (first_[i] != i) continue;
        if (counts_lanes(a))
          ctx.w.line(values[i] + " = (hqc_i64)(hqc_lane() - " + first + " + 1);");
        else if (a.type == "i64" && lane_sum_fits(a, 0, 1))
          ctx.w.line(values[i] + " = hqc_warp_run_sum_small(" + values[i] + ", " + first + ");");
        else
          ctx.w.line(values[i] + " = hqc_warp_run_" + a.op + "_" + a.type + "(" + values[i] + ", " + first + ");");
      }
    }
    ctx.w.line(flag + " = " + flag + " && hqc_warp_run_last(" + runs + ");");
    if (agg_->layout == ir::AggLayout::GlobalHash) {
      ctx.w.line("const hqc_i64 " + g + " = " + flag + " ? " + hashed_group_slot(ctx, *agg_, key) + " : -1;");
      ctx.w.line(flag + " = " + flag + " && " + g + " >= 0;");
    }
    auto update = ctx.w.block("if (" + flag + ")");
    for (size_t i = 0; i < accs_.size(); ++i) {
      const AccumulatorPlan& a = accs_[i];
      const std::string call = a.type == "i128" ? "hqc_gb_global_sum_run_i128(" : "hqc_gb_global_" + a.op + "_" + a.type + "(";
      ctx.w.line(call + a.pointer + ", " + g + ", " + values[i] + ");");
    }
  }

  // A COUNT (or any SUM of 1): its total over lanes is how many there are.
  static bool counts_lanes(const AccumulatorPlan& a) { return a.op == "sum" && a.type == "i64" && a.input == "1"; }
  // An integer SUM whose inputs, `rows_per_lane` of them added in each lane and split at bit `split`
  // (0: whole), add up over a warp's 32 lanes within 32 bits (a signed high part and an unsigned low
  // part of `split` bits): by its statistics bound.
  static bool lane_sum_fits(const AccumulatorPlan& a, unsigned split, uint64_t rows_per_lane) {
    if (a.op != "sum" || (a.type != "i64" && a.type != "i128") || a.input_bound == 0) return false;
    const uint64_t high = static_cast<uint64_t>(std::numeric_limits<int32_t>::max()) / (kWarpLanes * rows_per_lane) -
                          (split == 0 ? 0 : 1);
    return (a.input_bound >> split) <= high;
  }

  // ((k0 - min0) * domain1 + (k1 - min1)) * domain2 + (k2 - min2)
  const ir::AggregationTable* agg_ = nullptr;
  std::vector<AccumulatorPlan> accs_;
  std::vector<std::string> scratch_ptrs_;  // C3: parallel to accs_ (equal accumulators share one)
  std::vector<size_t> first_;              // per accumulator: the first of equal ones (itself when none)
  bool hashed_ = false;                    // GlobalHash layout
  std::string local_slots_param_;          // C3: slots of the CTA's table (direct: all; hashed: local)
  std::string local_keys_;                 // hashed C3: key lanes of the CTA's table
  std::string scratch_;                    // B3: the reduction scratch
  ir::Technique technique_ = ir::Technique::B3;
  ir::LocalResolution local_ = ir::LocalResolution::None;
  bool runs_ = false;                      // C2 with warp runs
  bool few_groups_ = false;                // C3 with a warp's groups combined first
  uint64_t thread_slots_ = 0;              // C3 with each work-item's own slots: how many (0: none)
  uint32_t tiles_ = 1;                     // tiles per iteration of the tile loop
  std::string warp_tables_;                // few groups: every warp's copy of the slots ("": none)
  uint64_t warp_slots_ = 0;                // ... the slots of a copy (the statistics' count)
  uint64_t warp_words_ = 0;                // ... the words of one warp's copy
  std::vector<uint64_t> warp_row_;         // ... per distinct accumulator, its row in a copy
};

}  // namespace

std::unique_ptr<SinkEmitter> make_sink_emitter(const ir::Pipeline& pipeline, const ir::Kernel& kernel) {
  if (kernel.kind == ir::KernelKind::PassCount || (kernel.kind == ir::KernelKind::PassWrite && pipeline.sink.kind == ir::SinkKind::Aggregate))
    return make_multi_pass_sink(pipeline, kernel);
  switch (pipeline.sink.kind) {
    case ir::SinkKind::HashBuild: return std::make_unique<HashBuildSink>();
    case ir::SinkKind::Aggregate: return std::make_unique<AggregateSink>();
    case ir::SinkKind::Materialize: return std::make_unique<MaterializeSink>();
  }
  throw Error(ErrorKind::Internal, "unknown sink kind in pipeline " + pipeline.name);
}

}  // namespace hqc::codegen::detail

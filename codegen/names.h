// Every identifier the code generator invents comes from here, so generated source is consistent
// and a rename is one edit (DogQC's identifier.py). Names the IR already chose (attribute
// variables, buffer and param names, column argument names) pass through unchanged: they are C
// identifiers by the IR's contract, and keeping them makes kernels readable next to EXPLAIN.
//
// Contract: every function returns a valid C identifier that cannot collide with another
// function's results (distinct prefixes) or with the device library (which uses hqc_ / HQC_).
#pragma once

#include <string>

namespace hqc::codegen::names {

// Tile loop of the kernel frame (templates/device/tile.h).
inline const char* tile() { return "tile"; }
inline const char* tile_items() { return "tile_items"; }
inline const char* flag() { return "flag"; }                 // tuple still qualifies
// Several tiles per iteration (SinkEmitter::tiles_per_iteration): the first tile of the iteration,
// and which of its tiles the unrolled loop is at.
inline const char* tile_block() { return "tile_block"; }
inline const char* tile_step() { return "tile_step"; }
inline const char* scratch_base() { return "hqc_scratch"; }  // dialect prelude: HQC_SCRATCH_BEGIN/PARAMS

// Slot of the match of probe op `op_id` (-1 = no match).
std::string probe_slot(int op_id);
// Probe op `op_id` with a chain walk (several matches, composite keys, residual): its key columns
// "pk_op3_0", home slot "home_op3", the flag before its match loop "flag_op3", "first_op3" (the
// first pass of a left outer match loop), "found_op3" (a semi/anti match whose residual held), and
// the payload a residual reads inside the probe, "r_op3_<ir variable>".
std::string probe_key(int op_id, size_t column);
std::string probe_home(int op_id);
std::string probe_flag(int op_id);
std::string probe_first(int op_id);
std::string probe_found(int op_id);
std::string residual_value(int op_id, const std::string& ir_variable);
// Slot of the build-side insert of hash table `ht` (of a chained table: the entry, -1 when not inserted).
std::string build_slot(const std::string& ht);
// A build's count of the rows it inserted (ir::HashTable::count_buffer), per work-item.
std::string built_rows(const std::string& ht);
// Entry of this row in chained hash table `ht` (its payload's index): "entry_ht2".
std::string build_entry(const std::string& ht);
// Slot of the key of this row in chained hash table `ht`, before its entry is linked: "kslot_ht2".
std::string build_key_slot(const std::string& ht);
// Column `column` of a composite build key of hash table `ht`: "bk_ht2_0".
std::string build_key(const std::string& ht, size_t column);
// Scratchpad pointer of a state object region: "s_agg0_revenue", "s_agg0_count", "s_out0_scan".
std::string scratch_pointer(const std::string& state, const std::string& part);
// Register accumulator of a single-tuple aggregate (B3): "acc_agg0_revenue".
std::string register_accumulator(const std::string& state, const std::string& accumulator);
// Value an accumulator adds for this tuple: "v_agg0_revenue".
std::string accumulator_input(const std::string& state, const std::string& accumulator);
// Group index of a direct-indexed / slot of a hashed aggregation table: "g_agg0".
std::string group_index(const std::string& state);
// Packed key of a hashed aggregation table: "gkey_agg0".
std::string group_key(const std::string& state);
// Hashed C3: the tuple's slot in the CTA's scratchpad table: "lg_agg0"; the merge loop's slot of
// that table, its key and its slot in the global table: "ms_agg0", "mkey_agg0", "mg_agg0".
std::string local_group(const std::string& state);
std::string merge_slot(const std::string& state);
std::string merge_key(const std::string& state);
std::string merge_group(const std::string& state);
// C2 with warp runs (device/warp_groups.cuh): the lanes that continue the run of the lane below,
// "runs_agg0", and this lane's run's first lane, "first_agg0".
std::string warp_runs(const std::string& state);
std::string run_first(const std::string& state);
// C3 with few groups per warp (device/warp_groups.cuh): the qualifying lanes not yet taken,
// "pending_agg0"; the group taken, "group_agg0"; its lanes, "lanes_agg0"; an accumulator's total over
// them, "t_agg0_<accumulator>".
std::string warp_pending(const std::string& state);
std::string warp_group(const std::string& state);
std::string warp_lanes(const std::string& state);
std::string warp_total(const std::string& state, const std::string& accumulator);
// ... and, where each warp keeps its own copy of the table's slots, this warp's copy, "w_agg0".
std::string warp_table(const std::string& state);
// ... over several tiles per iteration: each tile's flag, group and accumulator input kept until the
// warp combines them, "tf_agg0", "tg_agg0", "tv_agg0_<accumulator>" (arrays of one per tile); this
// lane's qualifying rows not yet taken, one bit per tile, "left_agg0"; the group of the first of
// them, "lead_agg0"; those in the group taken, "hits_agg0", and whether a tile's row is, "hit_agg0".
std::string tile_flags(const std::string& state);
std::string tile_groups(const std::string& state);
std::string tile_values(const std::string& state, const std::string& accumulator);
std::string lane_rows_left(const std::string& state);
std::string lane_lead_group(const std::string& state);
std::string lane_hits(const std::string& state);
std::string lane_hit(const std::string& state);
// C3 with each work-item's own slots in registers: an accumulator's array of them, "r_agg0_<accumulator>".
std::string thread_slots(const std::string& state, const std::string& accumulator);
// Write position of a materialization: "pos_out0".
std::string write_position(const std::string& state);
// Multi-pass: the next write position of this work-item's row: "next_out0"; the tuple counted
// by the count kernel (flag before the group slot is found): "counted_agg0".
std::string next_position(const std::string& state);
std::string counted(const std::string& state);
// This row's byte range of a heap string attribute: "begin_p_name", "end_p_name".
std::string string_begin(const std::string& ir_variable);
std::string string_end(const std::string& ir_variable);
// Value of a Map expression: the IR's variable name of the bound attribute.
std::string map_value(const std::string& ir_variable);

}  // namespace hqc::codegen::names

// Identifier construction; see names.h for the prefixes and why they cannot collide.
#include "codegen/names.h"

#include "ir/lowering.h"

namespace hqc::codegen::names {

std::string probe_slot(int op_id) { return "slot_op" + std::to_string(op_id); }
std::string probe_key(int op_id, size_t column) { return "pk_op" + std::to_string(op_id) + "_" + std::to_string(column); }
std::string probe_home(int op_id) { return "home_op" + std::to_string(op_id); }
std::string probe_flag(int op_id) { return "flag_op" + std::to_string(op_id); }
std::string probe_first(int op_id) { return "first_op" + std::to_string(op_id); }
std::string probe_found(int op_id) { return "found_op" + std::to_string(op_id); }
std::string residual_value(int op_id, const std::string& ir_variable) { return "r_op" + std::to_string(op_id) + "_" + ir_variable; }
std::string build_slot(const std::string& ht) { return "slot_" + ht; }
std::string built_rows(const std::string& ht) { return "built_" + ht; }
std::string build_entry(const std::string& ht) { return "entry_" + ht; }
std::string build_key_slot(const std::string& ht) { return "kslot_" + ht; }
std::string build_key(const std::string& ht, size_t column) { return "bk_" + ht + "_" + std::to_string(column); }
std::string scratch_pointer(const std::string& state, const std::string& part) { return "s_" + state + "_" + ir::sanitize_identifier(part); }
std::string register_accumulator(const std::string& state, const std::string& accumulator) {
  // Accumulators are named after their output column, which may be any text ("count(*)").
  return "acc_" + state + "_" + ir::sanitize_identifier(accumulator);
}
std::string accumulator_input(const std::string& state, const std::string& accumulator) {
  return "v_" + state + "_" + ir::sanitize_identifier(accumulator);
}
std::string group_index(const std::string& state) { return "g_" + state; }
std::string group_key(const std::string& state) { return "gkey_" + state; }
std::string local_group(const std::string& state) { return "lg_" + state; }
std::string merge_slot(const std::string& state) { return "ms_" + state; }
std::string merge_key(const std::string& state) { return "mkey_" + state; }
std::string merge_group(const std::string& state) { return "mg_" + state; }
std::string warp_runs(const std::string& state) { return "runs_" + state; }
std::string run_first(const std::string& state) { return "first_" + state; }
std::string warp_pending(const std::string& state) { return "pending_" + state; }
std::string warp_group(const std::string& state) { return "group_" + state; }
std::string warp_lanes(const std::string& state) { return "lanes_" + state; }
std::string warp_table(const std::string& state) { return "w_" + state; }
std::string tile_flags(const std::string& state) { return "tf_" + state; }
std::string tile_groups(const std::string& state) { return "tg_" + state; }
std::string tile_values(const std::string& state, const std::string& accumulator) {
  return "tv_" + state + "_" + ir::sanitize_identifier(accumulator);
}
std::string lane_rows_left(const std::string& state) { return "left_" + state; }
std::string lane_lead_group(const std::string& state) { return "lead_" + state; }
std::string lane_hits(const std::string& state) { return "hits_" + state; }
std::string lane_hit(const std::string& state) { return "hit_" + state; }
std::string thread_slots(const std::string& state, const std::string& accumulator) {
  return "r_" + state + "_" + ir::sanitize_identifier(accumulator);
}
std::string warp_total(const std::string& state, const std::string& accumulator) {
  return "t_" + state + "_" + ir::sanitize_identifier(accumulator);
}
std::string write_position(const std::string& state) { return "pos_" + state; }
std::string next_position(const std::string& state) { return "next_" + state; }
std::string counted(const std::string& state) { return "counted_" + state; }
std::string map_value(const std::string& ir_variable) { return ir_variable; }

std::string string_begin(const std::string& ir_variable) { return "begin_" + ir_variable; }
std::string string_end(const std::string& ir_variable) { return "end_" + ir_variable; }

}  // namespace hqc::codegen::names

// Launch-manifest serialisation and scratchpad size evaluation; see generated_program.h.
#include "codegen/generated_program.h"

namespace hqc::codegen {
namespace {

const char* arg_kind_name(ir::KernelArg::Kind k) {
  switch (k) {
    case ir::KernelArg::Kind::Column: return "column";
    case ir::KernelArg::Kind::ColumnHeap: return "column_heap";
    case ir::KernelArg::Kind::Buffer: return "buffer";
    case ir::KernelArg::Kind::Param: return "param";
    case ir::KernelArg::Kind::Scratch: return "scratch";
  }
  return "?";
}

}  // namespace

uint64_t ScratchSize::bytes(uint32_t block_size, const std::function<int64_t(const std::string&)>& param_value) const {
  uint64_t total = fixed_bytes + bytes_per_thread * block_size;
  for (const auto& [param, per_unit] : bytes_per_param_unit) {
    int64_t v = param_value(param);
    total += per_unit * static_cast<uint64_t>(v < 0 ? 0 : v);
  }
  return total;
}

nlohmann::json GeneratedProgram::to_json() const {
  nlohmann::json kernels_json = nlohmann::json::array();
  for (const KernelManifest& k : kernels) {
    nlohmann::json args = nlohmann::json::array();
    for (const ir::KernelArg& a : k.args) {
      nlohmann::json j = {{"kind", arg_kind_name(a.kind)}};
      if (a.kind != ir::KernelArg::Kind::Scratch) j["name"] = a.name;
      if (a.kind == ir::KernelArg::Kind::Column || a.kind == ir::KernelArg::Kind::ColumnHeap) {
        j["table"] = a.table;
        j["column"] = a.column;
      }
      if (a.kind == ir::KernelArg::Kind::ColumnHeap) j["type"] = "u8";
      else if (a.kind != ir::KernelArg::Kind::Scratch) j["type"] = ir::scalar_type_name(a.type);
      if (a.stored_bytes != 0) j["stored"] = "i" + std::to_string(8 * a.stored_bytes);  // ir pass narrow_columns
      if (a.kind == ir::KernelArg::Kind::Buffer) j["written"] = a.written;
      args.push_back(std::move(j));
    }
    nlohmann::json per_param = nlohmann::json::array();
    for (const auto& [param, per_unit] : k.scratch.bytes_per_param_unit)
      per_param.push_back({{"param", param}, {"bytes_per_unit", per_unit}});
    nlohmann::json reductions = nlohmann::json::array();
    for (const ManifestReduction& r : k.reductions) {
      nlohmann::json j = {{"state", r.state},
                          {"kind", ir::reduction_kind_name(r.kind)},
                          {"technique", ir::technique_name(r.technique)},
                          {"local_resolution", ir::local_resolution_name(r.local)}};
      if (!r.note.empty()) j["note"] = r.note;
      reductions.push_back(std::move(j));
    }
    kernels_json.push_back({
        {"name", k.name},
        {"pipeline", k.pipeline},
        {"args", std::move(args)},
        {"work_items", {{"param", k.work_items_param}, {"table", k.work_items_table}}},
        {"scratch_bytes",
         {{"fixed", k.scratch.fixed_bytes}, {"per_thread", k.scratch.bytes_per_thread}, {"per_param_unit", std::move(per_param)}}},
        {"block",
         {{"multiple_of", k.block_size_multiple}, {"power_of_two", k.power_of_two_block}}},
        {"reductions", std::move(reductions)},
    });
    if (k.fixed_grid != 0) kernels_json.back()["fixed_grid"] = k.fixed_grid;
    if (!k.module.empty()) kernels_json.back()["module"] = k.module;
  }
  nlohmann::json out = {{"label", label},
                        {"dialect", dialect_name(dialect)},
                        {"compile_options", compile_options},
                        {"kernels", std::move(kernels_json)}};
  if (library_calls.empty()) return out;
  nlohmann::json calls = nlohmann::json::array();
  for (const ir::LibraryCall& c : library_calls) {
    nlohmann::json j = {{"op", ir::library_op_name(c.op)}, {"after", c.after}, {"buffers", c.buffers}, {"count", c.count_param},
                        {"what", c.what}};
    if (c.op == ir::LibraryOp::Reduce || c.op == ir::LibraryOp::ReduceByKey) {
      j["reduce"] = ir::reduce_op_name(c.reduce);
      j["type"] = c.f64 ? "f64" : "i64";
    }
    if (!c.result_param.empty()) j["result"] = c.result_param;
    if (!c.limit_param.empty()) j["limit"] = c.limit_param;
    calls.push_back(std::move(j));
  }
  out["library_calls"] = std::move(calls);
  return out;
}

}  // namespace hqc::codegen

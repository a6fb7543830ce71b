// Consistency checks of an ExecutablePlan before anything touches the device: a dangling name is
// a compiler bug and is reported as such, naming the plan, the pipeline and the reference.
#include "runtime/execution/executable_plan.h"

#include <algorithm>
#include <map>
#include <set>

#include "runtime/execution/library_modules.h"
#include "storage/error.h"

namespace hqc::runtime {

void check_plan_runs_on(const ExecutablePlan& plan, const Backend& backend) {
  validate_plan(plan);
  if (plan.dialect && *plan.dialect != backend.dialect()) {
    throw Error(ErrorKind::Usage, plan.label + ": the kernels were generated for " + codegen::dialect_name(*plan.dialect) +
                                      " but the device is " + backend.device_description() + "; generate them for " +
                                      backend.name());
  }
}

uint32_t element_bytes(ElementType t) {
  switch (t) {
    case ElementType::I32:
    case ElementType::U32: return 4;
    case ElementType::I64:
    case ElementType::U64:
    case ElementType::F64: return 8;
  }
  return 8;
}

const char* library_step_name(LibraryStep::Op op) {
  switch (op) {
    case LibraryStep::Op::InclusiveScan: return "inclusive_scan";
    case LibraryStep::Op::SortByKey: return "sort_by_key";
    case LibraryStep::Op::Gather: return "gather";
    case LibraryStep::Op::Reduce: return "reduce";
    case LibraryStep::Op::ReduceByKey: return "reduce_by_key";
  }
  return "?";
}

const char* state_merge_kind_name(StateMerge::Kind k) {
  switch (k) {
    case StateMerge::Kind::Elementwise: return "elementwise";
    case StateMerge::Kind::HashedGroups: return "hashed groups";
    case StateMerge::Kind::Rows: return "rows";
    case StateMerge::Kind::Local: return "local";
    case StateMerge::Kind::Shuffle: return "shuffled by key";
  }
  return "?";
}

void validate_plan(const ExecutablePlan& plan) {
  auto fail = [&](const std::string& where, const std::string& what) {
    throw Error(ErrorKind::Internal, "executable plan " + plan.label + ": " + where + ": " + what);
  };
  std::set<std::string> params;
  for (const ParamSpec& p : plan.params) {
    if (!params.insert(p.name).second) fail("params", "parameter \"" + p.name + "\" declared twice");
  }
  std::set<std::string> buffers;
  for (const BufferSpec& b : plan.buffers) {
    if (!buffers.insert(b.name).second) fail("buffers", "buffer \"" + b.name + "\" declared twice");
    if (!b.elements_param.empty() && !params.count(b.elements_param)) {
      fail("buffer " + b.name, "size parameter \"" + b.elements_param + "\" is not declared");
    }
  }
  std::set<std::string> kernels(plan.module.kernel_names.begin(), plan.module.kernel_names.end());
  std::map<std::pair<std::string, std::string>, unsigned> stored;  // one device form per column
  for (const PipelineSpec& pipeline : plan.pipelines) {
    for (const LaunchSpec& launch : pipeline.launches) {
      const std::string where = pipeline.name + ", kernel " + launch.kernel;
      if (launch.module.empty() ? !kernels.count(launch.kernel) : !library_module_has(launch.module, launch.kernel))
        fail(where, launch.module.empty() ? "kernel is not in the module's kernel list"
                                          : "kernel is not in library module \"" + launch.module + "\"");
      if (launch.items_per_thread == 0) fail(where, "items per thread must be > 0");
      if (!launch.tuples_param.empty() && !params.count(launch.tuples_param)) {
        fail(where, "tuple count parameter \"" + launch.tuples_param + "\" is not declared");
      }
      for (const auto& [name, bytes] : launch.scratch_bytes_per_param) {
        (void)bytes;
        if (!params.count(name)) fail(where, "scratchpad size parameter \"" + name + "\" is not declared");
      }
      if (launch.block_size_multiple == 0) fail(where, "block size multiple must be > 0");
      for (const LaunchSpec::ScratchSlotBound& bound : launch.scratch_slot_bounds) {
        if (!params.count(bound.param)) fail(where, "scratchpad slot bound on undeclared parameter \"" + bound.param + "\"");
      }
      for (size_t i = 0; i < launch.args.size(); ++i) {
        const ArgSpec& a = launch.args[i];
        const std::string arg = "argument " + std::to_string(i);
        if (a.kind == ArgSpec::Kind::Buffer && !buffers.count(a.name)) fail(where, arg + ": buffer \"" + a.name + "\" is not declared");
        if (a.kind == ArgSpec::Kind::Param && !params.count(a.name)) fail(where, arg + ": parameter \"" + a.name + "\" is not declared");
        if ((a.kind == ArgSpec::Kind::Column || a.kind == ArgSpec::Kind::ColumnHeap) && (a.table.empty() || a.column.empty())) {
          fail(where, arg + ": column argument without table and column");
        }
        if (a.kind == ArgSpec::Kind::Column) {
          const auto [w, fresh] = stored.emplace(std::pair{a.table, a.column}, a.stored_bytes);
          if (!fresh && w->second != a.stored_bytes)
            fail(where, arg + ": " + a.table + "." + a.column + " stored in " + std::to_string(a.stored_bytes) +
                            " bytes per value here, in " + std::to_string(w->second) + " by an earlier kernel");
        }
      }
    }
    static const std::map<LibraryStep::Op, size_t> arity = {{LibraryStep::Op::InclusiveScan, 1}, {LibraryStep::Op::SortByKey, 2},
                                                            {LibraryStep::Op::Gather, 3}, {LibraryStep::Op::Reduce, 2},
                                                            {LibraryStep::Op::ReduceByKey, 4}};
    for (const LibraryStep& step : pipeline.library_steps) {
      const std::string where = pipeline.name + ", library " + library_step_name(step.op) + " (" + step.what + ")";
      if (step.after_launch >= pipeline.launches.size()) fail(where, "follows launch " + std::to_string(step.after_launch) + ", which does not exist");
      if (step.buffers.size() != arity.at(step.op)) fail(where, "expected " + std::to_string(arity.at(step.op)) + " buffers");
      for (const std::string& b : step.buffers)
        if (!buffers.count(b)) fail(where, "buffer \"" + b + "\" is not declared");
      for (const std::string* p : {&step.count_param, &step.result_param, &step.limit_param})
        if (!p->empty() && !params.count(*p)) fail(where, "parameter \"" + *p + "\" is not declared");
      if (step.count_param.empty()) fail(where, "no element count parameter");
    }
    for (const ParamFromBuffer& f : pipeline.params_from_buffers) {
      if (!params.count(f.param)) fail(pipeline.name, "parameter \"" + f.param + "\" read from a buffer is not declared");
      if (!buffers.count(f.buffer)) fail(pipeline.name, "buffer \"" + f.buffer + "\" a parameter is read from is not declared");
      if (!f.nonzero_buffer.empty() && !buffers.count(f.nonzero_buffer)) {
        fail(pipeline.name, "buffer \"" + f.nonzero_buffer + "\" checked before reading a parameter is not declared");
      }
    }
    for (const CheckSpec& check : pipeline.checks) {
      if (!buffers.count(check.flag_buffer)) fail(pipeline.name, "overflow flag buffer \"" + check.flag_buffer + "\" is not declared");
      for (const std::string& p : check.grow_params) {
        if (!params.count(p)) fail(pipeline.name, "grown parameter \"" + p + "\" is not declared");
      }
      if (!check.need_buffer.empty() && !buffers.count(check.need_buffer)) {
        fail(pipeline.name, "buffer \"" + check.need_buffer + "\" that says what a Grow check needs is not declared");
      }
      if (check.action == CheckSpec::Action::Grow && check.grow_params.empty()) {
        fail(pipeline.name, "a Grow check on \"" + check.flag_buffer + "\" names no parameter to grow");
      }
    }
  }
  for (const CountedCapacity& c : plan.counted) {
    const std::string where = "counted capacity " + c.param;
    if (!params.count(c.param)) fail(where, "the parameter is not declared");
    for (const std::string& p : c.same)
      if (!params.count(p)) fail(where, "parameter \"" + p + "\" that takes its value is not declared");
    if (!buffers.count(c.count_buffer)) fail(where, "count buffer \"" + c.count_buffer + "\" is not declared");
    if (c.counted_by >= c.first_use || c.first_use >= plan.pipelines.size())
      fail(where, "counted by pipeline " + std::to_string(c.counted_by) + " but first used by pipeline " + std::to_string(c.first_use));
  }
  const ResultSpec& r = plan.result;
  if (r.rows == ResultSpec::Rows::Counter && !buffers.count(r.counter_buffer)) {
    fail("result", "counter buffer \"" + r.counter_buffer + "\" is not declared");
  }
  if (!r.occupancy_buffer.empty() && !buffers.count(r.occupancy_buffer)) {
    fail("result", "occupancy buffer \"" + r.occupancy_buffer + "\" is not declared");
  }
  if (!r.input_rows_buffer.empty() && !buffers.count(r.input_rows_buffer)) {
    fail("result", "input row count buffer \"" + r.input_rows_buffer + "\" is not declared");
  }
  std::set<std::string> columns;
  for (const ResultColumnSpec& c : r.columns) columns.insert(c.name);
  for (const ResultColumnSpec& c : r.columns) {
    const std::string where = "result column " + c.name;
    if (c.source == ResultColumnSpec::Source::Buffer && !buffers.count(c.buffer)) fail(where, "buffer \"" + c.buffer + "\" is not declared");
    if (!c.valid_buffer.empty() && !buffers.count(c.valid_buffer)) fail(where, "validity buffer \"" + c.valid_buffer + "\" is not declared");
    if (c.source == ResultColumnSpec::Source::SlotKey && !c.buffer.empty() && !buffers.count(c.buffer)) {
      fail(where, "key buffer \"" + c.buffer + "\" is not declared");
    }
    if (c.source == ResultColumnSpec::Source::SlotKey && c.divisor <= 0) fail(where, "divisor must be > 0");
    if (!c.offset_param.empty() && !params.count(c.offset_param)) fail(where, "offset parameter \"" + c.offset_param + "\" is not declared");
    if (c.source == ResultColumnSpec::Source::AverageOf && (!columns.count(c.sum_column) || !columns.count(c.count_column))) {
      fail(where, "AVG refers to columns \"" + c.sum_column + "\" / \"" + c.count_column + "\" that are not in the result");
    }
  }
  for (const auto& [name, descending] : r.order_by) {
    (void)descending;
    if (!columns.count(name)) fail("result", "ORDER BY column \"" + name + "\" is not a result column");
  }
  for (const plan::WindowExpr& w : r.windows) {
    for (const std::string& n : plan::window_attributes(w))
      if (!columns.count(n)) fail("window " + w.name, "column \"" + n + "\" is not a result column");
  }
}

int64_t CountedCapacity::slots(int64_t count) const {
  const double groups = std::min(static_cast<double>(std::max<int64_t>(count, 0)) * groups_per_count, 0x1p62);
  return static_cast<int64_t>(planner::CapacityTerms{1.0, 0.0, load_factor}.slots(groups));
}

std::vector<std::string> CountedCapacity::deferred_params() const {
  std::vector<std::string> out{param};
  out.insert(out.end(), same.begin(), same.end());
  return out;
}

std::map<std::string, int64_t> param_values(const ExecutablePlan& plan) {
  std::map<std::string, int64_t> values;
  for (const ParamSpec& p : plan.params) values[p.name] = p.value;
  return values;
}

}  // namespace hqc::runtime

// Pass assign_parameters.
//   expects: a built program whose DictCode expressions have no `param` yet (or a consistent one).
//   guarantees: every DictCode expression names a Param{DictCode, table, column, literal, match};
//   equal literals share one param. Names: "dict_<column>_<eq|lb|ub>_<n>", n in order of first use,
//   so the text (and the kernel source) is stable across runs and scale factors.
//   Every LIKE over a dictionary column names (in `param`) a code-set buffer
//   Buffer{I32, Fill::CodeSet, table, column, pattern} of max code + 1 elements (a ColumnMax param
//   "<buffer>_max_code"): "like_<column>_<n>", equal (column, pattern) pairs sharing one.
//   Every SUBSTRING of a dictionary column names (in `param`) its per-code table of packed
//   substrings Buffer{I64, Fill::CodeStrings, table, column, start, length} of max code + 1
//   elements: "substr_<column>_<n>", equal (column, start, length) sharing one.
#include <map>
#include <tuple>

#include "ir/passes.h"
#include "ir/walk.h"
#include "storage/error.h"

namespace hqc::ir {

void assign_parameters(Program& program) {
  using Key = std::tuple<std::string, std::string, std::string, plan::DictMatch>;
  std::map<Key, std::string> assigned;
  for (const Param& p : program.params) {
    if (p.source == Param::Source::DictCode) assigned[{p.table, p.column, p.literal, p.match}] = p.name;
  }
  int counter = static_cast<int>(assigned.size());
  using SetKey = std::tuple<std::string, std::string, std::string>;
  std::map<SetKey, std::string> sets;
  for (const Buffer& b : program.buffers) {
    if (b.fill == Buffer::Fill::CodeSet) sets[{b.set_table, b.set_column, b.set_pattern}] = b.name;
  }
  auto code_set = [&](const plan::Expr& e) {
    const plan::Expr& col = *e.args.at(0);
    SetKey key{col.dict_table, col.dict_column, e.string_value};
    auto it = sets.find(key);
    if (it != sets.end()) return it->second;
    const std::string name = "like_" + col.dict_column + "_" + std::to_string(sets.size());
    Param max;
    max.name = name + "_max_code";
    max.source = Param::Source::ColumnMax;
    max.type = ScalarType::I64;
    max.table = col.dict_table;
    max.column = col.dict_column;
    max.comment = "largest code of " + col.dict_table + "." + col.dict_column;
    program.params.push_back(max);
    Buffer b{name, ScalarType::I32, 1, max.name, 1, Buffer::Fill::CodeSet, 0,
             "codes of " + col.dict_table + "." + col.dict_column + " like '" + e.string_value + "'"};
    b.set_table = col.dict_table;
    b.set_column = col.dict_column;
    b.set_pattern = e.string_value;
    program.buffers.push_back(b);
    return sets.emplace(key, name).first->second;
  };
  using SubstrKey = std::tuple<std::string, std::string, int64_t, int64_t>;
  std::map<SubstrKey, std::string> substrings;
  for (const Buffer& b : program.buffers) {
    if (b.fill == Buffer::Fill::CodeStrings) substrings[{b.set_table, b.set_column, b.set_start, b.set_length}] = b.name;
  }
  auto code_strings = [&](const plan::Expr& e) {
    const plan::Expr& col = *e.args.at(0);
    const int64_t start = e.args.at(1)->int_value, length = e.args.at(2)->int_value;
    SubstrKey key{col.dict_table, col.dict_column, start, length};
    auto it = substrings.find(key);
    if (it != substrings.end()) return it->second;
    const std::string name = "substr_" + col.dict_column + "_" + std::to_string(substrings.size());
    Param max;
    max.name = name + "_max_code";
    max.source = Param::Source::ColumnMax;
    max.type = ScalarType::I64;
    max.table = col.dict_table;
    max.column = col.dict_column;
    max.comment = "largest code of " + col.dict_table + "." + col.dict_column;
    program.params.push_back(max);
    Buffer b{name, ScalarType::I64, 1, max.name, 1, Buffer::Fill::CodeStrings, 0,
             "substring(" + col.dict_table + "." + col.dict_column + " from " + std::to_string(start) + " for " +
                 std::to_string(length) + ") of each code, packed"};
    b.set_table = col.dict_table;
    b.set_column = col.dict_column;
    b.set_start = static_cast<int32_t>(start);
    b.set_length = static_cast<int32_t>(length);
    program.buffers.push_back(b);
    return substrings.emplace(key, name).first->second;
  };
  for (const Pipeline& pipeline : program.pipelines) {
    for (plan::Expr* root : pipeline_exprs(program, pipeline)) {
      plan::visit_mutable(*root, [&](plan::Expr& e) {
        if (e.kind == plan::ExprKind::Like && !e.args.at(0)->dict_table.empty()) e.param = code_set(e);
        if (e.kind == plan::ExprKind::Substring && !e.args.at(0)->dict_table.empty()) e.param = code_strings(e);
        if (e.kind != plan::ExprKind::DictCode) return;
        Key key{e.dict_table, e.dict_column, e.string_value, e.match};
        auto it = assigned.find(key);
        if (it == assigned.end()) {
          static const char* suffix[] = {"eq", "lb", "ub", "pe"};
          Param p;
          p.name = "dict_" + e.dict_column + "_" + suffix[static_cast<int>(e.match)] + "_" + std::to_string(counter++);
          p.source = Param::Source::DictCode;
          p.type = ScalarType::I32;
          p.table = e.dict_table;
          p.column = e.dict_column;
          p.literal = e.string_value;
          p.match = e.match;
          p.comment = std::string(plan::dict_match_name(e.match)) + " code of '" + e.string_value + "' in " + e.dict_table + "." + e.dict_column;
          program.params.push_back(p);
          it = assigned.emplace(key, p.name).first;
        }
        e.param = it->second;
      });
    }
  }
}

}  // namespace hqc::ir

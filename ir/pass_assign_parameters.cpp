// Pass assign_parameters.
//   expects: a built program whose DictCode expressions have no `param` yet (or a consistent one).
//   guarantees: every DictCode expression names a Param{DictCode, table, column, literal, match};
//   equal literals share one param. Names: "dict_<column>_<eq|lb|ub>_<n>", n in order of first use,
//   so the text (and the kernel source) is stable across runs and scale factors.
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
  for (const Pipeline& pipeline : program.pipelines) {
    for (plan::Expr* root : pipeline_exprs(program, pipeline)) {
      plan::visit_mutable(*root, [&](plan::Expr& e) {
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

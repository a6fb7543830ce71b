// Pass dictionary_tables.
//   expects: a built program (expressions as the binder made them); runs before assign_parameters.
//   guarantees: every maximal sub-expression of a pipeline that
//     - reads exactly one dictionary column and nothing else (no other column, no run-time value),
//     - has a boolean, integer or packed-string result,
//     - computes something from the column's string (a LIKE, SUBSTRING or string function: plain
//       code comparisons stay as the binder made them), and
//     - frontend/string_functions.h per_string_evaluable accepts,
//   is replaced by a CodeTable node reading that column's code in a per-code table: a
//   Buffer{Fill::CodeTable, table, column, per_code = the sub-expression} of max code + 1 elements
//   (a ColumnMax param "<buffer>_max_code"), I32 for booleans and 32-bit integers, I64 for 64-bit
//   integers and packed strings, which resolve_parameters fills on the host by evaluating the
//   sub-expression once per dictionary string. Names: "codes_<column>_<n>", n in order of first use;
//   equal (table, column, expression) share one buffer.
//   So `upper(trim(p_type)) like '%BRASS' or p_type = 'X'` is one flag per code, `length(p_type)` one
//   integer per code, `substring(p_type from 1 for 3)` one packed string per code. A computed string
//   too long to pack that is not inside such an expression (the binder refuses those it can see)
//   stays and the code generator refuses it.
#include <map>
#include <optional>
#include <tuple>

#include "frontend/string_functions.h"
#include "ir/passes.h"
#include "ir/walk.h"
#include "storage/error.h"

namespace hqc::ir {

namespace {

// The element of a per-code table of values of type `t`; nullopt for types a table does not hold.
std::optional<ScalarType> table_element(const DataType& t) {
  if (t.id == TypeId::Bool || t.id == TypeId::Int32) return ScalarType::I32;
  if (t.id == TypeId::Int64 || (t.is_string() && t.packed)) return ScalarType::I64;
  return std::nullopt;
}

bool tabulable(const plan::Expr& e) {
  return table_element(e.type) && plan::computes_from_string(e) && plan::per_string_column(e) && plan::per_string_evaluable(e);
}

class DictionaryTables {
 public:
  explicit DictionaryTables(Program& program) : program_(program) {}

  // Replaces `e` when it is tabulable, else its maximal tabulable sub-expressions.
  void rewrite(plan::Expr& e) {
    if (tabulable(e)) {
      const plan::Expr& column = *plan::per_string_column(e);
      plan::ExprPtr node = plan::make_code_table(plan::clone(column), table_for(e, column), e.type);
      e = *node;
      return;
    }
    for (plan::ExprPtr& a : e.args) rewrite(*a);
  }

 private:
  std::string table_for(const plan::Expr& e, const plan::Expr& column) {
    const std::string text = e.to_string();
    Key key{column.dict_table, column.dict_column, text};
    if (auto it = tables_.find(key); it != tables_.end()) return it->second;
    const std::string name = "codes_" + column.dict_column + "_" + std::to_string(tables_.size());
    Param max;
    max.name = name + "_max_code";
    max.source = Param::Source::ColumnMax;
    max.type = ScalarType::I64;
    max.table = column.dict_table;
    max.column = column.dict_column;
    max.comment = "largest code of " + column.dict_table + "." + column.dict_column;
    program_.params.push_back(max);
    Buffer b{name, *table_element(e.type), 1, max.name, 1, Buffer::Fill::CodeTable, 0, text + " for each code of " + column.dict_table + "." + column.dict_column};
    b.set_table = column.dict_table;
    b.set_column = column.dict_column;
    b.per_code = plan::clone(e);
    program_.buffers.push_back(b);
    return tables_.emplace(key, name).first->second;
  }

  using Key = std::tuple<std::string, std::string, std::string>;
  Program& program_;
  std::map<Key, std::string> tables_;
};

}  // namespace

void dictionary_tables(Program& program) {
  DictionaryTables tables(program);
  for (const Pipeline& pipeline : program.pipelines)
    for (plan::Expr* root : pipeline_exprs(program, pipeline)) tables.rewrite(*root);
}

}  // namespace hqc::ir

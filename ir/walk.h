// Enumerates the expression roots a pipeline evaluates: its ops' predicates, probe keys and map
// expressions, and its sink's expressions (hash build keys, group keys, accumulator arguments,
// output columns). Passes and the verifier walk expressions through this one place.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ir/program.h"

namespace hqc::ir {

// Roots in evaluation order; the pointers stay valid while the program is not restructured.
std::vector<plan::Expr*> pipeline_exprs(Program& program, const Pipeline& p);
std::vector<const plan::Expr*> pipeline_exprs(const Program& program, const Pipeline& p);
// The roots of the pipeline's ops alone (what a multi-pass count kernel evaluates), in order.
std::vector<const plan::Expr*> op_exprs(const Pipeline& p);

// Whether a node of `e` is 64-bit arithmetic marked for an overflow check (Expr::overflow_check).
bool has_overflow_check(const plan::Expr& e);

// Whether an inner or left outer probe of `p` may match several times (a build on keys that are not
// unique): the rest of the pipeline then runs once per match (codegen's match loop), and the pipeline
// may produce more tuples than its source has rows.
bool matches_several_times(const Program& program, const Pipeline& p);

// The one pipeline whose sink is `kind` into `state`, or nullptr (none, or several: a UNION's arms).
const Pipeline* sole_writer(const Program& program, SinkKind kind, const std::string& state);
Pipeline* sole_writer(Program& program, SinkKind kind, const std::string& state);

// An op id no op of the program has yet (ids are unique across the program).
int next_op_id(const Program& program);

// Pipeline ids (and the "pN " prefix of their names, and dependency lists) follow the pipelines'
// order; `gone` maps ids no longer present to the id that stands in for them in dependency lists.
void renumber_pipelines(Program& program, const std::map<int, int>& gone = {});
// Removes a stage computed twice: pipeline `gone` (its dependants depend on `instead` instead, the
// pipelines renumbered) and `buffers` (the removed state's).
void remove_stage(Program& program, int gone, int instead, const std::set<std::string>& buffers);

// A stage computed twice computed once (passes shared_aggregations, shared_builds): in `tables` (the
// program's aggregation or join tables, each filled by one pipeline with a `sink` sink), the first
// pair, table a before table b, that same(a, a's pipeline, b, b's pipeline) accepts: redirect(a, b)
// points what reads b at a, then b, its buffers (buffers_of(b)) and its pipeline go (remove_stage);
// again until no pair is left.
template <class Table, class Same, class Redirect, class Buffers>
void share_equal_stages(Program& program, std::vector<Table>& tables, SinkKind sink, Same same, Redirect redirect, Buffers buffers_of) {
  for (bool changed = true; changed;) {  // one table at a time: each removal renumbers the pipelines
    changed = false;
    for (size_t b = 0; b < tables.size() && !changed; ++b) {
      for (size_t a = 0; a < b && !changed; ++a) {
        const Pipeline* pa = sole_writer(program, sink, tables[a].name);
        const Pipeline* pb = sole_writer(program, sink, tables[b].name);
        if (pa == nullptr || pb == nullptr || pa->id > pb->id || !same(tables[a], *pa, tables[b], *pb)) continue;
        const int keep = pa->id, gone = pb->id;
        const Table kept = tables[a], dropped = tables[b];  // copies: the vector changes below
        redirect(kept, dropped);
        tables.erase(tables.begin() + static_cast<std::ptrdiff_t>(b));
        remove_stage(program, gone, keep, buffers_of(dropped));
        changed = true;
      }
    }
  }
}

// Whether `a` over scan alias `alias_a` is `b` over `alias_b`: the same tree, node for node, where a
// column of `alias_b` in `b` stands for the same column of `alias_a` (any other column is the same
// one). A stage planned twice (a view read twice) differs only in its scan's alias.
bool same_expr(const plan::Expr& a, const std::string& alias_a, const plan::Expr& b, const std::string& alias_b);

// Calls f on every column of `e` whose string bytes `e` reads: the direct operand of a LIKE,
// SUBSTRING, string function, comparison, BETWEEN or IN list. A heap string only carried along (a
// payload, a group key, an output column) is its row reference and needs no bytes.
void for_each_string_operand(const plan::Expr& e, const std::function<void(const plan::Expr& column)>& f);

}  // namespace hqc::ir

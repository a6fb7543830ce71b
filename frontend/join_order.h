// The join orderer: which relation the probe pipeline starts from and in which order the others
// join it as hash-table build sides, from cardinality estimates (frontend/cardinality.h over
// statistics gathered at load time, or catalog estimates without data).
//
// Runs inside the SQL frontend's join-tree construction (frontend/sql/sql_join_tree.h), after
// the FROM tables are known and their single-table predicates are pushed down, before any join is
// built: the logical plan's joins come out in the order chosen here.
//
// Contract:
//   expects: a JoinGraph whose `ordered` relations are connected by its edges (the caller rejects
//   cross products first: connected_to()); rows >= 1.
//   guarantees: order_joins() returns every ordered relation once, the probe start first, each
//   later one connected by an edge to those before it (never a cross product), in the order of
//   least cost among all such left-deep orders (by dynamic programming over subsets up to
//   kExhaustiveRelations relations; beyond, greedily from every possible probe start). The cost
//   of an order is what the compound kernels do:
//       rows of the probe start (scanned and filtered)
//     + for each join, the rows it outputs (the next probe's input, or the sink's)
//     + kBuildCost x the rows of its build side (an insert takes an atomic and writes the key and
//       the payload columns, a lookup only reads; and the table must fit in device memory)
//     + kMultiMatchCost x (its probe rows + its output rows) when the build side's join columns do
//       not cover one of its unique keys: a multi-match probe has no perfect hash, walks a chain
//       per probe and loops per match, and the pipeline's decimal sums lose the 64-bit bound
//       (ir/build_state.cpp sum_may_overflow) — so a unique build wins whenever one is possible
//   so the largest filtered relation ends up probing (the fact table of a star join), filtered
//   dimensions join first, and n:1 builds are preferred. Among equal costs the probe start is the
//   relation with the most base rows, the builds follow `preference` (then the index).
//   Join output (independent of the order): rows(J ∪ {s}) = rows(J) x rows(s) x the product over
//   relations t of J of the selectivity of the edges between t and s:
//       1 / base_rows(s)            when s's join columns cover a unique key of s (n:1 from t)
//       1 / base_rows(t)            when t's join columns cover a unique key of t (1:n)
//       1 / max(base_rows of both)  when both do (1:1)
//       prod 1 / max(distinct)      over the edges otherwise (an unknown distinct count: the
//                                   relation's base rows)
//   so an n:1 foreign-key join keeps the probe side's rows times the build side's filter
//   selectivity (rows(s) / base_rows(s)).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace hqc::plan {

inline constexpr double kBuildCost = 3.0;
inline constexpr double kMultiMatchCost = 2.0;
inline constexpr size_t kExhaustiveRelations = 12;

struct JoinRelation {
  std::string name;       // for messages and tests
  double base_rows = 1;   // rows before its own filters (what distinct counts and keys refer to)
  double rows = 1;        // rows after its filters: what it brings to a join
  // Column sets whose values identify one row (a primary key, the group keys of an aggregate).
  std::vector<std::vector<std::string>> unique_keys;
  // Which relation joins first among orders of equal cost (lower first); the SQL frontend passes
  // the position of the relation's first join predicate in the query text.
  size_t preference = 0;
  // False for relations the caller joins itself after the ordered ones (the NULL-supplying side
  // of a LEFT OUTER JOIN, a single-row subquery): they are never the probe start or ordered.
  bool ordered = true;
};

// An equality between a column of one relation and a column of another (a column name is empty
// for a computed operand: it counts for connectivity and selectivity, never for a key).
struct JoinEdge {
  size_t left = 0, right = 0;
  std::string left_column, right_column;
  double left_distinct = 0, right_distinct = 0;  // 0: unknown
};

struct JoinGraph {
  std::vector<JoinRelation> relations;
  std::vector<JoinEdge> edges;
};

struct JoinStep {
  size_t relation = 0;
  double rows = 0;            // the probe start's rows, then each join's output rows
  bool unique_build = true;   // the build side's join columns cover one of its unique keys
};

struct JoinOrder {
  std::vector<JoinStep> steps;  // steps[0]: the probe start
  double cost = 0;
};

JoinOrder order_joins(const JoinGraph& graph);

// Selectivity of joining `relation` to the relations marked in `joined` (the product above), and
// whether its join columns towards them cover one of its unique keys.
double join_selectivity(const JoinGraph& graph, const std::vector<bool>& joined, size_t relation);
bool unique_build(const JoinGraph& graph, const std::vector<bool>& joined, size_t relation);

// The ordered relations reachable from `start` through edges between ordered relations.
std::vector<bool> connected_to(const JoinGraph& graph, size_t start);

}  // namespace hqc::plan

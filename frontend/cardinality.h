// Cardinality estimates over bound logical plans, for ordering joins (frontend/join_order.h): the
// fraction of a table's rows a predicate keeps, the rows an operator produces and the column sets
// that identify a row of an operator's output.
//
// Contract:
//   - filter_selectivity() is a central estimate in [kMinSelectivity, 1] (planner/sizing.h's
//     estimate_selectivity() leans high instead, for sizing tables that must not overflow):
//       col = constant                1 / distinct(col)   (a dictionary string absent from the
//                                     dictionary: kMinSelectivity)
//       col <, <=, >, >=, BETWEEN     the covered fraction of [min, max]; the conjuncts of an AND
//                                     that bound the same column are intersected first, so
//                                     `x >= a AND x < b` is one range; dictionary strings compare
//                                     by their codes (Statistics::dictionary_code)
//       col IN (k items)              k / distinct(col)
//       LIKE over a dictionary        the fraction of dictionary entries that match
//       AND / OR / NOT                product / 1 - prod(1 - s) / 1 - s
//     a predicate none of whose columns has statistics (no data: CatalogStatistics knows only key
//     columns; a derived table's columns) keeps kDefaultFilter: without value distributions every
//     filter counts the same and none is strong enough to make a fact table smaller than its
//     dimension, so the order follows table sizes and keys, filtered relations first;
//     where the statistics lack what a rule needs (no data: CatalogStatistics, a computed operand,
//     a column of another table): kDefaultEquality for equalities and LIKE, kDefaultRange for
//     one-sided ranges and comparisons of two columns, kDefaultBetween for two-sided ranges,
//     kDefaultOther for anything else.
//   - estimate_rows() returns op.estimated_rows where a planner set it, else: a scan's table rows;
//     a filter's input x selectivity (of the scanned table when the input is a scan); an
//     aggregate's min(input, product of the group keys' distinct counts), 1 without keys; an inner
//     join's probe x build / max(distinct of a key pair) (a build keyed on its unique key: probe x
//     the build's filtered fraction); left outer at least the probe; a semi join the probe x the
//     fraction of probe keys the build side has, min(1, distinct build keys / distinct probe keys)
//     (distinct counts of the first key pair as for inner joins; a side without one: its rows;
//     neither side, or no keys: kDefaultSemi; a residual predicate is not estimated), an anti join
//     the probe x (1 - that fraction); limit at most its count; others their input. At least 1.
//   - unique_column_sets() lists attribute-name sets of op's output whose values occur at most once:
//     a scan's primary key, an aggregate's group keys (the empty set without keys: one row),
//     carried through filters, maps, order_by, limit, semi / anti joins and projections that pass
//     all of a set's columns through unchanged (under their new names).
#pragma once

#include <string>
#include <vector>

#include "frontend/expr.h"
#include "frontend/logical_plan.h"
#include "frontend/statistics.h"
#include "storage/catalog.h"

namespace hqc::plan {

inline constexpr double kMinSelectivity = 1e-7;
inline constexpr double kDefaultEquality = 0.1;
inline constexpr double kDefaultRange = 1.0 / 3.0;
inline constexpr double kDefaultBetween = 0.25;
inline constexpr double kDefaultOther = 1.0 / 3.0;
inline constexpr double kDefaultSemi = 0.5;
inline constexpr double kDefaultFilter = 0.5;

// `table` is the physical table `predicate`'s columns belong to, or "" when they are not columns of
// one base table (then every rule uses its default).
double filter_selectivity(const Expr& predicate, const std::string& table, const Statistics& stats);
double estimate_rows(const LogicalOp& op, const Statistics& stats);
// Distinct values of `column` (a Column of op's output) in op's output; 0 when unknown.
double estimate_distinct(const LogicalOp& op, const Expr& column, const Statistics& stats);
std::vector<std::vector<std::string>> unique_column_sets(const LogicalOp& op, const Catalog& catalog);

}  // namespace hqc::plan

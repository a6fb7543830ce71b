// GROUP BY over a LEFT JOIN whose groups are the preserved side's rows → the NULL-supplying side
// aggregated by the join key first (eager aggregation).
//
// Contract:
//   expects: a bound Aggregate as the SQL binder makes it (sql_binder.cpp aggregate(); before a
//     DISTINCT split), its input still the join tree's.
//   rewrites it when all of these hold:
//     - its input is a LEFT OUTER join with explicit NULLs (a probe row without a match reads every
//       build column as 0), with keys and no residual, whose build side is the match indicator's
//       Map (sql_join_tree.h with_match_indicator) over a relation B;
//     - every group key reads only the probe side P's attributes, and the keys that are plain
//       columns cover one of P's unique column sets (cardinality.h unique_column_sets): each group
//       is one row of P together with its matches in B;
//     - every aggregate is COUNT(x), COUNT(*), SUM(x), MIN(x) or MAX(x) of an expression x of B's
//       attributes, filtered by exactly `__matched_<b> <> 0` (the binder's NULL skipping: the value
//       of the matched rows only), or COUNT(*) without a filter (every joined row: an unmatched one
//       counts 1, so it becomes CASE WHEN partial = 0 THEN 1 ELSE partial END). AVG of partial AVGs
//       is not the AVG: not rewritten.
//   into
//       Project [each group key as written, each aggregate := its partial]
//         LEFT OUTER JOIN (explicit NULLs) P  with
//           Aggregate [__eager_key<i> := build key i] [__eager_agg_<name> := the same function of x] over B
//   whose schema is the Aggregate's, so what sits above is unchanged. A row of P without a match
//   reads every partial as 0: the COUNTs' answer, and the hidden `__nonnull` count that makes a
//   SUM/MIN/MAX NULL there (sql_binder.cpp add_aggregate) is 0 as well.
//   Otherwise it returns the Aggregate unchanged.
//   Why: the join's build then has one entry per key (a unique build: a perfect hash, one probe)
//   instead of every row of B (a chained multi-match build walked per probe row), and the
//   aggregation over P's rows becomes a map. TPC-H Q13 counts orders per customer this way.
#pragma once

#include <memory>

#include "frontend/logical_plan.h"
#include "storage/catalog.h"

namespace hqc::sql {

std::unique_ptr<plan::LogicalOp> aggregate_before_outer_join(std::unique_ptr<plan::LogicalOp> agg, const Catalog& catalog);

}  // namespace hqc::sql

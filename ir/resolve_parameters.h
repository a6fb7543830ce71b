// Computes the value of every run-time parameter of a program for one database: row counts, key
// minima and domains, dictionary codes of string literals, and hash-table capacities (through the
// sizing in planner/sizing.h); and the contents of per-code buffers (LIKE over a dictionary, SUBSTRINGs of one). The same Program serves every scale factor; only these values differ.
//
// Contract: parameters are resolved in declaration order, so a Product may name earlier params;
// a missing table/column throws Error(Input) naming it; a Product that overflows int64 throws
// Error(Unsupported).
#pragma once

#include "ir/program.h"
#include "planner/sizing.h"
#include "planner/statistics.h"
#include "storage/table.h"

namespace hqc::ir {

ParamValues resolve_parameters(const Program& program, const planner::Statistics& stats);
ParamValues resolve_parameters(const Program& program, const Database& db);
// The rows a Capacity param sizes its table for, before the load factor: the source rows (rows of
// `table`, else `source_rows` — the value of factors[0]) x the selectivity of `predicate` x that of
// each join filter (rows pass a unique join only where the build side's own filters hold), capped by
// the product of the distinct counts of distinct_columns (planner::distinct_of_term). At least 1.
double capacity_estimate(const Param& p, const planner::Statistics& stats, uint64_t source_rows);
// That estimate's parts (the selectivities as per_row, the distinct product as groups, the load factor).
planner::CapacityTerms capacity_terms(const Param& p, const planner::Statistics& stats);
// Elements of buffer `b` under `values` (fixed_elements + multiplier * param).
uint64_t buffer_elements(const Buffer& b, const ParamValues& values);

}  // namespace hqc::ir

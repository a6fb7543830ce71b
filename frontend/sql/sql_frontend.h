// The SQL frontend's entry point: SQL text → bound logical plan (frontend/logical_plan.h), the same
// plan the JSON plan binder (frontend/json_plan.h) produces for the equivalent JSON plan.
//
// Stages: parse_select (frontend/sql/sql_parser.h, libpg_query) → bind_select
// (frontend/sql/sql_binder.h, which builds the join tree in frontend/sql/sql_join_tree.h and binds
// expressions through frontend/bind_expr.h). Supported SQL: docs/sql.md.
//
// Contract: never crashes on any input; every error is an hqc::Error whose message starts with
// "<source_name>:<line>:<col>: " — Input for malformed or ill-typed queries (syntax errors, unknown
// tables or columns with a suggestion, ambiguous columns, type mismatches), Unsupported naming a
// construct horseqc does not handle yet.
#pragma once

#include <string>
#include <vector>

#include "frontend/logical_plan.h"
#include "frontend/statistics.h"
#include "storage/catalog.h"

namespace hqc {

// `source_name` prefixes messages (a file name, or "<sql>"); the plan is named after its stem
// ("ssb/queries/q1.1.sql" → "q1.1"). Joins are ordered from `stats` (the loaded data's statistics,
// planner::DatabaseStatistics), or without them from catalog estimates at SF 1
// (plan::CatalogStatistics): frontend/join_order.h.
plan::LogicalPlan parse_sql(const std::string& sql, const std::string& source_name, const Catalog& catalog,
                            const plan::Statistics* stats = nullptr);
// A script of several queries (horseqc-run --sql-file): every statement but CREATE VIEW / DROP VIEW
// is one query (a SELECT; anything else is refused when it is parsed), with the views created before
// it and not yet dropped. `text` is the whole script with everything else blanked, so parse_sql
// reports positions of the file; `line` is where the query starts. Never throws on bad SQL.
struct ScriptQuery {
  int line = 1;
  std::string text;
};
std::vector<ScriptQuery> split_sql_script(const std::string& script);

// Reads the file and parses it; Error(Input) when the file cannot be read.
plan::LogicalPlan load_sql(const std::string& path, const Catalog& catalog, const plan::Statistics* stats = nullptr);

}  // namespace hqc
